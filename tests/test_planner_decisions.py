"""The decisions planner end to end: real Chromium, Orbit CRM, and the fake Decisions API on
127.0.0.1 answering as a capable model would. The saved state is read back from SQLite, the
requests as the fake got them (the marked screenshot, the questions), and the records as a
person reads them (``run.jsonl``, ``summary.json``, ``report.html``)."""

from __future__ import annotations

import io
import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageChops

from pagesight import Agent, Browser, Element, Observation
from pagesight.agent.decision import Decision
from pagesight.agent.state import State
from pagesight.demo import OrbitApp
from pagesight.errors import InvalidOption
from pagesight.planners.decisions import DecisionsPlanner
from pagesight.planners.decisions.api import MAX_TILES, image_tiles
from pagesight.planners.decisions.request import legend
from pagesight.testing.decisions import DecisionsRequest, FakeDecisionsServer, estimate
from pagesight.testing.decisions_demo import ORBIT_GOAL, orbit_answers

KEY = "test-key"
EXACT = 0.012345678901234567  # a probability with every digit a float holds


def first_step_exact(request: DecisionsRequest) -> Any:
    answers = dict(orbit_answers(request))  # type: ignore[arg-type]
    return {**answers, "goal_reached": EXACT}


def test_the_decisions_planner_completes_the_orbit_task_against_the_fake(
    browser: Browser, tmp_path: Path
) -> None:
    script = [first_step_exact] + [orbit_answers] * 15
    with OrbitApp.start() as app, FakeDecisionsServer(script, api_key=KEY) as fake:
        planner = DecisionsPlanner.from_env(api_key=KEY, base_url=fake.base_url)
        result = Agent(browser, planner, max_steps=15, out=tmp_path / "run").run(
            app.url, goal=ORBIT_GOAL
        )
        rows = app.query("SELECT job_title, location FROM contacts WHERE name = 'Alice Chen'")
        sent = list(fake.requests)
    assert result.stop_reason == "done", result.message
    assert rows == [{"job_title": "Senior Software Engineer", "location": "New York"}]
    tools = [s.decision.tool for s in result.steps[:-1]]  # type: ignore[union-attr]
    # Her link, her Edit link, type the title, choose the city, scroll to Save, Save; done.
    assert tools == ["click", "click", "input", "select", "scroll", "click"]
    assert result.steps[2].calls[0].arguments["text"] == "Senior Software Engineer"
    assert result.steps[3].calls[0].arguments["values"] == ["New York"]

    # Each request: the goal, the last action, a 1280x800 set-of-marks screenshot, the legend.
    first = sent[0]
    assert first.texts[0] == f"goal: {ORBIT_GOAL}"
    assert first.texts[1] == "last action: none (this is the first step)"
    assert Image.open(io.BytesIO(first.png or b"")).size == (1280, 800)
    assert "<<<page-content untrusted>>>" in first.texts[2]
    assert set(first.questions) == {
        "blocked",
        "dismiss",
        "target_visible",
        "next_action",
        "goal_reached",
        "risk",
        "value",
    }
    assert first.questions["risk"]["criteria"] == [
        "read only",
        "enters information",
        "changes account state",
        "payment, purchase or deletion",
    ]
    alice = first.badge("Alice Chen", "link")
    assert alice in first.options("next_action") and "none" in first.options("dismiss")
    assert "click [" in sent[1].texts[1] and 'link "Alice Chen"' in sent[1].texts[1]
    assert "navigation" in sent[1].texts[1]

    # run.jsonl: every probability at full precision; summary.json: the tokens, summed.
    lines = [json.loads(x) for x in (result.folder / "run.jsonl").read_text().splitlines()]
    raw = lines[0]["decision"]["raw"]
    assert raw["answers"]["goal_reached"]["noul"] == EXACT
    assert raw["request_id"] == first.id
    assert raw["answers"]["next_action"]["probabilities"][alice] == 0.9
    summary = json.loads((result.folder / "summary.json").read_text())
    tokens = sum(estimate(r) for r in sent)  # the Decisions API caches nothing
    assert summary["model_tokens"] == {
        "input": tokens,
        "cached_input": 0,
        "cache_write": 0,
        "output": 0,
    }

    # report.html: the top candidates of each step.
    report = (result.folder / "report.html").read_text()
    assert "Candidates" in report
    assert f"[{alice}] 0.90" in report


