"""A run's folder: the names of the files in it (laid out in :mod:`pagesight.runs.record`),
where a run's folder goes by default, and writing a file there whole or not at all. The
recorder, the report and the steps all use them, so none of them imports another for these.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from pagesight.errors import RecordsNotWritten

RUN_LOG = "run.jsonl"
SUMMARY = "summary.json"
REPORT = "report.html"
FINAL_SHOT = "final.png"
STEPS = "steps.txt"
STEP_SHOTS = "step-*.png"
"""The glob of every step's screenshot (see :func:`step_shot`)."""


def step_shot(number: int) -> str:
    """The name of step ``number``'s screenshot: ``step-01.png``."""
    return f"step-{number:02d}.png"


def default_folder(root: str | Path = "runs") -> Path:
    """``runs/<UTC timestamp>/`` (with ``-2``, ``-3``… when that folder exists already)."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    folder = Path(root) / stamp
    n = 2
    while folder.exists():
        folder = Path(root) / f"{stamp}-{n}"
        n += 1
    return folder


def write_atomically(path: Path, content: str | bytes) -> None:
    """Write to a temporary file beside ``path``, then rename it over: a reader sees the
    whole file or none (RecordsNotWritten when it cannot be written)."""
    data = content.encode("utf-8") if isinstance(content, str) else content
    with writing(path.parent, path.name):
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


@contextlib.contextmanager
def writing(folder: Path, name: str) -> Iterator[None]:
    """An OSError writing ``name`` in ``folder`` raised as RecordsNotWritten, which says
    which record, where, and what to do (its errno kept)."""
    try:
        yield
    except RecordsNotWritten:
        raise
    except OSError as exc:
        full = exc.errno in (errno.ENOSPC, errno.EDQUOT)
        advice = "free some space there or give" if full else "give"
        failure = RecordsNotWritten(
            f"cannot write the run's {name} in {folder}: {exc.strerror or exc}; {advice} the "
            "run another folder (--out)"
        )
        failure.errno = exc.errno
        raise failure from exc
