"""pagesight as an MCP server (``pagesight mcp``): the agent's tool registry under Playwright
MCP's tool names, over stdio or streamable HTTP. See :mod:`pagesight.mcp.server`.

The names below are imported when first used: ``pagesight.cli.mcp`` (the CLI's options,
which every ``pagesight`` command builds) must not pull in the MCP SDK and the browser.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pagesight.mcp.browsers import BrowserOptions
    from pagesight.mcp.names import TOOLS, VISION_TOOLS
    from pagesight.mcp.server import PagesightMCP

__all__ = ["TOOLS", "VISION_TOOLS", "BrowserOptions", "PagesightMCP"]
_HOMES = {
    "BrowserOptions": "pagesight.mcp.browsers",
    "TOOLS": "pagesight.mcp.names",
    "VISION_TOOLS": "pagesight.mcp.names",
    "PagesightMCP": "pagesight.mcp.server",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'pagesight.mcp' has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)
