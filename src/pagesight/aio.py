"""The async API — pagesight's core. The sync names in :mod:`pagesight` wrap these."""

from pagesight.browser.browser import AsyncBrowser
from pagesight.browser.page import AsyncPage
from pagesight.observe.observation import Changes, Element, Observation

__all__ = ["AsyncBrowser", "AsyncPage", "Changes", "Element", "Observation"]
