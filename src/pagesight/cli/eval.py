"""``pagesight eval SUITE``: every task of a suite from a fresh app, judged by its checks,
with a live display of the tasks running and done, then a table and the files in ``--out``.
Exit 0 when every run passed, 3 when some failed, 1 on an infrastructure failure, 2 on bad
input (raised, as every command's)."""

from __future__ import annotations

import argparse
import math
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pagesight.cli.options import add_tools_option, check_headed
from pagesight.errors import InvalidOption

if TYPE_CHECKING:
    from collections.abc import Callable

    from rich.console import Console
    from rich.progress import Progress, TaskID

    from pagesight.eval.evaluate import EvalResult
    from pagesight.eval.ray_executor import Cluster
    from pagesight.eval.runner import Executor, Job
    from pagesight.eval.task import Planner, TaskResult

DEFAULT_OUT = "evals"


def add_eval_options(commands: argparse._SubParsersAction[Any]) -> None:
    from pagesight.guard.risk import MODES

    run = commands.add_parser(
        "eval",
        help="run a suite of tasks, each from a fresh app, and check each outcome",
        description="Run every task of a suite (a suite.toml, or a bundled name: orbit) from "
        "a fresh app, judge each by its own checks, and write results.jsonl, results.csv, "
        "summary.json and report.html. Exit 0: every run passed; 3: some failed; 1: an "
        "infrastructure failure (retried twice first); 2: bad input.",
    )
    run.add_argument("suite", help="a suite file (or its folder), or a bundled suite: orbit")
    run.add_argument(
        "--model",
        default=None,
        metavar="PROVIDER:MODEL",
        help="the model each task's goal is given to (openai:gpt-4.1-mini, "
        "anthropic:claude-haiku-4-5, ollama:…); without it, the tasks' steps files run offline",
    )
    run.add_argument(
        "--planner",
        choices=("steps", "model"),
        default=None,
        help="steps (each task's steps file, offline) or model (needs --model); "
        "default: model when --model is given, else steps",
    )
    run.add_argument("--api-key", default=None, help="the model's API key (else its variable)")
    run.add_argument("--base-url", default=None, help="the model server's URL")
    run.add_argument(
        "--model-timeout", type=float, default=60.0, metavar="SECONDS", help="per model call"
    )
    run.add_argument("--tasks", default=None, metavar="ID,…", help="only these tasks")
    run.add_argument("--repeat", type=int, default=1, metavar="N", help="run each task N times")
    run.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="tasks at once, a process each (default 1); with --ray and no address, the "
        "browsers of the local Ray; with an address, at most this many of the cluster's",
    )
    run.add_argument(
        "--ray",
        nargs="?",
        const="",
        default=None,
        metavar="ADDRESS",
        help="run each task as a Ray task asking for one 'browser' resource (needs "
        "pagesight[ray]): on the cluster at ADDRESS (HOST:PORT, ray://HOST:PORT, auto), or "
        "without one on a local Ray started here",
    )
    run.add_argument(
        "--out", default=None, metavar="DIR", help=f"where the files go ({DEFAULT_OUT}/<time>)"
    )
    run.add_argument("--max-steps", type=int, default=None, metavar="N", help="per task")
    add_tools_option(run)
    run.add_argument(
        "--confirm",
        choices=MODES,
        default="risky",
        help="which actions need a person's yes: risky (default), all or never; nobody is "
        "asked in an eval, so such a step stops its run unless its task allows it",
    )
    run.add_argument(
        "--timeout",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="how long a page may take to load and to answer each look (default 30)",
    )
    run.add_argument(
        "--task-timeout",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="a task's deadline, app and browser start included (default 300)",
    )
    run.add_argument("--headed", action="store_true", help="show each task's browser")