def test_a_risky_next_step_stops_the_run_for_a_person(browser: Browser, tmp_path: Path) -> None:
    def delete(request: DecisionsRequest) -> Any:
        badge = request.badge("Delete contact", "button")
        return {"next_action": badge, "goal_reached": 0.01, "risk": [0.0, 0.05, 0.15, 0.8]}

    script = [orbit_answers, delete]
    with OrbitApp.start() as app, FakeDecisionsServer(script, api_key=KEY) as fake:
        planner = DecisionsPlanner.from_env(api_key=KEY, base_url=fake.base_url)
        result = Agent(browser, planner, out=tmp_path / "run").run(
            app.url, goal="delete Alice Chen"
        )
        count = app.query("SELECT count(*) AS n FROM contacts WHERE name = 'Alice Chen'")
    assert result.stop_reason == "needs_person"
    assert 'button "Delete contact"' in result.message
    assert count == [{"n": 1}]  # nothing was deleted


def test_from_env_needs_the_key_and_reads_the_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PERPLEXITY_API_KEY", raising=False)
    with pytest.raises(InvalidOption) as err:
        DecisionsPlanner.from_env(model="pplx-decider-v1.1-27b")
    assert err.value.option == "api_key" and "PERPLEXITY_API_KEY" in str(err.value)
    monkeypatch.setenv("PERPLEXITY_API_KEY", "from-env")
    monkeypatch.setenv("PERPLEXITY_BASE_URL", "http://127.0.0.1:9/v1")
    planner = DecisionsPlanner.from_env(model="pplx-decider-v1.1-27b")
    assert planner.client.endpoint == "http://127.0.0.1:9/v1/decisions"
    assert planner.client.model == "pplx-decider-v1.1-27b"


def test_a_page_with_more_than_255_marks_is_split_into_groups_not_truncated(
    browser: Browser, server: Any, tmp_path: Path
) -> None:
    def answer(request: DecisionsRequest) -> Any:
        done = 'button "Seat 280"' in request.texts[1]  # the last action clicked it
        if done and "goal_reached" in request.questions:
            return {"goal_reached": 0.96, "risk": 0}
        try:
            seat = request.badge("Seat 280", "button")
        except AssertionError:  # not in this group: the model is unsure of every seat here
            seat = None
        options = request.options("next_action")
        pick = seat or {options[0]: 0.3}
        if "goal_reached" not in request.questions:  # one group of a split page
            return {"next_action": pick, "dismiss": "none"}
        return {"next_action": pick, "dismiss": "none", "goal_reached": 0.02, "risk": 0}

    with FakeDecisionsServer([answer] * 10, api_key=KEY) as fake:
        planner = DecisionsPlanner.from_env(api_key=KEY, base_url=fake.base_url)
        agent = Agent(browser, planner, max_steps=4, out=tmp_path / "run")
        result = agent.run(server.url("decisions-many-marks.html"), goal="pick seat 280")
        picked = agent.page.playwright.evaluate("window.picked")  # type: ignore[union-attr]
        sent = list(fake.requests)
    assert result.stop_reason == "done", result.message
    assert picked == "Seat 280"
    groups, final = sent[:2], sent[2]
    assert [len(r.options("next_action")) for r in groups] == [254, 46]
    assert [len(r.options("dismiss")) for r in groups] == [255, 47]  # and "none"
    seats = {
        r.badge(f"Seat {i}", "button")
        for i in (1, 254, 255, 300)
        for r in groups
        if f'"Seat {i}"' in "".join(r.texts)
    }
    asked = set(groups[0].options("next_action")) | set(groups[1].options("next_action"))
    assert len(asked) == 300 and seats <= asked  # every seat was offered, none left out
    assert 'button "Seat 1"' not in groups[1].texts[2]  # each group's legend is its own
    assert set(groups[0].questions) == {"dismiss", "next_action"}
    assert set(final.options("next_action")) <= asked and len(final.options("next_action")) <= 4
    assert final.badge("Seat 280", "button") in final.options("next_action")
    raw = result.steps[0].decision.raw
    assert raw["badges"] == 300 and [len(g["badges"]) for g in raw["split"]] == [254, 46]


