"""Chinese, Japanese and Korean text: the one table of their Unicode blocks.

Two questions are asked of a character, by different parts of pagesight:

* :func:`is_cjk` — is it Chinese, Japanese or Korean (letters, punctuation, full-width forms)?
  ``find`` cuts such text into bigrams rather than words.
* :func:`is_unspaced` — is it of a script written without spaces between words (Chinese,
  Japanese)? Vision joins such characters, which Tesseract reads with spaces between them.
  Korean is written with spaces, so Hangul is CJK but not unspaced.
"""

from __future__ import annotations

# (first, last, written without spaces between words)
_BLOCKS = (
    (0x1100, 0x11FF, False),  # Hangul Jamo
    (0x3000, 0x303F, True),  # CJK Symbols and Punctuation (ideographic full stop, comma, quotes)
    (0x3040, 0x309F, True),  # Hiragana
    (0x30A0, 0x30FF, True),  # Katakana
    (0x3130, 0x318F, False),  # Hangul Compatibility Jamo
    (0x3400, 0x4DBF, True),  # CJK Unified Ideographs Extension A
    (0x4E00, 0x9FFF, True),  # CJK Unified Ideographs
    (0xAC00, 0xD7AF, False),  # Hangul Syllables
    (0xF900, 0xFAFF, True),  # CJK Compatibility Ideographs
    (0xFF00, 0xFFEF, True),  # Half-width and Full-width Forms (full-width commas, colons)
    # Extensions B to F and the compatibility supplement (the second plane), then G and H
    # (the third plane, Unicode 13 and 15).
    (0x20000, 0x2FA1F, True),
    (0x30000, 0x323AF, True),
)
_ALL = tuple((first, last) for first, last, _ in _BLOCKS)
_UNSPACED = tuple((first, last) for first, last, unspaced in _BLOCKS if unspaced)


def is_cjk(char: str) -> bool:
    """Whether a character is Chinese, Japanese or Korean."""
    code = ord(char)
    return any(first <= code <= last for first, last in _ALL)


def is_unspaced(char: str) -> bool:
    """Whether a character belongs to a script written without spaces (Chinese, Japanese)."""
    code = ord(char)
    return any(first <= code <= last for first, last in _UNSPACED)
