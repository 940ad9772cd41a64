"""The rule ``expect "TEXT"`` holds by (observe/shown.py): the text as written, starting a
phrase of one piece of the page's text — so an expectation fails on its negation."""

from __future__ import annotations

import pytest

from pagesight.observe.observation import Observation
from pagesight.observe.shown import pieces, shown, stands_in
from pagesight.observe.tree import Node

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
    ("✓ Saved.", "Saved"),
    ("✔Saved", "Saved"),  # a symbol starts a phrase
    ("• Saved", "Saved"),
    ("(Saved)", "Saved"),  # an opening bracket or quote goes with it
    ("“Saved”", "Saved"),
    ("Profile updated.” Saved", "Saved"),  # a sentence's end, then a closing quote
    ("(Done!) Saved", "Saved"),
    ("设置已更新。保存", "保存"),
    ("Total - 14", "14"),  # a number after a dash or a colon is its value
    ("Status: Saved", "Saved"),  # a label's colon starts a phrase
    ("已保存: 职位 → 高级软件工程师", "职位 → 高级软件工程师"),  # Orbit's own message
    ("状态\uff1a保存", "保存"),  # a full-width colon
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
    ("Not-Saved", "Saved"),  # a dash or a closing quote after a word starts nothing
    ("Not—Saved", "Saved"),
    ("Not - Saved", "Saved"),
    ("Not \u2013 Saved", "Saved"),  # an en dash
    ("«Not» Saved", "Saved"),
    ('"Not" Saved', "Saved"),
    ("(Not) Saved", "Saved"),
    ("Not (Saved)", "Saved"),  # an opening bracket does not part it from the word before
    ("Not_Saved", "Saved"),
    ("Saved_draft", "Saved"),  # an underscore joins a word like a letter
]


@pytest.mark.parametrize(("piece", "want"), HOLDS)
def test_the_text_as_written_starting_a_phrase_holds(piece: str, want: str) -> None:
    assert stands_in(piece, want)


@pytest.mark.parametrize(("piece", "want"), FAILS)
def test_its_negation_another_case_or_part_of_a_word_does_not(piece: str, want: str) -> None:
    assert not stands_in(piece, want)


def _field(**kw: object) -> Observation:
    node = Node(role="textbox", id=1, **kw)  # type: ignore[arg-type]
    return Observation(url="http://x/", title="", ready=True, mode="cdp", tree=(node,), elements=())


def test_a_placeholder_is_a_hint_not_what_the_page_shows() -> None:
    assert pieces(_field(name="Saved", value="", name_is_placeholder=True)) == []
    assert shown(_field(name="Saved", value="", name_is_placeholder=True), "Saved") is None
    # A field's label and its value are the page's.
    assert pieces(_field(name="Status", value="Saved")) == ["Status", "Saved"]
    assert shown(_field(name="Saved", value=""), "Saved") == "Saved"


def test_each_line_of_a_text_is_a_piece() -> None:
    obs = _field(name="Notes", value="Profile\nSaved")
    assert shown(obs, "Saved") == "Saved"
