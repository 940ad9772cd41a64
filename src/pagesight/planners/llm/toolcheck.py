"""A model's tool calls checked before they become Decisions, with the tools' own models.

Each tool's arguments are checked by the pydantic model its schema was derived from
(:attr:`~pagesight.messages.ToolSpec.arguments`), so what the model was shown and
what is enforced are one thing. A ``batch`` call has each of its actions checked the same
way. What does not fit comes back as an error in words, one per call, for the model to read
and try again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import pydantic

from pagesight.agent.tool import validation_message
from pagesight.messages import ToolCall, ToolSpec


@dataclass(frozen=True, kw_only=True)
class CheckedCalls:
    """The calls with their arguments as checked (values coerced to the schema's types,
    only the arguments the model gave), and for each call its error or ``None``."""

    calls: tuple[ToolCall, ...]
    errors: tuple[str | None, ...]

    @property
    def ok(self) -> bool:
        return not any(self.errors)


def check_calls(calls: Sequence[ToolCall], tools: Sequence[ToolSpec]) -> CheckedCalls:
    """Check each of ``calls`` against the tool it names among ``tools``."""
    by_name = {t.name: t for t in tools}
    # Several act calls are one list of steps; beside any other tool they would run as a
    # batch, which takes page actions only (act is a list of them): refused, saying how.
    mixed = len({c.name == "act" for c in calls}) > 1
    checked, errors = [], []
    for call in calls:
        arguments, error = _check(call.name, call.arguments, by_name)
        if error is None and call.name == "done" and len(calls) > 1:
            error = (
                "error (invalid_arguments): done: call done alone, in a reply of its own, "
                "once the page shows the goal is reached"
            )
        if error is None and call.name == "act" and mixed:
            error = (
                "error (invalid_arguments): act: call act alone (several act calls are one "
                "list of steps); call other tools in a reply of their own"
            )
        checked.append(replace(call, arguments=arguments))
        errors.append(error)
    return CheckedCalls(calls=tuple(checked), errors=tuple(errors))


def _check(
    name: str, arguments: Any, tools: dict[str, ToolSpec]
) -> tuple[dict[str, Any], str | None]:
    spec = tools.get(name)
    if spec is None:
        known = ", ".join(sorted(tools))
        return {}, f"error (unknown_tool): no tool named {name!r}; tools: {known}"
    if not isinstance(arguments, dict):
        return {}, f"error (invalid_arguments): {name}: arguments must be an object"
    if spec.arguments is None:  # a spec made by hand: the registry checks it when it runs
        return dict(arguments), None
    try:
        model = spec.arguments.model_validate(arguments)
    except pydantic.ValidationError as exc:
        return dict(arguments), f"error (invalid_arguments): {validation_message(name, exc)}"
    checked: dict[str, Any] = model.model_dump(exclude_unset=True)
    if name == "batch":
        for number, action in enumerate(checked.get("actions", ()), start=1):
            inner, error = _check(action["tool"], action.get("arguments", {}), tools)
            if error is not None:
                return dict(arguments), error.replace("): ", f"): batch action {number}: ", 1)
            action["arguments"] = inner
    return checked, None
