"""Replay that heals: a run's steps.txt names each target by its words with the selector it had
as a hint; replayed on the same page the hints hold, replayed on the page after a redesign
(steps-contacts-v2.html: other ids and classes, fields reordered, wrappers added, the Save and
Cancel ids swapped) each step is found again by its words, and the state saved is right. The
same holds on the bundled app: the demo task recorded on Orbit CRM and replayed on Orbit
served in its redesign, the state read back from its SQLite database."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cli_support import run_cli
from conftest import StaticServer
from pagesight import Agent, Browser, RunResult
from pagesight.demo import DEMO_STEPS, OrbitApp
from pagesight.planners import StepsPlanner, format_step, parse

TOKEN = "tok-replay-SECRET-41"
TASK = """\
type "Alice" into the search box
click Alice Chen's Edit button
type "Senior Software Engineer" into the Job title field
select "New York" in the Location menu
type "{{TOKEN}}" into the API token field
click the Save button
expect "Saved Alice Chen"
expect the search box to be "Alice"
"""
COMPILED = [
    'type "Alice" into "Search contacts" search field in "Contacts" @ #q',
    'click "Edit" button in "Alice Chen" @ #edit-1',
    'type "Senior Software Engineer" into "Job title" field in "Alice Chen" @ #title',
    'select "New York" in "Location" dropdown in "Alice Chen" @ #location',
    'type "{{TOKEN}}" into "API token" field in "Alice Chen" @ #token',
    'click "Save" button in "Alice Chen" @ #save',
    'expect "Saved Alice Chen"',
    'expect "Search contacts" search field in "Contacts" @ #q to be "Alice"',
]
STATE = """() => ({
  saved: window.saved,
  alice: document.querySelector('[data-part="meta"]').textContent,
  toast: document.querySelector('[data-part="toast"]').textContent,
})"""


def _run(
    browser: Browser, planner: StepsPlanner, url: str, out: Path
) -> tuple[RunResult, dict[str, Any]]:
    agent = Agent(browser, planner, out=out, secrets=planner.secrets({"TOKEN": TOKEN}))
    try:
        result = agent.run(url)
        assert agent.page is not None
        state: dict[str, Any] = agent.page.playwright.evaluate(STATE)
    finally:
        if agent.page is not None:
            agent.page.close()
    return result, state


def _recorded(browser: Browser, server: StaticServer, out: Path) -> Path:
    result, _ = _run(browser, StepsPlanner.from_text(TASK), server.url("steps-contacts.html"), out)
    assert result.stop_reason == "done", result.message
    return out / "steps.txt"


@pytest.fixture(scope="module")
def recorded(
    browser: Browser, server: StaticServer, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """The task's run on steps-contacts.html, recorded once: its steps.txt, which the tests
    here read and replay (into folders of their own), none writing to it."""
    return _recorded(browser, server, tmp_path_factory.mktemp("recorded") / "run")


def _steps(path: Path) -> list[str]:
    return [line for line in path.read_text().splitlines() if not line.startswith("#")]


def test_a_run_compiles_into_steps_named_by_their_words_with_the_selector_as_a_hint(
    recorded: Path, server: StaticServer
) -> None:
    steps = recorded
    assert _steps(steps) == COMPILED
    assert TOKEN not in steps.read_text()
    header = steps.read_text().splitlines()[:2]
    assert header[1] == (f"#   pagesight run {server.url('steps-contacts.html')} --steps {steps}")
    # Round trip: the file reads back as steps that write out as the same lines.
    assert [format_step(s) for s in parse(steps.read_text())] == COMPILED


def test_a_replay_on_the_same_page_follows_its_hints(
    browser: Browser, server: StaticServer, tmp_path: Path, recorded: Path
) -> None:
    steps = recorded
    planner = StepsPlanner.from_file(steps)
    result, state = _run(browser, planner, server.url("steps-contacts.html"), tmp_path / "again")
    assert result.stop_reason == "done", result.message
    assert planner.healed == ()
    hows = [
        step["target"]["how"]
        for record in result.steps
        if isinstance(record.decision.raw, dict)
        for step in record.decision.raw["steps"]
    ]
    assert hows == ["hint"] * 6
    assert state["saved"]["Alice Chen"]["title"] == "Senior Software Engineer"
    # A replay of a replay is the same script.
    assert _steps(tmp_path / "again" / "steps.txt") == COMPILED


def test_a_replay_after_a_redesign_heals_every_step_and_saves_the_right_values(
    browser: Browser, server: StaticServer, tmp_path: Path, recorded: Path
) -> None:
    steps = recorded
    planner = StepsPlanner.from_file(steps)
    result, state = _run(browser, planner, server.url("steps-contacts-v2.html"), tmp_path / "v2")
    assert result.stop_reason == "done", result.message
    # The saved state: what the page's own code stored, and what it shows now.
    assert state["saved"] == {
        "Alice Chen": {
            "title": "Senior Software Engineer",
            "location": "New York",
            "token": TOKEN,
            "avatar": None,
        }
    }
    assert state["alice"] == "Senior Software Engineer · New York"
    assert state["toast"] == "Saved Alice Chen"
    healed = {(h["line"], h["hint"], h["selector"]) for h in planner.healed}
    assert healed == {
        (4, "#q", "#contact-filter"),
        (5, "#edit-1", "#person-a-edit"),
        (6, "#title", "#f-role"),
        (7, "#location", "#f-city"),
        (8, "#token", "#f-token"),
        # #save is the Cancel button now: the words, not the hint, chose the button clicked.
        (9, "#save", "#cancel"),
        (11, "#q", "#contact-filter"),
    }
    # The healed run's own steps.txt carries the new selectors.
    assert (
        _steps(tmp_path / "v2" / "steps.txt")[5] == 'click "Save" button in "Alice Chen" @ #cancel'
    )


def test_a_replay_from_the_command_line_says_which_steps_healed(
    browser: Browser,
    server: StaticServer,
    tmp_path: Path,
    recorded: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # In-process, on the session browser: what it prints is tested, not its process
    # (test_cli_run.py runs `pagesight run` as a real subprocess).
    proc = run_cli(
        monkeypatch,
        "run", server.url("steps-contacts-v2.html"), "--steps", str(recorded),
        "--secret", f"TOKEN={TOKEN}", "--out", str(tmp_path / "v2"), "--cdp-url", browser.cdp_url,
        unset=("TOKEN",),
    )  # fmt: skip
    assert (proc.returncode, proc.stderr) == (0, ""), proc.stdout + proc.stderr
    healed = [ln for ln in proc.stdout.splitlines() if ln.startswith("healed: ")]
    assert len(healed) == 7, proc.stdout
    assert healed[0] == f"healed: line 4: {COMPILED[0]}: #q → #contact-filter"
    assert healed[5] == f"healed: line 9: {COMPILED[5]}: #save → #cancel"
    # The live line of a healed step says so too, after the element it found.
    assert f'{COMPILED[5]}  →  button "Save" in "Alice Chen"  (healed)  ' in proc.stdout
    assert TOKEN not in proc.stdout


def test_a_go_to_on_the_runs_own_site_is_written_as_a_path(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    # A path, so the replay may run against the same app started on another port.
    script = "go to steps-contacts.html?lang=zh\nclick Alice Chen 的编辑按钮\n"
    result, _ = _run(
        browser, StepsPlanner.from_text(script), server.url("agent-done.html"), tmp_path
    )
    assert result.stop_reason == "done", result.message
    assert _steps(tmp_path / "steps.txt") == [
        "go to /steps-contacts.html?lang=zh",
        'click "编辑" button in "Alice Chen" @ #edit-1',
    ]


ALICE = "SELECT job_title, company, location FROM contacts WHERE name = 'Alice Chen'"
# Where the words "Senior Software Engineer" went: only into Alice Chen's job title.
TYPED = (
    "SELECT name, job_title, company FROM contacts "
    "WHERE 'Senior Software Engineer' IN (job_title, company)"
)


def _run_on_orbit(browser: Browser, planner: StepsPlanner, app: OrbitApp, out: Path) -> RunResult:
    agent = Agent(browser, planner, max_steps=20, out=out)
    try:
        return agent.run(app.url)
    finally:
        if agent.page is not None:
            agent.page.close()


def test_the_demo_task_replayed_on_orbit_after_a_redesign_heals_and_saves_alice_chen(
    browser: Browser, tmp_path: Path
) -> None:
    with OrbitApp.start() as app:
        recorded = _run_on_orbit(browser, StepsPlanner.from_file(DEMO_STEPS), app, tmp_path / "run")
    assert recorded.stop_reason == "done", recorded.message
    # A fresh Orbit (its own database, so nothing is saved yet) in other markup.
    with OrbitApp.start(design="redesign") as app:
        assert app.query(ALICE) == [
            {"job_title": "Software Engineer", "company": "Northwind Labs", "location": "London"}
        ]
        planner = StepsPlanner.from_file(tmp_path / "run" / "steps.txt")
        result = _run_on_orbit(browser, planner, app, tmp_path / "redesign")
        saved, typed = app.query(ALICE), app.query(TYPED)
    assert result.stop_reason == "done", result.message
    assert saved == [
        {
            "job_title": "Senior Software Engineer",
            "company": "Northwind Labs",
            "location": "New York",
        }
    ]
    # The redesign gave Job title's old id to the Company field: the hint "#job_title" names
    # Company now, and the words, not the hint, chose the field typed into.
    assert typed == [
        {"name": "Alice Chen", "job_title": "Senior Software Engineer", "company": "Northwind Labs"}
    ]
    healed = {(h["line"], h["hint"], h["selector"]) for h in planner.healed}
    assert healed == {
        (4, "#search", "#contact-filter"),
        (
            5,
            "#contact-rows > tr:nth-of-type(1) > td:nth-of-type(1) > a",
            "#people > tr:nth-of-type(1) > td:nth-of-type(1) > a",
        ),
        (6, "#content > div:nth-of-type(1) > div > a:nth-of-type(1)", "#edit-contact"),
        (7, "#job_title", "#company"),
        (8, "#location", "#f-city"),
        (
            9,
            "#content > form > div:nth-of-type(10) > button",
            "#content > div > form > div:nth-of-type(4) > button",
        ),
    }
    # The healed run's own steps.txt carries the new selectors, the words as they were.
    again = _steps(tmp_path / "redesign" / "steps.txt")
    recorded_steps = _steps(tmp_path / "run" / "steps.txt")
    assert [step.split(" @ ")[1] for step in again[:6]] == [new for _, _, new in sorted(healed)]
    assert [step.split(" @ ")[0] for step in again] == [s.split(" @ ")[0] for s in recorded_steps]
