"""Find the system Chromium and start it headless with a DevTools port.

Both clients share this one browser: Playwright (for navigation and whatever pagesight does
not cover) and pagesight's own CDP sessions (for perception), connected to the same port.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import os
import re
import shutil
import signal
import tempfile
from dataclasses import dataclass
from pathlib import Path

from pagesight.errors import BrowserNotFound, RuntimeFailure

_CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
_DEVTOOLS = re.compile(r"DevTools listening on (ws://\S+)")

# The flags a closed network needs: without them Chromium keeps phoning Google's hosts.
QUIET_FLAGS = (
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-default-apps",
    "--disable-quic",
    "--metrics-recording-only",
    "--password-store=basic",
    "--use-mock-keychain",
)


def find_chromium() -> str:
    """The Chromium to launch: ``$PAGESIGHT_CHROMIUM``, else the first one on PATH."""
    configured = os.environ.get("PAGESIGHT_CHROMIUM")
    if configured:
        if Path(configured).is_file() and os.access(configured, os.X_OK):
            return configured
        raise BrowserNotFound(f"PAGESIGHT_CHROMIUM={configured} is not an executable file")
    for name in _CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    raise BrowserNotFound(
        "no Chromium found (looked for chromium, google-chrome); install Debian's chromium "
        "(`make setup`) or set PAGESIGHT_CHROMIUM to its path"
    )


# Chromium listens on a Unix socket (its "process singleton") at
# $TMPDIR/org.chromium.Chromium.XXXXXX/SingletonSocket, and fails to start when that path is
# longer than a socket address may be (107 bytes on Linux).
_SOCKET_PATH_MAX = 107
_SINGLETON = "/org.chromium.Chromium.XXXXXX/SingletonSocket"


def _scratch() -> tuple[str, dict[str, str] | None]:
    """The folder of ours that holds a Chromium's profile and, as its ``TMPDIR``, whatever
    Chromium makes in the temporary folder (its singleton socket's folder, which it leaves
    behind when it is terminated): all of it goes when that Chromium stops. The environment
    to start Chromium in (``None``: ours, when a ``TMPDIR`` in our folder would make its
    socket's path too long; its singleton folder is then removed by :func:`_remove_singleton`).
    """
    root = tempfile.mkdtemp(prefix="pagesight-")
    if len(root) + len(_SINGLETON) > _SOCKET_PATH_MAX:
        return root, None
    return root, {**os.environ, "TMPDIR": root}


def _singleton(profile: str) -> Path | None:
    """The folder of a running Chromium's singleton socket, which the profile's
    ``SingletonSocket`` link names (Chromium removes the link when it stops, not the folder)."""
    try:
        return Path(os.readlink(os.path.join(profile, "SingletonSocket"))).parent
    except OSError:  # no link: never made
        return None


def _remove_singleton(folder: Path | None) -> None:
    """Remove the singleton folder a stopped Chromium left in the shared temporary folder:
    what Chromium puts there, then the folder only if that left it empty, so nothing else
    is ever touched."""
    if folder is None:
        return
    for name in ("SingletonSocket", "SingletonCookie"):
        with contextlib.suppress(OSError):
            (folder / name).unlink()
    with contextlib.suppress(OSError):
        folder.rmdir()


@dataclass
class ChromiumProcess:
    """A Chromium we started, with the folder we made for its profile and temporary files."""

    process: asyncio.subprocess.Process
    ws_url: str
    root: str
    """Removed, with all in it, once Chromium stops."""
    singleton: Path | None
    """The folder Chromium made in the shared temporary folder, when its ``TMPDIR`` could not
    be :attr:`root` (else inside root, or none)."""
    drain: asyncio.Task[None] | None = None

    @property
    def profile(self) -> str:
        """The user data dir Chromium was started with."""
        return os.path.join(self.root, "profile")

    @property
    def http_url(self) -> str:
        host_port = self.ws_url.split("/")[2]
        return f"http://{host_port}"

    def ended(self) -> bool:
        """Whether the process has exited, also before asyncio has reaped it: a Chromium killed
        from outside is a zombie (Linux's /proc says so) a moment before ``returncode`` is set."""
        if self.process.returncode is not None:
            return True
        try:
            stat = Path(f"/proc/{self.process.pid}/stat").read_text(encoding="ascii")
        except OSError:  # out of /proc: reaped already — unless there is no /proc at all
            return Path("/proc/self/stat").exists()
        return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")

    def kill_now(self) -> None:
        """Last resort at interpreter exit: a Browser never closed must not outlive Python."""
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.process.pid, signal.SIGKILL)
        self._remove_folders()

    def _remove_folders(self) -> None:
        _remove_singleton(self.singleton)
        shutil.rmtree(self.root, ignore_errors=True)

    async def stop(self) -> None:
        atexit.unregister(self.kill_now)
        if self.process.returncode is None:
            _send(self.process, signal.SIGTERM)
            try:
                await asyncio.wait_for(self.process.wait(), 5)
            except TimeoutError:
                _send(self.process, signal.SIGKILL)
                await self.process.wait()
        if self.drain is not None:
            # Chromium's children (renderers, GPU) hold its stderr too, and outlive a browser
            # process that was killed by a moment: the pipe ends once they are gone. Waiting
            # for that keeps them from writing into the profile after it is removed, and lets
            # asyncio close the process's pipes (cancelled at once, they are left unclosed).
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self.drain), 5)
            self.drain.cancel()
        self._remove_folders()


