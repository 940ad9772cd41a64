"""How the ``pagesight`` command ends, as the README's table of exit codes says: bad input
refused in one line before a browser starts (exit 2), a browser that fails underneath in one
line (exit 1), SIGTERM and Ctrl-C (143, 130) with the browser gone and the records kept, a
server that never answers bounded by the one ``--timeout`` given, and Playwright's driver
killed mid-run (exit 1, one line).

The refusals run in-process, with ``PAGESIGHT_CHROMIUM`` pointing at a script that only
leaves a mark: a browser started, even to fail, would leave it. The signals and the driver's
death are real processes, signalled and killed from here.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli_support import finish, run_cli
from conftest import StaticServer
from pagesight import Browser

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def silent_port() -> Iterator[int]:
    """A 127.0.0.1 port whose server never answers: it listens (the kernel takes each
    connection), but nobody ever reads a request or writes a reply."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)
        port: int = sock.getsockname()[1]
        yield port


@pytest.fixture
def marker_chromium(tmp_path: Path) -> tuple[str, Path]:
    """A "Chromium" that only leaves a file behind (then fails): its path, and the file."""
    mark = tmp_path / "launched"
    script = tmp_path / "chromium"
    script.write_text(f"#!/bin/sh\ntouch '{mark}'\nexit 1\n")
    script.chmod(0o755)
    return str(script), mark


def _one_line(stderr: str) -> str:
    assert "Traceback" not in stderr
    lines = stderr.rstrip("\n").split("\n")
    assert len(lines) == 1 and lines[0].startswith("pagesight: "), stderr
    return lines[0]


# --- bad input: one line, exit 2, before any browser starts ----------------------------------

