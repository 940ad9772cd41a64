"""Whether a page shows a text, or a control holds a value: the rules behind ``expect "…"``,
``expect text containing "…"``, ``expect X to be "…"`` and ``wait for "…"``, for the steps
planner and the ``act`` tool alike, and the texts most like it when it does not.

``expect "Saved"`` holds where the page shows the text as written, starting a phrase: in
one piece of the page's text (:func:`pieces`: a text, a name, a control's value, a
paragraph), case as written, spacing aside, with nothing but spaces, punctuation or symbols
before it in that piece and no letter or digit right after it (:func:`stands_in`). "Saved"
is shown by "Saved", "Saved.", "✓ Saved", "Profile updated. Saved!" and "Saved 3 contacts",
not by "Not saved", "Not Saved", "Unsaved" or "Contact saved" ("保存" not by "未保存" nor
"保存失败") — the words that negate a text come before it, so an expectation fails on its
negation. ``expect text
containing "saved"`` (and ``wait for``) take the text anywhere, in any case: the forgiving
rule (:func:`contains`).
"""

from __future__ import annotations

import json
import re
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
    node's name and value, line by line, and a paragraph's words as one line (its text with
    the links and other inline parts in it, as the outline reads it)."""
    out: list[str] = []

    def add(text: str) -> None:
        out.extend(p for p in (_spaced(line) for line in text.splitlines()) if p)

    def walk(nodes: Sequence[Node]) -> None:
        for node in nodes:
            for text in (node.name, node.value):
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
    """Whether ``want`` is in ``piece`` as written, starting a phrase of it: nothing but
    spaces, punctuation or symbols before it ("Not Saved" does not hold "Saved": spaces do
    not part a word from the one before), no letter or digit right after it ("Saved" is not
    in "Savedx", "14" not in "140"), and a number not inside a larger one ("14" is not in
    "1.14" or "14.5"). Only a letter or digit at an end of ``want`` needs that end free."""
    at = piece.find(want)
    while at != -1:
        if _free(piece[:at], want[0], before=True) and _free(
            piece[at + len(want) :], want[-1], before=False
        ):
            return True
        at = piece.find(want, at + 1)
    return False


def _free(beside: str, edge: str, *, before: bool) -> bool:
    """Whether the text ``beside`` the match (before it, or after it) leaves its ``edge``
    character (the match's first, or last) free."""
    if not edge.isalnum() or not beside:
        return True
    # Before it, across spaces: the words that came before ("Not", "Couldn't be") would
    # negate it. After it, only right beside it: "Booking confirmed" starts "Booking
    # confirmed for Ada".
    near = beside.rstrip() if before else beside
    if not near:
        return True
    nearest = near[-1] if before else near[0]
    if nearest.isalnum():
        return False
    # A decimal point or a thousands comma between digits joins them into one number.
    if edge.isdigit() and nearest in ".," and len(beside) >= 2 and beside == near:
        return not (beside[-2] if before else beside[1]).isdigit()
    return True


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
