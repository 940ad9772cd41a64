from __future__ import annotations

from dataclasses import replace
from typing import Any
from urllib.parse import urljoin, urlsplit

from pagesight.agent.idsteps import CheckLine, DoneLine, Line, ToolLine, parse_steps
from pagesight.agent.results import masked
from pagesight.agent.session import Session
from pagesight.agent.tool import ToolFailure, ToolResult
from pagesight.agent.tools.batch import BatchAction, batch
from pagesight.errors import StepsError
from pagesight.observe.observation import Observation
from pagesight.observe.shown import closest_texts, contains, has_value, shown


async def act(session: Session, *, steps: str) -> ToolResult:
    """Act on the page, one step a line, in order, stopping at the first that fails;
    answers with each step's effect and the page after.

    Args:
        steps: Lines such as: click [4] | type "Ada" into [5] | select "Tokyo" in [6] |
            press Enter (in [5]) | hover [4] | scroll to [4] | scroll down (in [4]) |
            drag [4] to [9] | upload "cv.pdf" to [7] | go to URL | go back |
            wait for "text" | expect "text" | expect [5] to be "Ada" | done ("answer").
            [4] is an element's id; {{NAME}} types the secret NAME.
    """
    try:
        lines = parse_steps(steps)
    except StepsError as exc:
        return ToolResult.failure(exc.reason, str(exc))
    if not _one_batch(lines):
        # Run as several batches, a risky line in a later one would be asked about once the
        # earlier ones ran (and an MCP client's retry after the question runs them again):
        # every action line is put to the confirm policy first, and none is asked twice.
        refused = await _gate(session, lines)
        if refused is not None:
            return refused
        confirm, session.confirm = session.confirm, replace(session.confirm, mode="never")
        try:
            return await _run(session, lines)
        finally:
            session.confirm = confirm
    return await _run(session, lines)


async def _run(session: Session, lines: tuple[Line, ...]) -> ToolResult:
    texts: list[str] = []
    record: list[dict[str, Any]] = []
    ran_steps: list[dict[str, Any]] = []  # each action's step as the batch reported it
    result = ToolResult(text="")
    pending: list[ToolLine] = []

    async def run_pending() -> ToolResult:
        """The action lines gathered so far, as one batch (one round, one settle)."""
        actions = [BatchAction(tool=t.tool, arguments=t.arguments) for t in pending]
        ran = await batch(session, actions=actions)
        batch_steps = ran.value.get("steps", ())
        ran_steps.extend(batch_steps)
        for i, t in enumerate(pending):
            step: dict[str, Any] = batch_steps[i] if i < len(batch_steps) else {"status": "not_run"}
            kinds = (step.get("effect") or {}).get("kinds", [])
            record.append(
                {
                    "step": t.text,
                    "tool": t.tool,
                    "arguments": t.arguments,
                    "status": step["status"],
                    "kinds": kinds,
                }
            )
        pending.clear()
        texts.append(ran.text)
        return ran

    for line in lines:
        if isinstance(line, ToolLine) and not _relative(line):
            pending.append(line)
            continue
        # A check, done, or a go to a path (read against the page the lines before it left)
        # comes after the actions gathered so far have run.
        if pending:
            result = await run_pending()
            if result.is_error:
                return _finish(result, texts, record, ran_steps, session)
        if isinstance(line, ToolLine):
            pending.append(_resolved(line, session))
            continue
        if isinstance(line, DoneLine):
            text = "done" if line.answer is None else f"done: {line.answer}"
            texts.append(text)
            record.append({"step": line.text, "done": True, "answer": line.answer})
            done = replace(result, text="", error=None, done=True, answer=line.answer)
            return _finish(done, texts, record, ran_steps, session)
        checked = await _check(session, line, result.observation)
        record.append(
            {
                "step": line.text,
                "check": line.kind,
                "value": line.value,
                "ref": line.ref,
                "ok": not checked.is_error,
                **({"seen": checked.value["seen"]} if "seen" in checked.value else {}),
            }
        )
        texts.append(checked.text)
        if checked.observation is not result.observation:  # a wait's later reading
            result = replace(result, observation=checked.observation)
        if checked.is_error:
            return _finish(replace(result, error=checked.error), texts, record, ran_steps, session)
    if pending:
        result = await run_pending()
    return _finish(result, texts, record, ran_steps, session)


