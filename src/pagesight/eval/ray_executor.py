"""``pagesight eval SUITE --ray [ADDRESS]``: each task run a Ray task, on whichever node has a
``browser`` free; the driver (:func:`~pagesight.eval.runner.run_jobs`) is the same as for
worker processes, so retries and files are too. Ray is imported here only, and this module
only when ``--ray`` is given.

How it is laid out, and why:

* **Where**: a node offers a custom resource ``browser`` (``ray start --resources
  '{"browser": 4}'``); each task asks for ``browser=1`` and no CPU, so ``browser`` alone caps
  the browsers a node runs. With no address the driver starts a local Ray
  with as many ``browser`` as ``--workers``, listening on 127.0.0.1 only; with one, as many
  tasks are in flight as the cluster has ``browser`` in all (fewer if ``--workers`` says
  so). Ray's own retries are off (``max_retries=0``): the driver alone retries an
  infrastructure failure, into its own folder, as it does for worker processes.
* **The suite**: a node's filesystem need not be the driver's, so the suite's folder (its
  steps files, ``python`` checks, an app's script) is packed once, put in Ray's object
  store, and unpacked once per node into a folder named by its hash
  (``$TMPDIR/pagesight-ray/suites/SHA``); ``--out`` and earlier evals' output folders,
  ``.git``, ``__pycache__``, ``node_modules`` and virtual environments are left out, and a
  folder over 64 MiB is refused (one line, before anything starts). Every node needs
  pagesight (the same version) and Chromium installed.
* **The task**: the Ray task runs the same worker as ``--workers`` does (``main`` below is
  :func:`pagesight.eval.worker.main`, made to end with its parent and to unwind on SIGTERM)
  as a child in a process group of its own, writing into a temporary folder on the node;
  it then packs the task's folder
  (``tasks/ID/REPEAT``: the run's records, report, screenshots, the app's workdir,
  ``worker.log``) and returns it with the result. The driver unpacks it into ``--out``, so
  the files are where, and what, a sequential run leaves (the comment in ``steps.txt`` that
  names the run's folder is made to name it in ``--out``); a worker that died still sends
  back what it wrote (its ``worker.log`` says why).
* **Deadline**: the driver gives each task ``--task-timeout`` from the moment it submits it
  (it submits no more than there are browsers, so a task rarely waits for one), then
  ``ray.cancel``s it. Ray raises KeyboardInterrupt in the task, which ends the worker's
  process group (Chromium and the app with it) and still sends the files back; the result
  is ``infra``, "ended at its deadline". A task that does not end within a grace period is
  cancelled with ``force=True`` (its Ray worker is killed); the worker process then gets
  SIGTERM from the kernel (``PR_SET_PDEATHSIG``) and closes its browser and app. The node
  also ends a worker that outlives its deadline by the grace period by itself, should the
  driver's cancel never arrive.
* **Death**: a worker process that dies (a crash, the OOM killer) leaves no result: ``infra``,
  "its worker died (exit code N)", retried. A Ray worker that dies (``WorkerCrashedError``)
  or a node that is lost is the same, without files.
* **API key**: ``--api-key`` travels as an argument of the Ray task, in memory, and reaches
  the worker in its environment (``PAGESIGHT_EVAL_API_KEY``); never in a file, nor in the
  job file written on the node.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pagesight.errors import InvalidOption, SetupError
from pagesight.eval.app import die_with_parent, end_app
from pagesight.eval.results import RESULTS
from pagesight.eval.runner import JOBS, KILL_GRACE_S, WORKER_LOG, Job, _log_tail, end_worker
from pagesight.eval.suite import Suite
from pagesight.eval.task import API_KEY_ENV, WORK, Options, TaskResult, infra_result
from pagesight.eval.worker import job_dict
from pagesight.eval.worker import main as worker_main

if TYPE_CHECKING:
    from ray import ObjectRef

BROWSER = "browser"
"""The custom resource that counts the browsers a node may run at once."""
MAX_SUITE_BYTES = 64 * 1024 * 1024
SKIPPED = frozenset({".git", "__pycache__", "node_modules", ".venv", "venv", ".mypy_cache"})
NODE_DIR = "pagesight-ray"
CANCEL_GRACE_S = 10.0
"""After ``ray.cancel``, how long a task has to end its worker and send its files back."""
CONNECT_TIMEOUT_S = 5.0
NODE_POLL_S = 0.05
LOOPBACK_ONLY_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
"""Ray's switch (named for the platforms where it is off by default) between a node address
reachable from other machines and 127.0.0.1; "0" for the local Ray the driver starts."""
STEPS_TXT = "steps.txt"
"""A run's replayable steps, whose comment names the run's folder."""


@dataclass
class Cluster:
    """A connection to Ray: ``browsers`` is how many tasks the driver keeps in flight."""

    address: str | None
    browsers: int
    started_here: bool

    def shutdown(self) -> None:
        """Stop the local Ray this process started (a cluster it joined goes on)."""
        import ray

        if self.started_here and ray.is_initialized():
            ray.shutdown()


def connect(address: str | None, *, workers: int | None) -> Cluster:
    """Ray, ready to run tasks: a local Ray with ``workers`` browsers (started here unless
    this process is already connected to one), or the cluster at ``address``. SetupError
    without the ``ray`` extra; InvalidOption (exit 2) for an address where no Ray answers,
    or a cluster that offers no ``browser``."""
    if not address:
        # A Ray of this process's own listens on 127.0.0.1 only: Ray puts its nodes on the
        # machine's network address unless told it is no cluster (read as Ray is imported).
        os.environ.setdefault(LOOPBACK_ONLY_ENV, "0")
    try:
        import ray
    except ImportError:
        raise SetupError(
            "--ray needs Ray, which is not installed: pip install 'pagesight[ray]'"
        ) from None
    if address:
        _check_reachable(address)
    started_here = False
    if not ray.is_initialized():
        quiet: dict[str, Any] = {"logging_level": "WARNING", "log_to_driver": False}
        if address:
            try:
                ray.init(address=address, **quiet)
            except Exception as exc:  # noqa: BLE001 - Ray's errors have no common base
                raise InvalidOption(
                    "ray", f"cannot connect to Ray at {address!r}: {_first_line(exc)}"
                ) from None
        else:
            ray.init(resources={BROWSER: workers or 1}, include_dashboard=False, **quiet)
        started_here = True
    browsers = int(ray.cluster_resources().get(BROWSER, 0))  # type: ignore[no-untyped-call]
    if browsers < 1:
        if started_here:
            ray.shutdown()
        where = f"at {address!r}" if address else "this process is connected to"
        raise InvalidOption(
            "ray",
            f"the Ray cluster {where} offers no {BROWSER!r} resource; start its nodes with "
            f"ray start --resources='{{\"{BROWSER}\": N}}' (N browsers a node)",
        )
    if address and workers is not None:
        browsers = min(browsers, workers)
    return Cluster(address=address, browsers=browsers, started_here=started_here)


def _check_reachable(address: str) -> None:
    """Ray waits minutes for an address where nothing listens; a TCP connect says at once.
    ``auto`` (a cluster this machine belongs to) is left to Ray."""
    if address == "auto" or address.startswith("local"):
        return
    host_port = address.removeprefix("ray://").rstrip("/")
    host, sep, port = host_port.rpartition(":")
    if not sep or not port.isdigit():
        raise InvalidOption(
            "ray", f"{address!r} is not a Ray address (HOST:PORT, or ray://HOST:PORT)"
        )
    try:
        with socket.create_connection((host.strip("[]"), int(port)), CONNECT_TIMEOUT_S):
            pass
    except OSError as exc:
        raise InvalidOption(
            "ray", f"nothing answers at {address!r} ({exc.strerror or exc}); is the cluster up?"
        ) from None


# --- the suite, shipped to the nodes ---------------------------------------------------------


def pack_folder(folder: Path, *, leave_out: Path | None = None) -> bytes:
    """The suite's folder as an uncompressed tar, without ``leave_out`` (``--out``) and what
    is never the suite's (version control, caches, environments, earlier evals' output).
    InvalidOption when too big to ship to every node."""
    buffer = io.BytesIO()
    skip = leave_out.resolve() if leave_out is not None else None
    size = 0

    def keep(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
        nonlocal size
        path = folder / info.name
        if Path(info.name).name in SKIPPED or (skip is not None and path.resolve() == skip):
            return None
        if info.isdir() and ((path / RESULTS).is_file() or (path / JOBS).is_dir()):
            return None  # an earlier eval's --out
        size += info.size
        if size > MAX_SUITE_BYTES:
            raise InvalidOption(
                "ray",
                f"the suite's folder {str(folder)!r} holds over {MAX_SUITE_BYTES >> 20} MiB, "
                "and Ray ships it to every node; keep the suite in a folder of its own",
            )
        return info

    with tarfile.open(fileobj=buffer, mode="w") as tar:
        tar.add(folder, arcname=".", filter=keep)
    return buffer.getvalue()


def _suite_on_node(sha256: str, suite_file: str, blob: bytes) -> Path:
    """The suite's folder unpacked on this node, once per suite (by hash), safely when
    several tasks start at once."""
    root = Path(tempfile.gettempdir()) / NODE_DIR / "suites"
    target = root / sha256
    if not target.is_dir():
        root.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{sha256[:12]}-", dir=root))
        with tarfile.open(fileobj=io.BytesIO(blob)) as tar:
            tar.extractall(staging, filter="data")
        try:
            staging.rename(target)
        except OSError:  # another task on this node got there first
            _remove_tree(staging)
    return target / suite_file


def _remove_tree(path: Path) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)


# --- on the node -----------------------------------------------------------------------------


def run_on_node(
    *,
    ship: tuple[str, str],
    blob: bytes,
    task: str,
    repeat: int,
    attempt: int,
    folder: str,
    options: Options,
    api_key: str | None,
    driver_out: str,
) -> dict[str, Any]:
    """The body of the Ray task: the worker process for one job in a temporary folder on
    this node, then that job's folder packed. Returns ``result`` (the worker's, or None),
    ``returncode``, ``ended`` (``cancelled``, ``deadline`` or None), ``log`` (the worker's
    last line) and ``files`` (a tar.gz of ``folder``)."""
    suite = _suite_on_node(*ship, blob)
    with tempfile.TemporaryDirectory(prefix="task-", dir=_node_dir()) as tmp:
        out = Path(tmp) / "out"
        task_dir = out / folder
        task_dir.mkdir(parents=True)
        result = Path(tmp) / "result.json"
        spec = Path(tmp) / "job.json"
        spec.write_text(
            json.dumps(
                job_dict(
                    suite=suite,
                    task=task,
                    repeat=repeat,
                    attempt=attempt,
                    options=options,
                    out=out,
                    result=result,
                )
            )
        )
        env = dict(os.environ)
        env.pop(API_KEY_ENV, None)
        if api_key is not None:
            env[API_KEY_ENV] = api_key
        ended: str | None = None
        with (task_dir / WORKER_LOG).open("wb") as log:
            process: subprocess.Popen[bytes] = subprocess.Popen(
                [sys.executable, "-m", __name__, str(spec)],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
                cwd=tmp,
                start_new_session=True,  # its process group holds its browser and app too
            )
            # The driver cancels at the deadline; this is the node's own backstop.
            backstop = time.monotonic() + options.task_timeout + CANCEL_GRACE_S
            try:
                while process.poll() is None:
                    if time.monotonic() > backstop:
                        ended = "deadline"
                        break
                    time.sleep(NODE_POLL_S)
            except KeyboardInterrupt:  # ray.cancel: end the worker, still send the files
                ended = "cancelled"
            finally:
                _end_group_surely(process)
                end_app(task_dir / WORK)
        return {
            "result": json.loads(result.read_text()) if result.is_file() else None,
            "returncode": process.returncode,
            "ended": ended,
            "log": _log_tail(task_dir / WORKER_LOG),
            "files": _pack_task(out, folder, driver_out),
        }


def _end_group_surely(process: subprocess.Popen[bytes]) -> None:
    """:func:`~pagesight.eval.runner.end_worker`, not to be cut short by a second cancel."""
    while True:
        try:
            end_worker(process)
            return
        except KeyboardInterrupt:
            continue


def _node_dir() -> Path:
    path = Path(tempfile.gettempdir()) / NODE_DIR / "tasks"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _pack_task(out: Path, folder: str, driver_out: str) -> bytes:
    """The task's folder as a tar.gz, its ``steps.txt`` naming the run where the driver puts
    it (``driver_out``), not where it ran on this node."""
    for steps in (out / folder).rglob(STEPS_TXT):
        with contextlib.suppress(OSError, UnicodeDecodeError):
            steps.write_text(steps.read_text().replace(str(out), driver_out))
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=1) as tar:
        tar.add(out / folder, arcname=folder)
    return buffer.getvalue()


def _die_with_parent() -> None:
    """SIGTERM to this process when the Ray worker that started it dies, as it does when a
    task is cancelled with force: the worker then closes its browser and stops its app."""
    die_with_parent()
    if os.getppid() == 1:  # the parent died before the line above
        sys.exit(1)


# --- on the driver ---------------------------------------------------------------------------


@dataclass
class _Submitted:
    job: Job
    started: float
    deadline: float
    cancelled: float | None = None
    forced: bool = False


class RayTasks:
    """The :class:`~pagesight.eval.runner.Executor` on Ray: each job a Ray task asking for
    one ``browser``, at most ``cluster.browsers`` in flight; its files unpacked into ``out``
    as it ends."""

    def __init__(
        self,
        cluster: Cluster,
        suite: Suite,
        options: Options,
        out: Path,
        *,
        api_key: str | None = None,
    ) -> None:
        import ray

        self.slots = cluster.browsers
        self._options = options
        self._out = out
        self._api_key = api_key
        tar = pack_folder(suite.folder, leave_out=out)  # too big: refused before any file
        (out / JOBS).mkdir(parents=True, exist_ok=True)
        self._ship = (hashlib.sha256(tar).hexdigest(), str(suite.path.relative_to(suite.folder)))
        self._blob = ray.put(tar)
        # As Any: Ray's stubs know functions of positional arguments only, these are by keyword.
        body: Any = run_on_node
        self._remote: Any = ray.remote(body).options(
            num_cpus=0, resources={BROWSER: 1}, max_retries=0, name="pagesight-eval"
        )
        self._running: dict[ObjectRef[dict[str, Any]], _Submitted] = {}

    def start(self, job: Job) -> None:
        stem = job.folder.replace("/", "_")
        spec = {
            "task": job.task.id,
            "repeat": job.repeat,
            "attempt": job.attempt,
            "folder": job.folder,
            "options": self._options.as_dict(),
        }
        (self._out / JOBS / f"{stem}.json").write_text(json.dumps(spec))
        ref = self._remote.remote(
            ship=self._ship,
            blob=self._blob,
            task=job.task.id,
            repeat=job.repeat,
            attempt=job.attempt,
            folder=job.folder,
            options=self._options,
            api_key=self._api_key,
            driver_out=str(self._out),
        )
        now = time.monotonic()
        self._running[ref] = _Submitted(job, now, now + self._options.task_timeout)

    def wait(self, timeout: float) -> list[tuple[Job, TaskResult]]:
        import ray

        end = time.monotonic() + timeout
        while True:
            self._enforce_deadlines()
            refs = list(self._running)
            if not refs:
                return []
            left = max(0.0, end - time.monotonic())
            next_deadline = min(self._due(s) for s in self._running.values())
            wait_s = max(NODE_POLL_S, min(left, next_deadline - time.monotonic()))
            ready, _ = ray.wait(refs, num_returns=1, timeout=wait_s)
            if ready:
                ready, _ = ray.wait(refs, num_returns=len(refs), timeout=0)
                return [self._collect(ref) for ref in ready]
            if time.monotonic() >= end:
                return [self._give_up(ref) for ref in refs if self._hopeless(ref)]

    def _due(self, sub: _Submitted) -> float:
        if sub.cancelled is None:
            return sub.deadline
        return sub.cancelled + CANCEL_GRACE_S

    def _enforce_deadlines(self) -> None:
        import ray

        now = time.monotonic()
        for ref, sub in self._running.items():
            if sub.cancelled is None and now > sub.deadline:
                ray.cancel(ref, force=False)  # KeyboardInterrupt in the task: it cleans up
                sub.cancelled = now
            elif sub.cancelled is not None and not sub.forced and now > self._due(sub):
                ray.cancel(ref, force=True)
                sub.forced = True
                sub.cancelled = now

    def _hopeless(self, ref: ObjectRef[dict[str, Any]]) -> bool:
        """Cancelled with force a grace period ago, and still not ended: stop waiting."""
        sub = self._running[ref]
        return sub.forced and sub.cancelled is not None and time.monotonic() > self._due(sub)

    def _give_up(self, ref: ObjectRef[dict[str, Any]]) -> tuple[Job, TaskResult]:
        sub = self._running.pop(ref)
        return sub.job, self._deadline_result(sub)

    def _deadline_result(self, sub: _Submitted) -> TaskResult:
        error = f"ended at its deadline of {self._options.task_timeout:g} s"
        job = sub.job
        return infra_result(
            job.task, job.repeat, job.attempt, error, time.monotonic() - sub.started
        )

    def _collect(self, ref: ObjectRef[dict[str, Any]]) -> tuple[Job, TaskResult]:
        import ray
        from ray.exceptions import TaskCancelledError

        sub = self._running.pop(ref)
        job, wall = sub.job, time.monotonic() - sub.started
        try:
            done: dict[str, Any] = ray.get(ref)
        except TaskCancelledError:
            return job, self._deadline_result(sub)
        except Exception as exc:  # noqa: BLE001 - the Ray worker or its node died
            error = f"its Ray task failed: {type(exc).__name__}: {_first_line(exc)}"
            return job, infra_result(job.task, job.repeat, job.attempt, error, wall)
        self._unpack(done["files"])
        stem = job.folder.replace("/", "_")
        if done["result"] is not None:
            (self._out / JOBS / f"{stem}.result.json").write_text(json.dumps(done["result"]))
            return job, TaskResult.from_dict(done["result"])
        if done["ended"] is not None or sub.cancelled is not None:
            return job, self._deadline_result(sub)
        error = f"its worker died (exit code {done['returncode']}){done['log']}"
        return job, infra_result(job.task, job.repeat, job.attempt, error, wall)

    def _unpack(self, files: bytes) -> None:
        with tarfile.open(fileobj=io.BytesIO(files), mode="r:gz") as tar:
            tar.extractall(self._out, filter="data")

    def close(self) -> None:
        """Cancel what still runs (each task ends its worker), waiting a grace period for
        them before cancelling with force."""
        import ray

        if not self._running:
            return
        refs = list(self._running)
        for ref in refs:
            ray.cancel(ref, force=False)
        with contextlib.suppress(Exception):
            ray.wait(refs, num_returns=len(refs), timeout=KILL_GRACE_S + 1)
        for ref in refs:
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=True)
        self._running.clear()


def _first_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__


def main(argv: list[str]) -> int:
    """The worker process on a node: :mod:`pagesight.eval.worker`, ending with its parent;
    SIGTERM unwinds it (its browser closed, its app stopped) rather than dropping it dead."""
    signal.signal(signal.SIGTERM, _exit_on_term)
    _die_with_parent()
    return worker_main(argv)


def _exit_on_term(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
