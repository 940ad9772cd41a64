"""The agent loop's stop rules, each with its typed reason, rounds, and sync/async parity."""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path
from typing import Any

import pytest

from agent_support import ref
from conftest import StaticServer
from pagesight import Action, Agent, Batch, Browser, Done, InvalidOption, RunResult, Stop
from pagesight.agent import ScriptedPlanner, State
from pagesight.aio import AsyncAgent, AsyncBrowser


def _run(browser: Browser, planner: Any, url: str, out: Path, **options: Any) -> RunResult:
    agent = Agent(browser, planner, out=out, **options)
    try:
        return agent.run(url, goal="update Alice Chen")
    finally:
        if agent.page is not None:
            agent.page.close()


def _archive(state: State) -> Action:
    return Action(tool="click", arguments={"ref": ref(state, "Archive", "button")})


def test_max_steps_stops_a_planner_that_never_finishes(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    hover = [lambda s: Action(tool="hover", arguments={"ref": ref(s, "Save", "button")})] * 5
    result = _run(
        browser, ScriptedPlanner(hover), server.url("agent-contact.html"), tmp_path, max_steps=3
    )
    assert result.stop_reason == "max_steps"
    assert not result.reached
    assert [s.number for s in result.steps] == [1, 2, 3]
    assert result.rounds == 3
    assert result.message == "no goal reached in 3 steps"


def test_three_errors_of_one_kind_in_a_row_stop_the_run(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    planner = ScriptedPlanner([_archive] * 5)
    result = _run(browser, planner, server.url("agent-contact.html"), tmp_path)
    assert result.stop_reason == "repeated_errors"
    assert len(result.steps) == 3
    assert [s.error.reason for s in result.steps if s.error] == ["disabled"] * 3
    assert result.message.startswith("3 steps in a row failed with disabled: ")


def test_errors_of_different_kinds_do_not_add_up(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    stale = Action(tool="click", arguments={"ref": 987654})
    planner = ScriptedPlanner([_archive, _archive, stale, _archive, _archive])
    result = _run(browser, planner, server.url("agent-contact.html"), tmp_path, max_steps=5)
    kinds = [s.error.reason if s.error else None for s in result.steps]
    assert kinds == ["disabled", "disabled", "stale_id", "disabled", "disabled"]
    assert result.stop_reason == "max_steps"


def test_a_step_that_works_resets_the_count_of_errors(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    def hover(s: State) -> Action:
        return Action(tool="hover", arguments={"ref": ref(s, "Save", "button")})

    planner = ScriptedPlanner([_archive, _archive, hover, _archive, _archive, Done()])
    result = _run(browser, planner, server.url("agent-contact.html"), tmp_path)
    kinds = [s.error.reason if s.error else None for s in result.steps]
    assert kinds == ["disabled", "disabled", None, "disabled", "disabled", None]
    assert result.stop_reason == "done"


def test_max_steps_counts_every_decision_even_those_that_failed(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    stale = Action(tool="click", arguments={"ref": 987654})
    planner = ScriptedPlanner([_archive, stale] * 3)
    result = _run(browser, planner, server.url("agent-contact.html"), tmp_path, max_steps=4)
    assert result.stop_reason == "max_steps" and len(result.steps) == 4
    assert result.message == "no goal reached in 4 steps"
    assert [s.error.reason for s in result.steps if s.error] == ["disabled", "stale_id"] * 2


@pytest.mark.parametrize("reason", ["planner_stopped", "needs_person"])
def test_a_planner_stop_ends_the_run_with_its_reason(
    browser: Browser, server: StaticServer, tmp_path: Path, reason: Any
) -> None:
    planner = ScriptedPlanner([Stop(reason=reason, message="the Delete button needs a person")])
    result = _run(browser, planner, server.url("agent-contact.html"), tmp_path)
    assert result.stop_reason == reason
    assert result.message == "the Delete button needs a person"
    assert result.rounds == 0 and len(result.steps) == 1


def test_done_ends_the_run_with_the_answer_and_batches_count_one_round(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    def fill(s: State) -> Batch:
        return Batch(
            actions=(
                Action(
                    tool="input", arguments={"ref": ref(s, "Job title", "textbox"), "text": "CTO"}
                ),
                Action(
                    tool="select",
                    arguments={"ref": ref(s, "Location", "combobox"), "values": ["Tokyo"]},
                ),
                Action(tool="click", arguments={"ref": ref(s, "Save", "button")}),
            )
        )

    planner = ScriptedPlanner([fill, Action(tool="done", arguments={"answer": "Tokyo"})])
    progress: list[str] = []
    agent = Agent(
        browser,
        planner,
        out=tmp_path,
        on_step=lambda step: progress.append(f"{step.number} {step.calls[0].tool}"),
    )
    result = agent.run(server.url("agent-contact.html"), goal="move Alice to Tokyo")
    try:
        assert result.stop_reason == "done" and result.reached
        assert result.answer == "Tokyo"
        assert result.rounds == 2  # the batch of three is one round; the done call another
        assert progress == ["1 batch", "2 done"]  # told as each step was written
        assert agent.page is not None
        saved = agent.page.playwright.evaluate("window.saved")
        assert (saved["title"], saved["location"]) == ("CTO", "Tokyo")
        # The second decision was shown the page after the batch, and what changed in it.
        second = planner.states[1]
        assert second.delta is not None
        assert '"Job title": CTO' in second.delta and '"Location": Tokyo' in second.delta
        assert "status\n  Saved: CTO, Tokyo" in second.text
        assert result.tokens == sum(s.tokens for s in result.steps) > 0
        assert result.final_url == server.url("agent-contact.html")
    finally:
        if agent.page is not None:
            agent.page.close()


def test_bad_agent_options_are_refused_before_anything_runs(browser: Browser) -> None:
    with pytest.raises(InvalidOption) as caught:
        Agent(browser, ScriptedPlanner([]), max_steps=0)
    assert caught.value.option == "max_steps"
    with pytest.raises(InvalidOption) as caught:
        Agent(browser, object())  # type: ignore[arg-type]
    assert caught.value.option == "planner"
    for timeout in (0, -1.0, True):
        with pytest.raises(InvalidOption) as caught:
            Agent(browser, ScriptedPlanner([]), timeout=timeout)
        assert caught.value.option == "timeout"
        assert f"a positive number, not {timeout!r}" in str(caught.value)


@pytest.mark.parametrize("reason", ["done", "Needs person", "max_steps"])
def test_a_stop_with_a_reason_a_planner_may_not_give_is_refused(reason: Any) -> None:
    # "done" would make a stop pass for a goal reached; the loop's own reasons are its own.
    with pytest.raises(InvalidOption) as caught:
        Stop(reason=reason, message="x")
    assert caught.value.option == "reason"
    assert f"not {reason!r}; Done() says the goal is reached" in str(caught.value)


def test_sync_and_async_agents_have_the_same_names_and_arguments() -> None:
    def public(cls: type) -> set[str]:
        return {n for n in dir(cls) if not n.startswith("_")}

    assert public(Agent) == public(AsyncAgent)

    def params(f: Any) -> list[tuple[str, Any, Any]]:
        return [(p.name, p.kind, p.default) for p in inspect.signature(f).parameters.values()]

    assert params(Agent.__init__)[2:] == params(AsyncAgent.__init__)[2:]
    assert params(Agent.run) == params(AsyncAgent.run)
    assert inspect.iscoroutinefunction(AsyncAgent.run) and not inspect.iscoroutinefunction(
        Agent.run
    )


def test_the_sync_agent_hands_its_tools_and_skills_to_the_async_core(
    browser: Browser, tmp_path: Path
) -> None:
    # The signatures match (above); this checks the facade passes the folders on.
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "wave.py").write_text(
        "async def wave(session) -> str:\n    'Wave.'\n    return 'hi'\n"
    )
    (tmp_path / "skills" / "crm").mkdir(parents=True)
    (tmp_path / "skills" / "crm" / "SKILL.md").write_text(
        "---\nname: crm\ndescription: Orbit CRM.\n---\nSearch first.\n"
    )
    agent = Agent(
        browser, ScriptedPlanner([]), tools=[tmp_path / "tools"], skills=[tmp_path / "skills"]
    )
    assert "wave" in agent.registry.names
    assert agent.skills.names == ("browsing", "crm")


def test_the_async_agent_runs_the_same_task(server: StaticServer, tmp_path: Path) -> None:
    async def scenario() -> tuple[RunResult, Any]:
        async with await AsyncBrowser.launch() as browser:
            planner = ScriptedPlanner(
                [
                    lambda s: Action(
                        tool="input",
                        arguments={"ref": ref(s, "Job title", "textbox"), "text": "CFO"},
                    ),
                    lambda s: Action(tool="click", arguments={"ref": ref(s, "Save", "button")}),
                    Done(),
                ]
            )
            agent = AsyncAgent(browser, planner, out=tmp_path)
            result = await agent.run(server.url("agent-contact.html"))
            assert agent.page is not None
            return result, await agent.page.playwright.evaluate("window.saved.title")

    result, title = asyncio.run(scenario())
    assert result.stop_reason == "done" and result.rounds == 3  # two actions, then Done
    assert title == "CFO"
    assert (tmp_path / "summary.json").exists()