def _one_batch(lines: tuple[Line, ...]) -> bool:
    """Whether the action lines run as one batch: no check or relative ``go to`` splits
    them (``batch`` puts every step to the confirm policy before the first runs)."""
    actions = [i for i, line in enumerate(lines) if isinstance(line, ToolLine)]
    if not actions:
        return True
    inside = lines[actions[0] : actions[-1] + 1]
    return all(isinstance(x, ToolLine) for x in inside) and not any(
        _relative(x) for x in inside[1:] if isinstance(x, ToolLine)
    )


async def _gate(session: Session, lines: tuple[Line, ...]) -> ToolResult | None:
    """Every action line checked and put to the confirm policy, before any runs: the
    first refused (a person declined, no one to ask, bad arguments), or None."""
    for line in lines:
        if not isinstance(line, ToolLine):
            continue
        call = _resolved(line, session)
        planned = await session.registry.plan(call.tool, call.arguments, session)
        if isinstance(planned, ToolResult) and planned.error is not None:
            message = f"line {line.line}: {planned.error.message}; nothing was run"
            return masked(ToolResult.failure(planned.error.reason, message), session)
    return None


def _relative(line: ToolLine) -> bool:
    """A ``go to`` whose URL is a path (``/contacts``): which page it is on is known only
    once the lines before it ran."""
    url = line.arguments.get("url") if line.tool == "navigate" else None
    return isinstance(url, str) and not urlsplit(url).scheme


def _resolved(line: ToolLine, session: Session) -> ToolLine:
    """``line``, a ``go to`` a path read against the page the tab is on now."""
    if not _relative(line):
        return line
    return replace(line, arguments={"url": urljoin(session.page.url, line.arguments["url"])})


def _finish(
    result: ToolResult,
    texts: list[str],
    record: list[dict[str, Any]],
    ran_steps: list[dict[str, Any]],
    session: Session,
) -> ToolResult:
    """One result for the whole call: every line's text, the lines as run (a run's
    ``steps.txt`` is written from them), each action's step with its effect as ``batch``
    reports it (so an answer need not repeat what the effects said), the last page and
    effect, the first error."""
    value = {"lines": record, "steps": ran_steps}
    return masked(replace(result, text="\n".join(t for t in texts if t), value=value), session)


async def _check(session: Session, line: CheckLine, after: Observation | None) -> ToolResult:
    """A ``wait for`` (the ``wait_for`` tool, which polls) or an ``expect`` (the page as it
    is now: ``after``, the page the actions before it settled on, else read now): a failure,
    ``expectation_failed``, says what the page shows instead. Checking the page the actions
    left keeps it the call's page, so its answer can be what changed, not the whole page."""
    if line.kind == "wait_for":
        return await session.registry.call("wait_for", {"text": line.value}, session)
    obs = after
    if obs is None:
        obs = session.latest = await session.page.observe()
    if line.kind in ("expect_text", "expect_containing"):
        rule = shown if line.kind == "expect_text" else contains
        piece = rule(obs, line.value)
        if piece is not None:
            # The text it was found in goes to the records; the model has the page (or the
            # effect that showed it) already, and reads each fact once.
            return ToolResult(text=f"seen {line.value!r}", value={"seen": piece}, observation=obs)
        seen = closest_texts(obs, line.value)
        return _failed(line, f"expected the page to show {line.value!r}; seen: {seen}", obs)
    element = next((e for e in obs.elements if e.id == line.ref), None)
    if element is None:
        return _failed(line, f"no element [{line.ref}] on the page now", obs)
    seen_value = element.value or ""
    if has_value(seen_value, line.value):
        return ToolResult(text=f"[{line.ref}] is {line.value!r}", observation=obs)
    message = f"expected [{line.ref}] {element.role} to be {line.value!r}; seen: '{seen_value}'"
    return _failed(line, message, obs)


def _failed(line: CheckLine, message: str, obs: Observation) -> ToolResult:
    text = f"line {line.line}: {line.text}: {message}"
    failure = ToolFailure(reason="expectation_failed", message=text)
    return ToolResult(text=f"error (expectation_failed): {text}", error=failure, observation=obs)
