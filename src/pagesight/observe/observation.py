"""Observation: what an agent knows about a page at one moment, and its text for a model.

It sits above what it is made of and what it is read with: the elements
(:mod:`pagesight.observe.elements`), the rendering of their parts (:mod:`~pagesight.observe.render`)
and find (:mod:`~pagesight.observe.find`), which work on nodes and elements only. The passes
that build and cut observations (:mod:`~pagesight.observe.passes`, :mod:`~pagesight.observe.budget`)
sit above it.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal, get_args

from pagesight.errors import InvalidOption
from pagesight.observe import render
from pagesight.observe.elements import Changes, Element
from pagesight.observe.find import Index, Match, find
from pagesight.observe.tree import Node

Mode = Literal["cdp", "evaluate", "vision"]
"""Which reading produced an observation: the walker over CDP or ``evaluate``, or a screenshot."""
ObserveMode = Literal["auto", "cdp", "evaluate", "vision"]
"""What ``observe(mode=)`` accepts: ``auto`` reads the DOM and turns to vision when it is empty."""
View = Literal["full", "interactive"]
Format = Literal["outline", "json", "legend"]
INCLUDABLE = frozenset({"bounds", "href", "selector"})


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
        if format == "json":
            return self.to_json()
        if format == "legend":
            return "\n".join([self._header, *render.legend_lines(self.elements, self.include)])
        return self._outline

    @property
    def _header(self) -> str:
        return render.header(self.title, self.url, self.ready)

    @cached_property
    def _outline(self) -> str:
        """The header, the caption, then the changes since an earlier observation (unless the
        page is another document now), else the elements alone (``view="interactive"``), else
        the whole tree; then the notes, all cut to ``max_chars``."""
        lines = [self._header]
        if self.description:
            lines.append(f"description: {self.description}")
        changes = self.changes
        if changes is not None and not changes.new_document:
            lines.extend(render.change_lines(changes, self.include))
        elif self.view == "interactive":
            lines.extend(render.interactive_lines(self.elements, self.include))
        else:
            lines.extend(render.tree_lines(self.tree, self.include))
        lines.extend(f"… {note}" for note in self.notes)
        text = "\n".join(lines)
        return text if self.max_chars is None else render.truncate_chars(text, self.max_chars)

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
        return find(self.elements, query, top=top, index=self._find_index)

    @cached_property
    def _find_index(self) -> Index:
        return Index(self.elements)

    def element(self, element_id: int) -> Element:
        """The element with this id; ``KeyError`` if this observation does not hold it."""
        for el in self.elements:
            if el.id == element_id:
                return el
        raise KeyError(f"no element [{element_id}] in this observation")

    def to_dict(self) -> dict[str, Any]:
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
            "tree": render.tree_dict(self.tree, self.include),
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
