"""The async API — pagesight's core. The sync names in :mod:`pagesight` wrap these."""

from pagesight.act.batch import BatchResult, StepResult
from pagesight.act.effect import Dialog, Download, Effect, NewTab
from pagesight.act.events import DialogPolicy
from pagesight.agent.decision import Action, Batch, Done, Stop
from pagesight.agent.loop import AsyncAgent
from pagesight.agent.state import RunResult
from pagesight.browser.browser import AsyncBrowser
from pagesight.browser.page import AsyncPage
from pagesight.guard.risk import Risk, RiskRules
from pagesight.observe.elements import Changes, Element
from pagesight.observe.find import Match
from pagesight.observe.observation import Observation

__all__ = [
    "Action",
    "AsyncAgent",
    "AsyncBrowser",
    "AsyncPage",
    "Batch",
    "BatchResult",
    "Changes",
    "Dialog",
    "DialogPolicy",
    "Done",
    "Download",
    "Effect",
    "Element",
    "Match",
    "NewTab",
    "Observation",
    "Risk",
    "RiskRules",
    "RunResult",
    "StepResult",
    "Stop",
]
