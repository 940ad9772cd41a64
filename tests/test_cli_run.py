"""``pagesight run``: live progress, the summary and the report's path on success (exit 0), a
run that ends short of its goal (exit 3), and bad input (exit 2, one line, no traceback) —
the runs that open a browser as real subprocesses, started at once, and the refusals
in-process (but one, as a subprocess too); no secret reaches the terminal or any file
written."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from cli_support import MODEL_ENV, Done, finish, run_cli
from conftest import StaticServer
from pagesight import Browser

REPO = Path(__file__).resolve().parent.parent
SECRET = "tok-cli-SECRET-2f9d"
TASK = """\
# Alice Chen's new title, saved
type "Alice" into the search box
click Alice Chen's Edit button
type "Senior Software Engineer" into the Job title field
type "{{TOKEN}}" into the API token field
click the Save button
expect "Saved Alice Chen"
"""
Run = tuple[subprocess.Popen[str], Path]


def _start(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    environ = {k: v for k, v in os.environ.items() if k != "TOKEN"}
    return subprocess.Popen(
        [sys.executable, "-m", "pagesight", "run", *args],
        cwd=REPO,
        env={**environ, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        encoding="utf-8",
    )


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The scripts and folders the runs are given."""
    root = tmp_path_factory.mktemp("cli-run")
    (root / "task.steps").write_text(TASK)
    (root / "bad.steps").write_text("click Alice Chen's Edit button\n\nfill in the form\n")
    failing = TASK.replace('expect "Saved Alice Chen"', 'expect "Saved Bob Martin"')
    (root / "failing.steps").write_text(failing)
    (root / "taken").write_text("a file, not a folder")
    (root / "replayed").mkdir()
    (root / "replayed" / "steps.txt").write_text(TASK)
    return root


TIKTOKEN_CACHE = "data-gym-cache"
"""tiktoken's cache in the temporary folder: one for every program that counts tokens, kept
for the next on purpose (not a run's leftover)."""


def _left_in(tmp: Path) -> list[str]:
    return sorted(p.name for p in tmp.iterdir() if p.name != TIKTOKEN_CACHE)


