"""The async API — pagesight's core. The sync names in :mod:`pagesight` wrap these."""

from pagesight.act.batch import BatchResult, StepResult
from pagesight.act.effect import Dialog, Download, Effect, NewTab
from pagesight.act.events import DialogPolicy
from pagesight.browser.browser import AsyncBrowser
from pagesight.browser.page import AsyncPage
from pagesight.observe.find import Match
from pagesight.observe.observation import Changes, Element, Observation

__all__ = [
    "AsyncBrowser",
    "AsyncPage",
    "BatchResult",
    "Changes",
    "Dialog",
    "DialogPolicy",
    "Download",
    "Effect",
    "Element",
    "Match",
    "NewTab",
    "Observation",
    "StepResult",
]