REFUSED_BEFORE_LAUNCH = {
    "screenshot is a folder": (("observe", "{page}", "--screenshot", "{tmp}"), "--screenshot"),
    "screenshot where nothing can be written": (
        ("observe", "{page}", "--screenshot", "/proc/pagesight-shot.png"), "--screenshot"
    ),
    "observe a missing file": (("observe", "{tmp}/missing.html"), "missing.html"),
    "observe a missing file:// URL": (("observe", "file://{tmp}/missing.html"), "missing.html"),
    "find in a missing file": (("find", "{tmp}/missing.html", "the Save button"), "missing.html"),
    "run a missing file": (("run", "{tmp}/missing.html", "--steps", "{steps}"), "missing.html"),
    "run a missing steps file": (("run", "{page}", "--steps", "{tmp}/missing.steps"), "--steps"),
    "run with missing risk rules": (
        ("run", "{page}", "--steps", "{steps}", "--confirm-rules", "{tmp}/missing.json"),
        "--confirm-rules",
    ),
    "run --headed with no display": (
        ("run", "{page}", "--steps", "{steps}", "--headed"), "--headed"
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", REFUSED_BEFORE_LAUNCH)
def test_bad_input_is_refused_before_a_browser_starts(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    server: StaticServer,
    marker_chromium: tuple[str, Path],
    case: str,
) -> None:
    chromium, mark = marker_chromium
    steps = tmp_path / "task.steps"
    steps.write_text('click "Save"\n')
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    args, named = REFUSED_BEFORE_LAUNCH[case]
    where = {"page": server.url("form.html"), "tmp": str(tmp_path), "steps": str(steps)}
    argv = [arg.format(**where) for arg in args]
    out = ("--out", str(tmp_path / "run")) if argv[0] == "run" else ()
    done = run_cli(monkeypatch, *argv, *out, env={"PAGESIGHT_CHROMIUM": chromium})
    assert done.returncode == 2, done.stderr
    assert named in _one_line(done.stderr)
    assert not mark.exists()  # no browser was started to find out
    assert not list(tmp_path.glob("*.part"))  # the screenshot's trial write left nothing


def test_headed_says_there_is_no_display(
    monkeypatch: pytest.MonkeyPatch, server: StaticServer, tmp_path: Path
) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    steps = tmp_path / "task.steps"
    steps.write_text('click "Save"\n')
    done = run_cli(monkeypatch, "run", server.url("form.html"), "--steps", str(steps), "--headed")
    line = _one_line(done.stderr)
    assert done.returncode == 2
    assert line.startswith("pagesight: --headed: ") and "no display" in line, line


def test_a_chromium_that_will_not_start_is_a_runtime_failure(
    monkeypatch: pytest.MonkeyPatch, server: StaticServer
) -> None:
    # Three times: the Chromium that exits at once was reaped, now and then, from under
    # asyncio's watch, which printed "Unknown child process pid …" as a second line.
    for _ in range(3):
        done = run_cli(
            monkeypatch,
            "observe",
            server.url("form.html"),
            env={"PAGESIGHT_CHROMIUM": "/bin/false"},
        )
        assert done.returncode == 1
        assert "did not start" in _one_line(done.stderr)


def test_the_readme_table_gives_these_exit_codes() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `?(\d+)`? \| (.+) \|$", text, re.MULTILINE))
    assert set(rows) >= {"0", "1", "2", "3", "130", "143"}, rows
    assert "Chromium that will not start" in rows["1"]
    assert "Playwright's driver" in rows["1"]
    assert "--screenshot" in rows["2"] and "--headed" in rows["2"]
    assert "server that never answers" in rows["2"]
    assert "Ctrl-C" in rows["130"] and "SIGTERM" in rows["143"]


# --- messages in our words ---------------------------------------------------------------------


def test_an_unreachable_url_is_said_without_playwright_s_words(
    monkeypatch: pytest.MonkeyPatch, browser: Browser, closed_port: int
) -> None:
    url = f"http://127.0.0.1:{closed_port}/"
    done = run_cli(monkeypatch, "observe", url, "--cdp-url", browser.cdp_url)
    line = _one_line(done.stderr)
    assert done.returncode == 2
    assert line == f"pagesight: cannot load {url}: net::ERR_CONNECTION_REFUSED"  # no Page.goto:


# --- a server that never answers: one --timeout, and its name ----------------------------------


def test_observing_a_page_whose_server_never_answers(
    monkeypatch: pytest.MonkeyPatch, browser: Browser, silent_port: int
) -> None:
    url = f"http://127.0.0.1:{silent_port}/never?x=1"
    done = run_cli(monkeypatch, "observe", url, "--timeout", "2", "--cdp-url", browser.cdp_url)
    assert done.returncode == 2
    assert _one_line(done.stderr) == (
        f"pagesight: the server at http://127.0.0.1:{silent_port} did not answer /never?x=1 "
        "within 2 s (waited for the response to the navigation)"
    )


def test_a_run_going_to_a_server_that_never_answers_ends_in_its_timeout(
    monkeypatch: pytest.MonkeyPatch,
    browser: Browser,
    server: StaticServer,
    silent_port: int,
    tmp_path: Path,
) -> None:
    steps = tmp_path / "task.steps"
    steps.write_text(f"go to http://127.0.0.1:{silent_port}/report\n")
    out = tmp_path / "run"
    page = server.url("form.html")
    args = (page, "--steps", str(steps), "--timeout", "2", "--out", str(out))
    done = run_cli(monkeypatch, "run", *args, "--cdp-url", browser.cdp_url)
    # The step failed in the 2 s given (it waited 30), and the page after it answered (it
    # was left waiting on the server: every look at it failed as "a script keeps it busy").
    assert done.returncode == 3, done.stderr
    said = (
        f"the server at http://127.0.0.1:{silent_port} did not answer /report within 2 s "
        "(waited for the response to the navigation)"
    )
    assert said in done.stdout and done.stderr == ""
    assert said in (out / "run.jsonl").read_text()


def test_a_click_whose_navigation_the_server_never_answers_fails_its_step(
    monkeypatch: pytest.MonkeyPatch, browser: Browser, silent_port: int, tmp_path: Path
) -> None:
    # A link to a server that never answers: the click's step fails within the run's
    # --timeout, naming the server (not "a script may be keeping it busy", after 22 s).
    report = f"http://127.0.0.1:{silent_port}/report"
    (tmp_path / "home.html").write_text(f'<h1>Home</h1><a href="{report}">Report</a>')
    (tmp_path / "task.steps").write_text("click the Report link\n")
    pages = StaticServer(directory=tmp_path)
    try:
        args = ("--steps", str(tmp_path / "task.steps"), "--timeout", "2")
        out = tmp_path / "run"
        done = run_cli(
            monkeypatch,
            "run",
            pages.url("home.html"),
            *args,
            "--out",
            str(out),
            "--cdp-url",
            browser.cdp_url,
        )
    finally:
        pages.close()
    assert done.returncode == 3, done.stderr
    said = (
        f"the server at http://127.0.0.1:{silent_port} did not answer /report within 2 s "
        "(waited for the response to the navigation)"
    )
    assert said in done.stdout and done.stderr == ""


def test_a_run_s_timeout_bounds_each_action(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # A click whose handler never returns: the action gives up when the page has not answered
    # for the run's --timeout, not for the action's own 10 s.
    (tmp_path / "spin.html").write_text(
        '<h1>Spinner</h1><button onclick="for (;;) {}">Spin</button>'
    )
    (tmp_path / "task.steps").write_text("click the Spin button\n")
    pages = StaticServer(directory=tmp_path)
    try:
        args = ("--steps", str(tmp_path / "task.steps"), "--timeout", "2")
        # A browser of its own: a renderer spinning for ever must not slow the shared one.
        done = run_cli(
            monkeypatch, "run", pages.url("spin.html"), *args, "--out", str(tmp_path / "run")
        )
    finally:
        pages.close()
    assert done.returncode == 1, done.stderr
    assert "did not answer within 2 s" in _one_line(done.stderr)


# --- signals and a driver killed: real processes -----------------------------------------------


def _start(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "pagesight", *args],
        cwd=REPO,
        env=dict(os.environ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        encoding="utf-8",
    )


def _children(pid: int) -> dict[int, str]:
    """The processes whose parent is ``pid``, with their command lines."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:  # ended meanwhile
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found[int(entry.name)] = cmdline
    return found


def _alive(pid: int, cmdline: str) -> bool:
    """Whether that process still runs (a zombie waiting to be reaped does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        now = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return False
    return now == cmdline and stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


@pytest.fixture
def stalled_run(
    server: StaticServer, silent_port: int, tmp_path: Path
) -> Iterator[tuple[subprocess.Popen[str], Path, dict[int, str]]]:
    """``pagesight run`` in a process of its own, its first step done and written, its
    second waiting on a server that never answers; with its children (Chromium, the driver)."""
    steps = tmp_path / "task.steps"
    # Two loads: each a round of its own (a batch of steps ends with the one that loads).
    steps.write_text(f"go to {server.url('cards.html')}\ngo to http://127.0.0.1:{silent_port}/\n")
    out = tmp_path / "run"
    proc = _start(
        "run", server.url("form.html"), "--steps", str(steps), "--timeout", "60", "--out", str(out)
    )
    assert proc.stdout is not None
    first = proc.stdout.readline()  # the first step's line: it was done and recorded
    assert "cards.html" in first, first + (proc.stderr.read() if proc.stderr else "")
    yield proc, out, _children(proc.pid)
    if proc.poll() is None:
        proc.kill()
    proc.communicate()


def _check_ended_cleanly(out: Path, children: dict[int, str]) -> None:
    assert any("chromium" in cmd for cmd in children.values()), children
    assert not [pid for pid, cmd in children.items() if _alive(pid, cmd)]  # none left behind
    assert (out / "report.html").is_file()
    assert '"step": 1' in (out / "run.jsonl").read_text()  # what was written stays


def test_sigterm_ends_a_run_with_143_its_records_kept_and_its_browser_gone(
    stalled_run: tuple[subprocess.Popen[str], Path, dict[int, str]],
) -> None:
    proc, out, children = stalled_run
    proc.send_signal(signal.SIGTERM)
    code, _, err = finish(proc)
    assert code == 143, err
    assert _one_line(err) == "pagesight: terminated (SIGTERM)"
    _check_ended_cleanly(out, children)


def test_a_killed_playwright_driver_ends_a_run_in_one_line(
    stalled_run: tuple[subprocess.Popen[str], Path, dict[int, str]],
) -> None:
    proc, out, children = stalled_run
    drivers = [pid for pid, cmd in children.items() if "run-driver" in cmd]
    assert len(drivers) == 1, children
    os.kill(drivers[0], signal.SIGKILL)
    code, _, err = finish(proc)
    assert code == 1, err
    assert "Playwright's driver" in _one_line(err)  # was four lines, the last Playwright's
    _check_ended_cleanly(out, children)


def test_ctrl_c_while_observe_starts_its_browser_leaves_none(silent_port: int) -> None:
    proc = _start("observe", f"http://127.0.0.1:{silent_port}/", "--timeout", "60")
    children: dict[int, str] = {}
    while proc.poll() is None and not any("chromium" in c for c in children.values()):
        time.sleep(0.02)
        children = _children(proc.pid)  # interrupted as soon as its Chromium is there
    proc.send_signal(signal.SIGINT)
    code, out, err = finish(proc)
    assert (code, out) == (130, ""), err
    assert _one_line(err) == "pagesight: interrupted"
    assert not [pid for pid, cmd in children.items() if _alive(pid, cmd)]  # Chromium too
