"""The agent's kernel: a planner decides, the tools act, every step is recorded.

::

    planner.decide(state) -> Decision      (decision.py, planner.py; planners in pagesight.planners)
    registry.call(tool, arguments)          (registry.py, tool.py, tools/ one tool a file)
    loop: observe -> decide -> act -> record (loop.py, state.py; records in pagesight.runs)

Nothing below this package imports from it: tools call the page, the page calls observe, act
and vision. The planners (the LLM planner among them) sit above it.
"""

from pagesight.agent.decision import Action, Batch, Decision, Done, Stop
from pagesight.agent.loop import AsyncAgent
from pagesight.agent.planner import Planner, ScriptedPlanner
from pagesight.agent.registry import ToolRegistry
from pagesight.agent.secrets import Secrets
from pagesight.agent.session import Session
from pagesight.agent.skills import Skill, Skills
from pagesight.agent.state import CallRecord, RunResult, State, StepRecord, StopReason
from pagesight.agent.tool import PageStep, Tool, ToolFailure, ToolResult

__all__ = [
    "Action",
    "AsyncAgent",
    "Batch",
    "CallRecord",
    "Decision",
    "Done",
    "PageStep",
    "Planner",
    "RunResult",
    "ScriptedPlanner",
    "Secrets",
    "Session",
    "Skill",
    "Skills",
    "State",
    "StepRecord",
    "Stop",
    "StopReason",
    "Tool",
    "ToolFailure",
    "ToolRegistry",
    "ToolResult",
]
