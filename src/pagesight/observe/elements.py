"""Element and Changes: the things on a page an agent can act on, and what changed among them."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pagesight.observe.markup import Markup
from pagesight.observe.tree import Bounds


@dataclass(frozen=True, kw_only=True)
class Element:
    """A node the agent can act on, addressed by its session-wide ``id``."""

    id: int
    role: str
    name: str
    value: str | None = None
    states: frozenset[str] = frozenset()
    actions: tuple[str, ...] = ()
    offscreen: bool = False
    """Not in the viewport now (below the fold, or scrolled out of its container)."""
    scroll_container: int | None = None
    """The id of the nearest scroll container it sits in (``None``: the page itself)."""
    hidden_in_container: bool = False
    """Its scroll container must be scrolled to reveal it (not just the page)."""
    frame: str | None = None
    bounds: Bounds | None = None
    options: tuple[str, ...] = ()
    href: str | None = None
    context: str | None = None
    """The nearest heading or group label, which tells identical controls apart."""
    error: str | None = None
    """Why the browser's own form validation rejects the field ("Please fill out this
    field."), once the person was told: after editing it or after a submit it stopped."""
    markup: Markup | None = None
    """Tag, key attributes and a unique selector path; set when observed with
    ``include={"selector"}`` (and always by ``page.find``)."""
    name_hint: bool = False
    """The page gave it no name: ``name`` is a guess from its markup (an icon class, an SVG
    sprite, an image file, an id or test id, the text beside it), shown ``~"name"``."""
    placeholder: str | None = None
    """The placeholder an empty, labelled field shows (when it differs from the name)."""
    hinted_states: frozenset[str] = frozenset()
    """Those of ``states`` read from the page's own class names (``selected``, ``active``…)
    where ARIA says nothing: a hint, like ``name_hint``."""
    looks: str | None = None
    """The role it is drawn as, where that differs from its own: ``"button"`` for a link
    drawn as one (a filled, padded box, or a ``btn``/``button`` class), which people call a
    button and ``find("the Edit button")`` counts as one."""

    @property
    def quoted_name(self) -> str:
        """The name as every text a model reads writes it: quoted, after a ``~`` when it is a
        hint guessed from markup (``~"search"``)."""
        return ("~" if self.name_hint else "") + json.dumps(self.name, ensure_ascii=False)

    def to_dict(self, include: frozenset[str] = frozenset()) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "role": self.role, "name": self.name}
        if self.name_hint:
            out["name_hint"] = True
        if self.value is not None:
            out["value"] = self.value
        if self.placeholder is not None:
            out["placeholder"] = self.placeholder
        if self.states:
            out["states"] = sorted(self.states)
        if self.hinted_states:
            out["hinted_states"] = sorted(self.hinted_states)
        if self.looks is not None:
            out["looks"] = self.looks
        out["actions"] = list(self.actions)
        if self.options:
            out["options"] = list(self.options)
        if self.offscreen:
            out["offscreen"] = True
        if self.scroll_container is not None:
            out["scroll_container"] = self.scroll_container
        if self.hidden_in_container:
            out["hidden_in_container"] = True
        if self.frame is not None:
            out["frame"] = self.frame
        if self.context:
            out["context"] = self.context
        if self.error is not None:
            out["error"] = self.error
        if "bounds" in include and self.bounds is not None:
            out["bounds"] = list(self.bounds)
        if "href" in include and self.href is not None:
            out["href"] = self.href
        if "selector" in include and self.markup is not None:
            out.update(self.markup.to_dict())
        return out


@dataclass(frozen=True, kw_only=True)
class Changes:
    """What changed among the elements since a previous observation."""

    added: tuple[Element, ...] = ()
    removed: tuple[Element, ...] = ()
    changed: tuple[tuple[Element, Element], ...] = ()
    """Pairs of (before, after) for elements whose role, name, value, states or options moved."""
    new_document: bool = False
    """The page is another document now: nothing carries over, so the whole page is shown."""

    def to_dict(self, include: frozenset[str] = frozenset()) -> dict[str, Any]:
        return {
            "new_document": self.new_document,
            "added": [el.to_dict(include) for el in self.added],
            "removed": [el.to_dict(include) for el in self.removed],
            "changed": [
                {"before": a.to_dict(include), "after": b.to_dict(include)} for a, b in self.changed
            ],
        }
