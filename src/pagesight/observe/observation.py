"""Observation and Element: what an agent knows about a page at one moment."""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal, get_args

from pagesight.errors import InvalidOption
from pagesight.observe.markup import Markup
from pagesight.observe.tree import Bounds, Node

if TYPE_CHECKING:
    from pagesight.observe.find import Index, Match

Mode = Literal["cdp", "evaluate", "vision"]
"""Which reading produced an observation: the walker over CDP or ``evaluate``, or a screenshot."""
ObserveMode = Literal["auto", "cdp", "evaluate", "vision"]
"""What ``observe(mode=)`` accepts: ``auto`` reads the DOM and turns to vision when it is empty."""
View = Literal["full", "interactive"]
Format = Literal["outline", "json", "legend"]
INCLUDABLE = frozenset({"bounds", "href", "selector"})

DATE_ROLES = ("date", "time", "datetime-local", "month", "week")
"""The roles of date and time inputs: each is the input's type, whose format its value has."""
# The actions each role accepts; every visible element can also be hovered.
_ACTIONS: dict[str, tuple[str, ...]] = {
    "textbox": ("click", "input", "input_submit", "press_key"),
    "searchbox": ("click", "input", "input_submit", "press_key"),
    "spinbutton": ("click", "input", "input_submit", "press_key"),
    "combobox": ("click", "select", "input", "press_key"),
    "listbox": ("select", "press_key"),
    "slider": ("click", "input", "press_key"),
    "iframe": (),
    **dict.fromkeys(DATE_ROLES, ("click", "input", "input_submit", "press_key")),
}


def actions_for(
    role: str, states: Iterable[str], *, upload: bool = False, drag: bool = False
) -> tuple[str, ...]:
    """The actions that apply to an element of this role in these states; ``upload`` for a
    file input or a control that opens a hidden one; ``drag`` for a slider and what the page
    marks as draggable (listed only there: on every element it is noise a model pays for)."""
    base = _ACTIONS.get(role, ("click",))
    extra = ("scroll",) if "scrollable" in states else ()
    if role == "group" and extra:
        base = ()
    files = ("upload",) if upload else ()
    dragged = ("drag",) if drag or role == "slider" else ()
    return (*base, *files, "hover", *dragged, *extra)


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


@dataclass(frozen=True, kw_only=True)
class Observation:
    """The page at one moment: its semantic tree and the elements that can be acted on."""

    url: str
    title: str
    ready: bool
    mode: Mode
    tree: tuple[Node, ...]
    elements: tuple[Element, ...]
    view: View = "full"
    include: frozenset[str] = frozenset()
    notes: tuple[str, ...] = ()
    """What budgets or focus left out, said in the text so a model knows it is not all."""
    max_chars: int | None = None
    """Deterministic cut of the text, applied when rendering."""
    changes: Changes | None = None
    """Set by ``observe(since=previous)``: the text then shows only these changes, while
    ``tree`` and ``elements`` stay whole (so the next ``since`` can build on this one)."""
    description: str | None = None
    """A vision-language model's caption of the screenshot (vision mode, when one is set up)."""

    def text(self, format: Format = "outline") -> str:
        """The observation as text for a model: ``outline`` (default), ``legend`` or ``json``."""
        from pagesight.observe import render

        if format == "json":
            return self.to_json()
        if format == "legend":
            return render.legend(self)
        return self._outline

    @cached_property
    def _outline(self) -> str:
        from pagesight.observe import render
        from pagesight.observe.budget import truncate_chars

        text = render.outline(self)
        return text if self.max_chars is None else truncate_chars(text, self.max_chars)

    @cached_property
    def tokens(self) -> int:
        """cl100k token count of :meth:`text`."""
        from pagesight.tokens import count_tokens

        return count_tokens(self._outline)

    def find(self, query: str, *, top: int = 5) -> list[Match]:
        """The ``top`` elements that best match ``query`` ("搜索框", "the Save button"), best
        first, each with its score, a unique selector and a one-line description; nothing in
        the browser is touched. Selectors need an observation taken with
        ``include={"selector"}`` (as ``page.find`` does). See :mod:`pagesight.observe.find`."""
        from pagesight.observe.find import find

        return find(self.elements, query, top=top, index=self._find_index)

    @cached_property
    def _find_index(self) -> Index:
        from pagesight.observe.find import Index

        return Index(self.elements)

    def element(self, element_id: int) -> Element:
        """The element with this id; ``KeyError`` if this observation does not hold it."""
        for el in self.elements:
            if el.id == element_id:
                return el
        raise KeyError(f"no element [{element_id}] in this observation")

    def to_dict(self) -> dict[str, Any]:
        from pagesight.observe import render

        return {
            "url": self.url,
            "title": self.title,
            "ready": self.ready,
            "mode": self.mode,
            **({"description": self.description} if self.description else {}),
            "view": self.view,
            "tokens": self.tokens,
            "notes": list(self.notes),
            **({"changes": self.changes.to_dict(self.include)} if self.changes else {}),
            "elements": [el.to_dict(self.include) for el in self.elements],
            "tree": render.tree_dict(self),
        }

    def to_json(self, *, indent: int | None = None) -> str:
        """The same observation as JSON for programs."""
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)


def check_options(
    *,
    view: str,
    include: Collection[str],
    mode: str,
    max_tokens: int | None,
    max_chars: int | None,
    timeout: float,
    wait: float = 0.0,
) -> None:
    """Raise :class:`InvalidOption` (a ``ValueError``) for the first option of ``observe``
    that is out of range."""
    if view not in get_args(View):
        raise InvalidOption("view", f"view must be 'full' or 'interactive', not {view!r}")
    if mode not in get_args(ObserveMode):
        modes = ", ".join(repr(m) for m in get_args(ObserveMode))
        raise InvalidOption("mode", f"mode must be one of {modes}, not {mode!r}")
    if isinstance(include, str):
        raise InvalidOption(
            "include",
            f"include takes a collection such as {{'bounds'}}, not the string {include!r}",
        )
    unknown = set(include) - INCLUDABLE
    if unknown:
        raise InvalidOption(
            "include", f"include accepts {sorted(INCLUDABLE)}, not {sorted(unknown)}"
        )
    for label, limit in (("max_tokens", max_tokens), ("max_chars", max_chars)):
        if limit is not None and limit < 1:
            raise InvalidOption(label, f"{label} must be a positive number, not {limit}")
    check_times(wait=wait, timeout=timeout)


def check_times(*, wait: float, timeout: float) -> None:
    """:class:`InvalidOption` for a negative ``wait`` or a ``timeout`` that is not positive."""
    if timeout <= 0:
        raise InvalidOption(
            "timeout", f"timeout must be a positive number of seconds, not {timeout}"
        )
    if wait < 0:
        raise InvalidOption("wait", f"wait must not be negative, not {wait}")
