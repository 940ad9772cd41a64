"""A worker process: one task, once. ``python -m pagesight.eval.worker JOB.json`` reads the
job the driver wrote, runs :func:`~pagesight.eval.task.run_task` and writes the result as
JSON where the job says. A process a task, so a task that hangs or kills its interpreter
cannot take the driver down with it: the driver ends the process group at the deadline,
Chromium included, and a missing result file is an infrastructure failure."""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path
from typing import Any

from pagesight.eval.suite import load_suite
from pagesight.eval.task import Options, run_task


def job_dict(
    *, suite: Path, task: str, repeat: int, attempt: int, options: Options, out: Path, result: Path
) -> dict[str, Any]:
    return {
        "suite": str(suite),
        "task": task,
        "repeat": repeat,
        "attempt": attempt,
        "options": options.as_dict(),
        "out": str(out),
        "result": str(result),
    }


def _ended(signum: int, frame: object) -> None:
    # The driver ends a task past its deadline with SIGTERM to this process's group: leave
    # through every `with`, so the app (in a session of its own) is stopped and the browser
    # closed, rather than die where we stand and leave them running.
    raise SystemExit(128 + signum)


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGTERM, _ended)
    job = json.loads(Path(argv[0]).read_text())
    suite = load_suite(job["suite"])
    result = run_task(
        suite,
        suite.task(job["task"]),
        repeat=job["repeat"],
        attempt=job["attempt"],
        options=Options(**job["options"]),
        out=Path(job["out"]),
    )
    target = Path(job["result"])
    partial = target.with_suffix(".part")
    partial.write_text(json.dumps(result.as_dict()))
    partial.replace(target)  # whole or not there: the driver never reads half a result
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
