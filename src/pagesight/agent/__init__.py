"""The agent: a planner decides, the tools act, every step is recorded.

::

    planner.decide(state) -> Decision      (decision.py, planner.py; model.py for models)
    registry.call(tool, arguments)          (registry.py, tool.py, tools/ one tool a file)
    loop: observe -> decide -> act -> record (loop.py, state.py; records in pagesight.runs)

Nothing below this package imports from it: tools call the page, the page calls observe, act
and vision.
"""

from pagesight.agent.context import Context, Message, ToolCall
from pagesight.agent.decision import Action, Batch, Decision, Done, Stop, Usage
from pagesight.agent.loop import AsyncAgent
from pagesight.agent.model import Model, ModelPlanner, ModelReply, ScriptedModel
from pagesight.agent.planner import Planner, ScriptedPlanner
from pagesight.agent.registry import ToolRegistry, ToolSpec
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
    "Context",
    "Decision",
    "Done",
    "Message",
    "Model",
    "ModelPlanner",
    "ModelReply",
    "PageStep",
    "Planner",
    "RunResult",
    "ScriptedModel",
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
    "ToolCall",
    "ToolFailure",
    "ToolRegistry",
    "ToolResult",
    "ToolSpec",
    "Usage",
]
