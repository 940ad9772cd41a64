"""Helpers the agent tests share: picking an element off a State, a planner that fails."""

from __future__ import annotations

from pagesight.agent import State
from pagesight.agent.decision import Decision


def ref(state: State, name: str, role: str) -> int:
    """The id of the one element named ``name`` with ``role`` in the state's observation."""
    found = [e.id for e in state.observation.elements if e.name == name and e.role == role]
    assert len(found) == 1, f"expected one {role} {name!r}:\n{state.text}"
    return found[0]


class Broken(Exception):
    """What FailingPlanner raises: a bug in a planner, not a stop."""


class FailingPlanner:
    """Answers ``first`` once, then raises :class:`Broken`."""

    def __init__(self, first: Decision) -> None:
        self.first = first
        self.calls = 0

    async def decide(self, state: State) -> Decision:
        self.calls += 1
        if self.calls > 1:
            raise Broken("the planner broke on step 2")
        return self.first
