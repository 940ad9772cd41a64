"""The driver: every (task, repeat) of an eval through an executor — worker processes here,
Ray tasks in :mod:`pagesight.eval.ray_executor` — with up to two retries for an
infrastructure failure, each result reported as it ends.

An executor starts jobs while it has free slots and hands back those that ended; it enforces
each job's deadline, and a job it had to end, or whose worker died, comes back as an
``infra`` result. The driver alone decides about retries and keeps the order of the files.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Protocol

from pagesight.eval.app import end_app, end_group
from pagesight.eval.suite import Suite, Task
from pagesight.eval.task import (
    API_KEY_ENV,
    WORK,
    Options,
    TaskResult,
    infra_result,
    task_folder,
)

MAX_ATTEMPTS = 3
"""A run that failed for its infrastructure is tried twice more."""
JOBS = ".jobs"
WORKER_LOG = "worker.log"
KILL_GRACE_S = 5.0


@dataclass(frozen=True)
class Job:
    task: Task
    repeat: int
    attempt: int = 1

    @property
    def folder(self) -> str:
        return task_folder(self.task, self.repeat, self.attempt)

    @property
    def name(self) -> str:
        return f"{self.task.id} #{self.repeat}" + (
            f" (retry {self.attempt - 1})" if self.attempt > 1 else ""
        )


class Executor(Protocol):
    slots: int

    def start(self, job: Job) -> None: ...

    def wait(self, timeout: float) -> list[tuple[Job, TaskResult]]:
        """The jobs that ended within ``timeout`` seconds (maybe none), with their results."""
        ...

    def close(self) -> None:
        """End every job still running (Ctrl-C, an error in the driver)."""
        ...


class Events(Protocol):
    def started(self, job: Job) -> None: ...

    def finished(self, job: Job, result: TaskResult, *, retrying: bool) -> None: ...


def run_jobs(
    jobs: Sequence[Job], executor: Executor, events: Events, record: Callable[[TaskResult], None]
) -> list[TaskResult]:
    """Run ``jobs`` (each attempt 1) to the end; ``record`` gets each final result as it comes
    (a retried infrastructure failure is reported to ``events`` but not recorded)."""
    pending = deque(jobs)
    running = 0
    results: list[TaskResult] = []
    try:
        while pending or running:
            while pending and running < executor.slots:
                job = pending.popleft()
                executor.start(job)
                events.started(job)
                running += 1
            for job, result in executor.wait(timeout=0.5):
                running -= 1
                retry = result.outcome == "infra" and job.attempt < MAX_ATTEMPTS
                events.finished(job, result, retrying=retry)
                if retry:
                    pending.appendleft(replace(job, attempt=job.attempt + 1))
                else:
                    results.append(result)
                    record(result)
    finally:
        executor.close()
    return results


@dataclass
class _Running:
    job: Job
    process: subprocess.Popen[bytes]
    result: Path
    deadline: float
    started: float
    log: IO[bytes]


class Processes:
    """Each job in a Python process of its own (``python -m pagesight.eval.worker``), at most
    ``workers`` at once: its own browser, its own app, its own port. A job past its deadline
    has its process group ended, Chromium with it."""

    def __init__(
        self,
        suite: Suite,
        options: Options,
        out: Path,
        *,
        workers: int,
        api_key: str | None = None,
    ) -> None:
        self.slots = workers
        self._suite = suite
        self._options = options
        self._out = out
        self._env = dict(os.environ)
        if api_key is not None:
            self._env[API_KEY_ENV] = api_key
        self._running: list[_Running] = []
        (out / JOBS).mkdir(parents=True, exist_ok=True)

    def start(self, job: Job) -> None:
        # Imported here, not with the package: ``python -m pagesight.eval.worker`` imports
        # pagesight.eval first, and a worker module already imported by then makes runpy warn
        # in every worker.log (and a dead worker's reason quoted that warning).
        from pagesight.eval.worker import job_dict

        folder = self._out / job.folder
        folder.mkdir(parents=True, exist_ok=True)
        stem = job.folder.replace("/", "_")
        result = self._out / JOBS / f"{stem}.result.json"
        result.unlink(missing_ok=True)
        spec = self._out / JOBS / f"{stem}.json"
        spec.write_text(
            json.dumps(
                job_dict(
                    suite=self._suite.path,
                    task=job.task.id,
                    repeat=job.repeat,
                    attempt=job.attempt,
                    options=self._options,
                    out=self._out,
                    result=result,
                )
            )
        )
        log = (folder / WORKER_LOG).open("wb")
        process = subprocess.Popen(
            [sys.executable, "-m", "pagesight.eval.worker", str(spec)],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=self._env,
            start_new_session=True,  # its process group holds its browser and app too
        )
        now = time.monotonic()
        self._running.append(
            _Running(job, process, result, now + self._options.task_timeout, now, log)
        )

    def wait(self, timeout: float) -> list[tuple[Job, TaskResult]]:
        end = time.monotonic() + timeout
        while True:
            done = [self._collect(r) for r in list(self._running) if self._ended(r)]
            if done or time.monotonic() >= end:
                return done
            time.sleep(0.05)

    def _ended(self, run: _Running) -> bool:
        if run.process.poll() is not None:
            return True
        if time.monotonic() > run.deadline:
            end_worker(run.process)
            return True
        return False

    def _collect(self, run: _Running) -> tuple[Job, TaskResult]:
        self._running.remove(run)
        run.log.close()
        end_worker(run.process)  # whatever it left behind (a Chromium, an app)
        end_app(self._out / run.job.folder / WORK)
        job, wall = run.job, time.monotonic() - run.started
        if run.result.is_file():
            return job, TaskResult.from_dict(json.loads(run.result.read_text()))
        if wall > self._options.task_timeout:
            error = f"ended at its deadline of {self._options.task_timeout:g} s"
        else:
            tail = _log_tail(self._out / job.folder / WORKER_LOG)
            error = f"its worker died (exit code {run.process.returncode}){tail}"
        return job, infra_result(job.task, job.repeat, job.attempt, error, wall)

    def close(self) -> None:
        for run in self._running:
            end_worker(run.process)
            end_app(self._out / run.job.folder / WORK)
            run.log.close()
        self._running.clear()


def end_worker(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the worker's process group (its browser closes, its app stops); once the
    worker itself has ended (or a grace period has passed), what is left of its group (a
    Chromium) is ended as an app's group is."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(KILL_GRACE_S)
    end_group(process.pid)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(KILL_GRACE_S)


def _log_tail(log: Path) -> str:
    with contextlib.suppress(OSError):
        lines = [line for line in log.read_text(errors="replace").splitlines() if line.strip()]
        if lines:
            return f": {lines[-1][:200]}"
    return ""
