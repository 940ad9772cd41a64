"""Planners: what decides the next step of a run.

:class:`StepsPlanner` runs a script of steps in words (English or Chinese), offline and
deterministic: the default, and what replays a run's ``steps.txt``.
"""

from pagesight.planners.steps import StepsPlanner
from pagesight.runs.grammar import Step, Target, format_step, parse

__all__ = ["Step", "StepsPlanner", "Target", "format_step", "parse"]
