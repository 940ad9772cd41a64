"""Which registry tool each MCP tool is: Playwright MCP's names over pagesight's tools.

An MCP tool is one registry tool under another name, with that tool's own description and
input schema (arguments are never renamed, so there is one schema, the registry's). A mapped
tool the registry does not have is left out, not an error: a registry of an older (or
trimmed) pagesight still serves the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

from pagesight.agent.registry import ToolRegistry
from pagesight.messages import ToolSpec

TOOLS: dict[str, str] = {
    "browser_navigate": "navigate",
    "browser_navigate_back": "back",
    "browser_snapshot": "observe",
    "browser_find": "find_element",
    "browser_click": "click",
    "browser_hover": "hover",
    "browser_type": "input",
    "browser_fill_form": "fill_form",
    "browser_press_key": "press_key",
    "browser_select_option": "select",
    "browser_drag": "drag",
    "browser_file_upload": "upload",
    "browser_scroll": "scroll",
    "browser_batch": "batch",
    "browser_take_screenshot": "screenshot",
    "browser_tabs": "tabs",
    "browser_wait_for": "wait_for",
    "browser_handle_dialog": "handle_dialog",
}
"""MCP tool name -> registry tool name, in the order the tools are listed."""

VISION_TOOLS: dict[str, str] = {
    "browser_mouse_click_xy": "click_xy",
    "browser_mouse_move_xy": "hover_xy",
    "browser_mouse_drag_xy": "drag_xy",
}
"""Coordinate tools, listed only with ``--vision`` (a model reading screenshots uses them)."""

CLOSE = "browser_close"
"""Handled by the server itself: it closes the browser (there is no registry tool for it)."""
CLOSE_DESCRIPTION = (
    "Close the browser. The next call starts a fresh one (no tabs, cookies or history kept)."
)

NAVIGATE = "browser_navigate"
"""The tool that starts a fresh browser when the old one went away (a fresh tab when the one
in use went or hangs)."""
TABS = "browser_tabs"


@dataclass(frozen=True, kw_only=True)
class Offered:
    """An MCP tool: its name and the registry tool behind it."""

    name: str
    spec: ToolSpec


def offered(registry: ToolRegistry, *, vision: bool) -> tuple[Offered, ...]:
    """The MCP tools ``registry`` can serve, each with its registry spec (``browser_close``
    is not among them: it has no registry tool)."""
    specs = {spec.name: spec for spec in registry.specs()}
    table = {**TOOLS, **VISION_TOOLS} if vision else TOOLS
    return tuple(
        Offered(name=name, spec=specs[tool]) for name, tool in table.items() if tool in specs
    )
