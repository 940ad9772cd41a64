"""``pagesight eval --ray``: tasks as Ray tasks on a real local Ray (2 CPUs, 2 browsers, one
for the module: it takes seconds to start), against a small app of the test's own.

What a user relies on: the same results and the same files in ``--out`` as a sequential run;
a task that hangs ended at its deadline (and nothing of it left running); a worker that dies
retried as an infrastructure failure; Ray never imported without ``--ray``; and one line,
exit 2, when Ray is missing, unreachable or asked for headed browsers.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cli_support import run_cli
from pagesight.eval import Options, TaskResult, load_suite, run_eval
from pagesight.eval.ray_executor import RayTasks, connect
from pagesight.eval.runner import Job

# This module's Ray on 127.0.0.1, as the one `--ray` starts (read as Ray is imported).
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
ray = pytest.importorskip("ray")

API_KEY = f"sk-test-{uuid.uuid4().hex}"

# Every process Ray starts for this module inherits this mark: what a task leaves running
# (a Chromium, the app, a worker) is found by it.
MARK = "PAGESIGHT_RAY_TEST_MARK"

APP = """\
import http.server, os, sys, time

port, pids = int(sys.argv[1]), sys.argv[2]
os.makedirs(pids, exist_ok=True)
open(os.path.join(pids, str(os.getpid())), "w").close()
PAGES = {
    "/": "<h1>Welcome</h1><a href='/next'>Next</a>",
    "/next": "<h1>Arrived</h1><a href='/'>Back</a>",
}

class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        path = self.path
        if path == "/slow":  # a page that never comes the first time it is asked for
            if not os.path.exists(pids + ".hung"):
                open(pids + ".hung", "w").close()
                time.sleep(600)
            path = "/"
        body = PAGES.get(path, "<h1>Missing</h1>").encode()
        self.send_response(200 if path in PAGES else 404)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
"""

CHECKS = """\
import hashlib, os, signal, time
from pathlib import Path

MARKERS = Path({markers!r})

def on_the_app(workdir, base_url, result):
    if not Path(workdir).is_dir():
        return f"no workdir {{workdir}}"
    (Path(workdir) / "seen.txt").write_text(base_url)
    return True if base_url.startswith("http://127.0.0.1:") else f"base URL {{base_url}}"

def _first_time(name):
    marker = MARKERS / name
    if marker.exists():
        return False
    MARKERS.mkdir(parents=True, exist_ok=True)
    marker.write_text(str(os.getpid()))
    return True

def sees_the_key(workdir, base_url, result):
    key = os.environ.get("PAGESIGHT_EVAL_API_KEY", "")
    return True if hashlib.sha256(key.encode()).hexdigest() == {key_sha!r} else "no key"

def worker_dies_once(workdir, base_url, result):
    if _first_time("worker"):
        os.kill(os.getpid(), signal.SIGKILL)
    return True

def ray_worker_dies_once(workdir, base_url, result):
    if _first_time("ray-worker"):
        os.kill(os.getppid(), signal.SIGKILL)  # the Ray worker that runs this task
        time.sleep(60)  # ended by then: its parent's death ends it
    return True
"""

SUITE_HEAD = """\
name = "ray-test"

[app]
command = "{python} app.py {{port}} {pids}"
ready = "/"
"""

SAME_TASKS = """
[[tasks]]
id = "welcome"
category = "look"
start = "/"
goal = "See the welcome"
steps = "welcome.steps"
[[tasks.checks]]
page_contains = "Welcome"

[[tasks]]
id = "next"
category = "navigate"
start = "/"
goal = "Go to the next page"
steps = "next.steps"
[[tasks.checks]]
url_matches = "/next$"
[[tasks.checks]]
python = "checks.py:on_the_app"

[[tasks]]
id = "there-and-back"
category = "navigate"
start = "/"
goal = "Go to the next page and back"
steps = "there-and-back.steps"
[[tasks.checks]]
page_contains = "Welcome"

[[tasks]]
id = "fails"
category = "look"
start = "/"
goal = "See a page that is not there"
steps = "welcome.steps"
[[tasks.checks]]
page_contains = "Nowhere"
"""

HANG_TASK = """
[[tasks]]
id = "hangs"
start = "/slow"
goal = "Wait for a page that comes only when asked again"
steps = "welcome.steps"
[[tasks.checks]]
page_contains = "Welcome"
"""

KILL_TASKS = """
[[tasks]]
id = "worker-dies"
start = "/"
goal = "See the welcome, the worker killed once"
steps = "welcome.steps"
[[tasks.checks]]
python = "checks.py:worker_dies_once"

[[tasks]]
id = "ray-worker-dies"
start = "/"
goal = "See the welcome, the Ray worker killed once"
steps = "welcome.steps"
[[tasks.checks]]
python = "checks.py:ray_worker_dies_once"