@pytest.fixture(scope="module")
def ok_tmp() -> Iterator[Path]:
    """The temporary folder (``TMPDIR``) of the run that succeeds: short, as ``short_tmp``."""
    folder = Path(tempfile.mkdtemp(prefix="ps-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def runs(server: StaticServer, files: Path, ok_tmp: Path) -> Iterator[dict[str, Run]]:
    """The runs that finish or fail in their own browser, and one refused before any, as
    real subprocesses all started at once; the other refusals run in-process
    (``in_process``)."""
    root = files
    page = server.url("steps-contacts.html")
    steps = str(root / "task.steps")

    def run(name: str, *args: str, env: dict[str, str] | None = None) -> Run:
        out = root / name
        return _start(*args, "--out", str(out), env=env), out

    started = {
        # With a temporary folder of its own, which the run must leave as it found it.
        "ok": run("ok", page, "--steps", steps, "--secret", f"TOKEN={SECRET}",
                  env={"TMPDIR": str(ok_tmp)}),
        "failed expect": run("failed", page, "--steps", str(root / "failing.steps"),
                             env={"TOKEN": SECRET}),
        "missing steps file": run("missing", page, "--steps", str(root / "nope.steps")),
        # A page whose script never yields: the browser side fails (its own Chromium), once
        # the --timeout given is over (the default 30 s would only be waited out).
        "page unresponsive": run("busy", server.url("edge-busy.html"), "--steps", steps,
                                 "--secret", f"TOKEN={SECRET}", "--timeout", "5"),
    }  # fmt: skip
    yield started
    for proc, _ in started.values():
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for pipe in (proc.stdout, proc.stderr):  # read or not (a test deselected)
            if pipe is not None:
                pipe.close()


@pytest.fixture
def in_process(
    monkeypatch: pytest.MonkeyPatch,
    server: StaticServer,
    browser: Browser,
    closed_port: int,
    files: Path,
) -> Callable[[str], tuple[Done, Path]]:
    """``in_process(case)``: a refusal run by main() in this process (as the subprocesses
    above prove one on a real stderr) — before any browser starts, or for a page that cannot
    be loaded, in the session browser."""
    root = files
    page = server.url("steps-contacts.html")
    steps = str(root / "task.steps")
    token = ("--secret", f"TOKEN={SECRET}")
    dead = f"http://127.0.0.1:{closed_port}/"
    cases = {
        "unreachable URL": (
            (dead, "--steps", steps, *token, "--cdp-url", browser.cdp_url), root / "dead"
        ),
        "malformed step": ((page, "--steps", str(root / "bad.steps")), root / "malformed"),
        "goal without a model": ((page, "--goal", "make Alice a senior engineer"), root / "goal"),
        "missing secret": ((page, "--steps", steps), root / "secret"),
        "secret without its name": ((page, "--steps", steps, "--secret", SECRET), root / "noname"),
        "timeout of 0": ((page, "--steps", steps, *token, "--timeout", "0"), root / "timeout"),
        "out is a file": ((page, "--steps", steps, *token), root / "taken"),
        "out inside a file": ((page, "--steps", steps, *token), root / "taken" / "run"),
        "out holds the steps replayed": (
            (page, "--steps", str(root / "replayed" / "steps.txt"), *token), root / "replayed"
        ),
    }  # fmt: skip

    def run(case: str) -> tuple[Done, Path]:
        args, out = cases[case]
        unset = (*MODEL_ENV, "TOKEN")
        return run_cli(monkeypatch, "run", *args, "--out", str(out), unset=unset), out

    return run


def test_a_run_shows_each_step_then_the_summary_and_the_report(
    runs: dict[str, Run], ok_tmp: Path
) -> None:
    proc, out = runs["ok"]
    code, stdout, stderr = finish(proc)
    assert (code, stderr) == (0, ""), stderr
    lines = stdout.splitlines()
    # One line per step: the round, the step, the element it resolved to, the effect, the time.
    assert lines[0].startswith(
        '  1 type "Alice" into the search box  →  searchbox "Search contacts" in "Contacts"  '
        "dom_change, value_change  "
    )
    assert lines[0].endswith("s")
    assert lines[1].startswith(
        '  1 click Alice Chen\'s Edit button  →  button "Edit" in "Alice Chen"  dom_change  '
    )
    assert lines[3].startswith(
        '  2 type "{{TOKEN}}" into the API token field  →  textbox "API token" in "Alice Chen"  '
        "value_change  "
    )
    # A check shows the text it found on the page: here, all of the toast.
    assert lines[5] == '  3 expect "Saved Alice Chen"  →  text "Saved Alice Chen"  ok'
    assert lines[6] == "done: the planner said the goal is reached"
    assert lines[7].startswith("3 rounds, ")  # two batches, then the check that ends it
    assert lines[-2:] == [f"report: {out / 'report.html'}", f"steps: {out / 'steps.txt'}"]
    assert (out / "report.html").is_file() and (out / "summary.json").is_file()
    # Nothing left in the temporary folder: no empty downloads folder, no Chromium scratch.
    assert _left_in(ok_tmp) == []
    assert SECRET not in stdout + stderr
    for path in out.iterdir():
        assert SECRET.encode() not in path.read_bytes(), path.name


def test_a_run_that_ends_short_of_its_goal_exits_3_and_keeps_its_records(
    runs: dict[str, Run],
) -> None:
    proc, out = runs["failed expect"]
    code, stdout, stderr = finish(proc)
    assert (code, stderr) == (3, ""), stderr
    assert 'expect_failed: line 7: expect "Saved Bob Martin": expected the page to show' in stdout
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["stop_reason"], summary["reached"]) == ("expect_failed", False)
    assert (out / "steps.txt").is_file()
    # The secret came from the environment variable the step names: typed, never shown.
    assert SECRET not in stdout
    for path in out.iterdir():
        assert SECRET.encode() not in path.read_bytes(), path.name


def test_a_run_terminated_mid_step_leaves_its_temporary_folder_empty(
    server: StaticServer, tmp_path: Path, short_tmp: Path
) -> None:
    steps = tmp_path / "long.steps"
    steps.write_text('expect "Alice Chen"\nwait for "a text this page never shows"\n')
    page = server.url("steps-contacts.html")
    out = tmp_path / "run"
    proc = _start(page, "--steps", str(steps), "--out", str(out), env={"TMPDIR": str(short_tmp)})
    assert proc.stdout is not None
    try:
        first = proc.stdout.readline()  # readiness: a step done, so its browser runs
        assert first.rstrip().endswith("ok") and 'expect "Alice Chen"' in first, first
        proc.send_signal(signal.SIGTERM)  # while it waits for the text
    finally:
        finish(proc)  # its exit code is the command's to choose; what it left is checked here
    assert _left_in(short_tmp) == []


def test_a_browser_failure_exits_1_with_one_line_and_what_was_written_stays(
    runs: dict[str, Run],
) -> None:
    proc, out = runs["page unresponsive"]
    code, _, stderr = finish(proc)
    assert code == 1, stderr
    assert "Traceback" not in stderr
    assert stderr.count("\n") == 1
    assert stderr.startswith("pagesight: ") and "did not answer within 5 s" in stderr
    assert (out / "report.html").is_file() and (out / "run.jsonl").is_file()
    assert not (out / "summary.json").exists()  # only a run that ended on its own has one


BAD = {
    "missing steps file": ("--steps: no steps file at", "nope.steps"),
    "malformed step": ("bad.steps: line 3: 'fill in the form' is not a step",),
    "goal without a model": ("--model: a --goal is given to a model: add --model PROVIDER:MODEL",),
    "secret without its name": ("--secret: expected NAME=VALUE (what was given is not shown)",),
    "missing secret": ("task.steps: line 5: {{TOKEN}} needs a value: --secret TOKEN=VALUE",),
    "timeout of 0": ("--timeout: must be a positive number of seconds, not 0.0",),
    "out is a file": ("--out: ", "taken' is a file, not a folder for the run's records"),
    "out inside a file": ("--out: ", "taken/run' is inside a file", "not a folder"),
    "out holds the steps replayed": ("--out: ", "holds the steps file replayed"),
    "unreachable URL": ("cannot load http://127.0.0.1:",),
}
SUBPROCESS = ("missing steps file",)  # the others: in-process


@pytest.mark.parametrize("case", BAD)
def test_bad_input_exits_2_with_one_line(
    runs: dict[str, Run], in_process: Callable[[str], tuple[Done, Path]], case: str
) -> None:
    if case in SUBPROCESS:
        proc, out = runs[case]
        code, stdout, stderr = finish(proc)
    else:
        done, out = in_process(case)
        code, stdout, stderr = done.returncode, done.stdout, done.stderr
    assert "Traceback" not in stderr
    assert code == 2, stderr
    assert stdout == ""
    lines = stderr.rstrip("\n").split("\n")
    assert len(lines) == 1, stderr
    assert lines[0].startswith("pagesight: ")
    for part in BAD[case]:
        assert part in lines[0], stderr
    assert SECRET not in stderr
    if case == "out holds the steps replayed":  # the script replayed is as it was
        assert (out / "steps.txt").read_text() == TASK


def test_a_submit_the_browser_stopped_exits_3_naming_the_fields(
    monkeypatch: pytest.MonkeyPatch, server: StaticServer, browser: Browser, files: Path
) -> None:
    # In this process, in the session's browser: a run that ends on its own, as the
    # subprocesses above show one does.
    steps = files / "blocked.steps"
    steps.write_text("click the Create account button\n")
    out = files / "blocked"
    done = run_cli(
        monkeypatch, "run", server.url("form-validation.html"), "--steps", str(steps),
        "--cdp-url", browser.cdp_url, "--out", str(out),
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (3, ""), done.stderr
    assert "step_failed: line 1: click the Create account button: the browser's own " in (
        done.stdout
    )
    assert "the form was not sent; invalid: [" in done.stdout
    assert '] textbox "Email": "Please fill out this field."' in done.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["stop_reason"], summary["reached"]) == ("step_failed", False)
