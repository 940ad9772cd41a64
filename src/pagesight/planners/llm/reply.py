"""An action's reply as a model reads it: one rule for the llm planner's answer to a tool call
and the MCP server's reply.

A reply is one block inside one pair of untrusted-content markers
(:mod:`pagesight.agent.untrusted`): what the tools said (each effect: its kinds, then its
details), then the page part, when there is one: the whole page (:data:`FULL`), or what changed
on it since the page the model last read (:data:`DELTA`). Whether a change or the whole page is
shown is :func:`~pagesight.observe.passes.reads_on` and
:func:`~pagesight.observe.passes.smaller_than_page`, the callers'. Each fact is said once:

* with a page part after it, an effect leaves out what that part shows (:func:`trimmed`): its
  element lines and its URL, and, before a change list, its count of elements (the list's
  own count line says it);
* the change list leaves out what the tools already said or what is no news (:func:`news`):
  a value an effect named (what the model typed or chose: the effect's ``value`` line
  confirms it), focus moving to the control acted on and focus leaving another control for
  it, focus moving where an effect's ``focus:`` line says; and when nothing is left, there
  is no page part at all.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pagesight.act.effect import VALUE_STATES
from pagesight.agent.untrusted import untrusted
from pagesight.messages import Message
from pagesight.observe.elements import Element
from pagesight.observe.observation import Observation
from pagesight.observe.passes import smaller_than_page
from pagesight.planners.llm.context import DELTA, FULL


@dataclass(frozen=True, kw_only=True)
class Told:
    """What the tools' own texts said about elements: the change list need not say it again."""

    acted: frozenset[int] = frozenset()
    """The elements acted on."""
    values: Mapping[int, tuple[str | None, frozenset[str]]] = field(default_factory=dict)
    """The value (and checked/selected state) each ``value`` line named, by element id."""
    focused: frozenset[int] = frozenset()
    """Where an effect's ``focus:`` line said focus moved."""

    @classmethod
    def by(cls, values: Iterable[Mapping[str, Any]]) -> Told:
        """What the effects in tool results' values (:meth:`ToolResult.value`) said: an
        action's effect (``Effect.to_dict``), or a batch's steps, each with its effect."""
        effects: list[Mapping[str, Any]] = []
        for value in values:
            if "kinds" in value:
                effects.append(value)
            effects.extend(s["effect"] for s in value.get("steps", ()) if s.get("effect"))
        acted = {e["element_id"] for e in effects if e.get("element_id") is not None}
        said = {
            change["after"]["id"]: _value(change["after"])
            for e in effects
            for change in e.get("values", ())
        }
        focused = {e["focused"]["id"] for e in effects if e.get("focused")}
        return cls(acted=frozenset(acted), values=said, focused=frozenset(focused))


def _value(element: Mapping[str, Any]) -> tuple[str | None, frozenset[str]]:
    return element.get("value"), frozenset(element.get("states", ())) & VALUE_STATES


_MASKED = re.compile(r"\\\{\\\{[A-Za-z_][A-Za-z0-9_]*\\\}\\\}")
"""A secret's ``{{NAME}}`` in a text :func:`re.escape` escaped."""


def _same_value(said: str | None, now: str | None) -> bool:
    """Whether ``said`` (a tool's value, its secrets written ``{{NAME}}``) is the value
    ``now`` (the page's, unmasked)."""
    if said == now or said is None or now is None or "{{" not in said:
        return said == now
    return re.fullmatch(_MASKED.sub(".+", re.escape(said)), now, re.S) is not None


def nothing_new(obs: Observation, told: Told) -> set[int]:
    """The ids of the elements ``obs.changes`` says changed in nothing but what ``told``
    already said or what is no news (see the module's doc)."""
    if obs.changes is None:
        return set()
    focus_now = next((el.id for el in obs.elements if "focused" in el.states), None)
    # Focus that went to the control acted on, or where an effect said, is said or no news:
    # the control it left, and the one it came to.
    focus_told = focus_now is not None and (focus_now in told.acted or focus_now in told.focused)
    return {
        after.id
        for before, after in obs.changes.changed
        if not _news(before, after, told, focus_told=focus_told)
    }


