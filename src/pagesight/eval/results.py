"""An eval's files in ``--out``: ``results.jsonl`` (a line as each task run ends, flushed),
then ``results.csv``, ``summary.json`` and ``report.html`` (the suite's table, linking every
task's own run report), and the totals they share."""

from __future__ import annotations

import csv
import json
import math
import platform
import statistics
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import IO, Any

import jinja2

from pagesight.eval.suite import Suite
from pagesight.eval.task import Options, TaskResult
from pagesight.runs.folder import write_atomically

RESULTS = "results.jsonl"
CSV = "results.csv"
SUMMARY = "summary.json"
REPORT = "report.html"
_TEMPLATE = Path(__file__).with_name("report.html.j2")

CSV_COLUMNS = (
    "task",
    "category",
    "repeat",
    "attempt",
    "outcome",
    "rounds",
    "steps",
    "input_tokens",
    "cached_input_tokens",
    "output_tokens",
    "cost",
    "wall_s",
    "stop_reason",
    "answer",
    "final_url",
    "failed_checks",
    "report",
    "error",
)


class ResultsLog:
    """``results.jsonl``, a line per task run, flushed as it ends: an eval stopped half way
    keeps every run that finished."""

    def __init__(self, out: Path) -> None:
        self.path = out / RESULTS
        self._file: IO[str] = self.path.open("a", encoding="utf-8")

    def add(self, result: TaskResult) -> None:
        self._file.write(json.dumps(result.as_dict(), ensure_ascii=False) + "\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()


@dataclass(frozen=True, kw_only=True)
class Totals:
    runs: int
    passed: int
    failed: int
    infra: int
    success_rate: float | None
    """Passed over runs judged (infrastructure failures are not judged)."""
    stderr: float | None
    stderr_kind: str
    """``repeats``: the standard error of the per-repeat success rates; ``binomial`` with a
    single repeat: sqrt(p(1 - p)/n)."""
    rounds: int
    steps: int
    input_tokens: int
    cached_input_tokens: int
    output_tokens: int
    cost: float | None
    wall_s: float

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def totals(results: Sequence[TaskResult], wall_s: float) -> Totals:
    judged = [r for r in results if r.outcome != "infra"]
    passed = sum(r.passed for r in judged)
    rate = passed / len(judged) if judged else None
    by_repeat: dict[int, list[TaskResult]] = {}
    for r in judged:
        by_repeat.setdefault(r.repeat, []).append(r)
    rates = [sum(r.passed for r in rs) / len(rs) for rs in by_repeat.values()]
    if len(rates) >= 2:
        stderr: float | None = statistics.stdev(rates) / math.sqrt(len(rates))
        kind = "repeats"
    else:
        stderr = math.sqrt(rate * (1 - rate) / len(judged)) if rate is not None else None
        kind = "binomial"
    costs = [r.cost for r in judged]
    return Totals(
        runs=len(results),
        passed=passed,
        failed=len(judged) - passed,
        infra=len(results) - len(judged),
        success_rate=rate,
        stderr=stderr,
        stderr_kind=kind,
        rounds=sum(r.rounds for r in judged),
        steps=sum(r.steps for r in judged),
        input_tokens=sum(r.input_tokens for r in judged),
        cached_input_tokens=sum(r.cached_input_tokens for r in judged),
        output_tokens=sum(r.output_tokens for r in judged),
        cost=None if not costs or None in costs else sum(c or 0.0 for c in costs),
        wall_s=round(wall_s, 3),
    )


def failed_checks(result: TaskResult) -> str:
    return "; ".join(f"{c['check']}: {c['reason']}" for c in result.checks if not c["ok"])


def write_csv(out: Path, results: Sequence[TaskResult]) -> None:
    path = out / CSV
    with path.open("w", newline="", encoding="utf-8") as file:
        writer = csv.DictWriter(file, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        for r in results:
            row = {c: getattr(r, c) for c in CSV_COLUMNS if c != "failed_checks"}
            row["failed_checks"] = failed_checks(r)
            writer.writerow(row)


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def git_commit(folder: Path) -> str | None:
    """The commit checked out where ``folder`` is, when it is in a git work tree."""
    try:
        done = subprocess.run(
            ["git", "-C", str(folder), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


def summary(
    suite: Suite,
    options: Options,
    results: Sequence[TaskResult],
    *,
    task_ids: Sequence[str],
    started: datetime,
    wall_s: float,
    workers: int,
    ray: str | None,
    repeat: int,
    complete: bool,
) -> dict[str, Any]:
    browser = next((r.browser_version for r in results if r.browser_version), None)
    return {
        "suite": {
            "name": suite.name,
            "path": str(suite.path),
            "sha256": suite.sha256,
            "git_commit": git_commit(suite.folder),
        },
        "versions": {
            "pagesight": _version("pagesight"),
            "pagesight_git_commit": git_commit(Path(__file__).resolve().parent),
            "playwright": _version("playwright"),
            "chromium": browser,
            "python": platform.python_version(),
            "ray": _version("ray") if ray is not None else None,
        },
        "model": options.model,
        "planner": options.planner,
        "options": options.as_dict(),
        "tasks": list(task_ids),
        "repeat": repeat,
        "workers": workers,
        "ray": ray,
        "started": started.isoformat(timespec="seconds"),
        "finished": datetime.now(UTC).isoformat(timespec="seconds"),
        "complete": complete,
        "totals": totals(results, wall_s).as_dict(),
    }


def write_summary(out: Path, data: dict[str, Any]) -> None:
    write_atomically(out / SUMMARY, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def write_report(out: Path, data: dict[str, Any], results: Sequence[TaskResult]) -> Path:
    """The suite's report.html: the totals, then a row a task run linking its own report."""
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    rows = [dict(r.as_dict(), failed=failed_checks(r)) for r in results]
    html = env.from_string(_TEMPLATE.read_text(encoding="utf-8")).render(
        summary=data, rows=rows, totals=data["totals"]
    )
    path = out / REPORT
    write_atomically(path, html)
    return path
