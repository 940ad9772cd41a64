"""When the DOM reading is blind: what makes ``observe(mode="auto")`` turn to the screenshot."""

from __future__ import annotations

from pagesight.observe.observation import Observation
from pagesight.observe.tree import Node

_READABLE = frozenset({"text", "heading"})


def offers_something(obs: Observation) -> bool:
    """Whether the DOM has something to offer a model: a control to act on by name, or text
    to read (a heading, a paragraph). A bare canvas or an unnamed full-page click target is
    neither; a page of plain text is read better from its DOM than by OCR of its pixels."""
    # A canvas is pixels whatever its name (an id-hinted ~"app" names the box, not a control).
    named = any(
        el.name.strip() and el.role != "canvas" and ({"click", "input", "select"} & set(el.actions))
        for el in obs.elements
    )
    return named or any(_has_text(top) for top in obs.tree)


def _has_text(node: Node) -> bool:
    """Whether ``node`` or a descendant is text to read. What a canvas holds is fallback
    content Chromium never paints ("your browser does not support canvas"): not read."""
    if node.role == "canvas":
        return False
    if node.role in _READABLE and _has_words(node.name):
        return True
    return any(_has_text(child) for child in node.children)


def _has_words(text: str) -> bool:
    return any(c.isalnum() for c in text)
