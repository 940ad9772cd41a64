"""One task, once: its app started fresh, a browser, the planner run from the start page, the
outcome judged by the task's checks, everything written in the task's folder.

:func:`run_task` runs in whatever process runs it (a worker process of
:mod:`pagesight.eval.worker`, a Ray task) and returns a :class:`TaskResult`; an
infrastructure failure (the app did not start, the browser or model failed underneath) is a
result too, with ``outcome = "infra"``, for the driver to retry.
"""

from __future__ import annotations

import os
import re
import time
import traceback
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urljoin

from pagesight.agent.profiles import DEFAULT_PROFILE, Profile
from pagesight.errors import InputError, RuntimeFailure, SetupError, SuiteError
from pagesight.eval.app import started
from pagesight.eval.checks import Outcome, ScriptValue, judge
from pagesight.eval.suite import Suite, Task
from pagesight.guard.risk import Mode, Risk

Planner = Literal["steps", "model"]
OutcomeKind = Literal["passed", "failed", "infra"]

API_KEY_ENV = "PAGESIGHT_EVAL_API_KEY"
"""How a worker gets ``--api-key``: in its environment, never in a file on disk."""

RUN = "run"
WORK = "work"
DOWNLOADS = "downloads"


@dataclass(frozen=True, kw_only=True)
class Options:
    """How every task of an eval runs; plain data, so a worker process or a Ray task gets it."""

    planner: Planner = "steps"
    model: str | None = None
    base_url: str | None = None
    model_timeout: float = 60.0
    max_steps: int | None = None
    tools: Profile = DEFAULT_PROFILE
    confirm: Mode = "risky"
    timeout: float = 30.0
    """The page's load and each look at it, as ``pagesight run --timeout``."""
    task_timeout: float = 300.0
    """A task's deadline, whole: the driver ends a task that passes it."""
    headed: bool = False

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(kw_only=True)
class TaskResult:
    """One run of one task: what ``results.jsonl`` holds, a line each."""

    task: str
    category: str
    repeat: int
    attempt: int
    outcome: OutcomeKind
    checks: list[dict[str, Any]] = field(default_factory=list)
    rounds: int = 0
    steps: int = 0
    input_tokens: int = 0
    cached_input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = None
    wall_s: float = 0.0
    stop_reason: str = ""
    message: str = ""
    answer: str | None = None
    final_url: str = ""
    folder: str = ""
    """The task's folder, relative to the eval's ``--out``."""
    report: str | None = None
    """The run's report.html, relative to the eval's ``--out``."""
    error: str | None = None
    """What failed underneath, for an ``infra`` outcome."""
    browser_version: str | None = None

    @property
    def passed(self) -> bool:
        return self.outcome == "passed"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TaskResult:
        return cls(**data)


def task_folder(task: Task, repeat: int, attempt: int) -> str:
    """Where a task's run lives in ``--out``: ``tasks/ID/REPEAT``, an infrastructure retry
    beside it (``tasks/ID/REPEAT.retry1``) so the failed attempt's files stay to be read."""
    suffix = f".retry{attempt - 1}" if attempt > 1 else ""
    return f"tasks/{task.id}/{repeat}{suffix}"


def infra_result(task: Task, repeat: int, attempt: int, error: str, wall: float) -> TaskResult:
    return TaskResult(
        task=task.id,
        category=task.category,
        repeat=repeat,
        attempt=attempt,
        outcome="infra",
        stop_reason="infra",
        message=error,
        error=error,
        wall_s=round(wall, 3),
        folder=task_folder(task, repeat, attempt),
    )


def run_task(
    suite: Suite, task: Task, *, repeat: int, attempt: int, options: Options, out: Path
) -> TaskResult:
    """Run ``task`` once into ``out/tasks/ID/REPEAT``; never raises: a failure of the task
    or of the infrastructure is a result (``failed``, ``infra``)."""
    relative = task_folder(task, repeat, attempt)
    folder = out / relative
    workdir = folder / WORK
    downloads = workdir / DOWNLOADS
    downloads.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    try:
        return _run(suite, task, repeat=repeat, attempt=attempt, options=options, out=out)
    except InputError as exc:  # the page refused the task (its start did not load, …)
        failed = infra_result(task, repeat, attempt, _one_line(exc), time.perf_counter() - t0)
        failed.outcome, failed.stop_reason, failed.error = "failed", exc.reason, None
        return failed
    except (RuntimeFailure, SetupError) as exc:
        return infra_result(task, repeat, attempt, _one_line(exc), time.perf_counter() - t0)
    except Exception as exc:  # noqa: BLE001 - Playwright's pipe broke, a bug: counted apart
        (folder / "error.txt").write_text(traceback.format_exc())
        error = f"{type(exc).__name__}: {_one_line(exc)}"
        return infra_result(task, repeat, attempt, error, time.perf_counter() - t0)


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


