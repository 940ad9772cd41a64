"""agent-browser (npm package) as a second reference: its `snapshot -i` on the same page.

The package ships its native CLI inside the tarball, so `npm install --ignore-scripts`
into benchmarks/node_modules is enough (no browser download).  The CLI is attached to
the benchmark's own Chromium with `--cdp URL` and opens each page in a tab of its own.
"""

from __future__ import annotations

import contextlib
import os
import platform
import shutil
import stat
import subprocess
import time
from pathlib import Path

VERSION = "0.41.2"
HERE = Path(__file__).resolve().parent
PREFIX = HERE / "node_modules" / "agent-browser"
TIMEOUT_S = 120


class AgentBrowserError(RuntimeError):
    pass


def _binary_name() -> str | None:
    system = {"Linux": "linux", "Darwin": "darwin"}.get(platform.system())
    arch = {"x86_64": "x64", "AMD64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(
        platform.machine()
    )
    return f"agent-browser-{system}-{arch}" if system and arch else None


def _installed() -> Path | None:
    name = _binary_name()
    binary = PREFIX / "bin" / name if name else None
    if binary is None or not binary.is_file():
        return None
    if not os.access(binary, os.X_OK):  # npm --ignore-scripts leaves it non-executable
        binary.chmod(binary.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return binary


def find(allow_install: bool) -> tuple[str | None, str]:
    """Returns (path of the CLI, "") or (None, why it is unavailable)."""
    if env := os.environ.get("AGENT_BROWSER_BIN"):
        return env, ""
    if binary := _installed():
        return str(binary), ""
    if not allow_install:
        return None, "not installed and --no-install given"
    npm = shutil.which("npm")
    if npm is None:
        return None, "npm not found, cannot install agent-browser"
    cmd = [npm, "install", "--prefix", str(HERE), "--no-save", "--ignore-scripts"]
    cmd += ["--no-audit", "--no-fund", f"agent-browser@{VERSION}"]
    try:
        subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=True)
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"npm install agent-browser@{VERSION} failed: {str(exc)[:120]}"
    if binary := _installed():
        return str(binary), ""
    return None, f"agent-browser@{VERSION} has no native CLI for {platform.machine()}"


class AgentBrowser:
    def __init__(self, binary: str, cdp_url: str) -> None:
        self.cdp_url = cdp_url
        self.base = [binary, "--namespace", "pagesight-bench", "--session", f"s{os.getpid()}"]
        self.base += ["--idle-timeout", "10m"]  # the daemon ends itself if we die

    def _run(self, *args: str) -> str:
        try:
            proc = subprocess.run(
                [*self.base, *args], check=False, capture_output=True, text=True, timeout=TIMEOUT_S
            )
        except (OSError, subprocess.SubprocessError) as exc:
            raise AgentBrowserError(f"agent-browser {args[0]}: {exc}") from exc
        if proc.returncode != 0:
            msg = (proc.stderr or proc.stdout).strip().splitlines()
            raise AgentBrowserError(f"agent-browser {' '.join(args)}: {msg[-1] if msg else '?'}")
        return proc.stdout

    def snapshots(self, url: str, repeat: int) -> tuple[str, str, list[float]]:
        """Open `url` in a new tab; returns (`snapshot -i` text, `snapshot` text, ms of -i)."""
        self._run("--cdp", self.cdp_url, "tab", "new", url)
        try:
            self._run("wait", "--load", "load")  # `tab new` returns before the load event
            full = self._run("snapshot")
            text = self._run("snapshot", "-i")  # warm-up
            samples = []
            for _ in range(repeat):
                t0 = time.perf_counter()
                text = self._run("snapshot", "-i")
                samples.append((time.perf_counter() - t0) * 1000)
            return text, full, samples
        finally:
            self._run("tab", "close")

    def close(self) -> None:
        """Stops the daemon; attached over CDP, it leaves the browser running."""
        with contextlib.suppress(AgentBrowserError):
            self._run("close")