def _news(before: Element, after: Element, told: Told, *, focus_told: bool) -> bool:
    states = before.states ^ after.states
    said = told.values.get(after.id)
    value_told = (
        said is not None
        and _same_value(said[0], after.value)
        and said[1] == after.states & VALUE_STATES
    )
    if value_told:
        states -= VALUE_STATES
    if "focused" in states and focus_told:
        states -= {"focused"}
    value = (before.value, before.placeholder) != (after.value, after.placeholder)
    shape = (before.role, before.name, before.name_hint, before.options, before.error) != (
        after.role,
        after.name,
        after.name_hint,
        after.options,
        after.error,
    )
    return shape or bool(states) or (value and not value_told)


_COUNTS = re.compile(r"^changes: (\d+) added, (\d+) removed, (\d+) changed$")
_CHANGED = re.compile(r"^ *~ \[(\d+)\] ")
_GROUP = re.compile(r'^in ".*":$')


def news(text: str, obs: Observation, told: Told) -> str | None:
    """``text`` (``obs`` rendered with its changes, secrets masked or not) without the lines
    of the changes :func:`nothing_new` finds said or no news, its count line counting what is
    left; ``None`` when no element is left to show."""
    if obs.changes is None:
        return text
    dropped = nothing_new(obs, told)
    changes = obs.changes
    left = (len(changes.added), len(changes.removed), len(changes.changed) - len(dropped))
    if not any(left):
        return None
    counts = "changes: {} added, {} removed, {} changed".format(*left)
    lines = [
        counts if _COUNTS.match(line) else line
        for line in text.splitlines()
        if not ((changed := _CHANGED.match(line)) and int(changed[1]) in dropped)
    ]
    # A group's line goes when no member is left under it.
    kept = [
        line
        for i, line in enumerate(lines)
        if not _GROUP.match(line) or (i + 1 < len(lines) and lines[i + 1].startswith("  "))
    ]
    return "\n".join(kept)


_SHOWN_BY_THE_PAGE = re.compile(
    r"^  (?:[+~-] \[\d+\] .*|… \d+ more|url: .* \((?:new|same) document\))$"
)
"""An effect's lines a page part after it repeats: an element added, removed or changed (or
how many more), and the URL it went to (the page's first line)."""
_COUNTED = re.compile(r"^  elements: \d+ added, \d+ removed, \d+ changed$")


def trimmed(said: str, page: str | None) -> str:
    """``said`` (a tool's text, holding one effect or a batch's several) without the lines the
    page part after it (``page``, from its :data:`FULL` or :data:`DELTA` line) repeats. The
    whole page cannot show what went, so its count of elements stays; a change list counts
    them itself."""
    if page is None:
        return said
    delta = page.startswith(DELTA)
    return "\n".join(
        line
        for line in said.splitlines()
        if not _SHOWN_BY_THE_PAGE.match(line) and not (delta and _COUNTED.match(line))
    )


def block(said: str, page: str | None) -> str:
    """The reply: ``said`` (:func:`trimmed`), then ``page`` (its :data:`FULL` or :data:`DELTA`
    line, then the page or its change list), inside one pair of markers."""
    return untrusted("\n".join(part for part in (trimmed(said, page), page) if part))


def changed_part(
    changes: str, obs: Observation, told: Told, page: str, *, shown: int = 0
) -> str | None:
    """The page part after an action on the same document, read the same way as the page
    the model has: ``None`` when the tools said all that changed; what changed, less what
    they said (:func:`news`), when that is smaller than the page (``page``, with ``shown``
    tokens of changes already sent on top of it); else the whole page. One rule for the
    planner's answers and the MCP server's."""
    left = news(changes, obs, told)
    if left is None:
        return None
    if smaller_than_page(left, page, shown=shown):
        return what_changed(left)
    return whole_page(page)


def whole_page(page: str) -> str:
    """The page part of a whole page."""
    return f"{FULL}\n{page}"


def what_changed(changes: str) -> str:
    """The page part of what changed."""
    return f"{DELTA}\n{changes}"


def tool_answer(said: str, page: str | None, *, brief: str, **extra: Any) -> Message:
    """A tool call's answer in the llm planner's context (:func:`block`). Once a newer whole
    page arrives its stub keeps ``brief`` (each action's headline and the details a later step
    needs); with no page part, it keeps all it says when that is the brief already."""
    content = block(said, page)
    dropped = "(page dropped)" if page is not None and page.startswith(FULL) else "(change dropped)"
    stub = None if page is None and content == brief else f"{brief}\n{dropped}"
    return Message(role="tool", content=content, stub=stub, **extra)
