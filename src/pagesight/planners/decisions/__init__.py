"""The ``decisions`` planner: probabilities, not text.

* :class:`DecisionsPlanner` — the planner (``DecisionsPlanner.from_env(model=…)``);
* :func:`decide`, :class:`Cutoffs`, :class:`Answers`, :class:`Situation` — its pure policy;
* :class:`DecisionsClient` — the Decisions API over httpx (the wire shape: :mod:`.api`).

A fake Decisions API to test against is :class:`pagesight.testing.decisions.FakeDecisionsServer`.
"""

from pagesight.planners.decisions.api import (
    ChoiceAnswer,
    NoulAnswer,
    Question,
    Reply,
    ScoreAnswer,
)
from pagesight.planners.decisions.client import DEFAULT_MODEL, DecisionsClient
from pagesight.planners.decisions.planner import DecisionsPlanner
from pagesight.planners.decisions.policy import Answers, Cutoffs, Situation, decide

__all__ = [
    "DEFAULT_MODEL",
    "Answers",
    "ChoiceAnswer",
    "Cutoffs",
    "DecisionsClient",
    "DecisionsPlanner",
    "NoulAnswer",
    "Question",
    "Reply",
    "ScoreAnswer",
    "Situation",
    "decide",
]
