"""Whether a page shows a text, or a control holds a value: the rules behind ``expect "…"``,
``expect text containing "…"``, ``expect X to be "…"`` and ``wait for "…"``, for the steps
planner and the ``act`` tool alike, and the texts most like it when it does not.

``expect "Saved"`` holds where the page shows the text as written, starting a phrase: in
one piece of the page's text (:func:`pieces`: a text, a name, a control's value, a
paragraph, one line of each; not a field's placeholder, a hint rather than what the page
holds), case as written, spacing aside, with a phrase starting right before it and no letter,
digit or underscore right after it (:func:`stands_in`). A phrase starts where the text before
it in that piece, spaces aside (and an opening bracket or quote), is nothing, ends a sentence
(". ! ? … 。", perhaps then a closing quote or bracket) or ends in a symbol ("✓", "•"); not
after a word, nor after a dash, an underscore or a closing quote or bracket that follows
one; a label's colon does start one ("Status: Saved"). "Saved" is shown by "Saved",
"Saved.", "(Saved)", "✓ Saved", "Profile updated. Saved!" and "Saved 3 contacts", not by
"Not saved", "Not Saved", "Not-Saved", "«Not» Saved", "Unsaved", "Saved_draft" or "Contact
saved" ("保存" not by "未保存" nor "保存失败") — the words that negate a text come before it,
so an expectation fails on its negation. Known limits: a negation after it ("Saved: false",
"Saved failed") or before a label's colon ("Not: Saved"), and one in another piece (table
cells "Not" | "Saved") are not seen; lines parted by ``<br>`` or in a ``<pre>`` reach it as
one, joined by a space (the walker's text). ``expect text containing "saved"`` (and ``wait
for``) take the text anywhere, in any case: the forgiving rule (:func:`contains`).
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence

from pagesight.observe import find as finding
from pagesight.observe.observation import Observation
from pagesight.observe.tree import Node

_SPACES = re.compile(r"\s+")
_CLOSING = re.compile(r" ([,.;:!?…)\]}%])")


def texts(obs: Observation) -> list[str]:
    """Every text the page shows: each node's name and value."""
    out: list[str] = []

    def walk(nodes: Sequence[Node]) -> None:
        for node in nodes:
            out.extend(t for t in (node.name, node.value) if t)
            walk(node.children)

    walk(obs.tree)
    return out


def pieces(obs: Observation) -> list[str]:
    """The pieces of text the page shows, each one line with its spacing collapsed: every
    node's name and value, line by line (not a name that is only a field's placeholder), and
    a paragraph's words as one line (its text with the links and other inline parts in it, as
    the outline reads it)."""
    out: list[str] = []

    def add(text: str) -> None:
        out.extend(p for p in (_spaced(line) for line in text.splitlines()) if p)

    def walk(nodes: Sequence[Node]) -> None:
        for node in nodes:
            for text in (None if node.name_is_placeholder else node.name, node.value):
                if text:
                    add(text)
            if node.role == "paragraph" and node.children:
                joined = " ".join(_spaced(c.name) for c in node.children if c.name)
                add(_CLOSING.sub(r"\1", joined))  # "Welcome, Alice!" with Alice a link
            walk(node.children)

    walk(obs.tree)
    return out


