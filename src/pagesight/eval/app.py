"""The app a task runs against, started fresh for the task and stopped after it: Orbit CRM
in this process (``builtin = "orbit"``, its database in the task's workdir), MiniWoB++'s
pages in this process (``builtin = "miniwob"``, see :mod:`pagesight.eval.miniwob`), or the suite's
``command`` as a process of its own on a free port, ready once its ``ready`` path answers."""

from __future__ import annotations

import contextlib
import ctypes
import os
import shlex
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx

from pagesight.errors import AppNotStarted, SetupError
from pagesight.eval.suite import App

HOST = "127.0.0.1"
APP_LOG = "app.log"
APP_GROUP = "app.group"
"""The app's process group, in its workdir while it runs: see :func:`end_app`."""
ORBIT_DB = "orbit.sqlite3"
POLL_S = 0.1
STOP_GRACE_S = 5.0


@dataclass(frozen=True)
class RunningApp:
    url: str
    """The base URL, ``http://127.0.0.1:PORT``."""
    db: Path | None
    """The builtin app's database, which ``sql`` checks read by default."""


@contextlib.contextmanager
def started(app: App | None, *, folder: Path, workdir: Path) -> Iterator[RunningApp | None]:
    """The task's app, running until the block ends (None: the suite has no app).
    AppNotStarted when it does not come up."""
    if app is None:
        yield None
    elif app.builtin == "orbit":
        from pagesight.demo import OrbitApp

        db = workdir / ORBIT_DB
        try:
            orbit = OrbitApp.start(db=db)
        except Exception as exc:  # an infrastructure failure whatever its kind
            raise AppNotStarted(f"Orbit CRM did not start: {exc}") from exc
        with orbit:
            yield RunningApp(url=orbit.url, db=db)
    elif app.builtin == "miniwob":
        from pagesight.eval.miniwob import MiniWobServer

        try:
            miniwob = MiniWobServer.start()
        except SetupError:
            raise
        except Exception as exc:  # an infrastructure failure whatever its kind
            raise AppNotStarted(f"MiniWoB++ did not start: {exc}") from exc
        with miniwob:
            yield RunningApp(url=miniwob.url, db=None)
    else:
        assert app.command is not None
        with _command(app, app.command, folder=folder, workdir=workdir) as url:
            yield RunningApp(url=url, db=None)


@contextlib.contextmanager
def _command(app: App, command: str, *, folder: Path, workdir: Path) -> Iterator[str]:
    port = _free_port()
    argv = shlex.split(
        command.replace("{port}", str(port)).replace("{workdir}", shlex.quote(str(workdir)))
    )
    log = workdir / APP_LOG
    with log.open("wb") as out:
        try:
            process = subprocess.Popen(
                argv,
                cwd=folder,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group, stopped whole
                # One thread here yet (the browser starts after the app), so preexec_fn is safe.
                preexec_fn=die_with_parent,  # noqa: PLW1509 - stopped if the worker dies outright
            )
        except OSError as exc:
            raise AppNotStarted(f"the app's command {argv[0]!r} could not start: {exc}") from exc
        group = workdir / APP_GROUP
        group.write_text(str(process.pid))
        try:
            url = f"http://{HOST}:{port}"
            _wait_ready(process, url + app.ready, app.ready_timeout, log)
            yield url
        finally:
            _stop(process)
            group.unlink(missing_ok=True)


def end_app(workdir: Path) -> None:
    """End the app a worker left running in ``workdir`` when it died outright (SIGKILL, the
    OOM killer): its whole process group, what it started included, which the app's own
    death signal does not reach. Nothing when the worker stopped its app itself."""
    group = workdir / APP_GROUP
    try:
        pgid = int(group.read_text())
    except (OSError, ValueError):
        return
    end_group(pgid)
    group.unlink(missing_ok=True)


def end_group(pgid: int) -> None:
    """SIGTERM to a process group, SIGKILL to what is left of it after a grace period."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_GRACE_S
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return
        time.sleep(0.05)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def die_with_parent() -> None:
    """SIGTERM to this process when the one that started it dies (Linux's
    ``PR_SET_PDEATHSIG``): a worker killed outright (SIGKILL, the OOM killer) leaves no app
    behind, though the app is in a process group of its own. Elsewhere, nothing."""
    with contextlib.suppress(OSError, AttributeError):
        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)


def _free_port() -> int:
    # The OS picks a free port; the app binds it a moment later (a race only with another
    # program grabbing that very port in between).
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def _wait_ready(process: subprocess.Popen[bytes], url: str, timeout: float, log: Path) -> None:
    deadline = time.monotonic() + timeout
    with httpx.Client(timeout=2.0, trust_env=False) as client:
        while True:
            code = process.poll()
            if code is not None:
                raise AppNotStarted(
                    f"the app exited with code {code} before answering {url}{_last_line(log)}"
                )
            try:
                if client.get(url).status_code < 500:
                    return
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise AppNotStarted(
                    f"the app did not answer {url} within {timeout:g} s{_last_line(log)}"
                )
            time.sleep(POLL_S)


def _last_line(log: Path) -> str:
    with contextlib.suppress(OSError):
        lines = log.read_text(errors="replace").strip().splitlines()
        if lines:
            return f"; its output ends: {lines[-1][:200]} ({log})"
    return ""


def _stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the app's process group, SIGKILL after a grace period."""
    if process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
