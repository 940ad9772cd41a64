"""The demo task end to end: ``pagesight demo --out DIR`` as a real subprocess, then again
in-process, twice in a row (each starts Orbit CRM on a fresh database, so the second must
succeed just like the first), and the same task through the Python API (on the session
browser) with the state read back from SQLite."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli_support import Done, run_cli
from pagesight import Agent, Browser, RunResult
from pagesight.demo import DEMO_STEPS, OrbitApp
from pagesight.planners import StepsPlanner

SRC = Path(__file__).resolve().parents[1] / "src"
SAVED = "saved in the database: {'job_title': 'Senior Software Engineer', 'location': 'New York'}"


def test_demo_command_twice_in_a_row_saves_both_fields(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    for n in (1, 2):
        out = tmp_path / f"run{n}"
        done: subprocess.CompletedProcess[str] | Done
        if n == 1:
            done = subprocess.run(
                [sys.executable, "-m", "pagesight", "demo", "--out", str(out)],
                check=False,
                capture_output=True,
                text=True,
                env=env,
                timeout=300,
            )
        else:  # the same command again, in-process (its own Orbit and Chromium all the same)
            done = run_cli(monkeypatch, "demo", "--out", str(out))
        assert done.returncode == 0, done.stdout + done.stderr
        assert SAVED in done.stdout.splitlines()
        summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
        assert summary["stop_reason"] == "done"
        assert (out / "report.html").is_file()


def _run(browser: Browser, planner: StepsPlanner, app: OrbitApp, out: Path) -> RunResult:
    """The planner's run on ``app`` in the session browser, its tab closed afterwards and
    its ``lang`` cookie gone (cookies ignore the port: it would reach every later app)."""
    agent = Agent(browser, planner, max_steps=20, out=out)
    try:
        return agent.run(app.url)
    finally:
        if agent.page is not None:
            agent.page.playwright.context.clear_cookies(name="lang")
            agent.page.close()


def test_demo_task_through_the_python_api(browser: Browser, tmp_path: Path) -> None:
    planner = StepsPlanner.from_file(DEMO_STEPS)
    with OrbitApp.start() as app:
        result = _run(browser, planner, app, tmp_path / "run")
        rows = app.query("SELECT job_title, location FROM contacts WHERE name = 'Alice Chen'")
    assert result.stop_reason == "done"
    assert rows == [{"job_title": "Senior Software Engineer", "location": "New York"}]


CHINESE = """\
# 切换到中文 再做同一个任务 每一步都用中文页面上的标签
点击 中文
确认 "联系人"
在 搜索框 输入 "Alice Chen"
点击 Alice Chen 链接
点击 编辑按钮
在 职位 输入 "高级软件工程师"
在 地点 选择 "New York"
点击 保存
确认 "职位 → 高级软件工程师"
确认 "地点 → New York"
"""


def test_demo_task_in_chinese_on_the_app_switched_to_chinese(
    browser: Browser, tmp_path: Path
) -> None:
    planner = StepsPlanner.from_text(CHINESE)
    with OrbitApp.start() as app:
        result = _run(browser, planner, app, tmp_path / "run")
        rows = app.query("SELECT job_title, location FROM contacts WHERE name = 'Alice Chen'")
    assert result.stop_reason == "done", result.message
    assert rows == [{"job_title": "高级软件工程师", "location": "New York"}]
