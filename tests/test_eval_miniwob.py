"""``pagesight eval miniwob``: MiniWoB++'s pages from the ``miniwob`` package, served on
127.0.0.1, each task a seeded episode whose utterance is the goal, judged by MiniWoB's own
reward read from the final page.

A steps file for a fixed seed reaches reward 1; a wrong action gets a reward of at most 0 and
fails; the same seed is the same episode on every load; without the package, one line and
exit 2 naming the install command.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from cli_support import run_cli
from pagesight import Browser
from pagesight.errors import SetupError, SuiteError
from pagesight.eval import miniwob
from pagesight.eval.suite import load_suite
from pagesight.eval.task import Options, run_task
from pagesight.testing.reference_suite import SuiteReference


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _reward(check: dict[str, Any]) -> dict[str, Any]:
    reason = str(check["reason"])
    assert reason.startswith("it gave "), reason
    said: dict[str, Any] = json.loads(reason.removeprefix("it gave "))
    return said


def test_the_bundled_suite_is_seeded_episodes_whose_goal_is_the_utterance() -> None:
    suite = load_suite("miniwob")
    assert suite.app is not None and suite.app.builtin == "miniwob"
    kinds = {task.category for task in suite.tasks}
    assert {
        "click-button",
        "click-link",
        "enter-text",
        "click-checkboxes",
        "click-option",
        "choose-list",
        "focus-text",
        "click-dialog",
    } <= kinds
    assert len(suite.tasks) == len(kinds) * 5  # five seeds of each
    for task in suite.tasks:
        seed = task.id.rsplit(".", 1)[1]
        assert task.start == f"/miniwob/{task.category}.html?seed={seed}"
        assert task.goal is None and task.goal_from == "#query"
        assert [c.page_script for c in task.checks] == [miniwob.REWARD_CHECK]
        steps = suite.steps_path(task)
        assert steps is not None and steps.is_file()
    # The package is found, never imported: it would import gymnasium and selenium.
    assert "miniwob" not in sys.modules and "gymnasium" not in sys.modules


def test_the_served_page_starts_its_seeds_episode_with_a_long_time_limit() -> None:
    with miniwob.MiniWobServer.start() as server, Browser.launch() as browser:
        seen = []
        for _ in range(2):
            page = browser.open(f"{server.url}/miniwob/click-checkboxes.html?seed=3")
            seen.append(
                page.playwright.evaluate(
                    "[core.getUtterance(), core.EPISODE_MAX_TIME, WOB_DONE_GLOBAL,"
                    " getComputedStyle(document.getElementById('sync-task-cover')).display]"
                )
            )
            page.close()
        page = browser.open(f"{server.url}/miniwob/click-checkboxes.html")  # no seed
        cover = page.playwright.evaluate(
            "getComputedStyle(document.getElementById('sync-task-cover')).display"
        )
    utterance = "Select 91YPF, i6Vdpn2, nd7Qt, XPMut and click Submit."
    assert seen == [[utterance, miniwob.EPISODE_MAX_TIME_MS, False, "none"]] * 2
    assert cover == "block"  # the page as MiniWoB ships it: behind its START cover


@pytest.mark.parametrize(
    ("task_id", "utterance"),
    # One episode here (the reference model's test below runs these three types too).
    [("click-checkboxes.3", "Select 91YPF, i6Vdpn2, nd7Qt, XPMut and click Submit.")],
)
def test_steps_for_a_fixed_seed_reach_reward_one(
    tmp_path: Path, task_id: str, utterance: str
) -> None:
    suite = load_suite("miniwob")
    result = run_task(
        suite, suite.task(task_id), repeat=1, attempt=1, options=Options(), out=tmp_path
    )
    assert result.outcome == "passed", result
    [check] = result.checks
    reward = _reward(check)
    assert reward["ok"] is True and reward["done"] is True and reward["raw_reward"] == 1
    assert 0 < reward["reward"] <= 1  # discounted by the time taken, out of 1,000 s
    # The goal the planner was given is the episode's utterance, read from the page.
    summary = json.loads((tmp_path / result.folder / "run" / "summary.json").read_text())
    assert summary["goal"] == utterance


def test_a_wrong_action_gets_no_reward_and_fails(tmp_path: Path) -> None:
    bundled = load_suite("miniwob")
    (tmp_path / "wrong.steps").write_text('type "Marcela" into the text field\nclick Submit\n')
    (tmp_path / "suite.toml").write_text(
        '[app]\nbuiltin = "miniwob"\n\n[[tasks]]\nid = "wrong"\n'
        'start = "/miniwob/enter-text.html?seed=2"\ngoal_from = "#query"\n'
        'steps = "wrong.steps"\n[[tasks.checks]]\n'
        f"page_script = {json.dumps(miniwob.REWARD_CHECK)}\n"
    )
    suite = load_suite(tmp_path / "suite.toml")
    assert suite.tasks[0].checks == bundled.task("enter-text.2").checks
    result = run_task(
        suite, suite.tasks[0], repeat=1, attempt=1, options=Options(), out=tmp_path / "out"
    )
    assert result.outcome == "failed", result
    [check] = result.checks
    reward = _reward(check)
    assert check["ok"] is False and reward["done"] is True
    assert reward["raw_reward"] <= 0


def test_without_the_package_one_line_and_exit_2(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(miniwob, "PACKAGE", "pagesight_no_such_package")
    with pytest.raises(SetupError, match=r"pip install 'pagesight\[miniwob\]'"):
        load_suite("miniwob")
    done = run_cli(monkeypatch, "eval", "miniwob", "--out", str(tmp_path / "out"))
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert (
        "suite.toml: MiniWoB++ needs the miniwob package: pip install 'pagesight[miniwob]'" in line
    )
    assert not (tmp_path / "out").exists()


def test_a_task_has_a_goal_or_reads_it_from_the_page(tmp_path: Path) -> None:
    suite = tmp_path / "suite.toml"
    suite.write_text(
        '[app]\nbuiltin = "miniwob"\n[[tasks]]\nid = "t"\nstart = "/"\ngoal = "g"\n'
        'goal_from = "#query"\n[[tasks.checks]]\npage_script = "true"\n'
    )
    with pytest.raises(
        SuiteError, match=r"task 't': the task: a task has a goal, or goal_from .*, not both"
    ):
        load_suite(suite)


def test_the_reference_model_reaches_reward_one_given_only_the_utterance(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # A model planner is given each episode's utterance (read from the page) and nothing
    # else; the reference model, which knows the episode only as the steps written for that
    # utterance, finds each target by role and name in what the planner shows it.
    suite = load_suite("miniwob")
    chosen = ["click-button.1", "enter-text.2", "click-checkboxes.3"]
    tasks = {}
    for task_id in chosen:
        steps = (suite.steps_path(suite.task(task_id)) or Path()).read_text()
        utterance = steps.splitlines()[0].removeprefix("# ")
        tasks[utterance] = steps
    out = tmp_path / "out"
    with SuiteReference(tasks) as reference:
        done = run_cli(
            monkeypatch,
            "eval",
            "miniwob",
            "--model",
            "openai:gpt-4.1-mini",
            "--base-url",
            reference.base_url,
            "--api-key",
            "sk-test",
            "--tasks",
            ",".join(chosen),
            "--workers",
            "2",
            "--out",
            str(out),
        )
    assert done.returncode == 0, done.stdout + done.stderr
    runs = _jsonl(out / "results.jsonl")
    assert sorted(r["task"] for r in runs) == sorted(chosen)
    for run in runs:
        [check] = run["checks"]
        assert _reward(check)["raw_reward"] == 1, run
        assert run["rounds"] >= 1 and run["input_tokens"] > 0