def test_a_blocking_banner_is_dismissed_then_the_task_goes_on_and_secrets_stay_home(
    browser: Browser, server: Any, tmp_path: Path
) -> None:
    def answer(request: DecisionsRequest) -> Any:
        calm = {"goal_reached": 0.02, "risk": 0, "target_visible": 0.9}
        if 'button "Subscribe"' in request.texts[1]:  # the last action subscribed
            return {**calm, "goal_reached": 0.95, "blocked": 0.01}
        if 'button "Accept all"' in request.legend:  # the banner is up
            accept = request.badge("Accept all", "button")
            return {**calm, "blocked": 0.93, "dismiss": accept}
        return {**calm, "blocked": 0.02, "next_action": request.badge("Subscribe", "button")}

    with FakeDecisionsServer([answer] * 5, api_key=KEY) as fake:
        planner = DecisionsPlanner.from_env(api_key=KEY, base_url=fake.base_url)
        agent = Agent(browser, planner, out=tmp_path / "run", secrets={"TOKEN": "s3cr3t-value"})
        result = agent.run(server.url("decisions-banner.html"), goal="subscribe")
        page = agent.page.playwright  # type: ignore[union-attr]
        state = page.evaluate("[!!window.subscribed, !!document.getElementById('cookies')]")
        sent = list(fake.requests)
    assert result.stop_reason == "done", result.message
    assert state == [True, False]  # subscribed, and the banner is gone
    first = result.steps[0].decision
    assert first.label is not None and first.label.startswith("click [")
    assert 'button "Accept all"' in first.label and "dismiss 0.90" in first.label
    # The page shows a secret in a field: the legend says {{TOKEN}}, never the value.
    assert all("s3cr3t-value" not in json.dumps(r.body) for r in sent)
    assert '"API token": {{TOKEN}}' in sent[0].texts[2]


def test_a_page_with_nothing_to_click_is_asked_without_the_choices_and_stops_unsure(
    browser: Browser, tmp_path: Path
) -> None:
    with FakeDecisionsServer([{"goal_reached": 0.1, "risk": 0}], api_key=KEY) as fake:
        planner = DecisionsPlanner.from_env(api_key=KEY, base_url=fake.base_url)
        result = Agent(browser, planner, out=tmp_path / "run").run("about:blank", goal="look")
        sent = list(fake.requests)
    assert set(sent[0].questions) == {"blocked", "target_visible", "goal_reached", "risk"}
    assert result.stop_reason == "uncertain"
    assert "no step is sure enough" in result.message


def test_a_target_not_seen_on_a_page_with_no_room_to_scroll_is_acted_on_not_scrolled_to(
    browser: Browser, server: Any, tmp_path: Path
) -> None:
    # The model doubts the target is on screen, but the whole page is on screen: scrolling
    # would move nothing, so the policy's scroll rule must not fire and the click goes ahead.
    def answer(request: DecisionsRequest) -> Any:
        if 'button "Save preferences"' in request.texts[1]:  # the last action saved
            return {"goal_reached": 0.95, "risk": 0}
        save = request.badge("Save preferences", "button")
        return {"goal_reached": 0.02, "risk": 0, "target_visible": 0.1, "next_action": save}

    with FakeDecisionsServer([answer] * 4, api_key=KEY) as fake:
        planner = DecisionsPlanner.from_env(api_key=KEY, base_url=fake.base_url)
        agent = Agent(browser, planner, out=tmp_path / "run")
        result = agent.run(server.url("decisions-short.html"), goal="save the preferences")
        saved = agent.page.playwright.evaluate("!!window.saved")  # type: ignore[union-attr]
    assert result.stop_reason == "done", result.message
    assert [s.decision.tool for s in result.steps[:-1]] == ["click"]  # type: ignore[union-attr]
    assert saved is True


