"""Vision: what pagesight sees on a screenshot when the DOM has nothing to offer.

* :func:`draw_marks` — a set-of-marks screenshot (a dashed box and a numbered badge per element).
"""

from pagesight.vision.marks import Kind, Mark, draw_marks, kind_for_role, layout_marks, marks_for

__all__ = [
    "Kind",
    "Mark",
    "draw_marks",
    "kind_for_role",
    "layout_marks",
    "marks_for",
]
