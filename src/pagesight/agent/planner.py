"""Planner: the one extension point that decides — ``async decide(state) -> Decision``.

The steps planner reads a script, the model planners (:mod:`pagesight.planners.llm.planner`) ask a
model; :class:`ScriptedPlanner` plays a list of decisions, for tests and for programs that
know what to do.

A planner may also have an ``include`` attribute (a set such as ``{"selector"}``, as
``observe(include=)`` takes it): every observation it is shown then holds that.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol, runtime_checkable

from pagesight.agent.decision import Decision, Stop
from pagesight.agent.state import State


@runtime_checkable
class Planner(Protocol):
    async def decide(self, state: State) -> Decision:
        """The next decision, given the page and the steps so far."""
        ...


class ScriptedPlanner:
    """Answers each step with the next item of ``script``: a Decision, or a function of the
    State that returns one (to pick an id off the page). Past the end it stops."""

    def __init__(self, script: Iterable[Decision | Callable[[State], Decision]]) -> None:
        self._script = list(script)
        self.states: list[State] = []
        """Every state it was shown, in order."""

    async def decide(self, state: State) -> Decision:
        self.states.append(state)
        if len(self.states) > len(self._script):
            return Stop(message="the script has no more decisions")
        item = self._script[len(self.states) - 1]
        return item(state) if callable(item) else item
