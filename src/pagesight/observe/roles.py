"""The roles elements have, and what each role can do: tables that the element extraction,
find's role words and the planners read alike."""

from __future__ import annotations

from collections.abc import Iterable

DATE_ROLES = ("date", "time", "datetime-local", "month", "week")
"""The roles of date and time inputs: each is the input's type, whose format its value has."""
# The actions each role accepts; every visible element can also be hovered.
_ACTIONS: dict[str, tuple[str, ...]] = {
    "textbox": ("click", "input", "input_submit", "press_key"),
    "searchbox": ("click", "input", "input_submit", "press_key"),
    "spinbutton": ("click", "input", "input_submit", "press_key"),
    "combobox": ("click", "select", "input", "press_key"),
    "listbox": ("select", "press_key"),
    "slider": ("click", "input", "press_key"),
    "iframe": (),
    **dict.fromkeys(DATE_ROLES, ("click", "input", "input_submit", "press_key")),
}


def actions_for(
    role: str, states: Iterable[str], *, upload: bool = False, drag: bool = False
) -> tuple[str, ...]:
    """The actions that apply to an element of this role in these states; ``upload`` for a
    file input or a control that opens a hidden one; ``drag`` for a slider and what the page
    marks as draggable (listed only there: on every element it is noise a model pays for)."""
    base = _ACTIONS.get(role, ("click",))
    extra = ("scroll",) if "scrollable" in states else ()
    if role == "group" and extra:
        base = ()
    files = ("upload",) if upload else ()
    dragged = ("drag",) if drag or role == "slider" else ()
    return (*base, *files, "hover", *dragged, *extra)
