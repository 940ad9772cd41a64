"""RunRecorder: the folder a run writes as it goes.

::

    runs/20261201T203015Z/
      run.jsonl      one JSON line per step, flushed as it is written
      step-01.png    the screenshot each decision was made on, the chosen element marked
      final.png      the page when the run ended
      summary.json   goal, stop reason, steps, rounds, final URL, tokens, time, cost — written
                     (atomically) only when the run ended on its own: absent after a failure
      report.html    the run as a timeline, one self-contained file (see report.py)
      steps.txt      the run compiled into the steps language, to replay it (see replay.py)

Starting a run in a folder removes what an earlier run left there, so no summary is ever
stale. Secret values are masked as ``{{NAME}}`` in every line written (the loop blacks out
the fields that show one on the screenshots before they get here).
"""

from __future__ import annotations

import json
import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from pagesight.agent.secrets import Secrets
from pagesight.agent.state import RunResult, StepRecord

RUN_LOG = "run.jsonl"
SUMMARY = "summary.json"
REPORT = "report.html"
FINAL_SHOT = "final.png"
STEPS = "steps.txt"


def default_folder(root: str | Path = "runs") -> Path:
    """``runs/<UTC timestamp>/`` (with ``-2``, ``-3``… when that folder exists already)."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    folder = Path(root) / stamp
    n = 2
    while folder.exists():
        folder = Path(root) / f"{stamp}-{n}"
        n += 1
    return folder


class RunRecorder:
    """Writes one run's records into ``folder``."""

    def __init__(self, folder: str | Path, *, secrets: Secrets | None = None) -> None:
        self.folder = Path(folder)
        self._secrets = secrets or Secrets()
        self._log: IO[str] | None = None

    def start(self) -> None:
        """Make the folder and clear what an earlier run left in it."""
        self.folder.mkdir(parents=True, exist_ok=True)
        for name in (SUMMARY, REPORT, RUN_LOG, FINAL_SHOT, STEPS):
            (self.folder / name).unlink(missing_ok=True)
        for old in self.folder.glob("step-*.png"):
            old.unlink()
        self._log = (self.folder / RUN_LOG).open("w", encoding="utf-8")

    def step(self, record: StepRecord) -> None:
        """Append the step's line to ``run.jsonl`` and flush it."""
        if self._log is None:
            raise RuntimeError("RunRecorder.start() was not called")
        line = {"time": datetime.now(UTC).isoformat(timespec="milliseconds"), **record.to_dict()}
        self._log.write(self._json(line) + "\n")
        self._log.flush()

    def screenshot(self, name: str, png: bytes) -> Path:
        """Save ``png`` as ``name`` (secrets already blacked out: see the agent loop)."""
        path = self.folder / name
        path.write_bytes(png)
        return path

    def finish(self, result: RunResult) -> None:
        """The run ended on its own: write ``steps.txt``, the report, then ``summary.json``
        (atomically) last, so that a summary there says every record of the run is too."""
        self.close()
        summary = self._json(result.summary(), indent=2) + "\n"
        self.steps()
        self.report(summary=json.loads(summary))
        _write_atomically(self.folder / SUMMARY, summary)

    def failed(self, exc: BaseException) -> None:
        """The run failed: no summary; the report says what happened, as far as it got."""
        self.close()
        self.steps()
        self.report(failure=self._secrets.mask(f"{type(exc).__name__}: {exc}"))

    def steps(self) -> None:
        """Write ``steps.txt``: what ran so far, compiled into the steps language."""
        from pagesight.runs.replay import compile_run

        lines = (self.folder / RUN_LOG).read_text(encoding="utf-8").splitlines()
        records = [json.loads(line) for line in lines if line.strip()]
        text = compile_run(records, folder=str(self.folder))
        _write_atomically(self.folder / STEPS, self._secrets.mask(text))

    def report(self, *, failure: str | None = None, summary: dict[str, Any] | None = None) -> None:
        from pagesight.runs.report import write_report

        write_report(self.folder, failure=failure, summary=summary)

    def close(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None

    def _json(self, value: Any, indent: int | None = None) -> str:
        # Masked after encoding as well: whatever a planner put in its raw answer is covered.
        text = json.dumps(self._secrets.mask(value), ensure_ascii=False, indent=indent, default=str)
        masked: str = self._secrets.mask(text)
        return masked


def _write_atomically(path: Path, text: str) -> None:
    """Write to a temporary file beside ``path``, then rename it over: a reader sees the
    whole file or none."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
