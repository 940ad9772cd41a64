"""Launch the system Chromium with a CDP port (used when pagesight is not available)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

CHROMIUM = os.environ.get("PAGESIGHT_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
VIEWPORT = (1280, 720)
# No network here: name lookups of the saved pages' external hosts would hang some
# requests (and so the load event) for long.  Failing every lookup but 127.0.0.1 at once
# makes them fail fast, the same for every tool, and the run deterministic.
OFFLINE_ARGS = ("--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",)


@contextmanager
def launch(headless: bool = True) -> Iterator[str]:
    """Start Chromium on an ephemeral debugging port; yields its "http://127.0.0.1:PORT"."""
    with tempfile.TemporaryDirectory(prefix="bench-chromium-") as profile:
        args = [
            CHROMIUM,
            "--remote-debugging-port=0",
            "--remote-debugging-address=127.0.0.1",
            f"--user-data-dir={profile}",
            "--no-first-run",
            "--no-default-browser-check",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            *OFFLINE_ARGS,
            f"--window-size={VIEWPORT[0]},{VIEWPORT[1]}",
            "about:blank",
        ]
        if headless:
            args.insert(1, "--headless=new")
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            port_file = Path(profile) / "DevToolsActivePort"
            deadline = time.monotonic() + 30
            while not (port_file.exists() and port_file.read_text().strip()):
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"{CHROMIUM} did not open a debugging port")
                time.sleep(0.05)
            port = port_file.read_text().splitlines()[0].strip()
            yield f"http://127.0.0.1:{port}"
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
