"""The confirm gate: a person before risky actions.

The tool registry asks :class:`ConfirmPolicy` before a page step runs (:meth:`gate_step`;
:meth:`gate_point` for one at a point of the viewport) and before a tool call such as
``handle_dialog`` accepting a confirm (:meth:`gate_call`), so the agent, the CLI and the MCP
server all pass through the same check. The gate reads the step's target from the session's
tab (:meth:`AsyncPage.risk_facts <pagesight.browser.page.AsyncPage.risk_facts>`) and its
latest observation, lets the rules of :mod:`pagesight.guard.risk` judge it, and when they
say a person must allow it, asks one through ``ask`` (the CLI's terminal, an MCP client's
elicitation, a program's callback); without one, the step is refused with ``needs_person``
and nothing is done.

It fails closed: a target the live page will not let be read (a page script that throws, a
form whose ``elements`` a field of that name shadows) is judged on the latest observation's
name and role alone, by id and by point alike, and one nothing was seen of is asked about
(the ``unread_target`` rule). An element that is gone is not such a failure: its id resolves
to nothing for the action too, which fails with ``stale_id`` and touches nothing.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from pagesight.browser.page import AsyncPage
from pagesight.errors import InvalidOption, PageCrashed, PagesightError, StaleElement
from pagesight.guard.risk import (
    ElementFacts,
    Mode,
    Risk,
    RiskRules,
    Target,
    assess_call,
    assess_step,
    check_mode,
    judges_focus,
)
from pagesight.observe.elements import Element
from pagesight.observe.observation import Observation

Asker = Callable[[Risk], Awaitable[bool]]
"""Asks a person whether a risky action may go ahead: True to allow it."""


class OnPage(Protocol):
    """What the gate reads of a session (a :class:`~pagesight.agent.session.Session` is
    one): the tab in use and the latest observation of it."""

    @property
    def page(self) -> AsyncPage: ...

    @property
    def latest(self) -> Observation | None: ...


@dataclass(frozen=True, kw_only=True)
class Refusal:
    """A step the gate did not let run: ``needs_person`` (no one to ask) or
    ``declined_by_person``."""

    reason: Literal["needs_person", "declined_by_person"]
    message: str
    risk: Risk


@dataclass(frozen=True, kw_only=True)
class ConfirmPolicy:
    """When a person must allow an action (``mode``, ``rules``) and how one is asked
    (``ask``; ``None``: the step is refused with ``needs_person``)."""

    mode: Mode = "never"
    rules: RiskRules = field(default_factory=RiskRules)
    ask: Asker | None = field(default=None, compare=False)
    no_one_to_ask: str = "ask the user whether to go ahead, and let them do it"
    """What a refusal tells the caller to do (the MCP server says more)."""

    def __post_init__(self) -> None:
        check_mode(self.mode)
        if not isinstance(self.rules, RiskRules):
            raise InvalidOption("confirm_rules", f"expected RiskRules, not {self.rules!r}")
        if self.ask is not None and not callable(self.ask):
            raise InvalidOption("confirmer", f"expected an async function, not {self.ask!r}")

    async def gate_step(
        self, session: OnPage, ref: int | None, action: str, args: Mapping[str, Any]
    ) -> Refusal | None:
        """Read the target from the session's tab, apply the rules, ask if they say so:
        ``None`` when the step may run."""
        if self.mode == "never":
            return None
        target = None
        if ref is not None or judges_focus(action, args):
            target = await read_target(session, ref)  # no ref: the element with focus
        accepts = session.page.dialogs.confirm == "accept"
        return await self._decide(
            assess_step(self.rules, self.mode, action, args, target, accepts_confirms=accepts)
        )

    async def gate_point(self, session: OnPage, action: str, x: float, y: float) -> Refusal | None:
        """:meth:`gate_step` for an action at a point of the viewport (``click_xy``, …): a
        click is judged on the element under the point, as a click on its id would be."""
        if self.mode == "never":
            return None
        target = await read_target_at(session, x, y) if action == "click" else None
        accepts = session.page.dialogs.confirm == "accept"
        return await self._decide(
            assess_step(self.rules, self.mode, action, {}, target, accepts_confirms=accepts)
        )

    async def gate_call(self, tool: str, args: Mapping[str, Any]) -> Refusal | None:
        return await self._decide(assess_call(self.rules, self.mode, tool, args))

    async def decide(self, risk: Risk) -> Refusal | None:
        """Ask about ``risk`` (a planner's own risk stop comes here too)."""
        return await self._decide(risk)

    async def _decide(self, risk: Risk | None) -> Refusal | None:
        if risk is None:
            return None
        if self.ask is None:
            message = f"a person must allow this: {risk.action} ({risk.why}); {self.no_one_to_ask}"
            return Refusal(reason="needs_person", message=message, risk=risk)
        if await self.ask(risk):
            return None
        message = f"the person declined: {risk.action} ({risk.why}); nothing was done"
        return Refusal(reason="declined_by_person", message=message, risk=risk)


async def read_target(session: OnPage, ref: int | None) -> Target | None:
    """What the rules need of element ``ref`` (``None``: the top document's focused
    element, where a key with no ref goes), read from the live page, with the latest
    observation's name and role; ``None`` when nothing has focus, or the element or its tab
    is gone (the action then fails on its own: a stale id, a crashed tab)."""
    latest = session.latest
    seen = next((e for e in latest.elements if e.id == ref), None) if latest else None
    description = f"element [{ref}]" if ref is not None else "the focused element"
    if seen is not None:
        description = f"[{ref}] {seen.role} {json.dumps(seen.name, ensure_ascii=False)}"
    try:
        facts: ElementFacts | _Unread | None = await session.page.risk_facts(ref)
    except (StaleElement, PageCrashed):
        # Not a failure to read: the element (or its tab) is no more, and the action, which
        # resolves the id again, fails the same way and touches nothing.
        return None
    except PagesightError:
        facts = UNREAD
    if facts is None:
        return None
    return _target(description, seen, facts)


async def read_target_at(session: OnPage, x: float, y: float) -> Target | None:
    """What the rules need of the element a click at ``(x, y)`` (CSS px of the viewport)
    lands on — through frames, of any origin — with the name and role the latest
    observation gives the smallest box holding the point (on a page read off the screen, the
    words OCR read there: a "Delete" drawn on a canvas); ``None`` over nothing, or when the
    tab is gone."""
    boxes = [
        e
        for e in (session.latest.elements if session.latest else ())
        if e.bounds is not None
        and e.bounds[0] <= x <= e.bounds[0] + e.bounds[2]
        and e.bounds[1] <= y <= e.bounds[1] + e.bounds[3]
    ]
    seen = min(boxes, key=lambda e: e.bounds[2] * e.bounds[3] if e.bounds else 0, default=None)
    try:
        facts: ElementFacts | _Unread | None = await session.page.risk_facts_at(x, y)
    except PageCrashed:
        return None  # no tab: the click fails on its own
    except PagesightError:
        facts = UNREAD
    if facts is None and seen is None:
        return None
    names = (
        (seen.name,) if seen is not None else facts.names if isinstance(facts, ElementFacts) else ()
    )
    shown = json.dumps(names[0], ensure_ascii=False) if names else "?"
    return _target(f"the element {shown} at ({x:g}, {y:g})", seen, facts)


class _Unread:
    """The live page would not let an element's facts be read (a page script that throws, a
    frame gone mid-read): not the same as "nothing risky"."""


UNREAD = _Unread()


def _target(description: str, seen: Element | None, facts: ElementFacts | _Unread | None) -> Target:
    """The one way both the id and the point gate build what the rules judge: the
    observation's name first, then the page's; when the page's facts could not be read, the
    observation's name and role alone, marked unread so that the rules fail closed
    (:func:`pagesight.guard.risk.assess_step`) — asking when nothing at all was seen."""
    names: tuple[str, ...] = (seen.name,) if seen is not None else ()
    role = seen.role if seen is not None else None
    if isinstance(facts, _Unread):
        return Target(description=description, names=names, role=role, read=False)
    if facts is None:  # over nothing the page can name: what the observation saw there
        return Target(description=description, names=names, role=role)
    return Target(
        description=description,
        names=(*names, *facts.names),
        role=role,
        submits=facts.submits,
        field=facts.field,
        form_fields=facts.form_fields,
        default_button=facts.default_button,
    )
