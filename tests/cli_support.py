"""Running the ``pagesight`` command in the test's own process: ``main(argv)`` with its
stdout, stderr and exit code captured as a subprocess's would be.

A subprocess costs an interpreter start and every import (about a second of the two shared
cores) and, for a command that opens a page, a Chromium of its own. Tests that check what a
command prints and how it exits, not the process itself, call it here instead (a command
that opens a page is pointed at the session browser with ``--cdp-url``). Each command keeps
at least one real subprocess test (test_cli.py, test_cli_run.py, test_cli_cascade.py,
test_demo_task.py), so "one line, no traceback" is proven on a real stderr too; here a
traceback cannot reach stderr at all, as any exception main() lets through fails the test.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass

import pytest

from pagesight.cli import main

# The model keys and servers a CLI run reads from the environment: none leaks in from the
# developer's shell, as a subprocess given a filtered environment gets none.
MODEL_ENV = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "OPENROUTER_API_KEY",
    "PERPLEXITY_API_KEY",
    "PERPLEXITY_BASE_URL",
)


@dataclass(frozen=True, kw_only=True)
class Done:
    """What a command did, named as ``subprocess.CompletedProcess`` names it."""

    returncode: int
    stdout: str
    stderr: str


def run_cli(
    monkeypatch: pytest.MonkeyPatch,
    *argv: str,
    env: Mapping[str, str] | None = None,
    unset: tuple[str, ...] = MODEL_ENV,
) -> Done:
    """``pagesight ARGV`` in this process, with ``unset`` removed from the environment and
    ``env`` added (both undone after the test by ``monkeypatch``); an argparse refusal
    (SystemExit) is an exit code like any other."""
    for name in unset:
        monkeypatch.delenv(name, raising=False)
    for name, value in (env or {}).items():
        monkeypatch.setenv(name, value)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    return Done(returncode=code, stdout=out.getvalue(), stderr=err.getvalue())


def finish(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    """Wait for a ``pagesight`` subprocess (two minutes at most, then it is killed and the
    test fails): its exit code, stdout and stderr."""
    try:
        out, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"pagesight did not end: {proc.args!r}\n{err}")
    return proc.returncode, out, err
