"""A screenshot read as a person would: its pieces of text, and which of them are buttons.

``read_screen`` is the vision side of ``observe``: OCR words grouped into labels
(:mod:`pagesight.vision.grouping`), each checked for a button-like box around it
(:mod:`pagesight.vision.boxes`), with bounds in CSS pixels so that they can be acted on like
DOM elements' bounds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pagesight.cjk import is_unspaced
from pagesight.errors import InvalidOption
from pagesight.vision.boxes import enclosing_box, pixels_of
from pagesight.vision.grouping import Label, group_labels, join_words, label_of
from pagesight.vision.images import decode_png
from pagesight.vision.ocr import OcrEngine, Word
from pagesight.vision.textlines import Box

VisionRole = Literal["text", "button"]
MIN_CONFIDENCE = 50.0
SINGLE_CHAR_CONFIDENCE = 90.0
"""A label of one character needs this much: icons (a select's arrow, a checkbox, a radio
dot) are read as single letters or digits, with lower confidence than real text."""
_FRAME_CHARS = "|[]{}¦_"  # borders next to a word, read as characters
_BULLETS = frozenset("eo°•·*-")  # what Tesseract makes of a list bullet
_LONE_BULLETS = frozenset("eo°•·")  # a bullet far from its text is a label of its own
_BULLET_HEIGHT = 0.6  # a bullet is at most this share of the tallest word beside it


@dataclass(frozen=True, kw_only=True)
class VisionItem:
    """A piece of text on the screen, or a button labelled by it."""

    role: VisionRole
    name: str
    bounds: tuple[int, int, int, int]
    """x, y, width, height in CSS pixels (a button's whole box, a text's own extent)."""
    confidence: float
    """The lowest OCR confidence (0 to 100) among its words."""


def read_screen(
    png: bytes, *, ocr: OcrEngine, scale: float = 1.0, min_confidence: float = MIN_CONFIDENCE
) -> list[VisionItem]:
    """The texts and buttons of a screenshot, in reading order.

    ``scale`` is the screenshot's pixels per CSS pixel (the page's ``devicePixelRatio``).
    Words read with less than ``min_confidence`` are left out.
    """
    if scale <= 0:
        raise InvalidOption("scale", f"scale must be positive, not {scale!r}")
    pixels = pixels_of(decode_png(png))
    words = [clean for w in ocr.read(png) if (clean := _clean(w, min_confidence)) is not None]
    items: list[tuple[VisionRole, str, Box, float]] = []
    by_box: dict[Box, int] = {}  # a button's box -> its place in items
    for label in map(_without_bullet, group_labels(words)):
        if len(label.text) == 1 and (
            (label.confidence < SINGLE_CHAR_CONFIDENCE and not is_unspaced(label.text))
            or label.text in _LONE_BULLETS
        ):  # a one-character Chinese word (是, 否) is a word, not an icon
            continue
        box = enclosing_box(pixels, label.box)
        if box is None:
            items.append(("text", label.text, label.box, label.confidence))
        elif box in by_box:  # a second label in the same box: "Width:" and "240"
            i = by_box[box]
            role, name, _, confidence = items[i]
            items[i] = (
                role,
                join_words([name, label.text]),
                box,
                min(confidence, label.confidence),
            )
        else:
            by_box[box] = len(items)
            items.append(("button", label.text, box, label.confidence))
    return [
        VisionItem(role=role, name=name, bounds=to_css(box, scale), confidence=confidence)
        for role, name, box, confidence in items
    ]


def to_css(box: Box, scale: float) -> tuple[int, int, int, int]:
    """Image pixels -> CSS pixels, rounded outwards so the box still covers what it covered."""
    x, y, w, h = box
    left, top = int(x / scale), int(y / scale)
    right, bottom = -int(-(x + w) // scale), -int(-(y + h) // scale)
    return (left, top, right - left, bottom - top)


def _clean(word: Word, min_confidence: float) -> Word | None:
    """The word without border strokes read as characters; None if nothing readable is left."""
    if word.confidence < min_confidence:
        return None
    text = word.text.strip(_FRAME_CHARS)
    # Rules and icons read alone ("|", "=") go; CJK punctuation (U+3000-303F, full-width
    # forms) is part of the text.
    if not any(c.isalnum() or is_unspaced(c) for c in text):
        return None
    return word if text == word.text else Word(text=text, confidence=word.confidence, box=word.box)


def _without_bullet(label: Label) -> Label:
    """ "e Store" -> "Store": a list bullet read as a letter, known by being small."""
    first, rest = label.words[0], label.words[1:]
    if (
        rest
        and first.text in _BULLETS
        and first.box[3] <= _BULLET_HEIGHT * max(w.box[3] for w in rest)
    ):
        return label_of(rest)
    return label