def run_eval_command(args: argparse.Namespace) -> int:
    from pagesight.eval.evaluate import check_out, prepare, run_eval
    from pagesight.eval.suite import load_suite
    from pagesight.eval.task import Options

    for option in ("repeat", "workers", "max_steps"):
        value = getattr(args, option)
        if value is not None and value < 1:
            raise InvalidOption(option, f"must be a positive number, not {value}")
    for option in ("timeout", "task_timeout", "model_timeout"):
        if not 0 < getattr(args, option) < math.inf:  # nan and inf too: Playwright takes neither
            raise InvalidOption(option, "must be a positive number of seconds")
    planner: Planner = args.planner or ("model" if args.model else "steps")
    if planner == "steps":
        for option in ("model", "api_key", "base_url"):
            if getattr(args, option) is not None:
                raise InvalidOption(option, "is for --planner model; the steps planner needs none")
    if args.ray is not None and args.headed:
        raise InvalidOption("ray", "runs browsers headless on Ray's nodes; drop --headed")
    check_headed(args.headed)
    suite = load_suite(args.suite)
    options = Options(
        planner=planner,
        model=args.model,
        base_url=args.base_url,
        model_timeout=args.model_timeout,
        max_steps=args.max_steps,
        tools=args.tools,
        confirm=args.confirm,
        timeout=args.timeout,
        task_timeout=args.task_timeout,
        headed=args.headed,
    )
    ids = [part.strip() for part in (args.tasks or "").split(",") if part.strip()]
    tasks = prepare(suite, ids, options)
    if planner == "model":
        _check_model(args)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    out = Path(args.out or f"{DEFAULT_OUT}/{stamp}-{suite.name}").expanduser().absolute()
    workers: int = args.workers or 1
    where = f"{workers} worker{'s' if workers != 1 else ''}"
    executor: Callable[[], Executor] | None = None
    cluster: Cluster | None = None
    if args.ray is None:
        check_out(out)
    else:
        from pagesight.eval.ray_executor import RayTasks, connect

        # The cluster first: an address where nothing answers leaves no --out behind.
        cluster = connect(args.ray or None, workers=args.workers)
        workers = cluster.browsers
        try:
            check_out(out)
            ray_tasks = RayTasks(cluster, suite, options, out, api_key=args.api_key)
        except BaseException:
            cluster.shutdown()
            raise
        executor = lambda: ray_tasks  # noqa: E731 - the one executor, made before the display
        where = (
            f"Ray at {args.ray}" if args.ray else "a local Ray"
        ) + f", {workers} browser{'s' if workers != 1 else ''}"
    console = _console()
    console.print(
        f"{suite.name}: {len(tasks)} task{'s' if len(tasks) != 1 else ''}"
        f"{f' x {args.repeat}' if args.repeat > 1 else ''}, planner {planner}"
        f"{f' ({args.model})' if args.model else ''}, {where} → {out}"
    )
    try:
        with _Display(console, len(tasks) * args.repeat) as display:
            result = run_eval(
                suite,
                tasks,
                options,
                out,
                repeat=args.repeat,
                workers=workers,
                events=display,
                executor=executor,
                ray=None if args.ray is None else (args.ray or "local"),
                api_key=args.api_key,
            )
    finally:
        if cluster is not None:
            cluster.shutdown()
    _print_table(console, result)
    return result.exit_code


def _check_model(args: argparse.Namespace) -> None:
    """The model's key, URL and SDK, found before any browser starts (ModelNotConfigured)."""
    from pagesight.models import connect, resolve

    spec = resolve(args.model, api_key=args.api_key, base_url=args.base_url)
    connect(spec, timeout=args.model_timeout)