def _spaced(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def shown(obs: Observation, want: str) -> str | None:
    """The piece of the page's text that shows ``want`` as written, as a phrase of its own
    (see the module's rule), or None."""
    want = _spaced(want)
    if not want:
        return None
    return next((piece for piece in pieces(obs) if stands_in(piece, want)), None)


def stands_in(piece: str, want: str) -> bool:
    """Whether ``want`` is in ``piece`` as written, starting a phrase of it (the module's rule:
    "Not Saved", "Not-Saved" do not hold "Saved": spaces do not part a word from
    the one before), no letter, digit or underscore right after it ("Saved" is not in "Savedx"
    nor "Saved_draft", "14" not in "140"), and a number not inside a larger one ("14" is not in
    "1.14" or "14.5"; a number may follow a colon or a dash: "Total: 14"). Only a letter or
    digit at an end of ``want`` needs that end free."""
    at = piece.find(want)
    while at != -1:
        if _free(piece[:at], want[0], before=True) and _free(
            piece[at + len(want) :], want[-1], before=False
        ):
            return True
        at = piece.find(want, at + 1)
    return False


# Before a match that starts with a letter, what ends the text before it (spaces aside) says
# whether a new phrase starts there: a sentence's end does ("Profile updated. Saved!",
# "(Done.) Saved"), a symbol does ("✓ Saved", "• Saved"); a word does not, nor a dash,
# an underscore, a closing quote or bracket after a word ("Not-Saved", "«Not» Saved"); a
# label's colon does ("Status: Saved", "已保存: 职位 → CTO"). An opening bracket or quote right
# before it goes with it ("(Saved)", "“Saved”").
_SENTENCE_END = frozenset(".!?…。\uff01\uff1f｡‼⁇⁈⁉")  # with the full-width ! and ?
_STRAIGHT_QUOTES = frozenset("\"'`\uff02\uff07")


def _category(char: str) -> str:
    return unicodedata.category(char)


def _joins(char: str) -> bool:
    """Whether ``char`` beside a word's letter or digit makes it part of the word: a letter, a
    digit or a connector ("Saved_draft")."""
    return char.isalnum() or _category(char) == "Pc"


def _free(beside: str, edge: str, *, before: bool) -> bool:
    """Whether the text ``beside`` the match (before it, or after it) leaves its ``edge``
    character (the match's first, or last) free."""
    if not edge.isalnum() or not beside:
        return True
    # After it, only right beside it: "Booking confirmed" starts "Booking confirmed for Ada".
    if not before:
        nearest = beside[0]
        if _joins(nearest):
            return False
        # A decimal point or a thousands comma between digits joins them into one number.
        if edge.isdigit() and nearest in ".," and len(beside) >= 2:
            return not beside[1].isdigit()
        return True
    # Before it, across spaces: the words that came before ("Not", "Couldn't be") negate it.
    if edge.isdigit() and beside[-1] in ".," and len(beside) >= 2 and beside[-2].isdigit():
        return False  # "1.14" does not show "14"
    near = beside.rstrip()
    while near and (_category(near[-1]) in ("Ps", "Pi") or near[-1] in _STRAIGHT_QUOTES):
        near = near[:-1].rstrip()
    if not near:
        return True
    ended = near
    while ended and (_category(ended[-1]) in ("Pe", "Pf") or ended[-1] in _STRAIGHT_QUOTES):
        ended = ended[:-1]
    if ended and ended[-1] in _SENTENCE_END:
        return True
    nearest = near[-1]
    if _joins(nearest):
        return False
    if edge.isdigit():
        return True  # a number after a label's colon or a dash is its value: "Total: 14"
    return _category(nearest) not in ("Pd", "Pe", "Pf")


def contains(obs: Observation, want: str) -> str | None:
    """The forgiving rule: the piece of the page's text that has ``want`` anywhere in it, case
    and spacing aside (``want`` itself when it spans two pieces), or None."""
    wanted = finding.normalise(want)
    if not wanted:
        return None
    for piece in pieces(obs):
        if wanted in finding.normalise(piece):
            return piece
    if wanted in finding.normalise("\n".join(texts(obs))):
        return want
    return None


def has_value(seen: str | None, want: str) -> bool:
    """Whether a control's value ``seen`` is ``want`` (case and spacing do not matter)."""
    return finding.normalise(seen or "") == finding.normalise(want)


def closest_texts(obs: Observation, want: str) -> str:
    """The texts of the page most like ``want``, with find's scores."""
    q = finding.Query.parse(want) if finding.normalise(want) else None
    scored: list[tuple[float, str]] = []
    seen: set[str] = set()

    def walk(nodes: Sequence[Node]) -> None:
        for node in nodes:
            if q is not None and node.name and node.name not in seen:
                seen.add(node.name)
                points = finding.score(q, finding.Target.of(node))
                if points > 0:
                    scored.append((points, node.name))
            walk(node.children)

    walk(obs.tree)
    scored.sort(key=lambda s: -s[0])
    if not scored:
        return f"nothing like it on {obs.url}"
    return "; ".join(f"{quoted(t)} (score {p:g})" for p, t in scored[:3])


def quoted(text: str) -> str:
    """``text`` in double quotes, cut to 80 characters."""
    return json.dumps(text if len(text) <= 80 else text[:79] + "…", ensure_ascii=False)
