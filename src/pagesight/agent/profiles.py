"""Tool profiles: which tools a model is shown up front, every round.

Every tool schema a model is shown is sent again with each request, so the default, ``core``,
shows four: ``act`` (every page action, one step a line: batching is several lines),
``observe``, ``find_element`` and ``use_tool``, which reaches every other tool by name (tabs,
dialogs, coordinates, screenshots, ``fill_form``, …; its description lists them, and a call
with no arguments answers with the tool's schema). Nothing is lost: what is not shown is one
call away. ``vision`` adds what a model reading screenshots needs (``screenshot`` and the
coordinate tools); ``full`` shows every tool one by one (each page action its own tool,
``batch``, ``done``), as pagesight did before profiles. A user's own tools (a ``tools``
folder) are shown in every profile: adding one is asking for it to be seen.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Literal, get_args

from pagesight.agent import idsteps
from pagesight.errors import InvalidOption

if TYPE_CHECKING:  # (the CLI reads the profiles' names before anything else is imported)
    from pagesight.agent.registry import ToolRegistry
    from pagesight.messages import ToolSpec

Profile = Literal["core", "vision", "full"]
PROFILES: tuple[Profile, ...] = get_args(Profile)
DEFAULT_PROFILE: Profile = "core"

CORE = ("act", "observe", "find_element")
VISION = ("screenshot", "click_xy", "hover_xy", "drag_xy")
ON_DEMAND = "use_tool"
STEPS_ONLY = ("act", ON_DEMAND)
"""The tools ``full`` leaves out: it shows each action as a tool of its own instead."""
SKILLS = "load_skill"
ACTED = idsteps.TOOLS | {"batch", "done"}
"""The tools whose work ``act``'s lines do: ``use_tool`` still reaches them (a double or
right click, typing key by key), but its description need not list them."""


def check_profile(profile: str) -> Profile:
    """``profile`` as a Profile; InvalidOption naming the profiles otherwise."""
    if profile not in PROFILES:
        raise InvalidOption(
            "tools", f"no tool profile {profile!r}; profiles: {', '.join(PROFILES)}"
        )
    return profile


def shown(registry: ToolRegistry, profile: Profile, *, skills: bool = False) -> tuple[str, ...]:
    """The names of the tools ``profile`` shows up front, in the registry's order
    (``skills``: there are skills to load, so ``load_skill`` is shown)."""
    check_profile(profile)
    if profile == "full":
        wanted = {n for n in registry.names if n not in STEPS_ONLY}
    else:
        wanted = {*CORE, *(VISION if profile == "vision" else ()), ON_DEMAND}
        wanted |= {n for n in registry.names if n not in registry.builtin}
        if skills:
            wanted.add(SKILLS)
    return tuple(n for n in registry.names if n in wanted)


def specs(
    registry: ToolRegistry, profile: Profile, *, skills: bool = False
) -> tuple[ToolSpec, ...]:
    """The specs ``profile`` shows, ``use_tool``'s description naming every tool it reaches."""
    names = shown(registry, profile, skills=skills)
    out = []
    for spec in registry.specs():
        if spec.name not in names:
            continue
        if spec.name == ON_DEMAND:
            others = [n for n in registry.names if n not in names and n not in ACTED]
            if not others:
                continue
            listing = f"{spec.description} Tools: {', '.join(others)}."
            out.append(replace(spec, description=listing))
        else:
            out.append(spec)
    return tuple(out)
