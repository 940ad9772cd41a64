"""The rule ``expect "TEXT"`` holds by (observe/shown.py): the text as written, starting a
phrase of one piece of the page's text — so an expectation fails on its negation."""

from __future__ import annotations

import pytest

from pagesight.observe.shown import stands_in

HOLDS = [
    ("Saved", "Saved"),
    ("Saved.", "Saved"),
    ("Saved!", "Saved"),
    ("✓ Saved", "Saved"),
    ("Profile updated. Saved!", "Saved"),
    ("Saved 3 contacts", "Saved"),
    ("Booking confirmed for Ada Lovelace: 4 people.", "Booking confirmed"),
    ("已保存 Alice Chen", "已保存 Alice Chen"),
    ("Total: 14", "14"),
    ("Inbox (3)", "(3)"),  # no letter or digit at its start: nothing before it matters
]
FAILS = [
    ("Not saved", "Saved"),  # case as written
    ("Not Saved", "Saved"),  # a word before it, across the space
    ("NOT SAVED", "Saved"),
    ("Unsaved", "Saved"),
    ("Contact saved", "saved"),
    ("Savedx", "Saved"),
    ("未保存", "保存"),
    ("保存失败", "保存"),
    ("140", "14"),
    ("1.14", "14"),
    ("14.5", "14"),
]


@pytest.mark.parametrize(("piece", "want"), HOLDS)
def test_the_text_as_written_starting_a_phrase_holds(piece: str, want: str) -> None:
    assert stands_in(piece, want)


@pytest.mark.parametrize(("piece", "want"), FAILS)
def test_its_negation_another_case_or_part_of_a_word_does_not(piece: str, want: str) -> None:
    assert not stands_in(piece, want)