def test_a_dismiss_that_did_nothing_is_not_clicked_again(
    browser: Browser, server: Any, tmp_path: Path
) -> None:
    # The model keeps naming "Close" as the dismiss, but its first click did nothing: the
    # planner remembers it clicked that badge and takes the model's next action instead.
    def answer(request: DecisionsRequest) -> Any:
        calm = {"goal_reached": 0.02, "risk": 0, "target_visible": 0.9}
        if 'button "No thanks"' not in request.legend:  # the promotion is gone
            return {**calm, "goal_reached": 0.95, "blocked": 0.01}
        close = request.badge("Close", "button")
        no_thanks = request.badge("No thanks", "button")
        return {**calm, "blocked": 0.93, "dismiss": {close: 0.7}, "next_action": no_thanks}

    with FakeDecisionsServer([answer] * 5, api_key=KEY) as fake:
        planner = DecisionsPlanner.from_env(api_key=KEY, base_url=fake.base_url)
        agent = Agent(browser, planner, max_steps=4, out=tmp_path / "run")
        result = agent.run(server.url("decisions-stubborn-banner.html"), goal="see the offers")
        page = agent.page.playwright  # type: ignore[union-attr]
        state = page.evaluate("[window.closeClicks, !!document.getElementById('promo')]")
    assert result.stop_reason == "done", result.message
    assert state == [1, False]  # Close clicked once, then "No thanks" closed the promotion
    labels = [s.decision.label or "" for s in result.steps[:-1]]
    assert 'button "Close"' in labels[0] and 'button "No thanks"' in labels[1]


def _badge_in(request: DecisionsRequest, name: str, context: str) -> str:
    found = re.search(rf'\[(\d+)\] button "{name}" in "{context}"', request.legend)
    assert found is not None, f"no {name!r} button in {context!r} in:\n{request.legend}"
    return found.group(1)


def test_the_legend_tells_alike_badges_apart_and_keeps_what_the_page_says(
    browser: Browser, server: Any, tmp_path: Path
) -> None:
    # Three cards, each with a "Book" button: only the card's heading tells them apart, and
    # after the click only the page's status line and live region say what happened (issue
    # 23, §4).
    def answer(request: DecisionsRequest) -> Any:
        calm = {"blocked": 0.01, "risk": 0, "target_visible": 0.9}
        if "Table booked at Sushi Kai for tonight." in request.legend:
            return {**calm, "goal_reached": 0.95}
        book = _badge_in(request, "Book", "Sushi Kai")
        return {**calm, "goal_reached": 0.02, "next_action": book}

    with FakeDecisionsServer([answer] * 3, api_key=KEY) as fake:
        planner = DecisionsPlanner.from_env(api_key=KEY, base_url=fake.base_url)
        agent = Agent(browser, planner, max_steps=3, out=tmp_path / "run")
        result = agent.run(server.url("restaurants.html"), goal="book a table at Sushi Kai")
        booked = agent.page.playwright.evaluate("window.booked")  # type: ignore[union-attr]
        sent = list(fake.requests)
    assert result.stop_reason == "done", result.message
    assert booked == ["Sushi Kai"]
    first = sent[0].legend
    for card in ("Trattoria Roma", "Sushi Kai", "Le Petit Bistro"):
        _badge_in(sent[0], "Book", card)
    assert "Table booked" not in first
    assert "status\n  Table booked at Sushi Kai for tonight." in sent[1].legend
    assert "alert\n  Only 1 table left at Sushi Kai." in sent[1].legend  # aria-live, no role


def test_a_context_the_masked_outline_does_not_show_stays_out_of_the_legend() -> None:
    # A heading that shows a secret is masked in the outline; its raw text, which the
    # element's context holds, must not reach the API by the legend.
    text = (
        'page "Keys" http://127.0.0.1/keys ready\n'
        'h2 "Key {{TOKEN}}"\n[1] button "Copy"\nh2 "Team key"\n[2] button "Copy"'
    )
    badges = [
        Element(id=1, role="button", name="Copy", context="Key s3cr3t-value"),
        Element(id=2, role="button", name="Copy", context="Team key"),
        Element(id=3, role="button", name="Copy", context="Key s3cr3t-value"),  # cut from text
    ]
    obs = Observation(url="http://127.0.0.1/keys", title="Keys", ready=True, mode="cdp", tree=(),
                      elements=tuple(badges))  # fmt: skip
    state = State(goal=None, step=1, max_steps=5, url=obs.url, observation=obs, text=text,
                  delta=None, history=(), tools=(), skills="")  # fmt: skip
    shown = legend(state, badges)
    assert "s3cr3t" not in shown
    assert '[1] button "Copy"\n[2] button "Copy" in "Team key"\n[3] button "Copy"\n' in shown