async def start_chromium(
    *,
    executable: str | None = None,
    headless: bool = True,
    window: tuple[int, int] = (1280, 800),
    args: tuple[str, ...] = (),
    preferences: dict[str, object] | None = None,
    timeout: float = 30.0,
) -> ChromiumProcess:
    """Start Chromium on a free DevTools port and wait until it listens. ``preferences``
    are written as the new profile's own settings (``Default/Preferences``), for what no
    command-line flag sets."""
    exe = executable or find_chromium()
    root, env = _scratch()
    profile = os.path.join(root, "profile")
    os.mkdir(profile)
    if preferences:
        os.mkdir(os.path.join(profile, "Default"))
        with open(os.path.join(profile, "Default", "Preferences"), "w", encoding="utf-8") as f:
            json.dump(preferences, f)
    argv = [
        exe,
        "--remote-debugging-port=0",
        "--remote-debugging-address=127.0.0.1",
        f"--user-data-dir={profile}",
        f"--window-size={window[0]},{window[1]}",
        *QUIET_FLAGS,
        *(["--headless=new", "--hide-scrollbars", "--mute-audio"] if headless else []),
        # Chromium refuses to start its sandbox as root; only then do we turn it off.
        *(["--no-sandbox"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []),
        *args,
        "about:blank",
    ]
    try:
        process = await asyncio.create_subprocess_exec(
            *argv, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE, env=env
        )
    except OSError as exc:  # missing, not executable, or not a program this machine runs
        shutil.rmtree(root, ignore_errors=True)
        raise BrowserNotFound(
            f"cannot run {exe} ({exc.strerror or exc}); point executable_path or "
            "PAGESIGHT_CHROMIUM at a Chromium executable"
        ) from exc
    assert process.stderr is not None
    seen: list[str] = []
    try:
        async with asyncio.timeout(timeout):
            while True:
                raw = await process.stderr.readline()
                if not raw:
                    break
                line = raw.decode(errors="replace")
                seen.append(line.strip())
                match = _DEVTOOLS.search(line)
                if match:
                    # Keep draining stderr so Chromium never blocks on a full pipe.
                    drain = asyncio.get_running_loop().create_task(_drain(process.stderr))
                    started = ChromiumProcess(
                        process=process,
                        ws_url=match.group(1),
                        root=root,
                        # Made before DevTools listens: the singleton is Chromium's first act.
                        singleton=None if env is not None else _singleton(profile),
                        drain=drain,
                    )
                    atexit.register(started.kill_now)
                    return started
    except TimeoutError:
        pass
    except BaseException:
        # Cancelled (Ctrl-C, SIGTERM) while Chromium was starting: it must not outlive us.
        await _abandon(process, root, profile, own_singleton=env is None)
        raise
    await _abandon(process, root, profile, own_singleton=env is None)
    tail = " | ".join(line for line in seen[-3:] if line)
    raise RuntimeFailure(f"Chromium ({exe}) did not start: {tail or 'no output'}")


async def _abandon(
    process: asyncio.subprocess.Process, root: str, profile: str, *, own_singleton: bool
) -> None:
    """Kill a Chromium that did not start, and remove its folders."""
    _send(process, signal.SIGKILL)
    await process.wait()
    if own_singleton:
        _remove_singleton(_singleton(profile))
    shutil.rmtree(root, ignore_errors=True)


def _send(process: asyncio.subprocess.Process, signum: int) -> None:
    """Signal ``process`` unless it is known to have ended. Not ``process.kill()``: that
    first polls, and so reaps a Chromium that has just exited from under asyncio's own watch
    on it, which then prints "Unknown child process pid …" on stderr, a second line."""
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(process.pid, signum)


async def _drain(stream: asyncio.StreamReader) -> None:
    while await stream.readline():
        pass
