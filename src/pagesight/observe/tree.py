"""The semantic tree: immutable nodes built from the walker's terse JSON.

A node is either text (``role == "text"``, the text in ``name``) or an element-like node with a
role, an optional name and value, states, children and — when it can be acted on — a
session-wide element id assigned by :mod:`pagesight.observe.ids`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from pagesight.observe.markup import Markup, from_raw

Bounds = tuple[int, int, int, int]
"""x, y, width, height in CSS pixels of the top-level viewport."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Node:
    role: str
    name: str = ""
    value: str | None = None
    states: tuple[str, ...] = ()
    id: int | None = None
    children: tuple[Node, ...] = ()
    level: int | None = None
    options: tuple[str, ...] = ()
    href: str | None = None
    """A link's target; for an iframe, the URL of the document inside it."""
    bounds: Bounds | None = None
    offscreen: bool = False
    scroll_container: int | None = None
    hidden_in_container: bool = False
    frame: str | None = None
    range: tuple[str, str] | None = None
    error: str | None = None
    """The browser's validation message of a field in the ``invalid`` state."""
    invalid_event: int | None = None
    """The number, in its document, of the last ``invalid`` event fired at the field."""
    markup: Markup | None = None
    name_hint: bool = False
    """The name was guessed from markup (an icon class, an id, nearby text), not given."""
    placeholder: str | None = None
    """An empty labelled field's placeholder, where it says more than the name."""
    name_is_placeholder: bool = False
    """The name is the field's placeholder (it has no label): a hint, not the page's text."""
    hinted_states: tuple[str, ...] = ()
    """Those of ``states`` read from the page's class names ("selected", "active"), not ARIA."""
    upload: bool = False
    """A file input, or a control beside a hidden one that it opens: ``upload`` applies."""
    drag: bool = False
    """Something a person would drag (``draggable``, a grab cursor): ``drag`` is listed."""
    looks: str | None = None
    """The role a link is drawn as, where it differs from its own: ``"button"``."""

    @property
    def is_text(self) -> bool:
        return self.role == "text"

    def walk(self) -> Iterator[Node]:
        """This node and every descendant, in document order."""
        yield self
        for child in self.children:
            yield from child.walk()


IdOf = Callable[[str, int], int]
"""Maps (document token, local id) to the session-wide element id."""


def build(
    raw: list[Any], *, doc: str, frame: str | None, id_of: IdOf, hosts: tuple[str, ...] = ()
) -> tuple[Node, ...]:
    """Turn the walker's list of raw nodes into Nodes, giving actionable ones their ids.

    ``hosts`` is the selector path to the document these nodes were walked in."""
    return tuple(_node(item, doc=doc, frame=frame, id_of=id_of, hosts=hosts) for item in raw)


def _node(item: Any, *, doc: str, frame: str | None, id_of: IdOf, hosts: tuple[str, ...]) -> Node:
    if isinstance(item, str):
        return Node(role="text", name=item, frame=frame)
    local = item.get("i")
    scroller = item.get("sc")
    child_frame = item.get("fu", frame)
    child_doc = item.get("doc", doc)
    markup = from_raw(item, hosts)
    # A cross-origin frame was walked by its own walker: its selectors start inside it.
    child_hosts = markup.path if "doc" in item and markup is not None else hosts
    bounds = item.get("b")
    return Node(
        role=item["r"],
        name=item.get("n", ""),
        value=item.get("v"),
        states=tuple(item.get("s", ())),
        id=id_of(doc, local) if local is not None else None,
        children=build(
            item.get("c", []), doc=child_doc, frame=child_frame, id_of=id_of, hosts=child_hosts
        ),
        level=item.get("lv"),
        options=tuple(item.get("opts", ())),
        href=item.get("h") or (item.get("fu") if item["r"] == "iframe" else None),
        bounds=(bounds[0], bounds[1], bounds[2], bounds[3]) if bounds else None,
        offscreen=bool(item.get("o")),
        scroll_container=id_of(doc, scroller) if scroller is not None else None,
        hidden_in_container=bool(item.get("hc")),
        frame=frame,
        range=(item["min"], item["max"]) if "min" in item else None,
        error=item.get("er"),
        invalid_event=item.get("ie"),
        markup=markup,
        name_hint=bool(item.get("nh")),
        placeholder=item.get("ph"),
        name_is_placeholder=bool(item.get("np")),
        hinted_states=tuple(item.get("hs", ())),
        upload=bool(item.get("up")),
        drag=bool(item.get("dg")),
        looks=item.get("lk"),
    )