def _seat_badge(request: DecisionsRequest, n: int) -> str | None:
    try:
        return request.badge(f"Seat {n}", "button")
    except AssertionError:  # not in this request's legend
        return None


def _legend_badges(request: DecisionsRequest) -> set[str]:
    return set(re.findall(r"\[(\d+)\]", request.legend))


def test_each_group_of_a_split_page_is_shown_with_its_own_badges_only(
    browser: Browser, server: Any, tmp_path: Path
) -> None:
    # A group's screenshot marks only that group's badges (a badge the choice does not offer
    # would be one the model sees but cannot pick), and its legend names only them.
    def answer(request: DecisionsRequest) -> Any:
        options = request.options("next_action")
        return {"next_action": {options[0]: 0.3}} | (
            {"goal_reached": 0.02, "risk": 0} if "goal_reached" in request.questions else {}
        )

    with FakeDecisionsServer([answer] * 3, api_key=KEY) as fake:
        planner = DecisionsPlanner.from_env(api_key=KEY, base_url=fake.base_url)
        agent = Agent(browser, planner, max_steps=1, out=tmp_path / "run")
        agent.run(server.url("decisions-many-marks.html"), goal="pick seat 280")
        groups = list(fake.requests)[:2]
    for request in groups:
        assert _legend_badges(request) == set(request.options("next_action"))
    first, second = (Image.open(io.BytesIO(r.png or b"")).convert("RGB") for r in groups)
    assert first.size == second.size == (1280, 800)
    changed = ImageChops.difference(first, second).getbbox()
    assert changed is not None, "both groups' screenshots are the same: each must mark its own"


def test_a_dismiss_found_in_one_group_of_a_split_page_reaches_the_final_and_is_clicked(
    browser: Browser, server: Any, tmp_path: Path
) -> None:
    # Group 1 holds the best dismiss (seat 5, say a banner's Close), group 2 the best next
    # action: the final request must offer both, so the blocked page can be dismissed.
    def answer(request: DecisionsRequest) -> Any:
        five, other = _seat_badge(request, 5), _seat_badge(request, 280)
        if "goal_reached" not in request.questions:  # one group of the split
            return {"dismiss": five or "none", "next_action": other or _seat_badge(request, 1)}
        return {"blocked": 0.93, "dismiss": five, "goal_reached": 0.02, "risk": 0}

    with FakeDecisionsServer([answer] * 3, api_key=KEY) as fake:
        planner = DecisionsPlanner.from_env(api_key=KEY, base_url=fake.base_url)
        agent = Agent(browser, planner, max_steps=1, out=tmp_path / "run")
        agent.run(server.url("decisions-many-marks.html"), goal="pick seat 280")
        picked = agent.page.playwright.evaluate("window.picked")  # type: ignore[union-attr]
        final = list(fake.requests)[2]
    assert _seat_badge(final, 5) in final.options("dismiss")
    assert picked == "Seat 5"


class _HighDpiScreen:
    """The planner on a devicePixelRatio-2 screen: every screenshot it takes is 2560x1600
    (the real one, scaled up), as a high-DPI display gives it."""

    def __init__(self, planner: DecisionsPlanner) -> None:
        self.planner = planner

    async def decide(self, state: State) -> Decision:
        shoot = state.shoot
        assert shoot is not None

        async def doubled(marks: bool, only: frozenset[int] | None) -> bytes:
            image = Image.open(io.BytesIO(await shoot(marks, only)))
            out = io.BytesIO()
            image.resize((image.width * 2, image.height * 2)).save(out, format="PNG")
            return out.getvalue()

        return await self.planner.decide(replace(state, shoot=doubled))


