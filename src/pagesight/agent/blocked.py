"""Actions that did not do what they were for, and what a run's ``done`` rests on.

An action whose submit the browser's own validation stopped (``form_invalid``) or whose
navigation the origin policy refused (``refused``) changed nothing it was meant to change.
A planner that says the goal is reached after one has said something the page does not
show, unless something after it did: an ``expect`` that held (the steps planner's, an
``act`` call's) on something the page did not show already before the blocked step, or the
same action on the same element going through (a form fixed and sent again).
:class:`Unproven` keeps count over a run's steps; the loop ends a ``done`` with one
outstanding as ``unproven``, not as a goal reached.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from pagesight.agent.state import StepRecord
from pagesight.observe.observation import Observation
from pagesight.observe.shown import contains, has_value, quoted, shown

EXPECTS = frozenset({"expect_text", "expect_containing", "expect_value"})
"""The checks that show a goal reached: a ``wait for`` waits, it does not check."""


def blocked(effect: Mapping[str, Any]) -> str | None:
    """Why an action's Effect (as ``Effect.to_dict()`` gives it) says the action did not do
    what it was for, or None: the browser's own validation stopped the submit
    (``form_invalid``: the form was not sent; each field it stopped on named with its
    message), or the origin policy refused where it led (``refused``: the tab stayed)."""
    kinds = effect.get("kinds") or ()
    why = []
    if "form_invalid" in kinds:
        fields = "; ".join(
            f"[{el.get('id')}] {el.get('role')} {quoted(el.get('name') or '')}: "
            + quoted(el.get("error") or "")
            for el in effect.get("invalid") or ()
        )
        why.append(
            "the browser's own validation stopped the submit (form_invalid): the form was not "
            "sent" + (f"; invalid: {fields}" if fields else "")
        )
    if "refused" in kinds:
        where = ", ".join(
            str(r.get("url")) for r in effect.get("refused") or () if r.get("kind") != "frame"
        )
        why.append(
            "the origin policy refused where it led (refused)" + (f": {where}" if where else "")
        )
    return "; ".join(why) or None


class Unproven:
    """The blocked actions of a run that nothing after them has made good, from each step
    as it is recorded (:meth:`see`)."""

    def __init__(self) -> None:
        self._open: dict[tuple[Any, Any], tuple[str, Observation | None]] = {}
        """Per (action, element id): what was blocked, in words, and the page its step was
        decided on."""

    def see(self, step: StepRecord, page: Observation | None = None) -> None:
        """Take in one step, decided on ``page``: the checks its decision made (on the page
        before its actions), then its calls' effects and checks in the order they ran."""
        raw = step.decision.raw if isinstance(step.decision.raw, dict) else {}
        checks = raw.get("checks") if raw.get("planner") == "steps" else None
        for check in checks or ():
            if check.get("ok") and check.get("kind") in EXPECTS:
                self._held(check["kind"], check.get("value"), None)
        for call in step.calls:
            for effect, held in _events(call.value):
                if held:
                    self._held(effect.get("check"), effect.get("value"), effect.get("ref"))
                    continue
                key = (effect.get("action"), effect.get("element_id"))
                why = blocked(effect)
                if why is not None:
                    what = f"{key[0]} [{key[1]}]" if key[1] is not None else str(key[0])
                    self._open[key] = (f"step {step.number}'s {what}: {why}", page)
                elif "no_op" not in (effect.get("kinds") or ()):
                    self._open.pop(key, None)  # the same action went through this time

    def _held(self, kind: Any, value: Any, ref: Any) -> None:
        """An expect held: the blocks it shows made good are those whose page before did
        not already show what it saw."""
        self._open = {
            key: (why, page)
            for key, (why, page) in self._open.items()
            if page is not None and _already(page, kind, str(value or ""), ref)
        }

    @property
    def outstanding(self) -> str | None:
        """What is still unproven, in words, or None."""
        return "; ".join(why for why, _page in self._open.values()) or None


def _already(page: Observation, kind: Any, want: str, ref: Any) -> bool:
    """Whether an expect (``kind``, its text or value, the element it names) held on
    ``page`` already."""
    if kind == "expect_text":
        return shown(page, want) is not None
    if kind == "expect_containing":
        return contains(page, want) is not None
    if kind == "expect_value" and isinstance(ref, int):
        found = next((el for el in page.elements if el.id == ref), None)
        return found is not None and has_value(found.value or "", want)
    return False


def _events(value: Mapping[str, Any]) -> Iterator[tuple[Mapping[str, Any], bool]]:
    """A call's value as what happened, in order: (an action's effect, False) or (the line,
    True) for an expect that held (its ``check``, ``value`` and ``ref``). An ``act`` call's
    lines hold its actions and checks in order (its ``steps``, the actions' effects); a
    ``batch`` holds ``steps``; a page action's value is its effect. A ``use_tool`` call's value
    is the tool's own."""
    if isinstance(value.get("lines"), list):
        effects = iter(value.get("steps") or ())
        for line in value["lines"]:
            if "tool" in line:
                ran = next(effects, None) or {}
                if ran.get("effect"):
                    yield ran["effect"], False
            elif line.get("check") in EXPECTS and line.get("ok"):
                yield line, True
    elif isinstance(value.get("steps"), list):
        for ran in value["steps"]:
            if isinstance(ran, Mapping) and ran.get("effect"):
                yield ran["effect"], False
    elif "kinds" in value:
        yield value, False
