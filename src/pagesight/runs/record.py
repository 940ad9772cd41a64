"""RunRecorder: the folder a run writes as it goes.

::

    runs/20261201T203015Z/
      run.jsonl      one JSON line per step, each written whole in one write (never half a
                     line, even on a full disk: a line that does not fit is taken back)
      step-01.png    the screenshot each decision was made on, the chosen element marked
      final.png      the page when the run ended
      summary.json   goal, stop reason, steps, rounds, final URL, tokens, time, cost — written
                     (atomically) only when the run ended on its own: absent after a failure
      report.html    the run as a timeline, one self-contained file (see report.py)
      steps.txt      the run compiled into the steps language, to replay it (see replay.py)

(The names, and writing a file whole, are in :mod:`pagesight.runs.folder`.)

Starting a run in a folder removes what an earlier run left there, so no summary is ever
stale. Every file but run.jsonl is written to a temporary name and renamed, so a reader
finds it whole or not at all; a write that fails (a full disk) raises RecordsNotWritten,
which is an OSError too, and leaves what was written before intact. Secret values are
masked as ``{{NAME}}`` in every line written, by the ``mask`` the run gives (its secrets'
own: the recorder knows nothing of the agent), and the loop blacks out the fields that show one
on the screenshots before they get here).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pagesight.runs.folder import (
    FINAL_SHOT,
    REPORT,
    RUN_LOG,
    STEP_SHOTS,
    STEPS,
    SUMMARY,
    write_atomically,
    writing,
)
from pagesight.runs.replay import compile_run
from pagesight.runs.report import write_report


def _unmasked(value: Any) -> Any:
    """A run with no secrets: everything is written as it is."""
    return value


class RunRecorder:
    """Writes one run's records into ``folder``. ``mask`` writes the run's secret values as
    ``{{NAME}}`` in a string or in JSON-like lists and dicts (the agent's ``Secrets.mask``);
    every line and file written goes through it."""

    def __init__(self, folder: str | Path, *, mask: Callable[[Any], Any] = _unmasked) -> None:
        self.folder = Path(folder)
        self._mask = mask
        self._log: int | None = None  # run.jsonl's file descriptor, opened for appending
        self._logged = 0  # the bytes of run.jsonl that hold whole lines

    def start(self) -> None:
        """Make the folder and clear what an earlier run left in it."""
        with writing(self.folder, RUN_LOG):
            self.folder.mkdir(parents=True, exist_ok=True)
            for name in (SUMMARY, REPORT, RUN_LOG, FINAL_SHOT, STEPS):
                (self.folder / name).unlink(missing_ok=True)
            for old in self.folder.glob(STEP_SHOTS):
                old.unlink()
            flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND
            self._log = os.open(self.folder / RUN_LOG, flags, 0o644)
            self._logged = 0

    def step(self, record: Mapping[str, Any]) -> None:
        """Append the step's line (its ``StepRecord.to_dict()``) to ``run.jsonl``, whole: one
        unbuffered write, so it is on disk when this returns. A line the disk has no room for
        is taken back (the file cut to the lines before it) and RecordsNotWritten raised."""
        if self._log is None:
            raise RuntimeError("RunRecorder.start() was not called")
        line = {"time": datetime.now(UTC).isoformat(timespec="milliseconds"), **record}
        data = (self._json(line) + "\n").encode("utf-8")
        with writing(self.folder, RUN_LOG):
            try:
                written = os.write(self._log, data)
                if written != len(data):  # a full disk takes what fits: half a line
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))  # as a next write would
            except OSError:
                with contextlib.suppress(OSError):
                    os.ftruncate(self._log, self._logged)
                raise
            self._logged += written

    def screenshot(self, name: str, png: bytes) -> Path:
        """Save ``png`` as ``name``, whole or not at all (secrets already blacked out: see
        the agent loop)."""
        path = self.folder / name
        write_atomically(path, png)
        return path

    def finish(self, summary: Mapping[str, Any]) -> None:
        """The run ended on its own: write ``steps.txt``, the report, then ``summary.json``
        (atomically) last, so that a summary there says every record of the run is too.
        ``summary`` is the run's ``RunResult.summary()``."""
        self.close()
        text = self._json(summary, indent=2) + "\n"
        self.steps()
        self.report(summary=json.loads(text))
        write_atomically(self.folder / SUMMARY, text)

    def failed(self, exc: BaseException) -> None:
        """The run failed: no summary; the report says what happened, as far as it got."""
        self.close()
        self.steps()
        self.report(failure=self._mask(f"{type(exc).__name__}: {exc}"))

    def steps(self) -> None:
        """Write ``steps.txt``: what ran so far, compiled into the steps language."""
        lines = (self.folder / RUN_LOG).read_text(encoding="utf-8").splitlines()
        records = [json.loads(line) for line in lines if line.strip()]
        text = compile_run(records, folder=str(self.folder))
        write_atomically(self.folder / STEPS, self._mask(text))

    def report(self, *, failure: str | None = None, summary: dict[str, Any] | None = None) -> None:
        write_report(self.folder, failure=failure, summary=summary)

    def close(self) -> None:
        if self._log is not None:
            os.close(self._log)
            self._log = None

    def _json(self, value: Any, indent: int | None = None) -> str:
        # Masked after encoding as well: whatever a planner put in its raw answer is covered.
        text = json.dumps(self._mask(value), ensure_ascii=False, indent=indent, default=str)
        masked: str = self._mask(text)
        return masked
