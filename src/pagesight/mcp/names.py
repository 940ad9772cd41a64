"""Which registry tool each MCP tool is: Playwright MCP's names over pagesight's tools.

An MCP tool is one registry tool under another name, with that tool's own description and
input schema (arguments are never renamed, so there is one schema, the registry's). A mapped
tool the registry does not have is left out, not an error: a registry of an older (or
trimmed) pagesight still serves the rest.

Every mapped tool can be called; the tool profile (:mod:`pagesight.agent.profiles`) decides
which are listed. ``core`` lists ``browser_navigate`` (where a client starts, and what starts
a fresh browser), ``browser_snapshot``, ``browser_find``, ``browser_act`` (every page action,
one step a line) and ``browser_use_tool``, which reaches the rest by name; ``full`` lists
every tool one for one, as Playwright MCP names them.
"""

from __future__ import annotations

from dataclasses import dataclass

from pagesight.agent import profiles
from pagesight.agent.profiles import Profile
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
    "browser_act": "act",
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
"""Coordinate tools, listed with ``--tools vision`` or ``full`` (a model reading screenshots
uses them)."""

USE_TOOL = "browser_use_tool"
"""Handled by the server itself: it calls any tool by name (the ``use_tool`` of a planner)."""

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


def offered(registry: ToolRegistry) -> tuple[Offered, ...]:
    """The MCP tools ``registry`` can serve, each with its registry spec (``browser_close``
    and ``browser_use_tool`` are not among them: they have no registry tool)."""
    specs = {spec.name: spec for spec in registry.specs()}
    table = {**TOOLS, **VISION_TOOLS}
    return tuple(
        Offered(name=name, spec=specs[tool]) for name, tool in table.items() if tool in specs
    )


def listed(registry: ToolRegistry, profile: Profile) -> tuple[str, ...]:
    """The MCP names ``profile`` lists, of those ``registry`` can serve."""
    shown = set(profiles.shown(registry, profile))
    return tuple(
        o.name
        for o in offered(registry)
        if o.spec.name in shown or (o.name == NAVIGATE and profile != "full")
    )


def unlisted(registry: ToolRegistry, profile: Profile) -> tuple[str, ...]:
    """The MCP names ``browser_use_tool``'s description names: those not listed, but for the
    page tools whose work ``browser_act``'s lines do (still reachable by name); none in
    ``full``, which lists each of those."""
    if profile == "full":
        return ()
    shown = set(listed(registry, profile))
    return tuple(
        o.name
        for o in offered(registry)
        if o.name not in shown and o.spec.name not in profiles.ACTED
    )
