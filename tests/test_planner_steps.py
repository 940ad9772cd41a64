"""The steps planner on a contacts page (steps-contacts.html): every step form in English and
Chinese, batching into rounds, targets refused rather than guessed, failed expects and no-op
clicks stopping the run with what was expected and seen, and the page's state read back."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import pytest

from conftest import StaticServer
from pagesight import Agent, Batch, Browser, RunResult
from pagesight.planners import StepsPlanner

TOKEN = "tok-7c1e-SECRET-93"
# The page's state as its own code keeps it.
STATE = """() => ({
  saved: window.saved,
  metas: [...document.querySelectorAll('[data-part="meta"]')].map((m) => m.textContent),
  formHidden: document.querySelector('[data-part="form"]').hidden,
  toast: document.querySelector('[data-part="toast"]').textContent,
  tip: document.querySelector('[data-part="tip"]').textContent,
  synced: document.querySelector('[data-part="sync-status"]').textContent,
  keys: document.querySelector('[data-part="keys"]').textContent,
  archived: document.querySelector('[data-part="archived-list"]').textContent,
  favourites: document.querySelector('[data-part="drop-list"]').textContent,
})"""

ENGLISH = """\
# Alice Chen's new title and city, and every other step form on the way
go to steps-contacts.html
type "Alice" into the search box
click Alice Chen's Edit button
type "Senior Software Engineer" into the Job title field
select "New York" in the Location menu
type "{{TOKEN}}" into the API token field
upload "avatar.png" to the Avatar field
expect the Job title field to be "Senior Software Engineer"
click the Save button
expect "Saved Alice Chen"
hover the Help button
expect "Ask the team on chat"
click Sync
wait for "Synced 3 contacts"
press Escape
expect "Escape pressed"
scroll to the Show archived button
click Show archived
expect "Archived: Dana Lee"
drag Alice Chen to Favourites
"""

CHINESE = """\
# 同一个任务 中文步骤 中文页面
打开 steps-contacts.html?lang=zh
在 搜索框 输入 "Alice"
点击 Alice Chen 的编辑按钮
在 职位 输入 "高级软件工程师"
在 城市 选择 "纽约"
在 API 令牌 输入 "{{TOKEN}}"
上传 "avatar.png" 到 头像
确认 职位 为 "高级软件工程师"
点击 保存按钮
确认 "已保存 Alice Chen"
悬停 帮助按钮
确认 "在聊天中询问团队"
点击 同步
等待 "已同步 3 位联系人"
按 Escape
确认 "已按 Escape"
滚动到 显示已归档
点击 显示已归档
确认 "已归档 Dana Lee"
拖动 Alice Chen 到 收藏夹
"""


def _run(
    browser: Browser,
    server: StaticServer,
    script: str,
    out: Path,
    *,
    start: str = "steps-contacts.html",
    **options: Any,
) -> tuple[RunResult, dict[str, Any]]:
    planner = StepsPlanner.from_text(script, **options)
    agent = Agent(
        browser, planner, out=out, max_steps=30, secrets=planner.secrets({"TOKEN": TOKEN})
    )
    try:
        result = agent.run(server.url(start))
        assert agent.page is not None
        state: dict[str, Any] = agent.page.playwright.evaluate(STATE)
    finally:
        if agent.page is not None:
            agent.page.close()
    return result, state


def _sizes(result: RunResult) -> list[int]:
    """How many script steps each decision that acted covered."""
    return [
        len(s.decision.actions) if isinstance(s.decision, Batch) else 1
        for s in result.steps
        if s.calls
    ]


# The page's texts after the run: toast, tooltip, sync status, key, archived list.
ENGLISH_TEXTS = (
    "Saved Alice Chen", "Ask the team on chat", "Synced 3 contacts", "Escape pressed",
    "Archived: Dana Lee",
)  # fmt: skip
CHINESE_TEXTS = (
    "已保存 Alice Chen",
    "在聊天中询问团队",
    "已同步 3 位联系人",
    "已按 Escape",
    "已归档 Dana Lee",
)
CASES = {
    "english": (ENGLISH, "Senior Software Engineer", "New York", ENGLISH_TEXTS),
    "chinese": (CHINESE, "高级软件工程师", "纽约", CHINESE_TEXTS),
}


@pytest.mark.parametrize("case", CASES)
def test_every_step_form_runs_and_the_page_keeps_what_was_saved(
    browser: Browser, server: StaticServer, tmp_path: Path, case: str
) -> None:
    script, title, city, texts = CASES[case]
    (tmp_path / "avatar.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    result, state = _run(
        browser, server, script, tmp_path / "run", start="agent-done.html", base=tmp_path
    )
    assert (result.stop_reason, result.message) == ("done", "the planner said the goal is reached")
    assert state["saved"] == {
        "Alice Chen": {"title": title, "location": city, "token": TOKEN, "avatar": "avatar.png"}
    }
    assert state["metas"][0] == f"{title} · {city}"
    assert state["formHidden"] is True
    assert (
        state["toast"],
        state["tip"],
        state["synced"],
        state["keys"],
        state["archived"],
    ) == texts
    assert state["favourites"] == "Alice Chen"
    # Consecutive actions ran as one round: go to; search + Edit (the form is not there yet);
    # the four fields (an expect follows); Save; hover; Sync; the wait; Escape; scroll + click;
    # drag — 10 rounds for 15 actions, and a last decision that said done (a round too).
    assert _sizes(result) == [1, 2, 4, 1, 1, 1, 1, 1, 2, 1]
    assert result.rounds == 11 and len(result.steps) == 11
    # No file of the run holds the secret, which the page did get.
    for path in (tmp_path / "run").iterdir():
        assert TOKEN.encode() not in path.read_bytes(), path.name


def test_without_batching_each_step_is_a_round_of_its_own(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    # The script's first seven lines, which batch into rounds of 1, 2 and 4 (the test above):
    # one action a round instead. Not the whole script again: these are all its batches.
    script = "\n".join(ENGLISH.splitlines()[:8]) + "\n"
    (tmp_path / "avatar.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    alone, state = _run(
        browser, server, script, tmp_path / "alone", start="agent-done.html", base=tmp_path,
        batch=False,
    )  # fmt: skip
    assert alone.stop_reason == "done" and _sizes(alone) == [1] * 7
    assert state["formHidden"] is False  # the form is open, filled, not yet saved


def test_two_candidates_too_close_to_call_are_refused_and_nothing_is_clicked(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    result, state = _run(browser, server, "# which one?\nclick the Edit button\n", tmp_path)
    assert result.stop_reason == "target_ambiguous"
    assert result.rounds == 0
    message = result.message
    assert message.startswith(
        "line 2: click the Edit button: 3 elements match 'the Edit button' too closely to tell "
        "apart (within 3 points): "
    )
    for name in ("Alice Chen", "Bob Martin", "Carla Diaz"):
        assert f'button "Edit" in "{name}"  score ' in message
    assert 'name the one you mean more precisely in "…"' in message
    assert state["formHidden"] is True  # no Edit button was clicked


def test_a_failed_expect_names_the_step_what_was_expected_and_what_was_seen(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    script = (
        "click Alice Chen's Edit button\n"
        'type "CTO" into the Job title field\n'
        "click Save\n"
        'expect "Saved Bob Martin"\n'
    )
    result, state = _run(browser, server, script, tmp_path)
    assert result.stop_reason == "expect_failed"
    # What was seen: the page's texts most like the one expected, with find's scores.
    assert result.message == (
        "line 4: expect \"Saved Bob Martin\": expected the page to show 'Saved Bob Martin'; "
        'seen: "Bob Martin" (score 6); "Saved Alice Chen" (score 3); "Called Bob" (score 3)'
    )
    assert state["saved"]["Alice Chen"]["title"] == "CTO"  # the steps before it did run


def test_a_failed_expect_of_a_value_names_the_field_and_its_value(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    script = 'click Alice Chen\'s Edit button\nexpect the Job title field to be "CTO"\n'
    result, _ = _run(browser, server, script, tmp_path)
    assert result.stop_reason == "expect_failed"
    assert re.fullmatch(
        r'line 2: expect the Job title field to be "CTO": expected \[\d+\] textbox "Job title" '
        r"in \"Alice Chen\"  score 22  @ #title to be 'CTO'; seen: 'Software Engineer'",
        result.message,
    ), result.message


def test_a_click_that_changes_nothing_stops_the_run(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    result, _ = _run(browser, server, "click the Refresh button\nclick Sync\n", tmp_path)
    assert result.stop_reason == "no_effect"
    assert result.rounds == 1  # Sync was never clicked
    assert result.message.startswith(
        "line 1: click the Refresh button: expected the click to change the page; seen: "
        "nothing changed (no_op) after clicking ["
    )
    assert '] button "Refresh"' in result.message and "@ #refresh" in result.message


@pytest.mark.parametrize("confirm", ["never", "risky"])
def test_a_confirm_is_accepted_by_its_step_and_done_ends_with_the_answer(
    browser: Browser, server: StaticServer, tmp_path: Path, confirm: str
) -> None:
    script = (
        'accept the next dialog\nclick Delete report.pdf\nexpect "deleted (try 1)"\n'
        'done "report.pdf is deleted"\n'
    )
    planner = StepsPlanner.from_text(script)
    agent = Agent(browser, planner, out=tmp_path, max_steps=10, confirm=confirm)  # type: ignore[arg-type]
    try:
        result = agent.run(server.url("tools-dialogs.html"))
        assert agent.page is not None
        status = agent.page.playwright.evaluate("document.getElementById('status').textContent")
    finally:
        if agent.page is not None:
            agent.page.close()
    if confirm == "never":
        assert (result.stop_reason, result.answer) == ("done", "report.pdf is deleted")
        assert status == "deleted (try 1)"
        assert result.rounds == 3  # the dialog's answer; the click; the expect (free) and done
    else:  # accepting a confirm is risky: no one to ask, so it is not, and nothing is deleted
        assert result.stop_reason == "needs_person" and result.answer is None
        assert "confirm() dialog" in result.message
        assert "deleted" not in (status or "")


def test_words_that_name_nothing_on_the_page_are_refused(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    result, _ = _run(browser, server, "click the Delete contact button\n", tmp_path)
    assert result.stop_reason == "target_not_found"
    assert result.message.startswith(
        "line 1: click the Delete contact button: no element matches 'the Delete contact button'"
    )


def test_a_step_whose_element_its_round_hid_is_resolved_again_on_the_new_page(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    # Both resolve on the page as it is; the search then hides Bob's card, so his Edit button
    # fails in the batch and is looked for again on the filtered page, where it is not.
    script = 'type "Alice" into the search box\nclick Bob Martin\'s Edit button\n'
    result, state = _run(browser, server, script, tmp_path)
    first = result.steps[0]
    assert isinstance(first.decision, Batch)
    assert [s["status"] for s in first.calls[0].value["steps"]] == ["done", "failed"]
    assert result.stop_reason == "target_not_found"
    assert result.message.startswith("line 2: click Bob Martin's Edit button: no element")
    assert state["formHidden"] is True


def test_wait_for_gives_up_after_its_timeout(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    result, _ = _run(browser, server, 'wait for "Never shown"\n', tmp_path, wait_timeout=1.0)
    assert result.stop_reason == "expect_failed"
    assert result.message.startswith(
        "line 1: wait for \"Never shown\": the page did not show 'Never shown' within 1 s"
    )


def test_one_planner_runs_its_script_from_the_start_on_each_run(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    planner = StepsPlanner.from_text(
        'click Alice Chen\'s Edit button\nexpect the Job title field to be "Software Engineer"\n'
    )
    agent = Agent(browser, planner, out=tmp_path / "run")
    try:
        for _ in range(2):
            result = agent.run(server.url("steps-contacts.html"))
            assert (result.stop_reason, result.rounds) == ("done", 2)  # the step, then done
            assert agent.page is not None
            assert agent.page.playwright.evaluate(STATE)["formHidden"] is False
            agent.page.close()
    finally:
        if agent.page is not None and not agent.page.closed:
            agent.page.close()


def test_a_failed_expect_of_a_field_holding_a_secret_never_shows_it(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    # A secret with a quote and a backslash: a message quoting the field's value with repr
    # escapes both, and the mask, which looks for the value as given, no longer finds it.
    secret = 'pa"ss\\wörd-93'
    planner = StepsPlanner.from_text(
        "click Alice Chen's Edit button\n"
        'type "{{TOKEN}}" into the API token field\n'
        'expect the API token field to be "something else"\n'
    )
    agent = Agent(browser, planner, out=tmp_path, secrets=planner.secrets({"TOKEN": secret}))
    try:
        result = agent.run(server.url("steps-contacts.html"))
        assert agent.page is not None
        typed = agent.page.playwright.evaluate("document.querySelector('#token').value")
    finally:
        if agent.page is not None:
            agent.page.close()
    assert typed == secret  # the page got it
    assert result.stop_reason == "expect_failed"
    assert result.message.endswith("to be 'something else'; seen: '{{TOKEN}}'"), result.message
    for escaped in (secret, repr(secret)[1:-1], "ss\\\\w"):
        assert escaped not in result.message


def test_done_right_after_an_action_runs_that_action_first(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    # A done in the same round as a typed value must not end the run before the value is typed.
    planner = StepsPlanner.from_text('type "quarterly" into Filter\ndone "typed"\n')
    agent = Agent(browser, planner, out=tmp_path, max_steps=5)
    try:
        result = agent.run(server.url("act-form.html"))
        assert agent.page is not None
        value = agent.page.playwright.evaluate("document.getElementById('q').value")
    finally:
        if agent.page is not None:
            agent.page.close()
    assert (result.stop_reason, result.answer) == ("done", "typed")
    assert value == "quarterly"


def _ran(browser: Browser, server: StaticServer, script: str, out: Path, start: str) -> RunResult:
    """A script run on a page of its own (not the contacts page ``_run`` reads back)."""
    agent = Agent(browser, StepsPlanner.from_text(script), out=out, max_steps=5)
    try:
        return agent.run(server.url(start))
    finally:
        if agent.page is not None:
            agent.page.close()


def test_an_expect_does_not_take_a_placeholder(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    # The field's placeholder "Saved" is a hint, not what the page holds.
    result = _ran(browser, server, 'expect "Saved"\n', tmp_path / "no", "save-hint.html")
    assert result.stop_reason == "expect_failed", result.message


def test_an_expect_fails_on_its_negation_and_the_forgiving_form_takes_any_text(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    # expect "Saved" on a page that says "Not saved": the expectation's negation, not it.
    result = _ran(browser, server, 'expect "Saved"\n', tmp_path / "no", "save-status.html")
    assert result.stop_reason == "expect_failed"
    assert result.message.startswith(
        'line 1: expect "Saved": expected the page to show \'Saved\'; seen: "Not saved"'
    ), result.message
    # Text containing it, in any case (both languages), holds there; "Saved" holds where the
    # page says it, with a mark before it and a stop after. Each check says what it found.
    script = (
        'expect text containing "saved"\n确认包含 "SAVED"\n'
        'go to save-status.html?status=✓%20Saved.\nexpect "Saved"\n'
    )
    result = _ran(browser, server, script, tmp_path / "yes", "save-status.html")
    assert result.stop_reason == "done", result.message
    checks = [c for s in result.steps for c in s.decision.raw["checks"]]
    assert [(c["step"], c["ok"], c["seen"]) for c in checks] == [
        ('expect text containing "saved"', True, "Not saved"),
        ('确认包含 "SAVED"', True, "Not saved"),
        ('expect "Saved"', True, "✓ Saved."),
    ]
    report = html.unescape((tmp_path / "yes" / "report.html").read_text(encoding="utf-8"))
    assert '<strong>Checks:</strong> expect "Saved": seen "✓ Saved."</p>' in report


def test_a_submit_the_browser_stopped_fails_its_step_unless_a_later_expect_shows_otherwise(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    # The browser's own validation stops the submit (form_invalid); the expect after it fails
    # and says why: the step before it was blocked, on these fields.
    script = 'click the Create account button\nexpect "Account created"\n'
    result = _ran(browser, server, script, tmp_path / "no", "form-validation.html")
    assert result.stop_reason == "expect_failed"
    assert re.search(
        r"; before it, line 1: click the Create account button: the browser's own validation "
        r"stopped the submit \(form_invalid\): the form was not sent; invalid: \[\d+\] textbox "
        r'"Email": "Please fill out this field."; \[\d+\] spinbutton "Age": ',
        result.message,
    ), result.message
    # A later expect that holds on what the page showed already before the stopped submit
    # (the heading, the button) shows nothing reached: the blocked step fails.
    script = 'click the Create account button\nexpect "Create account"\n'
    result = _ran(browser, server, script, tmp_path / "same", "form-validation.html")
    assert result.stop_reason == "step_failed", result.message
    assert result.message.startswith("line 1: click the Create account button: the browser's")
    assert result.message.endswith("the expects after it saw only what the page showed before it")
    # One that holds on what changed since shows the goal reached anyway: the run is done.
    script = (
        "click the Create account button\n"
        'type "ada@example.com" into the Email field\n'
        'expect the Email field to be "ada@example.com"\n'
    )
    result = _ran(browser, server, script, tmp_path / "yes", "form-validation.html")
    assert result.stop_reason == "done", result.message