class _Display:
    """The live view: a bar of runs done, the tasks running, a line per run as it ends."""

    def __init__(self, console: Console, total: int) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        self._console = console
        self._running: list[str] = []
        self._progress: Progress = Progress(
            TextColumn("[bold]eval"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.description}"),
            console=console,
            transient=True,
        )
        self._bar: TaskID = self._progress.add_task("", total=total)

    def __enter__(self) -> _Display:
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()

    def _describe(self) -> None:
        running = ", ".join(self._running[:4]) + (" …" if len(self._running) > 4 else "")
        self._progress.update(self._bar, description=f"running: {running}" if running else "")

    def started(self, job: Job) -> None:
        self._running.append(job.name)
        self._describe()

    def finished(self, job: Job, result: TaskResult, *, retrying: bool) -> None:
        from rich.text import Text

        self._running.remove(job.name)
        if not retrying:
            self._progress.advance(self._bar)
        self._describe()
        mark, style = {"passed": ("✓", "green"), "failed": ("✗", "red")}.get(
            result.outcome, ("!", "yellow")
        )
        detail = _why(result)
        if retrying:
            detail += "; trying again"
        self._progress.console.print(
            Text.assemble(
                (f"{mark} {job.name:<28}", style),
                f" {result.rounds:>3} rounds {result.wall_s:>6.1f} s  ",
                (detail, "dim"),
            )
        )


def _why(result: TaskResult) -> str:
    if result.outcome == "infra":
        return f"infrastructure: {result.error}"
    failed = [c for c in result.checks if not c["ok"]]
    if failed:
        return f"{result.stop_reason}; check failed: {failed[0]['check']}: {failed[0]['reason']}"
    if result.outcome == "failed" and result.message:  # judged by no check: its start failed
        return f"{result.stop_reason}: {result.message}"
    return result.stop_reason


def _print_table(console: Console, result: EvalResult) -> None:
    from rich.table import Table

    table = Table(show_edge=False, pad_edge=False)
    for name, right in (
        ("task", False),
        ("run", True),
        ("result", False),
        ("rounds", True),
        ("steps", True),
        ("input", True),
        ("cached", True),
        ("output", True),
        ("cost $", True),
        ("wall s", True),
        ("stopped", False),
    ):
        table.add_column(name, justify="right" if right else "left")
    for r in result.results:
        table.add_row(
            r.task,
            str(r.repeat),
            {"passed": "[green]pass[/]", "failed": "[red]FAIL[/]"}.get(
                r.outcome, "[yellow]infra[/]"
            ),
            str(r.rounds),
            str(r.steps),
            str(r.input_tokens),
            str(r.cached_input_tokens),
            str(r.output_tokens),
            f"{r.cost:.4f}" if r.cost is not None else "",
            f"{r.wall_s:.1f}",
            r.stop_reason,
        )
    console.print(table, markup=True)
    t = result.summary["totals"]
    rate = ""
    if t["success_rate"] is not None:
        rate = f" ({100 * t['success_rate']:.0f}%"
        if t["stderr"] is not None:
            rate += f" ± {100 * t['stderr']:.0f}, {t['stderr_kind']} standard error"
        rate += ")"
    infra = (
        f", {t['infra']} infrastructure failure{'s' if t['infra'] != 1 else ''}"
        if t["infra"]
        else ""
    )
    cost = f", ${t['cost']:.4f}" if t["cost"] is not None else ""
    console.print(
        f"passed {t['passed']} of {t['passed'] + t['failed']}{rate}{infra}; "
        f"{t['rounds']} rounds, {t['steps']} steps, model {t['input_tokens']} in "
        f"({t['cached_input_tokens']} cached) / {t['output_tokens']} out{cost}; "
        f"{t['wall_s']:.1f} s"
    )
    if result.interrupted:
        console.print("interrupted before every task ran: the files hold the runs that ended")
    console.print(f"report: {result.out / 'report.html'}")


def _console() -> Console:
    from rich.console import Console

    # Into a pipe or a file, wide enough for the table's every column (rich takes 80 there).
    width = None if sys.stdout.isatty() else 160
    return Console(
        file=sys.stdout, width=width, soft_wrap=True, highlight=False, markup=False, emoji=False
    )
