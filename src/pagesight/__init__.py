"""pagesight: let AI agents see and act on live web pages.

The sync API lives here; the async core (the same names, awaited) in :mod:`pagesight.aio`.
"""

from pagesight.errors import (
    BrowserClosed,
    BrowserNotFound,
    ConnectError,
    InputError,
    InvalidOption,
    NavigationError,
    PageCrashed,
    PagesightError,
    PageUnresponsive,
    ProtocolError,
    RuntimeFailure,
    SetupError,
    StaleElement,
    UnsupportedURL,
)
from pagesight.observe.observation import Changes, Element, Observation
from pagesight.sync import Browser, Page

__all__ = [
    "Browser",
    "BrowserClosed",
    "BrowserNotFound",
    "Changes",
    "ConnectError",
    "Element",
    "InputError",
    "InvalidOption",
    "NavigationError",
    "Observation",
    "Page",
    "PageCrashed",
    "PageUnresponsive",
    "PagesightError",
    "ProtocolError",
    "RuntimeFailure",
    "SetupError",
    "StaleElement",
    "UnsupportedURL",
]
