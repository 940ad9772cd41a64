"""Vision: what pagesight sees on a screenshot when the DOM has nothing to offer.

* :func:`draw_marks` — a set-of-marks screenshot (a dashed box and a numbered badge per element).
* :func:`read_screen` — texts and buttons read from a screenshot by OCR (:class:`TesseractOcr`).
* :func:`diff_screens` — what changed between two screenshots.
* :class:`Captioner` — what describes a screenshot in words; a vision-language model's client
  is :class:`pagesight.models.VlmClient`, and a fake server to test it against is in
  :mod:`pagesight.testing.fake_vlm`.
"""

from pagesight.act.effect import ScreenChange
from pagesight.errors import OcrFailed, OcrNotFound, VisionModelError
from pagesight.vision.diff import diff_screens
from pagesight.vision.grouping import Label, group_labels, join_words
from pagesight.vision.marks import Kind, Mark, draw_marks, kind_for_role, layout_marks, marks_for
from pagesight.vision.ocr import OcrEngine, TesseractOcr, Word
from pagesight.vision.perception import VisionItem, read_screen
from pagesight.vision.screen import Captioner

__all__ = [
    "Captioner",
    "Kind",
    "Label",
    "Mark",
    "OcrEngine",
    "OcrFailed",
    "OcrNotFound",
    "ScreenChange",
    "TesseractOcr",
    "VisionItem",
    "VisionModelError",
    "Word",
    "diff_screens",
    "draw_marks",
    "group_labels",
    "join_words",
    "kind_for_role",
    "layout_marks",
    "marks_for",
    "read_screen",
]
