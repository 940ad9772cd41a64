"""``pagesight eval``: a suite's tasks each from a fresh app, judged by checks of the outcome,
in worker processes; infrastructure failures retried and counted apart; the files a user
reads afterwards; a bad suite refused in one line before any browser starts.

The suite in tests/evals serves a static site with ``python3 -m http.server`` (an app given
as a command); the bundled Orbit suite has tests of its own.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import socket
import sqlite3
import time
from dataclasses import replace
from pathlib import Path

import pytest

from cli_support import run_cli
from pagesight.agent.state import RunResult
from pagesight.eval.checks import Outcome, judge
from pagesight.eval.suite import Check, load_suite
from pagesight.eval.task import API_KEY_ENV, Options, run_task
from pagesight.testing.reference_suite import SuiteReference

SUITE = Path(__file__).parent / "evals" / "suite.toml"


def _jsonl(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_each_task_runs_from_a_fresh_app_and_is_judged_by_its_own_checks(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    done = run_cli(monkeypatch, "eval", str(SUITE), "--out", str(out), "--workers", "2")
    assert done.returncode == 3, done.stdout + done.stderr  # one task failed its check
    assert "✓ export-and-read #1" in done.stdout
    assert "✗ wrong-report #1" in done.stdout
    assert "passed 1 of 2" in done.stdout

    runs = {r["task"]: r for r in _jsonl(out / "results.jsonl")}
    passed, failed = runs["export-and-read"], runs["wrong-report"]
    assert passed["outcome"] == "passed" and passed["attempt"] == 1
    # Every kind of check this suite gives was made, and held.
    assert [c["check"].split()[0] for c in passed["checks"]] == [  # type: ignore[attr-defined]
        "url_matches",
        "page_contains",
        "file_exists",
        "python",
        "stop_reason",
    ]
    assert all(c["ok"] for c in passed["checks"])  # type: ignore[attr-defined]
    # The download landed in the task's own workdir, which the python check read.
    assert (out / "tasks/export-and-read/1/work/downloads/sales.csv").is_file()
    assert failed["outcome"] == "failed"
    assert failed["checks"] == [
        {
            "check": "page_contains 'Annual report'",
            "ok": False,
            "reason": f"the final page ({failed['final_url']}) does not show it",
        }
    ]
    # Each task had an app of its own: two ports.
    assert passed["final_url"].split("/")[2] != failed["final_url"].split("/")[2]  # type: ignore[attr-defined]

    with (out / "results.csv").open() as file:
        rows = list(csv.DictReader(file))
    assert [(r["task"], r["outcome"]) for r in rows] == [
        ("export-and-read", "passed"),
        ("wrong-report", "failed"),
    ]
    assert "Annual report" in rows[1]["failed_checks"]

    summary = json.loads((out / "summary.json").read_text())
    assert summary["suite"]["sha256"] == hashlib.sha256(SUITE.read_bytes()).hexdigest()
    assert summary["versions"]["playwright"]
    assert summary["versions"]["chromium"].split(".")[0].isdigit()
    assert summary["complete"] is True
    totals = summary["totals"]
    assert (totals["passed"], totals["failed"], totals["infra"]) == (1, 1, 0)
    assert totals["success_rate"] == 0.5

    report = (out / "report.html").read_text()
    for task in ("export-and-read", "wrong-report"):
        link = f'href="tasks/{task}/1/run/report.html"'
        assert link in report
        assert (out / f"tasks/{task}/1/run/report.html").is_file()


def _suite(folder: Path, app: str, *, steps: str = "click the Go link\n") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "go.steps").write_text(steps)
    path = folder / "suite.toml"
    path.write_text(
        f"[app]\n{app}\n\n"
        '[[tasks]]\nid = "only"\nstart = "/"\ngoal = "go"\nsteps = "go.steps"\n'
        '[[tasks.checks]]\nurl_matches = "/done"\n'
    )
    return path


def test_an_app_that_does_not_start_is_an_infrastructure_failure_tried_three_times(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    suite = _suite(tmp_path / "suite", "command = \"python3 -c 'import sys; sys.exit(4)' {port}\"")
    out = tmp_path / "out"
    done = run_cli(monkeypatch, "eval", str(suite), "--out", str(out))
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.count("trying again") == 2
    assert "1 infrastructure failure" in done.stdout
    (run,) = _jsonl(out / "results.jsonl")  # the retries are not runs of their own
    assert run["outcome"] == "infra" and run["attempt"] == 3
    assert "the app exited with code 4" in str(run["error"])
    # Every attempt kept its folder, to be read.
    assert {p.name for p in (out / "tasks/only").iterdir()} == {"1", "1.retry1", "1.retry2"}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["totals"]["infra"] == 1
    assert summary["totals"]["success_rate"] is None  # nothing was judged


def test_a_task_past_its_deadline_is_ended_with_its_app(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The app never answers; each attempt is ended at its deadline, its app with it.
    folder = tmp_path / "suite"
    folder.mkdir()
    (folder / "hang.py").write_text((SUITE.parent / "hang.py").read_text())
    suite = _suite(folder, 'command = "python3 hang.py {port} {workdir}"\nready = "/ready"')
    out = tmp_path / "out"
    done = run_cli(monkeypatch, "eval", str(suite), "--out", str(out), "--task-timeout", "5")
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.count("infrastructure: ended at its deadline of 5 s; trying again") == 2
    (run,) = _jsonl(out / "results.jsonl")
    assert run["outcome"] == "infra" and run["attempt"] == 3
    assert run["error"] == "ended at its deadline of 5 s"
    # Each attempt kept its folder, and each app that had started was stopped with its task
    # (the app starts first thing, but a busy machine may spend a deadline on imports).
    attempts = [out / "tasks/only" / name for name in ("1", "1.retry1", "1.retry2")]
    assert all((folder / "worker.log").is_file() for folder in attempts)
    pids = [int(p.read_text()) for f in attempts if (p := f / "work/app.pid").is_file()]
    assert pids
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


@pytest.mark.parametrize(
    ("toml", "said"),
    [
        ("[[tasks]\n", "not valid TOML"),
        ("name = 'x'\n", "tasks: missing"),
        (
            '[[tasks]]\nid = "a"\nstart = "https://a.test/"\ngoal = "g"\n'
            '[[tasks.checks]]\npage_contians = "x"\n',
            "task 'a': checks[0].page_contians: not a field this accepts (a typo?)",
        ),
        (
            '[[tasks]]\nid = "a"\nstart = "https://a.test/"\ngoal = "g"\n'
            '[[tasks.checks]]\nstop_reason = "don"\n',
            "task 'a': checks[0]: stop_reason is one of done, unproven, max_steps,",
        ),
        (
            '[[tasks]]\nid = "a"\nstart = "https://a.test/"\ngoal = "g"\n'
            '[[tasks.checks]]\nfile_exists = "../*.csv"\n',
            "task 'a': checks[0]: file_exists is a glob in the task's downloads folder",
        ),
        (
            '[[tasks]]\nid = "a"\nstart = "https://a.test/"\ngoal = "g"\n'
            '[[tasks.checks]]\nsql = "SELECT 1"\n',
            "task 'a': checks[0]: an sql check needs equals",
        ),
        (
            '[[tasks]]\nid = "a"\nstart = "https://a.test/"\ngoal = "g"\n'
            '[[tasks.checks]]\npage_contains = "x"\nurl_matches = "y"\n',
            "task 'a': checks[0]: a check is exactly one of",
        ),
        (
            '[[tasks]]\nid = "a"\nstart = "https://a.test/"\n'
            '[[tasks.checks]]\npage_contains = "x"\n',
            "task 'a': goal: missing",
        ),
        (
            '[[tasks]]\nid = "a"\nstart = "/x"\ngoal = "g"\n'
            '[[tasks.checks]]\npage_contains = "x"\n',
            "task 'a': start: '/x' is a path, but the suite has no [app]",
        ),
        (
            '[[tasks]]\nid = "a"\nstart = "https://a.test/"\ngoal = "g"\nsteps = "no.steps"\n'
            '[[tasks.checks]]\npage_contains = "x"\n',
            "task 'a': steps: no file",
        ),
        (
            '[[tasks]]\nid = "a"\nstart = "https://a.test/"\ngoal = "g"\n'
            '[[tasks.checks]]\npython = "checks.py:ok"\n',
            "task 'a': checks[0].python: no file",
        ),
        (
            '[[tasks]]\nid = "a"\nstart = "https://a.test/"\ngoal = "g"\n'
            '[[tasks.checks]]\npage_contains = "x"\n'
            '[[tasks]]\nid = "a"\nstart = "https://a.test/"\ngoal = "h"\n'
            '[[tasks.checks]]\npage_contains = "y"\n',
            "task 'a': id: another task has this id; ids are unique",
        ),
        (  # a check file that would only fail once the task had run
            '[[tasks]]\nid = "a"\nstart = "https://a.test/"\ngoal = "g"\n'
            '[[tasks.checks]]\npython = "mychecks.py:missing"\n',
            "task 'a': checks[0].python: " + "{folder}/mychecks.py defines no function 'missing'",
        ),
        (
            '[[tasks]]\nid = "a"\nstart = "https://a.test/"\ngoal = "g"\n'
            '[[tasks.checks]]\npython = "broken.py:ok"\n',
            "broken.py is not Python (invalid syntax at line 1)",
        ),
        (
            '[app]\ncommand = "serve"\n[[tasks]]\nid = "a"\nstart = "/"\ngoal = "g"\n'
            '[[tasks.checks]]\npage_contains = "x"\n',
            "app: the command must listen on {port}",
        ),
        (
            '[[tasks]]\nid = "a"\nstart = "https://a.test/"\ngoal = "g"\n'
            '[[tasks.checks]]\npage_contains = "x"\n',
            "task 'a': steps: none, and the steps planner needs one",
        ),
    ],
)
def test_a_bad_suite_is_one_line_naming_its_file_task_and_field(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, toml: str, said: str
) -> None:
    path = tmp_path / "suite.toml"
    path.write_text(toml)
    (tmp_path / "mychecks.py").write_text("def ok(workdir, base_url, result):\n    return True\n")
    (tmp_path / "broken.py").write_text("def ok(:\n")
    done = run_cli(monkeypatch, "eval", str(path), "--out", str(tmp_path / "out"))
    assert done.returncode == 2
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"pagesight: {path}: "), line
    assert said.replace("{folder}", str(tmp_path)) in line
    assert not (tmp_path / "out").exists()  # refused before anything ran


def test_bad_options_and_names_are_refused_before_anything_runs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    done = run_cli(monkeypatch, "eval", "no-such-suite")
    assert done.returncode == 2
    assert "no-such-suite: no such suite file, and no bundled suite by that name" in done.stderr
    done = run_cli(monkeypatch, "eval", str(SUITE), "--tasks", "export-and-read,nope")
    assert done.returncode == 2 and "no task 'nope'" in done.stderr
    done = run_cli(monkeypatch, "eval", str(SUITE), "--workers", "0")
    assert done.returncode == 2 and "--workers: must be a positive number" in done.stderr
    # An earlier eval's results are never written over.
    out = tmp_path / "out"
    out.mkdir()
    (out / "results.jsonl").write_text("{}\n")
    done = run_cli(monkeypatch, "eval", str(SUITE), "--out", str(out))
    assert done.returncode == 2 and "holds an earlier eval's results" in done.stderr
    assert (out / "results.jsonl").read_text() == "{}\n"
    # A folder that cannot be made is one line too, not a traceback once the display is up.
    (tmp_path / "file").write_text("")
    done = run_cli(monkeypatch, "eval", str(SUITE), "--out", str(tmp_path / "file" / "out"))
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == ""
    assert done.stderr == (
        f"pagesight: --out: '{tmp_path}/file/out' cannot be written: Not a directory\n"
    )
    done = run_cli(monkeypatch, "eval", str(SUITE), "--timeout", "inf")
    assert done.returncode == 2 and "--timeout: must be a positive number" in done.stderr


def _outcome(tmp_path: Path, **result: object) -> Outcome:
    run = RunResult(
        goal="g",
        stop_reason=result.get("stop_reason", "done"),  # type: ignore[arg-type]
        message="",
        answer=result.get("answer"),  # type: ignore[arg-type]
        steps=(),
        final_url="http://127.0.0.1:1/x",
        rounds=1,
        tokens=0,
        seconds=0.0,
        folder=tmp_path,
    )
    db = tmp_path / "app.sqlite3"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS t (name TEXT, n INT)")
        conn.execute("DELETE FROM t")
        conn.executemany("INSERT INTO t VALUES (?, ?)", [("a", 1), ("b", 2)])
    return Outcome(
        result=run,
        final_url=run.final_url,
        page_text="",
        workdir=tmp_path,
        downloads=tmp_path / "downloads",
        base_url="http://127.0.0.1:1",
        db=db,
        confirm="risky",
    )


def test_checks_read_the_outcome_strictly(tmp_path: Path) -> None:
    outcome = _outcome(tmp_path, answer="The export has 12 rows.")
    checks = [
        Check(sql="SELECT name, n FROM t ORDER BY n", equals=[["a", 1], ["b", 2]]),
        Check(sql="SELECT count(*) FROM t", equals=2),
        Check(sql="SELECT name FROM t", equals="a"),  # two rows are not one
        Check(answer_contains="12 rows"),
        Check(answer_contains="13 rows"),
        Check(stop_reason="needs_person"),
        Check(stop_reason="needs_person", when_confirm="never"),  # not in this mode
        Check(sql="DELETE FROM t", equals=[]),  # a check cannot change what it reads
    ]
    got = [(c.ok, c.reason) for c in judge(checks, outcome, folder=tmp_path)]
    assert got[:2] == [(True, ""), (True, "")]
    assert got[2] == (False, "the query returned [['a'], ['b']]")
    assert got[3] == (True, "")
    assert got[4] == (False, "the answer was 'The export has 12 rows.'")
    assert got[5] == (False, "the run stopped with done")
    assert len(got) == 7  # the never-only check did not apply
    assert not got[6][0] and "readonly" in got[6][1]
    with sqlite3.connect(tmp_path / "app.sqlite3") as conn:
        assert conn.execute("SELECT count(*) FROM t").fetchone() == (2,)


def test_the_bundled_orbit_suite_sends_what_its_tasks_allow_and_stops_for_a_person_otherwise(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Under the default --confirm risky nobody is there to ask: sending, which bob-message
    # allows, goes ahead; deleting, which no task allows, stops the run and deletes nothing.
    out = tmp_path / "risky"
    tasks = "bob-message,delete-contact"
    done = run_cli(
        monkeypatch, "eval", "orbit", "--tasks", tasks, "--workers", "2", "--out", str(out)
    )
    assert done.returncode == 0, done.stdout + done.stderr
    runs = {r["task"]: r for r in _jsonl(out / "results.jsonl")}
    assert runs["bob-message"]["stop_reason"] == "done"
    assert runs["delete-contact"]["stop_reason"] == "needs_person"
    assert (out / "tasks/delete-contact/1/work/orbit.sqlite3").is_file()
    with sqlite3.connect(out / "tasks/delete-contact/1/work/orbit.sqlite3") as db:
        assert db.execute("SELECT count(*) FROM contacts WHERE name = 'Kenji Mori'").fetchone() == (
            1,
        )
    # With --confirm never the same task deletes him, and its checks for that mode apply.
    out = tmp_path / "never"
    done = run_cli(
        monkeypatch,
        "eval",
        "orbit",
        "--tasks",
        "delete-contact",
        "--confirm",
        "never",
        "--out",
        str(out),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (run,) = _jsonl(out / "results.jsonl")
    assert run["stop_reason"] == "done"
    assert any("Kenji Mori" in c["check"] for c in run["checks"])  # type: ignore[attr-defined]
    with sqlite3.connect(out / "tasks/delete-contact/1/work/orbit.sqlite3") as db:
        assert db.execute("SELECT count(*) FROM contacts WHERE name = 'Kenji Mori'").fetchone() == (
            0,
        )


def test_a_model_is_given_each_goal_through_one_base_url_and_its_tokens_are_priced(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The reference model plays a capable model for every task of the suite at one address,
    # as a real endpoint would be; the workers' requests go through the real openai SDK.
    suite = load_suite("orbit")
    chosen = [suite.task("alice-title"), suite.task("export-csv")]
    tasks = {  # Orbit's goals are given (none is read from the page: goal_from)
        task.goal: (suite.steps_path(task) or Path()).read_text() for task in chosen if task.goal
    }
    out = tmp_path / "out"
    with SuiteReference(tasks, api_key="sk-test") as reference:
        done = run_cli(
            monkeypatch,
            "eval",
            "orbit",
            "--model",
            "openai:gpt-4.1-mini",
            "--base-url",
            reference.base_url,
            "--api-key",
            "sk-test",
            "--tasks",
            "alice-title,export-csv",
            "--workers",
            "2",
            "--out",
            str(out),
        )
        conversations = list(reference.conversations.values())
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(len(talk.requests) for talk in conversations) == [1, 3]
    assert all(talk.finished for talk in conversations)
    runs = {r["task"]: r for r in _jsonl(out / "results.jsonl")}
    # What the planner counted is what the model server was asked.
    assert runs["alice-title"]["rounds"] == 3 and runs["export-csv"]["rounds"] == 1
    assert runs["export-csv"]["answer"] == "14"
    for run in runs.values():
        assert run["input_tokens"] > run["output_tokens"] > 0  # type: ignore[operator]
        assert run["cost"] is not None and run["cost"] > 0  # type: ignore[operator]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["model"] == "openai:gpt-4.1-mini"
    assert summary["totals"]["cost"] == pytest.approx(sum(r["cost"] for r in runs.values()))  # type: ignore[misc]
    # The key went to the workers in their environment, never into a file in --out.
    assert not [p for p in out.rglob("*") if p.is_file() and b"sk-test" in p.read_bytes()]


def test_a_model_server_that_does_not_answer_is_an_infrastructure_failure(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # One attempt, in this process (the driver's retries of an infra result are tested
    # above): the run is not judged a failure of the task, it failed underneath.
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    suite = load_suite("orbit")
    options = Options(planner="model", model="openai:gpt-4.1-mini", base_url=closed)
    monkeypatch.setenv(API_KEY_ENV, "sk-test")
    result = run_task(
        suite, suite.task("export-csv"), repeat=1, attempt=1, options=options, out=tmp_path
    )
    assert result.outcome == "infra"
    assert result.error is not None and "no model server answers" in result.error
    assert closed in result.error


def test_a_task_no_check_of_which_applies_in_this_confirm_mode_is_refused_not_passed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Its only check is for --confirm never: under risky nothing would judge the run, and a run
    # nothing judged once counted as passed (delete-contact under --confirm all did).
    path = tmp_path / "suite.toml"
    (tmp_path / "go.steps").write_text("done\n")
    path.write_text(
        '[[tasks]]\nid = "a"\nstart = "https://a.test/"\ngoal = "g"\nsteps = "go.steps"\n'
        '[[tasks.checks]]\nwhen_confirm = "never"\nstop_reason = "done"\n'
    )
    done = run_cli(monkeypatch, "eval", str(path), "--out", str(tmp_path / "out"))
    assert done.returncode == 2, done.stdout + done.stderr
    (line,) = done.stderr.splitlines()
    assert line == (
        f"pagesight: {path}: task 'a': checks: none applies with --confirm risky "
        "(each has a when_confirm for another mode)"
    )
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("confirm", ["risky", "all", "never"])
def test_every_bundled_orbit_task_is_judged_by_some_check_in_every_confirm_mode(
    confirm: str,
) -> None:
    from pagesight.eval.checks import applies
    from pagesight.eval.suite import load_suite

    for task in load_suite("orbit").tasks:
        assert any(applies(c, confirm) for c in task.checks), (task.id, confirm)  # type: ignore[arg-type]


def test_a_text_check_holds_for_the_text_as_words_of_its_own(tmp_path: Path) -> None:
    # A substring once held: "14" in an answer of 140 passed export-csv with a wrong count.
    def answer(text: str, wanted: str) -> bool:
        outcome = _outcome(tmp_path, answer=text)
        (got,) = judge([Check(answer_contains=wanted)], outcome, folder=tmp_path)
        return got.ok

    assert answer("14", "14") and answer("It has 14 rows.", "14") and answer("14行", "14")
    assert not answer("140", "14") and not answer("2014", "14") and not answer("1.14", "14")
    assert answer("Saved:  Alice\n Chen", "Saved: Alice Chen")  # spacing aside
    assert not answer("Unsaved", "Saved")
    assert not answer("14.5", "14") and answer("It is 14.", "14")
    assert answer("(14)", "(14)") and answer("x(14)y", "(14)")  # no letter at its ends

    page = replace(_outcome(tmp_path), page_text="Total: 114 items")
    (got,) = judge([Check(page_contains="14 items")], page, folder=tmp_path)
    assert not got.ok


def test_a_check_is_described_on_one_line() -> None:
    check = Check(sql="SELECT count(*)\n  FROM contacts\n", equals=14)
    assert check.describe() == "sql SELECT count(*) FROM contacts = 14"


def test_a_worker_starts_without_runpy_warning_it_was_imported_twice() -> None:
    # The package imported the worker module (runner → worker), so `python -m` warned in every
    # worker.log, and a worker killed outright was reported with that warning as its reason.
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-W", "error::RuntimeWarning", "-m", "pagesight.eval.worker"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert "RuntimeWarning" not in done.stderr, done.stderr
    assert "IndexError" in done.stderr  # it ran, and found no job file named


def test_a_task_allows_the_risky_steps_its_words_name_and_no_other() -> None:
    from pagesight.eval.suite import Task
    from pagesight.eval.task import _allowed
    from pagesight.guard.risk import Risk

    def allows(words: list[str], action: str) -> bool:
        task = Task(id="t", start="/", goal="g", allow=words, checks=[Check(stop_reason="done")])
        allowed = _allowed(task)
        assert allowed is not None
        return allowed(Risk(rule="risky_control", action=action, why="its name says 'send'"))

    assert allows(["send"], 'click [7] button "Send"')
    assert allows(["Send"], 'click [7] button "send message"')
    assert allows(["发送"], 'click [7] button "发送消息"')
    # A substring once allowed these: another word holding it, a delete that mentions it.
    assert not allows(["send"], 'click [7] button "Resend invoice"')
    assert not allows(["send"], 'click [9] button "Delete"')
    assert not allows(["pay"], 'click [3] link "Paypal settings"')
    with pytest.raises(ValueError, match="at least 1 character"):  # "" would allow anything
        Task(id="t", start="/", goal="g", allow=[" "], checks=[Check(stop_reason="done")])
    assert _allowed(Task(id="t", start="/", goal="g", checks=[Check(stop_reason="done")])) is None


def test_a_run_that_failed_before_any_check_says_why_on_its_line() -> None:
    from pagesight.cli.eval import _why
    from pagesight.eval.task import TaskResult

    result = TaskResult(
        task="t",
        category="c",
        repeat=1,
        attempt=1,
        outcome="failed",
        stop_reason="navigation_error",
        message="cannot load http://127.0.0.1:9/: connection refused",
    )
    assert _why(result) == ("navigation_error: cannot load http://127.0.0.1:9/: connection refused")


def test_each_kind_of_check_fails_when_the_outcome_is_not_what_it_says(tmp_path: Path) -> None:
    (tmp_path / "verdicts.py").write_text(
        "def yes(w, u, r):\n    return True\n"
        "def no(w, u, r):\n    return False\n"
        "def one(w, u, r):\n    return 1\n"
        "def why(w, u, r):\n    return 'the total is 3'\n"
        "def boom(w, u, r):\n    raise RuntimeError('kaboom')\n"
    )
    outcome = replace(_outcome(tmp_path), page_text="Saved:\n  Alice   Chen")
    (tmp_path / "downloads").mkdir()
    (tmp_path / "downloads" / "notes.txt").write_text("x")
    checks = [
        Check(url_matches=r"/x$"),
        Check(url_matches=r"/y$"),
        Check(page_contains="Saved: Alice Chen"),  # as the browser renders it, spacing aside
        Check(page_contains="Saved: Bob"),
        Check(file_exists="*.txt"),
        Check(file_exists="*.csv"),
        Check(python="verdicts.py:yes"),
        Check(python="verdicts.py:no"),
        Check(python="verdicts.py:one"),  # only True holds, not whatever is truthy
        Check(python="verdicts.py:why"),
        Check(python="verdicts.py:boom"),
    ]
    got = [(c.ok, c.reason) for c in judge(checks, outcome, folder=tmp_path)]
    assert got == [
        (True, ""),
        (False, "the final URL is http://127.0.0.1:1/x"),
        (True, ""),
        (False, "the final page (http://127.0.0.1:1/x) does not show it"),
        (True, ""),
        (False, "downloads hold notes.txt"),
        (True, ""),
        (False, "no returned False"),
        (False, "one returned 1"),
        (False, "the total is 3"),
        (False, "RuntimeError: kaboom"),
    ]


class _Quiet:
    def started(self, job: object) -> None: ...

    def finished(self, job: object, result: object, *, retrying: bool) -> None: ...


def test_an_eval_stopped_half_way_keeps_each_run_that_ended_and_writes_every_file(
    tmp_path: Path,
) -> None:
    # results.jsonl holds a run as soon as it ends, and Ctrl-C still leaves the csv, the
    # summary (complete: false) and the report.
    from pagesight.eval.evaluate import run_eval
    from pagesight.eval.runner import Job
    from pagesight.eval.suite import load_suite
    from pagesight.eval.task import Options, TaskResult

    suite = load_suite(SUITE)
    out = tmp_path / "out"
    seen_on_disk: list[str] = []

    class Stopped:
        slots = 1

        def __init__(self) -> None:
            self.waits = 0
            self.jobs: list[Job] = []

        def start(self, job: Job) -> None:
            self.jobs.append(job)

        def wait(self, timeout: float) -> list[tuple[Job, TaskResult]]:
            self.waits += 1
            if self.waits == 1:
                job = self.jobs[0]
                result = TaskResult(
                    task=job.task.id,
                    category=job.task.category,
                    repeat=1,
                    attempt=1,
                    outcome="passed",
                )
                return [(job, result)]
            seen_on_disk.append((out / "results.jsonl").read_text())
            raise KeyboardInterrupt

        def close(self) -> None: ...

    stopped = run_eval(suite, suite.tasks, Options(), out, events=_Quiet(), executor=Stopped)
    assert stopped.interrupted and stopped.exit_code == 130
    assert [r.task for r in stopped.results] == ["export-and-read"]
    (line,) = seen_on_disk[0].splitlines()  # on disk while the next task still ran
    assert json.loads(line)["task"] == "export-and-read"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] is False and summary["totals"]["passed"] == 1
    assert (out / "results.csv").read_text().count("\n") == 2
    assert "before every task ran" in (out / "report.html").read_text()


def test_the_standard_error_is_over_the_success_rates_of_the_repeats() -> None:
    from pagesight.eval.results import totals
    from pagesight.eval.task import TaskResult

    def run(task: str, repeat: int, outcome: str) -> TaskResult:
        return TaskResult(task=task, category="c", repeat=repeat, attempt=1, outcome=outcome)  # type: ignore[arg-type]

    # Repeat 1: 2 of 2; repeat 2: 1 of 2; repeat 3: 0 of 1 and an infrastructure failure.
    results = [
        run("a", 1, "passed"),
        run("b", 1, "passed"),
        run("a", 2, "passed"),
        run("b", 2, "failed"),
        run("a", 3, "failed"),
        run("b", 3, "infra"),
    ]
    t = totals(results, 1.0)
    assert (t.runs, t.passed, t.failed, t.infra) == (6, 3, 2, 1)
    assert t.success_rate == pytest.approx(3 / 5)
    # rates 1, 0.5, 0: sample standard deviation 0.5, over sqrt(3) repeats
    assert t.stderr_kind == "repeats" and t.stderr == pytest.approx(0.5 / 3**0.5)
    one = totals([*results[:2], run("c", 1, "failed")], 1.0)
    assert one.stderr_kind == "binomial"
    assert one.stderr == pytest.approx(((2 / 3) * (1 / 3) / 3) ** 0.5)


def test_ctrl_c_ends_the_workers_running_and_their_apps(tmp_path: Path) -> None:
    import time

    from pagesight.eval.evaluate import run_eval
    from pagesight.eval.suite import load_suite
    from pagesight.eval.task import Options

    folder = tmp_path / "suite"
    folder.mkdir()
    (folder / "hang.py").write_text((SUITE.parent / "hang.py").read_text())
    suite = load_suite(
        _suite(folder, 'command = "python3 hang.py {port} {workdir}"\nready = "/ready"')
    )
    out = tmp_path / "out"

    class CtrlC(_Quiet):
        def started(self, job: object) -> None:  # once its app is up, the person presses Ctrl-C
            pid = out / "tasks/only/1/work/app.pid"
            deadline = time.monotonic() + 60
            while not pid.is_file() and time.monotonic() < deadline:
                time.sleep(0.1)
            time.sleep(0.3)
            raise KeyboardInterrupt

    stopped = run_eval(suite, suite.tasks, Options(task_timeout=120), out, events=CtrlC())
    assert stopped.interrupted and stopped.exit_code == 130
    app = int((out / "tasks/only/1/work/app.pid").read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(app, 0)
    assert json.loads((out / "summary.json").read_text())["complete"] is False


def test_a_worker_killed_outright_leaves_nothing_of_its_app_running(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The first attempt's check kills its own worker (SIGKILL: no cleanup runs); the app it
    # had started, and the app's own child, must end with it all the same.
    folder = tmp_path / "suite"
    folder.mkdir()
    (folder / "family.py").write_text((SUITE.parent / "family.py").read_text())
    (folder / "checks.py").write_text(
        "import os, signal\nfrom pathlib import Path\n\n"
        "def dies_once(workdir, base_url, result):\n"
        "    marker = Path(__file__).with_name('killed-once')\n"
        "    if not marker.exists():\n"
        "        marker.write_text('')\n"
        "        os.kill(os.getpid(), signal.SIGKILL)\n"
        "    return True\n"
    )
    suite = _suite(folder, 'command = "python3 family.py {port} {workdir}"')
    text = suite.read_text().replace('url_matches = "/done"', 'python = "checks.py:dies_once"')
    suite.write_text(text)
    out = tmp_path / "out"
    done = run_cli(monkeypatch, "eval", str(suite), "--out", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "its worker died (exit code -9)" in done.stdout
    (run,) = _jsonl(out / "results.jsonl")
    assert run["outcome"] == "passed" and run["attempt"] == 2
    child = int((out / "tasks/only/1/work/child.pid").read_text())
    deadline = time.monotonic() + 10
    while Path(f"/proc/{child}").exists() and time.monotonic() < deadline:
        time.sleep(0.1)  # a zombie is reaped by init a moment after it ends
    assert (
        not Path(f"/proc/{child}/cmdline").exists()
        or not Path(f"/proc/{child}/cmdline").read_bytes()
    ), "the app's child outlived its killed worker"
