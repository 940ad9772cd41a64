"""pagesight: let AI agents see and act on live web pages.

The sync API lives here; the async core (the same names, awaited) in :mod:`pagesight.aio`.
"""

from pagesight.errors import (
    BrowserNotFound,
    ConnectError,
    InputError,
    NavigationError,
    PageCrashed,
    PagesightError,
    ProtocolError,
    RuntimeFailure,
    SetupError,
    StaleElement,
    UnsupportedURL,
)
from pagesight.observe.observation import Element, Observation
from pagesight.sync import Browser, Page

__all__ = [
    "Browser",
    "BrowserNotFound",
    "ConnectError",
    "Element",
    "InputError",
    "NavigationError",
    "Observation",
    "Page",
    "PageCrashed",
    "PagesightError",
    "ProtocolError",
    "RuntimeFailure",
    "SetupError",
    "StaleElement",
    "UnsupportedURL",
]
