"""Words -> lines -> labels: what a person would read as one piece of text on a screen.

A line is words side by side (their vertical extents overlap). A line splits into labels
where the horizontal gap between two words is wide: a toolbar's "File   Edit   View" is three
labels, "Last action: none" one. Tesseract reads Chinese and Japanese a character or two at a
time and puts spaces between them; labels join CJK neighbours without a space.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise

from pagesight.cjk import is_unspaced
from pagesight.vision.ocr import Word
from pagesight.vision.textlines import Box

GAP_PER_HEIGHT = 0.9
"""Split a line where the space between words is wider than this many line heights. A word
space is about a third of the font size; the gap between two toolbar items is a font size or
more."""


@dataclass(frozen=True, kw_only=True)
class Label:
    """Text read as one piece: its words, their union box and their lowest confidence."""

    text: str
    box: Box
    confidence: float
    words: tuple[Word, ...]


def join_words(texts: Iterable[str]) -> str:
    """Join words with spaces, except between two characters of Chinese or Japanese."""
    out = ""
    for raw in texts:
        text = _close_cjk_spaces(raw.strip())
        if not text:
            continue
        if out and not (is_unspaced(out[-1]) and is_unspaced(text[0])):
            out += " "
        out += text
    return out


def _close_cjk_spaces(text: str) -> str:
    """'保 存' -> '保存'; spaces next to Latin text stay."""
    chars = list(text)
    kept = [
        c
        for i, c in enumerate(chars)
        if not (
            c == " "
            and 0 < i < len(chars) - 1
            and is_unspaced(chars[i - 1])
            and is_unspaced(chars[i + 1])
        )
    ]
    return "".join(kept)


def group_lines(words: Iterable[Word]) -> list[list[Word]]:
    """Words in lines, top to bottom, each line left to right.

    A word joins a line when its vertical extent overlaps the line's by at least half of the
    smaller height, so a superscript or a taller CJK glyph stays on its line while the line
    below does not join.
    """
    lines: list[tuple[int, int, list[Word]]] = []  # top, bottom, words
    for word in sorted(words, key=lambda w: (w.box[1] + w.box[3] / 2, w.box[0])):
        top, bottom = word.box[1], word.box[1] + word.box[3]
        for i, (line_top, line_bottom, members) in enumerate(lines):
            overlap = min(bottom, line_bottom) - max(top, line_top)
            if overlap >= 0.5 * min(bottom - top, line_bottom - line_top):
                members.append(word)
                lines[i] = (min(top, line_top), max(bottom, line_bottom), members)
                break
        else:
            lines.append((top, bottom, [word]))
    return [sorted(members, key=lambda w: w.box[0]) for _, _, members in lines]


def split_line(line: Sequence[Word], *, gap_per_height: float = GAP_PER_HEIGHT) -> list[Label]:
    """One line's words (left to right) as labels, split at wide gaps."""
    if not line:
        return []
    # The tallest word stands for the font size: "none" alone is only x-height tall.
    height = max(w.box[3] for w in line)
    labels: list[list[Word]] = [[line[0]]]
    for previous, word in pairwise(line):
        gap = word.box[0] - (previous.box[0] + previous.box[2])
        if gap > gap_per_height * height:
            labels.append([word])
        else:
            labels[-1].append(word)
    return [label_of(words) for words in labels]


def group_labels(words: Iterable[Word], *, gap_per_height: float = GAP_PER_HEIGHT) -> list[Label]:
    """Words grouped into labels, in reading order (lines top to bottom, left to right)."""
    return [
        label
        for line in group_lines(words)
        for label in split_line(line, gap_per_height=gap_per_height)
    ]


def union(boxes: Iterable[Box]) -> Box:
    """The smallest box holding every box given."""
    items = list(boxes)
    left = min(b[0] for b in items)
    top = min(b[1] for b in items)
    right = max(b[0] + b[2] for b in items)
    bottom = max(b[1] + b[3] for b in items)
    return (left, top, right - left, bottom - top)


def label_of(words: Sequence[Word]) -> Label:
    """The label made of these words (left to right)."""
    return Label(
        text=join_words(w.text for w in words),
        box=union(w.box for w in words),
        confidence=min(w.confidence for w in words),
        words=tuple(words),
    )
