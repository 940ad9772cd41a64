"""pagesight: let AI agents see and act on live web pages.

The sync API lives here; the async core (the same names, awaited) in :mod:`pagesight.aio`.
"""

from pagesight.act.batch import BatchResult, StepResult
from pagesight.act.effect import Dialog, Download, Effect, NewTab
from pagesight.act.events import DialogPolicy
from pagesight.agent.decision import Action, Batch, Done, Stop
from pagesight.agent.state import RunResult
from pagesight.errors import (
    ActionError,
    AppNotStarted,
    BrowserClosed,
    BrowserNotFound,
    ConnectError,
    ContextOverflow,
    DecisionsAnswerInvalid,
    DecisionsError,
    DecisionsRateLimited,
    InputError,
    InvalidOption,
    ModelError,
    ModelNotConfigured,
    NavigationError,
    OcrFailed,
    OcrNotFound,
    OriginNotAllowed,
    PageCrashed,
    PagesightError,
    PageUnresponsive,
    ProtocolError,
    RecordsNotWritten,
    RuntimeFailure,
    SecretNotAllowedHere,
    SetupError,
    StaleElement,
    StepsError,
    SuiteError,
    UnsupportedURL,
    VisionModelError,
)
from pagesight.guard.risk import Risk, RiskRules
from pagesight.observe.elements import Changes, Element
from pagesight.observe.find import Match
from pagesight.observe.observation import Observation
from pagesight.planners.steps import StepsPlanner
from pagesight.sync import Agent, Browser, Page

__all__ = [
    "Action",
    "ActionError",
    "Agent",
    "AppNotStarted",
    "Batch",
    "BatchResult",
    "Browser",
    "BrowserClosed",
    "BrowserNotFound",
    "Changes",
    "ConnectError",
    "ContextOverflow",
    "DecisionsAnswerInvalid",
    "DecisionsError",
    "DecisionsRateLimited",
    "Dialog",
    "DialogPolicy",
    "Done",
    "Download",
    "Effect",
    "Element",
    "InputError",
    "InvalidOption",
    "Match",
    "ModelError",
    "ModelNotConfigured",
    "NavigationError",
    "NewTab",
    "Observation",
    "OcrFailed",
    "OcrNotFound",
    "OriginNotAllowed",
    "Page",
    "PageCrashed",
    "PageUnresponsive",
    "PagesightError",
    "ProtocolError",
    "RecordsNotWritten",
    "Risk",
    "RiskRules",
    "RunResult",
    "RuntimeFailure",
    "SecretNotAllowedHere",
    "SetupError",
    "StaleElement",
    "StepResult",
    "StepsError",
    "StepsPlanner",
    "Stop",
    "SuiteError",
    "UnsupportedURL",
    "VisionModelError",
]