[[tasks]]
id = "sees-the-key"
start = "/"
goal = "See the welcome, with the API key the eval was given"
steps = "welcome.steps"
[[tasks.checks]]
python = "checks.py:sees_the_key"
"""

STEPS = {
    "welcome.steps": 'expect "Welcome"\n',
    "next.steps": 'click the Next link\nexpect "Arrived"\n',
    "there-and-back.steps": 'click the Next link\nexpect "Arrived"\nclick the Back link\n'
    'expect "Welcome"\n',
}


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    os.environ[MARK] = uuid.uuid4().hex
    ray.init(
        num_cpus=2,
        resources={"browser": 2},
        include_dashboard=False,
        logging_level="WARNING",
        log_to_driver=False,
    )
    try:
        yield
    finally:
        ray.shutdown()
        del os.environ[MARK]


def _suite(folder: Path, tasks: str) -> Path:
    folder.mkdir(parents=True)
    pids = folder.parent / f"{folder.name}-pids"
    markers = folder.parent / f"{folder.name}-markers"
    (folder / "app.py").write_text(APP)
    key_sha = hashlib.sha256(API_KEY.encode()).hexdigest()
    (folder / "checks.py").write_text(CHECKS.format(markers=str(markers), key_sha=key_sha))
    for name, text in STEPS.items():
        (folder / name).write_text(text)
    head = SUITE_HEAD.format(python=sys.executable, pids=pids)
    (folder / "suite.toml").write_text(head + tasks)
    return folder / "suite.toml"


def _lines(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def _files(out: Path) -> set[str]:
    """Every file of an eval, relative to its ``--out``."""
    return {str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()}


def _left_running() -> list[str]:
    """The processes this module's Ray started that are a task's: a Chromium, an app, a
    worker (Ray's own workers carry the mark too, and are not)."""
    mark = f"{MARK}={os.environ[MARK]}".encode()
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            if mark not in (proc / "environ").read_bytes().split(b"\0"):
                continue
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if any(word in cmdline for word in ("chrom", "app.py", "pagesight.eval")):
            found.append(f"{proc.name}: {cmdline[:120]}")
    return found


def _nothing_left(timeout: float = 15.0) -> list[str]:
    deadline = time.monotonic() + timeout
    while (left := _left_running()) and time.monotonic() < deadline:
        time.sleep(0.2)
    return left


def _comparable(line: dict[str, Any]) -> Any:
    """A result without what differs between any two runs: its time, the app's port."""
    text = json.dumps({k: v for k, v in line.items() if k != "wall_s"})
    return json.loads(re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", text))


def test_ray_gives_what_a_sequential_run_gives(
    local_ray: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = _suite(tmp_path / "suite", SAME_TASKS)
    seq, on_ray = tmp_path / "sequential", tmp_path / "ray"
    # The sequential run in a process of its own, which must never import Ray.
    code = (
        "import sys; from pagesight.cli import main; code = main(sys.argv[1:]); "
        "print('RAY IMPORTED' if 'ray' in sys.modules else 'no ray'); sys.exit(code)"
    )
    # It runs meanwhile (both wait on pages more than they compute), so the test is shorter.
    with subprocess.Popen(
        [sys.executable, "-c", code, "eval", str(suite), "--out", str(seq)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    ) as sequential:
        ran = run_cli(monkeypatch, "eval", str(suite), "--ray", "--out", str(on_ray))
        said, _ = sequential.communicate(timeout=120)
    assert sequential.returncode == 3, said  # "fails" fails: exit 3
    assert said.rstrip().endswith("no ray")
    assert ran.returncode == 3, ran.stdout + ran.stderr
    assert "a local Ray, 2 browsers" in ran.stdout

    expected, got = _lines(seq), _lines(on_ray)
    by_task = {line["task"]: line for line in got}
    assert sorted(by_task) == sorted(line["task"] for line in expected)
    for line in expected:
        assert _comparable(by_task[line["task"]]) == _comparable(line)
    outcomes = {line["task"]: (line["outcome"], line["rounds"]) for line in got}
    assert outcomes == {
        "welcome": ("passed", 1),
        "next": ("passed", 2),
        "there-and-back": ("passed", 3),
        "fails": ("failed", 1),
    }
    # The same files, where a sequential run puts them; what the node wrote came back.
    assert _files(on_ray) == _files(seq)
    assert (on_ray / "tasks/next/1/run/report.html").is_file()
    replay = (on_ray / "tasks/next/1/run/steps.txt").read_text()
    assert f"{on_ray}/tasks/next/1/run/steps.txt" in replay  # where it is, not where it ran
    seen = (on_ray / "tasks/next/1/work/seen.txt").read_text()
    assert seen.startswith("http://127.0.0.1:")
    summary = json.loads((on_ray / "summary.json").read_text())
    assert summary["ray"] == "local"
    assert summary["workers"] == 2
    assert summary["versions"]["ray"] == ray.__version__
    csv_rows = (on_ray / "results.csv").read_text().splitlines()
    assert len(csv_rows) == 5
    assert _nothing_left() == []


def test_a_hung_task_is_cancelled_at_its_deadline_and_run_again(
    local_ray: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = _suite(tmp_path / "suite", HANG_TASK)
    out = tmp_path / "out"
    ran = run_cli(
        monkeypatch,
        "eval",
        str(suite),
        "--ray",
        "--out",
        str(out),
        "--task-timeout",
        "25",  # a whole attempt (Ray worker, app, Chromium) must fit, on a machine under load
        "--timeout",
        "60",  # the page's load would wait longer than the task may
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    ended = re.search(
        r"hangs #1 +\d+ rounds +([\d.]+) s +"
        r"infrastructure: ended at its deadline of 25 s; trying again",
        ran.stdout,
    )
    assert ended, ran.stdout
    # Ended by the driver's cancel at the deadline, not by the node's later backstop.
    assert float(ended[1]) < 25 + 5
    [run] = _lines(out)  # one line: a retried attempt is not a result
    # Attempt 2 as a rule; 3 when a busy machine ended the first before it asked for the page.
    assert run["outcome"] == "passed" and run["attempt"] in (2, 3)
    for folder in ("1", "1.retry1")[: run["attempt"] - 1]:
        assert (out / "tasks/hangs" / folder / "worker.log").is_file()  # its files came back
    # Nothing of any attempt runs on: not the app stuck on the page, not a Chromium.
    assert _nothing_left() == []
    pids = [int(p.name) for p in (tmp_path / "suite-pids").iterdir()]
    assert pids
    assert not [pid for pid in pids if Path(f"/proc/{pid}").exists()]


class _Events:
    def __init__(self) -> None:
        self.ended: list[tuple[str, TaskResult, bool]] = []

    def started(self, job: Job) -> None:
        pass

    def finished(self, job: Job, result: TaskResult, *, retrying: bool) -> None:
        self.ended.append((job.task.id, result, retrying))


def test_a_worker_killed_mid_task_is_retried_and_the_key_never_on_disk(
    local_ray: None, tmp_path: Path
) -> None:
    suite = load_suite(_suite(tmp_path / "suite", KILL_TASKS))
    out = tmp_path / "out"
    options = Options()
    cluster = connect(None, workers=None)  # this module's Ray, 2 browsers
    events = _Events()
    done = run_eval(
        suite,
        suite.tasks,
        options,
        out,
        events=events,
        executor=lambda: RayTasks(cluster, suite, options, out, api_key=API_KEY),
        workers=cluster.browsers,
        ray="local",
    )
    assert done.exit_code == 0, [r.as_dict() for r in done.results]
    lines = {line["task"]: line for line in _lines(out)}
    assert len(_lines(out)) == 3  # one line a task: a retried attempt is not a result
    for task in ("worker-dies", "ray-worker-dies"):
        retried = lines[task]
        assert retried["outcome"] == "passed", retried
        assert retried["attempt"] == 2
        assert retried["folder"] == f"tasks/{task}/1.retry1"
        assert (out / f"tasks/{task}/1.retry1/run/report.html").is_file()
    assert (out / "tasks/worker-dies/1/worker.log").is_file()  # the dead attempt's files
    why = {task: r.error or "" for task, r, retrying in events.ended if retrying}
    assert why["worker-dies"].startswith("its worker died (exit code -9)")
    assert why["ray-worker-dies"].startswith("its Ray task failed: WorkerCrashedError")
    assert "sees-the-key" not in why
    # The worker got the key in its environment, and no file of the eval holds it.
    assert lines["sees-the-key"]["outcome"] == "passed"
    key = API_KEY.encode()
    assert not [p for p in out.rglob("*") if p.is_file() and key in p.read_bytes()]
    # The worker whose Ray worker was killed ended with it, its browser and app too.
    assert _nothing_left() == []
    pids = [int(p.name) for p in (tmp_path / "suite-pids").iterdir()]
    assert len(pids) == 5
    assert not [pid for pid in pids if Path(f"/proc/{pid}").exists()]


def test_ray_is_never_imported_unless_asked_for() -> None:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "pagesight", "eval", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "--ray" in done.stdout
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines()}
    assert "pagesight.cli.eval" in imported or "pagesight.cli" in imported
    assert not {name for name in imported if name == "ray" or name.startswith("ray.")}


def test_bad_ray_options_are_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, closed_port: int
) -> None:
    suite = _suite(tmp_path / "suite", SAME_TASKS)
    out = str(tmp_path / "out")

    headed = run_cli(monkeypatch, "eval", str(suite), "--ray", "--headed", "--out", out)
    assert headed.returncode == 2
    assert (
        headed.stderr == "pagesight: --ray: runs browsers headless on Ray's nodes; drop --headed\n"
    )

    address = f"127.0.0.1:{closed_port}"
    unreachable = run_cli(monkeypatch, "eval", str(suite), "--ray", address, "--out", out)
    assert unreachable.returncode == 2
    assert unreachable.stderr.startswith(f"pagesight: --ray: nothing answers at '{address}'")
    assert unreachable.stderr.count("\n") == 1

    monkeypatch.setitem(sys.modules, "ray", None)  # as if the extra were not installed
    missing = run_cli(monkeypatch, "eval", str(suite), "--ray", "--out", out)
    assert missing.returncode == 2
    assert "pip install 'pagesight[ray]'" in missing.stderr
    assert missing.stderr.count("\n") == 1
    assert not Path(out).exists()  # nothing ran
