"""A person before risky actions, on a live page (``confirm-risky.html``): the registry's
gate refuses each risky step with ``needs_person`` before the page is touched and lets its
look-alikes run; the agent stops, or asks its confirmer and goes on with a yes; the decisions
planner's risk stop goes the same way; ``pagesight run`` asks on a terminal and stops
without one. What the page did is read back from ``window.log``."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cli_support import run_cli
from conftest import StaticServer
from pagesight import Agent, Browser, Page, Risk, RiskRules
from pagesight.act.events import DialogPolicy
from pagesight.agent import Session, ToolRegistry, ToolResult
from pagesight.agent.confirm import ConfirmPolicy
from pagesight.cli.options import terminal_confirmer
from pagesight.planners import StepsPlanner
from pagesight.planners.decisions import DecisionsPlanner
from pagesight.testing.decisions import DecisionsRequest, FakeDecisionsServer
from support import one

PAGE = "confirm-risky.html"


@pytest.fixture(scope="module")
def risky(browser: Browser, server: StaticServer) -> Iterator[Page]:
    page = browser.open(server.url(PAGE))
    yield page
    page.close()


def _session(browser: Browser, page: Page, confirm: ConfirmPolicy) -> Session:
    session = Session(
        browser=browser._browser, page=page._page, registry=ToolRegistry.discover(), confirm=confirm
    )
    session.latest = page.observe()
    return session


def _call(browser: Browser, session: Session, tool: str, /, **arguments: Any) -> ToolResult:
    return browser._loop.run(session.registry.call(tool, arguments, session))


def _log(page: Page) -> list[str]:
    logged: list[str] = page.playwright.evaluate("window.log.splice(0)")  # read and cleared
    return logged


FULL_WIDTH_DELETE = "\uff24\uff45\uff4c\uff45\uff54\uff45"

# (tool, the element acted on, extra arguments, the rule that holds it back; None: it runs,
# and what the page logs then)
CASES = [
    ("click", ("Delete account", "button"), {}, "its name says 'delete'"),
    ("click", ("删除联系人", "button"), {}, "its name says '删除'"),
    ("click", ("立即支付", "button"), {}, "its name says '支付'"),
    ("click", ("Send invoice", "button"), {}, "its name says 'send'"),  # named by aria-label
    ("click", ("Sign in", "button"), {}, "it submits a password field"),
    ("click", ("Continue", "button"), {}, "it submits a payment field (cc-number)"),
    ("input", ("Password", "textbox"), {"text": "hunter2", "submit": True},
     "it submits a password field"),
    ("press_key", ("Email", "textbox"), {"key": "Enter"}, "it submits a password field"),
    ("press_key", ("Password", "textbox"), {"key": "Enter", "focus": True},
     "it submits a password field"),  # no ref: the key goes to the focused field
    # Disguised names: a zero-width space, full-width letters, a link dressed as a button.
    ("click", ("Del ete draft", "button"), {}, "its name says 'delete'"),
    ("click", (FULL_WIDTH_DELETE + " file", "button"), {}, "its name says 'delete'"),
    ("click", ("Remove member", "button"), {}, "its name says 'remove'"),
    # Keys that press a button, and Enter pressing a form's default button.
    ("press_key", ("Delete account", "button"), {"key": "Enter"}, "its name says 'delete'"),
    ("press_key", ("Delete account", "button"), {"key": " ", "focus": "#delete"},
     "its name says 'delete'"),
    ("press_key", ("Password", "textbox"), {"key": "Shift+Enter"}, "it submits a password field"),
    ("input", ("Project name", "textbox"), {"text": "orbit", "submit": True},
     "Enter submits its form by the button named 'delete'"),
    ("press_key", ("Project name", "textbox"), {"key": "Enter"},
     "Enter submits its form by the button named 'delete'"),
    ("press_key", ("Delete account", "button"), {"key": "Tab"}, []),  # moves focus only
    ("click", ("Save profile", "button"), {}, ["save"]),
    ("click", ("Repayment history", "link"), {}, ["history"]),
    ("click", ("Show password", "button"), {}, ["show"]),  # type=button: submits nothing
    ("input", ("Search", "textbox"), {"text": "tea", "submit": True}, ["search:tea"]),
    ("input", ("Password", "textbox"), {"text": "hunter2"}, []),  # typing is no submit
]  # fmt: skip


@pytest.mark.parametrize(("tool", "target", "extra", "outcome"), CASES)
def test_the_registry_holds_back_each_risky_step_and_lets_its_look_alikes_run(
    *,
    browser: Browser,
    risky: Page,
    tool: str,
    target: tuple[str, str],
    extra: dict[str, Any],
    outcome: str | list[str],
) -> None:
    session = _session(browser, risky, ConfirmPolicy(mode="risky"))
    assert session.latest is not None
    element = one(session.latest, *target)
    extra = dict(extra)
    focus = extra.pop("focus", False)
    if focus:  # a key sent to whatever has focus: no ref
        selector = "[name=password]" if focus is True else focus
        risky.playwright.evaluate(f"document.querySelector('{selector}').focus()")
        result = _call(browser, session, tool, **extra)
    else:
        result = _call(browser, session, tool, ref=element.id, **extra)
    if isinstance(outcome, list):
        assert result.error is None, result.text
        assert _log(risky) == outcome
        return
    assert result.error is not None and result.error.reason == "needs_person", result.text
    assert result.error.message.startswith("a person must allow this: ")
    assert f"({outcome}" in result.error.message
    assert result.error.message.endswith("; ask the user whether to go ahead, and let them do it")
    assert _log(risky) == []  # nothing was done on the page
    assert risky.playwright.evaluate("document.querySelector('[name=password]').value") in (
        "",
        "hunter2",  # typed by the look-alike case before, never submitted
    )


def test_accepting_a_confirm_dialog_needs_a_person_the_tool_or_the_tabs_policy(
    browser: Browser, risky: Page
) -> None:
    session = _session(browser, risky, ConfirmPolicy(mode="risky"))
    assert session.latest is not None
    archive = one(session.latest, "Archive all", "button").id
    accept = _call(browser, session, "handle_dialog", accept=True)
    assert accept.error is not None and accept.error.reason == "needs_person"
    assert "accept the confirm() dialog the next action opens" in accept.error.message
    # Refused before it ran: the click's confirm gets the cautious default answer.
    clicked = _call(browser, session, "click", ref=archive)
    assert clicked.error is None
    assert clicked.value["dialogs"] == [
        {"type": "confirm", "message": "Archive every project?", "accepted": False}
    ]
    assert _log(risky) == []
    # A tab that accepts confirms by policy: each action may answer one, so each asks.
    risky.dialogs = DialogPolicy(confirm="accept")
    try:
        by_policy = _call(browser, session, "click", ref=archive)
    finally:
        risky.dialogs = DialogPolicy()
    assert by_policy.error is not None and by_policy.error.reason == "needs_person"
    assert "this tab answers confirm() dialogs with OK" in by_policy.error.message
    assert _log(risky) == []
    # In a batch, the risky step holds back the whole batch: nothing is typed.
    email = one(session.latest, "Email", "textbox").id
    sign_in = one(session.latest, "Sign in", "button").id
    actions = [
        {"tool": "input", "arguments": {"ref": email, "text": "ada@example.com"}},
        {"tool": "click", "arguments": {"ref": sign_in}},
    ]
    batch = _call(browser, session, "batch", actions=actions)
    assert batch.error is not None and batch.error.reason == "needs_person"
    assert batch.error.message.startswith("action 2: a person must allow this: click [")
    assert risky.playwright.evaluate("document.querySelector('[name=email]').value") == ""
    # A rule the user added: "archive" is a risky word now.
    extended = ConfirmPolicy(mode="risky", rules=RiskRules().extended(control_words=("archive",)))
    held = _call(browser, _session(browser, risky, extended), "click", ref=archive)
    assert held.error is not None and "its name says 'archive'" in held.error.message


def test_a_click_at_a_point_is_judged_on_what_is_under_it(browser: Browser, risky: Page) -> None:
    # click_xy is how a vision model clicks: by coordinates, no id. The Delete button under
    # the point is as risky as when clicked by its id; Save beside it runs.
    session = _session(browser, risky, ConfirmPolicy(mode="risky"))
    seen = session.latest
    assert seen is not None

    def centre(name: str) -> tuple[float, float]:
        bounds = one(seen, name, "button").bounds
        assert bounds is not None
        return bounds[0] + bounds[2] / 2, bounds[1] + bounds[3] / 2

    x, y = centre("Delete account")
    held = _call(browser, session, "click_xy", x=x, y=y)
    assert held.error is not None and held.error.reason == "needs_person", held.text
    assert 'click the element "Delete account" at (' in held.error.message
    assert "(its name says 'delete')" in held.error.message
    assert _log(risky) == []
    x, y = centre("Save profile")
    ran = _call(browser, session, "click_xy", x=x, y=y)
    assert ran.error is None, ran.text
    assert _log(risky) == ["save"]


def test_a_click_at_a_point_on_a_forms_submit_button_is_judged_by_its_form(
    browser: Browser, risky: Page, server: StaticServer, other_origin: StaticServer
) -> None:
    # Only the live page tells that a button submits a form holding a password: its name
    # ("Sign in", "Log in") says nothing risky. The page's own, and one in a frame of
    # another origin, which the point is followed into.
    session = _session(browser, risky, ConfirmPolicy(mode="risky"))
    assert session.latest is not None
    bounds = one(session.latest, "Sign in", "button").bounds
    assert bounds is not None
    x, y = bounds[0] + bounds[2] / 2, bounds[1] + bounds[3] / 2
    held = _call(browser, session, "click_xy", x=x, y=y)
    assert held.error is not None and held.error.reason == "needs_person", held.text
    assert "(it submits a password field)" in held.error.message
    assert _log(risky) == []
    framed = (
        f"{server.url('confirm-frame.html')}?frame={other_origin.url('confirm-frame-login.html')}"
    )
    partner = browser.open(framed)
    try:
        login = partner.playwright.frame_locator("#partner").get_by_role("button", name="Log in")
        box = login.bounding_box()
        assert box is not None
        session = _session(browser, partner, ConfirmPolicy(mode="risky"))
        held = _call(
            browser,
            session,
            "click_xy",
            x=box["x"] + box["width"] / 2,
            y=box["y"] + box["height"] / 2,
        )
        assert held.error is not None and held.error.reason == "needs_person", held.text
        assert "(it submits a password field)" in held.error.message
        assert partner.playwright.frames[1].evaluate("window.log") == []
    finally:
        partner.close()


class Person:
    """A confirmer answering ``yes`` or not, keeping every question it was asked."""

    def __init__(self, yes: bool) -> None:
        self.yes = yes
        self.asked: list[Risk] = []

    def __call__(self, risk: Risk) -> bool:
        self.asked.append(risk)
        return self.yes


DELETE = 'click the "Delete account" button\n'


def _steps(text: str) -> StepsPlanner:
    return StepsPlanner.from_text(text)


@pytest.mark.parametrize(
    ("confirm", "person", "stop", "logged"),
    [
        ("risky", None, "needs_person", []),
        ("risky", Person(yes=False), "needs_person", []),
        ("risky", Person(yes=True), "done", ["delete"]),
        ("never", None, "done", ["delete"]),  # the library's default: the program decides
    ],
)
def test_the_agent_stops_for_a_person_or_asks_its_confirmer(
    *,
    browser: Browser,
    server: StaticServer,
    tmp_path: Path,
    confirm: Any,
    person: Person | None,
    stop: str,
    logged: list[str],
) -> None:
    agent = Agent(browser, _steps(DELETE), out=tmp_path / "run", confirm=confirm, confirmer=person)
    result = agent.run(server.url(PAGE))
    try:
        assert result.stop_reason == stop, result.message
        assert agent.page is not None
        assert agent.page.playwright.evaluate("window.log") == logged
    finally:
        if agent.page is not None:
            agent.page.close()
    if person is not None:
        assert [r.rule for r in person.asked] == ["risky_control"]
        assert person.asked[0].action.startswith("click [")
        assert person.asked[0].action.endswith(' button "Delete account"')
    if stop == "needs_person":
        said = "the person declined" if person else "a person must allow this"
        assert result.message.startswith(said)
        assert "(its name says 'delete')" in result.message


def _pay_step(request: DecisionsRequest) -> Any:
    if "delete account" in request.texts[1].lower():  # the last action was the click: done
        return {"goal_reached": 0.97}
    return {
        "next_action": request.badge("Delete account"),
        "risk": [0.0, 0.05, 0.1, 0.85],
        "target_visible": 0.95,
        "goal_reached": 0.02,
        "blocked": 0.01,
    }


@pytest.mark.parametrize("yes", [True, False])
def test_the_decisions_planners_risk_stop_goes_to_the_same_person(
    browser: Browser, server: StaticServer, tmp_path: Path, yes: bool
) -> None:
    person = Person(yes=yes)
    with FakeDecisionsServer([_pay_step] * 3, api_key="k") as fake:
        planner = DecisionsPlanner.from_env(api_key="k", base_url=fake.base_url)
        agent = Agent(browser, planner, out=tmp_path / "run", confirm="risky", confirmer=person)
        result = agent.run(server.url(PAGE), goal="delete my account")
    assert agent.page is not None
    logged = agent.page.playwright.evaluate("window.log")
    agent.page.close()
    # Asked once: about the planner's own risk stop; the step allowed is not asked again.
    assert [r.rule for r in person.asked] == ["planner_risk"]
    assert person.asked[0].action.startswith("click [")
    assert "looks risky: P(risk ≥ level 3) = 0.95" in person.asked[0].why
    if yes:
        assert result.stop_reason == "done", result.message
        assert logged == ["delete"]
    else:
        assert result.stop_reason == "needs_person"
        assert result.message.startswith("the person declined: click [")
        assert logged == []


def test_pagesight_run_asks_on_a_terminal_and_stops_on_a_no_or_without_one(
    monkeypatch: pytest.MonkeyPatch, browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    steps = tmp_path / "delete.steps"
    steps.write_text(DELETE)
    # No terminal (stdin a pipe, as in CI): no one to ask, so a risky step stops the run.
    read_end, write_end = os.pipe()
    with open(read_end, encoding="utf-8") as pipe:
        monkeypatch.setattr("sys.stdin", pipe)
        assert terminal_confirmer() is None
    os.close(write_end)
    # A terminal (a real pty) where the person types n: asked, declined, exit 3.
    main_fd, person_fd = os.openpty()
    os.write(main_fd, b"n\n")
    with open(person_fd, encoding="utf-8") as terminal:
        monkeypatch.setattr("sys.stdin", terminal)
        argv = ("--steps", str(steps), "--cdp-url", browser.cdp_url, "--out", str(tmp_path / "a"))
        asked = run_cli(monkeypatch, "run", server.url(PAGE), *argv)
    os.close(main_fd)
    assert asked.returncode == 3, asked.stdout + asked.stderr
    assert "button \"Delete account\": its name says 'delete'. Go ahead? [y/N]" in asked.stdout
    assert "needs_person: the person declined: click [" in asked.stdout


def test_pagesight_run_holds_back_what_its_confirm_rules_file_adds(
    monkeypatch: pytest.MonkeyPatch, browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    steps = tmp_path / "save.steps"
    steps.write_text('click the "Save profile" button\n')
    rules = tmp_path / "rules.json"
    rules.write_text('{"control_words": ["save"]}', encoding="utf-8")
    read_end, write_end = os.pipe()  # no terminal: no one to ask, the run stops
    os.close(write_end)
    with open(read_end, encoding="utf-8") as pipe:
        monkeypatch.setattr("sys.stdin", pipe)
        argv = ("--steps", str(steps), "--cdp-url", browser.cdp_url, "--out", str(tmp_path / "a"))
        done = run_cli(monkeypatch, "run", server.url(PAGE), *argv, "--confirm-rules", str(rules))
    assert done.returncode == 3, done.stdout + done.stderr
    assert "needs_person: a person must allow this: click [" in done.stdout
    assert "(its name says 'save')" in done.stdout


def test_the_terminals_question_never_shows_a_secret_the_page_repeats(
    monkeypatch: pytest.MonkeyPatch, browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    key = "tok-5521-SECRET-key"
    steps = tmp_path / "delete.steps"
    typed = 'type "{{KEY}}" into Project key\nexpect "Delete project"\n'  # then the page
    steps.write_text(typed + "click the Delete project button\n")
    main_fd, person_fd = os.openpty()
    os.write(main_fd, b"n\n")
    with open(person_fd, encoding="utf-8") as terminal:
        monkeypatch.setattr("sys.stdin", terminal)
        argv = ("--steps", str(steps), "--cdp-url", browser.cdp_url, "--out", str(tmp_path / "a"))
        asked = run_cli(
            monkeypatch, "run", server.url("confirm-secret.html"), *argv, "--secret", f"KEY={key}"
        )
    os.close(main_fd)
    assert asked.returncode == 3, asked.stdout + asked.stderr
    # The button repeats the key the run typed: the question names it as {{KEY}}.
    assert "button \"Delete project {{KEY}}\": its name says 'delete'. Go ahead? [y/N]" in (
        asked.stdout
    )
    assert key not in asked.stdout + asked.stderr


UNREADABLE = "confirm-unreadable.html"


def _centre(obs: Any, name: str, role: str) -> tuple[float, float]:
    bounds = one(obs, name, role).bounds
    assert bounds is not None
    return bounds[0] + bounds[2] / 2, bounds[1] + bounds[3] / 2


def test_a_target_the_page_will_not_let_be_read_is_judged_on_what_was_seen_or_asked_about(
    browser: Browser, server: StaticServer
) -> None:
    # The page's form has a field named "elements", which shadows form.elements: reading
    # the form's facts throws, though every control clicks as usual. The gate must not take
    # that for "nothing risky": it judges by the latest observation's name and role, by id
    # and by point alike, and asks when it knows nothing of the target at all.
    page = browser.open(server.url(UNREADABLE))
    try:
        session = _session(browser, page, ConfirmPolicy(mode="risky"))
        seen = session.latest
        assert seen is not None
        delete = one(seen, "Delete team", "button").id
        held = _call(browser, session, "click", ref=delete)
        assert held.error is not None and held.error.reason == "needs_person", held.text
        assert f"click [{delete}] button \"Delete team\" (its name says 'delete')" in held.text
        x, y = _centre(seen, "Delete team", "button")
        at = _call(browser, session, "click_xy", x=x, y=y)
        assert at.error is not None and at.error.reason == "needs_person", at.text
        assert "(its name says 'delete')" in at.text
        # A button whose name says nothing risky may still submit a form the page hides:
        # by its role, it is asked about.
        rename = _call(browser, session, "click", ref=one(seen, "Rename team", "button").id)
        assert rename.error is not None and rename.error.reason == "needs_person", rename.text
        assert "could not be read from the page" in rename.text
        assert _log(page) == []
        # A link submits nothing: its name and role are enough.
        helped = _call(browser, session, "click", ref=one(seen, "Team help", "link").id)
        assert helped.error is None, helped.text
        assert _log(page) == ["help"]
        # Nothing seen of it either (no observation of this tab yet): asked, by id and point.
        session.latest = None
        blind = _call(browser, session, "click", ref=delete)
        assert blind.error is not None and blind.error.reason == "needs_person", blind.text
        assert "could not be read from the page" in blind.text
        blind_at = _call(browser, session, "click_xy", x=x, y=y)
        assert blind_at.error is not None and blind_at.error.reason == "needs_person"
        assert "could not be read from the page" in blind_at.text
        assert _log(page) == []
        # An element gone since (replaced by its copy) is no failure to read: its id
        # resolves to nothing for the action too, which clicks nothing.
        session.latest = seen
        page.playwright.evaluate(
            "document.getElementById('delete').replaceWith("
            "document.getElementById('delete').cloneNode(true))"
        )
        stale = _call(browser, session, "click", ref=delete)
        assert stale.error is not None and stale.error.reason == "stale_id", stale.text
        assert _log(page) == []
    finally:
        page.close()


def test_the_agent_asks_its_confirmer_when_the_target_cannot_be_read(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    person = Person(yes=False)
    steps = _steps('click the "Delete team" button\n')
    agent = Agent(browser, steps, out=tmp_path / "run", confirm="risky", confirmer=person)
    result = agent.run(server.url(UNREADABLE))
    try:
        assert result.stop_reason == "needs_person", result.message
        assert agent.page is not None
        assert agent.page.playwright.evaluate("window.log") == []
    finally:
        if agent.page is not None:
            agent.page.close()
    assert [r.rule for r in person.asked] == ["risky_control"]
    assert person.asked[0].action.endswith(' button "Delete team"')
