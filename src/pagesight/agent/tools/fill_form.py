from __future__ import annotations

from dataclasses import replace
from typing import Any

import pydantic

from pagesight.agent.session import Session
from pagesight.agent.tool import ToolFailure, ToolResult
from pagesight.agent.tools.batch import BatchAction, batch
from pagesight.observe.elements import Element
from pagesight.observe.observation import Observation
from pagesight.observe.roles import DATE_ROLES

TEXT_ROLES = frozenset({"textbox", "searchbox", "spinbutton", "slider", *DATE_ROLES})
"""Fields whose value is typed."""
CHOICE_ROLES = frozenset({"combobox", "listbox"})
"""Fields whose value is an option chosen by its label."""
TOGGLE_ROLES = frozenset({"checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"})
"""Fields that are on or off: clicked only when they are not as asked."""
_ON_OFF = {"true": True, "false": False}


class FormField(pydantic.BaseModel):
    """One field of a form and the value it should have."""

    model_config = pydantic.ConfigDict(extra="forbid")
    ref: int = pydantic.Field(description="The field's id, the number in brackets.")
    value: str = pydantic.Field(
        description="The text for a text field; the option's label for a select or "
        'combobox; "true" or "false" for a checkbox, radio or switch.'
    )
    element: str | None = pydantic.Field(
        default=None, description='The field in words ("the Job title field").'
    )


async def fill_form(session: Session, *, fields: list[FormField]) -> ToolResult:
    """Fill several fields of a form in one round: type into text fields, choose options,
    tick or untick checkboxes, radios and switches (a click only where the state differs).
    Stops at the first field that fails. Submitting is a separate click.

    Args:
        fields: The fields, in the order they are filled; {{NAME}} in a value types the
            secret NAME.
    """
    if not fields:
        return ToolResult.failure("invalid_arguments", "fill_form: give at least one field")
    elements = await _elements(session)
    actions: list[BatchAction] = []
    planned: list[dict[str, Any]] = []  # one a field, with the batch step that fills it
    for number, item in enumerate(fields, start=1):
        el = elements.get(item.ref)
        if el is None:
            message = f"field {number}: no element [{item.ref}] on the page now; observe again"
            return ToolResult.failure("stale_id", message + "; nothing was filled")
        entry: dict[str, Any] = {"ref": item.ref, "role": el.role, "step": None}
        if el.role in TEXT_ROLES:
            action = BatchAction(tool="input", arguments={"ref": item.ref, "text": item.value})
        elif el.role in CHOICE_ROLES:
            action = BatchAction(tool="select", arguments={"ref": item.ref, "values": [item.value]})
        elif el.role in TOGGLE_ROLES:
            wanted = _ON_OFF.get(item.value.strip().lower())
            if wanted is None:
                message = (
                    f'field {number}: [{item.ref}] is a {el.role}: its value is "true" or '
                    f'"false", not {item.value!r}; nothing was filled'
                )
                return ToolResult.failure("invalid_arguments", message)
            is_on = "checked" in el.states
            if wanted == is_on:
                planned.append({**entry, "status": "unchanged", "on": is_on})
                continue
            if el.role in ("radio", "menuitemradio") and not wanted:
                message = (
                    f"field {number}: [{item.ref}] radio {el.quoted_name} is checked, and a "
                    "radio is unchecked only by choosing another of its group: set that one "
                    '"true"; nothing was filled'
                )
                return ToolResult.failure("unsupported_action", message)
            entry["on"] = wanted
            action = BatchAction(tool="click", arguments={"ref": item.ref})
        else:
            message = (
                f"field {number}: [{item.ref}] is a {el.role} {el.quoted_name}, not a form "
                "field (a text field, select, combobox, checkbox, radio or switch); act on it "
                "with its own tool (click, …); nothing was filled"
            )
            return ToolResult.failure("unsupported_action", message)
        planned.append({**entry, "step": len(actions)})
        actions.append(action)
    if not actions:
        lines = [
            "every field already has its value; nothing was clicked",
            *_left_as_they_were(planned),
        ]
        return ToolResult(text="\n".join(lines), value={"fields": _statuses(planned, [])})
    result = await batch(session, actions=actions)
    steps = result.value.get("steps", [])
    statuses = _statuses(planned, steps)
    text = "\n".join([result.text, *_left_as_they_were(planned)])
    result = replace(result, text=text, value={**result.value, "fields": statuses})
    flipped = _flipped(planned, result.observation) if result.error is None else None
    if flipped is None:
        return result
    # A click is a flip: one field may have set another before its own click (a "select
    # all"), so the click flipped it back. Said, not reported as filled.
    number, el = flipped
    statuses[number - 1]["status"] = "failed"
    state = "checked" if "checked" in el.states else "unchecked"
    message = (
        f"field {number}: [{el.id}] {el.role} {el.quoted_name} is {state} after the form was "
        "filled: the page changed it besides its click (an earlier field of the form, or a "
        "click it undid); observe, then set it again"
    )
    return replace(result, error=ToolFailure(reason="page_changed", message=message))


def _flipped(
    planned: list[dict[str, Any]], after: Observation | None
) -> tuple[int, Element] | None:
    """The first toggle that was clicked and is not as asked now: (its field number, it)."""
    now = {e.id: e for e in after.elements} if after is not None else {}
    for number, entry in enumerate(planned, start=1):
        el = now.get(entry["ref"])
        clicked = entry["step"] is not None and "on" in entry
        if clicked and el is not None and ("checked" in el.states) != entry["on"]:
            return number, el
    return None


async def _elements(session: Session) -> dict[int, Element]:
    """The page's elements as they are now. Not the latest observation's: a box a script
    ticked since would be clicked, so unticked, by a plan made from it (ids stay the same)."""
    obs = await session.page.observe()
    session.latest = obs
    return {e.id: e for e in obs.elements}


def _left_as_they_were(planned: list[dict[str, Any]]) -> list[str]:
    return [
        f"  [{f['ref']}] {f['role']}: already {'checked' if f['on'] else 'unchecked'}"
        for f in planned
        if f.get("status") == "unchanged"
    ]


def _statuses(planned: list[dict[str, Any]], steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each field's status: its batch step's (done, failed, refused, not_run) or unchanged."""
    out = []
    for entry in planned:
        step = entry["step"]
        status = entry.get("status") or (steps[step]["status"] if step < len(steps) else "not_run")
        out.append({"ref": entry["ref"], "role": entry["role"], "status": status})
    return out