def _run(
    suite: Suite, task: Task, *, repeat: int, attempt: int, options: Options, out: Path
) -> TaskResult:
    from pagesight import Agent, Browser

    relative = task_folder(task, repeat, attempt)
    folder = out / relative
    workdir = folder / WORK
    downloads = workdir / DOWNLOADS

    planner = _planner(suite, task, options)
    t0 = time.perf_counter()
    with started(suite.app, folder=suite.folder, workdir=workdir) as app:
        base_url = app.url if app is not None else ""
        start = urljoin(base_url + "/", task.start) if task.start.startswith("/") else task.start
        with Browser.launch(headless=not options.headed, downloads=downloads) as browser:
            version = str(browser.playwright.version)
            secrets = planner.secrets() if options.planner == "steps" else {}
            agent = Agent(
                browser,
                planner,
                secrets=secrets,
                max_steps=options.max_steps or task.max_steps or _default_steps(planner),
                out=folder / RUN,
                timeout=options.timeout,
                confirm=options.confirm,
                tool_profile=options.tools,
                confirmer=_allowed(task),
            )
            goal = task.goal
            if task.goal_from is not None:
                goal = _read_goal(browser, start, task.goal_from, options.timeout)
            result = agent.run(start, goal)
            page = agent.page
            final_url = page.url if page is not None and not page.closed else result.final_url
            text = ""
            scripts: dict[str, ScriptValue] = {}
            if page is not None and not page.closed and not page.crashed:
                text = str(page.playwright.inner_text("body"))
                scripts = _evaluate(page, task)
        outcome = Outcome(
            result=result,
            final_url=final_url,
            page_text=text,
            workdir=workdir,
            downloads=downloads,
            base_url=base_url,
            db=app.db if app is not None else None,
            confirm=options.confirm,
            scripts=scripts,
        )
        checks = judge(task.checks, outcome, folder=suite.folder)
    usage = result.usage
    report = folder / RUN / "report.html"
    return TaskResult(
        task=task.id,
        category=task.category,
        repeat=repeat,
        attempt=attempt,
        # No check applied (every one for another --confirm mode): nothing says it was done.
        outcome="passed" if checks and all(c.ok for c in checks) else "failed",
        checks=[c.as_dict() for c in checks],
        rounds=result.rounds,
        steps=len(result.steps),
        input_tokens=usage.input_tokens if usage else 0,
        cached_input_tokens=usage.cached_input_tokens if usage else 0,
        output_tokens=usage.output_tokens if usage else 0,
        cost=usage.cost if usage else None,
        wall_s=round(time.perf_counter() - t0, 3),
        stop_reason=result.stop_reason,
        message=result.message,
        answer=result.answer,
        final_url=final_url,
        folder=relative,
        report=f"{relative}/{RUN}/report.html" if report.is_file() else None,
        browser_version=version,
    )


_TEXT_OF = """(selector) => {
  let found;
  try { found = document.querySelector(selector); } catch (e) { return {error: String(e)}; }
  return found ? found.textContent : null;
}"""


def _read_goal(browser: Any, start: str, selector: str, timeout: float) -> str:
    """The text of ``selector`` on the start page, in a tab of its own closed at once
    (textContent, spacing collapsed: for MiniWoB's ``#query``, its ``core.getUtterance()``).
    A page with a fixed episode (MiniWoB's seed in the URL) shows the same text again when the
    run loads it. SuiteError (the task fails) when the page has no such text."""
    page = browser.open(start, timeout=timeout)
    try:
        text = page.playwright.evaluate(_TEXT_OF, selector)
    finally:
        page.close()
    if isinstance(text, dict):
        raise SuiteError(f"goal_from: {selector!r} is not a CSS selector: {text['error']}")
    goal = " ".join((text or "").split())
    if not goal:
        shown = "shows no text there" if text is not None else "has no such element"
        raise SuiteError(f"goal_from: the start page {start} {shown} ({selector!r})")
    return goal


def _evaluate(page: Any, task: Task) -> dict[str, ScriptValue]:
    """Each ``page_script`` check's expression on the final page, before its browser closes."""
    values: dict[str, ScriptValue] = {}
    for check in task.checks:
        if check.page_script is None or check.page_script in values:
            continue
        try:
            value = ScriptValue(value=page.playwright.evaluate(check.page_script))
        except Exception as exc:  # noqa: BLE001 - a script that fails is a check that fails
            value = ScriptValue(error=_one_line(exc))
        values[check.page_script] = value
    return values


def _allowed(task: Task) -> Callable[[Risk], bool] | None:
    """The person's yes given in advance (the task's ``allow`` words), no to anything else;
    None when the task allows nothing: then a risky step stops the run (``needs_person``),
    as nobody is at a worker's terminal to ask."""
    if not task.allow:
        return None
    # A word of its own: "send" allows 'click [7] button "Send"', not "Resend invoice" (in
    # Latin script; Chinese, written without spaces, as it is: "发送" in "发送消息").
    words = [
        re.compile(rf"(?<![A-Za-z0-9]){re.escape(word)}(?![A-Za-z0-9])", re.IGNORECASE)
        for word in task.allow
    ]

    def allowed(risk: Risk) -> bool:
        return any(word.search(risk.action) for word in words)

    return allowed


def _default_steps(planner: Any) -> int:
    count = len(getattr(planner, "steps", ()))
    return max(15, 2 * count + 1)


def _planner(suite: Suite, task: Task, options: Options) -> Any:
    """The steps planner over the task's steps file, or the model planner for its goal."""
    if options.planner == "steps":
        from pagesight.planners import StepsPlanner

        steps = suite.steps_path(task)
        if steps is None:
            raise SuiteError(f"{suite.path}: task {task.id!r}: steps: none, for the steps planner")
        return StepsPlanner.from_file(steps)
    from pagesight.models import connect, resolve
    from pagesight.planners.llm.planner import ModelPlanner

    assert options.model is not None
    spec = resolve(options.model, api_key=os.environ.get(API_KEY_ENV), base_url=options.base_url)
    return ModelPlanner(connect(spec, timeout=options.model_timeout))
