"""The results of a session's tool calls: a page step run on the session's page and its
Effect reported (the page after it becoming the session's latest), a refused call, and any
result with the session's secrets masked.

The registry runs the page step a tool returns with :func:`run_step`; the tools that act on
the page themselves (``batch``, the coordinate tools) report with the same functions, so a
step says the same thing whichever way it ran.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pagesight.act.effect import Effect
from pagesight.agent.session import Session
from pagesight.agent.tool import PageStep, ToolFailure, ToolResult
from pagesight.browser.page import ACT_TIMEOUT_S, ACT_WAIT_S
from pagesight.errors import InputError


async def run_step(step: PageStep, session: Session) -> ToolResult:
    """Run one page step (secrets filled in now) and report its Effect (see
    :func:`effect_result`)."""
    page = session.page
    try:
        args = load_args(step.action, await session.secrets.fill_step(step, page), session)
        if step.action == "navigate":
            effect = await page.navigate(**args)
        elif step.action == "back":
            effect = await page.back(**args)
        else:
            effect = await page.act(step.ref, step.action, **args)
    except InputError as exc:
        return error_result(exc, session)
    return effect_result(effect, session)


def load_args(action: str, args: dict[str, Any], session: Session) -> dict[str, Any]:
    """``args`` of a page step with the session's times unless it names its own. A load
    (navigate, back) is given as long as the run said a page may take (``--timeout``), not
    the library's default, so a server that never answers ends the step in that time; any
    other action keeps Page.act's own times, cut to ``--timeout`` when that is shorter, so
    no single action outlasts what the run allows."""
    if action in ("navigate", "back"):
        return {"timeout": session.load_timeout, **args}
    return {**action_times(session), **args}


def action_times(session: Session) -> dict[str, float]:
    """The ``wait`` and ``timeout`` of an action on the session's page (see :func:`load_args`)."""
    return {
        "wait": min(ACT_WAIT_S, session.load_timeout),
        "timeout": min(ACT_TIMEOUT_S, session.load_timeout),
    }


def effect_result(effect: Effect, session: Session) -> ToolResult:
    """An action's Effect as a ToolResult (and as the session's latest page). A navigation
    the browser's origin policy refused (a link, a redirect, a new tab) is an error,
    ``origin_not_allowed``, that keeps the effect: the tab is still where it was."""
    session.latest = effect.observation
    result = ToolResult(
        text=effect.text(),
        value=effect.to_dict(),
        observation=effect.observation,
        effect=effect,
    )
    refused = effect.refused_navigation
    if refused is not None:
        # The action ran, but where it led was refused: an error for the model, which must
        # not think it reached the page, with the effect kept (the tab is where it was).
        error = session.browser.origins.refusal(refused.url)
        failure = ToolFailure(reason=error.reason, message=str(error))
        text = f"error ({failure.reason}): {failure.message}\n{result.text}"
        return replace(result, text=text, error=failure)
    return result


def error_result(exc: InputError, session: Session) -> ToolResult:
    """A call refused with ``exc``: its reason, and its message with secrets masked."""
    return ToolResult.failure(exc.reason, session.secrets.mask(str(exc)))


def masked(result: ToolResult, session: Session) -> ToolResult:
    """``result`` with every secret value in its text, value and error written ``{{NAME}}``
    (an error may quote the page: ``expect`` says what a field holds, a secret typed there)."""
    secrets = session.secrets
    error = result.error
    if error is not None:
        error = replace(error, message=secrets.mask(error.message))
    return replace(
        result, text=secrets.mask(result.text), value=secrets.mask(result.value), error=error
    )
