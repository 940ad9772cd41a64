"""The errors of the vision package, placed in pagesight's one hierarchy.

::

    SetupError     (2)
    └── OcrNotFound            the tesseract binary or one of its language packs is missing
    RuntimeFailure (1)
    ├── OcrFailed              tesseract ran but failed (a bad image, a crash, a time-out)
    └── VisionModelError       a vision-language model did not answer usably

They live here until the vision package is wired into the public API, which exports every
class of ``pagesight.errors`` (tests/test_api.py checks that); they then move there.
"""

from __future__ import annotations

from pagesight.errors import RuntimeFailure, SetupError


class OcrNotFound(SetupError):
    """Tesseract, or the language data asked for, is not installed."""


class OcrFailed(RuntimeFailure):
    """Tesseract ran but did not read the image."""


class VisionModelError(RuntimeFailure):
    """A vision-language model endpoint failed, refused, or answered in an unknown shape.

    ``status`` is the HTTP status when there was one.
    """

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status