def test_a_high_dpi_screenshot_is_scaled_down_to_the_tiles_the_api_reads(
    browser: Browser, server: Any, tmp_path: Path
) -> None:
    # 2560x1600 is 4,000 tiles; the API reads at most 2,048 (the fake refuses more, as the
    # real API stalls): the planner sends it scaled down, its shape kept.
    def answer(request: DecisionsRequest) -> Any:
        if 'button "Save preferences"' in request.texts[1]:  # the last action saved
            return {"goal_reached": 0.95, "risk": 0}
        save = request.badge("Save preferences", "button")
        return {"goal_reached": 0.02, "risk": 0, "next_action": save}

    with FakeDecisionsServer([answer] * 3, api_key=KEY) as fake:
        planner = DecisionsPlanner.from_env(api_key=KEY, base_url=fake.base_url)
        agent = Agent(browser, _HighDpiScreen(planner), max_steps=3, out=tmp_path / "run")
        result = agent.run(server.url("decisions-short.html"), goal="save the preferences")
        sizes = [Image.open(io.BytesIO(r.png or b"")).size for r in fake.requests]
    assert result.stop_reason == "done", result.message
    assert sizes and all(image_tiles(w, h) <= MAX_TILES for w, h in sizes)
    assert all(abs(w / h - 1.6) < 0.02 for w, h in sizes)  # scaled, not cropped


def test_a_field_showing_a_secret_is_blacked_out_in_the_screenshot_the_api_gets(
    browser: Browser, server: Any, tmp_path: Path
) -> None:
    def answer(request: DecisionsRequest) -> Any:
        return {"blocked": 0.93, "dismiss": request.badge("Accept all", "button"), "risk": 0}

    with FakeDecisionsServer([answer], api_key=KEY) as fake:
        planner = DecisionsPlanner.from_env(api_key=KEY, base_url=fake.base_url)
        agent = Agent(
            browser, planner, max_steps=1, out=tmp_path / "run", secrets={"TOKEN": "s3cr3t-value"}
        )
        agent.run(server.url("decisions-banner.html"), goal="subscribe")
        page = agent.page.playwright  # type: ignore[union-attr]
        x, y, w, h = page.evaluate(
            "(() => { const r = document.getElementById('token').getBoundingClientRect();"
            " return [r.x, r.y, r.width, r.height]; })()"
        )
        shot = Image.open(io.BytesIO(fake.requests[0].png or b"")).convert("RGB")
    # The field's middle (clear of the mark's outline and badge at its edges), where the
    # value's text is drawn: every pixel black.
    middle = shot.crop((int(x + w / 4), int(y + h / 4), int(x + 3 * w / 4), int(y + 3 * h / 4)))
    assert middle.getextrema() == ((0, 0), (0, 0), (0, 0))


@pytest.mark.parametrize(
    ("seats", "requests"),
    [
        (254, [(254, 255)]),  # 254 badges and "none": a choice's 255 options, one request
        (255, [(254, 255), (1, 2), (2, 3)]),  # one too many: two groups, then the final
    ],
)
def test_a_page_is_split_exactly_when_its_badges_and_none_exceed_255_options(
    browser: Browser, server: Any, tmp_path: Path, seats: int, requests: list[tuple[int, int]]
) -> None:
    def answer(request: DecisionsRequest) -> Any:
        last = _seat_badge(request, seats)
        pick = {"next_action": last or request.options("next_action")[0]}
        if "goal_reached" not in request.questions:  # one group of the split
            return pick
        return {**pick, "goal_reached": 0.02, "risk": 0}

    with FakeDecisionsServer([answer] * 3, api_key=KEY) as fake:
        planner = DecisionsPlanner.from_env(api_key=KEY, base_url=fake.base_url)
        agent = Agent(browser, planner, max_steps=1, out=tmp_path / "run")
        agent.run(server.url(f"decisions-many-marks.html?seats={seats}"), goal="pick the last")
        picked = agent.page.playwright.evaluate("window.picked")  # type: ignore[union-attr]
        sent = list(fake.requests)
    shapes = [(len(r.options("next_action")), len(r.options("dismiss"))) for r in sent]
    assert shapes == requests
    assert picked == f"Seat {seats}"  # the last seat was offered and clicked
