from __future__ import annotations

from dataclasses import replace
from typing import Any

import pydantic

from pagesight.act.batch import StepResult
from pagesight.agent.results import load_args, masked
from pagesight.agent.session import Session
from pagesight.agent.tool import PageStep, ToolFailure, ToolResult
from pagesight.errors import InputError


class BatchAction(pydantic.BaseModel):
    """One action of a batch: a page tool's name and its arguments."""

    model_config = pydantic.ConfigDict(extra="forbid")
    tool: str = pydantic.Field(description="click, input, select, hover, press_key, scroll, …")
    arguments: dict[str, Any] = pydantic.Field(
        default_factory=dict, description="That tool's arguments."
    )


async def batch(session: Session, *, actions: list[BatchAction]) -> ToolResult:
    """Run several page actions in order as one round, stopping at the first that fails
    (fill a form: type, select, tick, then save). One that loads a page must be the last.

    Args:
        actions: The actions, each a page tool (click, input, select, hover, press_key,
            scroll, drag, upload, navigate, back) with its arguments.
    """
    if not actions:
        return ToolResult.failure("invalid_arguments", "batch: give at least one action")
    steps: list[PageStep] = []
    registry = session.registry
    for number, item in enumerate(actions, start=1):
        if item.tool in registry and not registry.get(item.tool).page_action:
            # Refused before it runs: planning a tool that is not a page step runs it.
            message = f"action {number}: {item.tool} does not act on the page; nothing was run"
            return ToolResult.failure("not_batchable", message)
        planned = await registry.plan(item.tool, item.arguments, session)
        if isinstance(planned, ToolResult):
            message = planned.error.message if planned.error else "no page step"
            reason = planned.error.reason if planned.error else "not_batchable"
            return ToolResult.failure(reason, f"action {number}: {message}; nothing was run")
        steps.append(planned)
    try:
        # Every step's secrets checked against where they go before any step runs.
        ready = [
            (
                s.ref,
                s.action,
                load_args(s.action, await session.secrets.fill_step(s, session.page), session),
            )
            for s in steps
        ]
        result = await session.page.batch(ready)
    except InputError as exc:  # a step page.batch refused before any ran (a missing file)
        return ToolResult.failure(exc.reason, f"{exc}; nothing was run")
    if result.effect is not None:
        session.latest = result.effect.observation
    lines = [_step_text(s) for s in result.steps]
    value = {
        "steps": [
            {
                "index": s.index,
                "ref": s.element_id,
                "action": s.action,
                "status": s.status,
                "effect": s.effect.to_dict() if s.effect is not None else None,
                "error": (
                    {"reason": s.error.reason, "message": str(s.error)}
                    if s.error is not None
                    else None
                ),
            }
            for s in result.steps
        ]
    }
    failed = next((s for s in result.steps if s.error is not None), None)
    out = ToolResult(
        text="\n".join(lines),
        value=value,
        observation=result.effect.observation if result.effect is not None else None,
        effect=result.effect,
    )
    if failed is not None and failed.error is not None:
        failure = ToolFailure(reason=failed.error.reason, message=str(failed.error))
        out = replace(out, error=failure)
    refused = next(
        (
            s.effect.refused_navigation
            for s in result.steps
            if s.effect and s.effect.refused_navigation
        ),
        None,
    )
    if out.error is None and refused is not None:
        # A step ran but where it led was refused (the tab stayed, the rest did not run): an
        # error for the model, as the same action alone is (results.effect_result).
        error = session.browser.origins.refusal(refused.url)
        failure = ToolFailure(reason=error.reason, message=str(error))
        # Said first, as for one action: the step's own effect reads as a no_op.
        text = f"error ({failure.reason}): {failure.message}\n{out.text}"
        out = replace(out, text=text, error=failure)
    return masked(out, session)


def _step_text(step: StepResult) -> str:
    """A step that ran: its effect, as the same action called alone says it (so a batch
    reads no longer than its calls one by one); one that did not: its number, and why."""
    if step.effect is not None:
        return step.effect.text()
    target = f" [{step.element_id}]" if step.element_id is not None else ""
    why = f" ({step.error.reason}): {step.error}" if step.error is not None else ""
    return f"{step.index + 1}. {step.action}{target} {step.status}{why}"
