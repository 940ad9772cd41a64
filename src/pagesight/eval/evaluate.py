"""An eval from start to end: check everything before a browser starts, run the jobs, write
the files — the same files whether it finished, failed or was stopped half way."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pagesight.errors import InvalidOption, SuiteError
from pagesight.eval import results as files
from pagesight.eval.checks import applies
from pagesight.eval.runner import Events, Executor, Job, Processes, run_jobs
from pagesight.eval.suite import Suite, Task
from pagesight.eval.task import Options, TaskResult

EXIT_PASSED = 0
EXIT_SOME_FAILED = 3
EXIT_INFRA = 1
EXIT_INTERRUPTED = 130


@dataclass(frozen=True, kw_only=True)
class EvalResult:
    results: tuple[TaskResult, ...]
    summary: dict[str, Any]
    out: Path
    complete: bool
    interrupted: bool = False
    """Ctrl-C or SIGTERM stopped it: ``results`` are the runs that ended before."""

    @property
    def exit_code(self) -> int:
        """0 when every run passed, 1 when any failed for its infrastructure, else 3; 130
        when interrupted."""
        if self.interrupted:
            return EXIT_INTERRUPTED
        if any(r.outcome == "infra" for r in self.results) or not self.complete:
            return EXIT_INFRA
        return EXIT_PASSED if all(r.passed for r in self.results) else EXIT_SOME_FAILED


def prepare(suite: Suite, task_ids: Sequence[str], options: Options) -> tuple[Task, ...]:
    """The tasks to run, checked for this planner before anything starts: with the steps
    planner each needs a steps file that parses."""
    tasks = suite.select(task_ids) if task_ids else suite.tasks
    for task in tasks:
        if not any(applies(check, options.confirm) for check in task.checks):
            # Every check is for another --confirm mode: nothing would judge the run, and a
            # run nothing judges must not count as passed.
            raise SuiteError(
                f"{suite.path}: task {task.id!r}: checks: none applies with --confirm "
                f"{options.confirm} (each has a when_confirm for another mode)"
            )
    if options.planner == "steps":
        from pagesight.planners import StepsPlanner

        for task in tasks:
            path = suite.steps_path(task)
            if path is None:
                raise SuiteError(
                    f"{suite.path}: task {task.id!r}: steps: none, and the steps planner "
                    "needs one (or give --model PROVIDER:MODEL)"
                )
            try:
                StepsPlanner.from_file(path)
            except Exception as exc:  # noqa: BLE001 - any reason it cannot be read
                raise SuiteError(f"{suite.path}: task {task.id!r}: steps: {exc}") from None
    elif options.model is None:
        raise InvalidOption("model", "the model planner needs --model PROVIDER:MODEL")
    return tasks


def check_out(out: Path) -> None:
    """``--out`` must not hold an earlier eval's results: nothing already written is lost."""
    if (out / files.RESULTS).exists():
        raise InvalidOption(
            "out", f"{str(out)!r} holds an earlier eval's results; give a new folder"
        )
    if out.exists() and not out.is_dir():
        raise InvalidOption("out", f"{str(out)!r} is a file, not a folder")
    try:  # made now, so that a folder that cannot be is bad input, not a traceback mid-eval
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".pagesight-write-test"
        probe.touch()
        probe.unlink()
    except OSError as exc:
        raise InvalidOption(
            "out", f"{str(out)!r} cannot be written: {exc.strerror or exc}"
        ) from None


def run_eval(
    suite: Suite,
    tasks: Sequence[Task],
    options: Options,
    out: Path,
    *,
    repeat: int = 1,
    workers: int = 1,
    events: Events,
    executor: Callable[[], Executor] | None = None,
    ray: str | None = None,
    api_key: str | None = None,
) -> EvalResult:
    """Run every task ``repeat`` times; results.jsonl grows as each ends, and results.csv,
    summary.json and report.html are written at the end — also when interrupted (Ctrl-C,
    SIGTERM: then ``interrupted`` is set and ``results`` are the runs that ended)."""
    out.mkdir(parents=True, exist_ok=True)
    started = datetime.now(UTC)
    jobs = [Job(task, n) for n in range(1, repeat + 1) for task in tasks]
    log = files.ResultsLog(out)
    done: list[TaskResult] = []

    def record(result: TaskResult) -> None:
        done.append(result)
        log.add(result)

    complete = interrupted = False
    try:
        make = executor or (
            lambda: Processes(suite, options, out, workers=workers, api_key=api_key)
        )
        run_jobs(jobs, make(), events, record)
        complete = True
    except KeyboardInterrupt:  # Ctrl-C, SIGTERM: the files of the runs that ended, then say so
        interrupted = True
    finally:
        log.close()
        order = {task.id: number for number, task in enumerate(tasks)}
        ordered = sorted(done, key=lambda r: (order.get(r.task, 0), r.repeat))
        wall = (datetime.now(UTC) - started).total_seconds()
        summary = files.summary(
            suite,
            options,
            ordered,
            task_ids=[task.id for task in tasks],
            started=started,
            wall_s=wall,
            workers=workers,
            ray=ray,
            repeat=repeat,
            complete=complete,
        )
        files.write_csv(out, ordered)
        files.write_summary(out, summary)
        files.write_report(out, summary, ordered)
    return EvalResult(
        results=tuple(ordered),
        summary=summary,
        out=out,
        complete=complete,
        interrupted=interrupted,
    )
