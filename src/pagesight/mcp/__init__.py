"""pagesight as an MCP server (``pagesight mcp``): the agent's tool registry under Playwright
MCP's tool names, over stdio or streamable HTTP. See :mod:`pagesight.mcp.server`."""

from pagesight.mcp.browsers import BrowserOptions
from pagesight.mcp.names import TOOLS, VISION_TOOLS
from pagesight.mcp.server import PagesightMCP

__all__ = ["TOOLS", "VISION_TOOLS", "BrowserOptions", "PagesightMCP"]
