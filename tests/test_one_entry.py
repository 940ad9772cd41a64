"""One control, one entry (issue 23, §4): a clickable that only reaches the field it labels
(aria-labelledby) or wraps alone (a box around one field that shows nothing but the field's
name) folds into that field, which keeps the id; what may do something else when clicked stays
an entry of its own. Real Chromium, on booking.html and one-entry.html."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import StaticServer
from pagesight import Agent, Browser, Observation
from pagesight.planners import StepsPlanner
from support import line, one, open_and_observe


def _booking_form(page: Any, server: StaticServer) -> Observation:
    """booking.html with its form open (by the page's own button, so the test reads the
    outline only for what it is about)."""
    open_and_observe(page, server.url("booking.html"))
    page.playwright.click("#open")
    obs: Observation = page.observe()
    return obs


def _js(page: Any, expression: str) -> Any:
    return page.playwright.evaluate(expression)


def _clickables(obs: Observation) -> list[str]:
    return [el.name for el in obs.elements if el.role == "clickable"]


def test_a_custom_checkbox_and_the_clickable_text_naming_it_are_one_entry(
    page: Any, server: StaticServer
) -> None:
    obs = _booking_form(page, server)
    agree = one(obs, "I agree to the terms")  # the checkbox alone: the span is its label
    assert line(obs, "I agree") == f'[{agree.id}] checkbox "I agree to the terms"'
    page.act(agree.id, "click")
    assert _js(page, "document.getElementById('agree').getAttribute('aria-checked')") == "true"
    assert "checked" in page.observe().element(agree.id).states


def test_a_box_around_one_field_showing_only_its_label_is_the_field(
    page: Any, server: StaticServer
) -> None:
    # Material UI-like: the box (the label inside it) listens for clicks to focus the input.
    obs = _booking_form(page, server)
    email = one(obs, "Email address")
    assert email.role == "textbox" and "Email address" not in _clickables(obs), obs.text()
    page.act(email.id, "input", text="ada@example.com")
    assert _js(page, "document.getElementById('email').value") == "ada@example.com"
    assert page.observe().element(email.id).value == "ada@example.com"


def test_the_steps_planner_ticks_the_terms_by_their_text_and_the_booking_is_confirmed(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    # Two entries of that name made this click ambiguous, and the run stopped before it.
    script = (
        'click "Book a table"\n'
        'type "Ada Lovelace" into the Full name field\n'
        'type "ada@example.com" into the Email address field\n'
        'click "I agree to the terms"\n'
        "click the Confirm button\n"
        'expect "Booking confirmed for Ada Lovelace: 2 people."\n'
    )
    agent = Agent(browser, StepsPlanner.from_text(script), out=tmp_path / "run", max_steps=10)
    try:
        result = agent.run(server.url("booking.html"))
        assert agent.page is not None
        booking = agent.page.playwright.evaluate("window.booking")
    finally:
        if agent.page is not None:
            agent.page.close()
    assert result.stop_reason == "done", result.message
    assert booking == {
        "name": "Ada Lovelace",
        "email": "ada@example.com",
        "date": "",
        "party": "2",
        "notes": "",
        "agreed": True,
    }


def test_a_box_around_two_fields_stays_a_target_of_its_own(page: Any, server: StaticServer) -> None:
    obs = open_and_observe(page, server.url("one-entry.html"))
    one(obs, "Nickname", "textbox")  # the box around one field folds into it...
    assert "Nickname" not in _clickables(obs)
    one(obs, "First Last", "clickable")  # ...a box around two cannot mean either
    one(obs, "First", "textbox")
    one(obs, "Last", "textbox")


def test_a_text_naming_a_field_stays_an_entry_where_its_click_may_do_something_else(
    page: Any, server: StaticServer
) -> None:
    obs = open_and_observe(page, server.url("one-entry.html"))
    # The text of a custom checkbox folds into it...
    policy = one(obs, "I accept the privacy policy")
    assert policy.role == "checkbox"
    # ...but one that says it opens a dialog of its own (aria-haspopup) is a target too.
    one(obs, "Weekly newsletter", "checkbox")
    news = one(obs, "Weekly newsletter", "clickable")
    page.act(news.id, "click")
    assert _js(page, "window.opened") == ["newsletter"]
    # A text naming one field folds into it; naming two, its click cannot reach just one.
    one(obs, "Postcode", "textbox")
    one(obs, "Phone number", "clickable")
    assert [el.role for el in obs.elements if el.name == "Phone number"] == [
        "clickable",
        "textbox",
        "textbox",
    ]
    # A text naming a checkbox that is not drawn is what a person clicks: it stays.
    updates = one(obs, "Send me updates", "clickable")
    page.act(updates.id, "click")
    assert _js(page, "document.getElementById('updates').checked") is True
