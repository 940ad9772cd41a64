"""Effects of in-page actions: dialogs (and how they are answered), focus moves, no-ops."""

from __future__ import annotations

from typing import Any

from conftest import StaticServer
from pagesight import DialogPolicy  # type: ignore[attr-defined, unused-ignore]
from support import one


def _goto(page: Any, server: StaticServer, path: str) -> str:
    url = server.url(path)
    page.playwright.goto(url)
    return url


def _status(page: Any) -> str:
    text: str = page.playwright.evaluate("document.getElementById('status').textContent")
    return text


def test_an_alert_is_accepted_and_reported_once(page: Any, server: StaticServer) -> None:
    _goto(page, server, "act-dialogs.html")
    obs = page.observe()
    eff = page.act(one(obs, "Save draft", "button").id, "click")
    assert eff.kinds == ("dom_change", "dialog")
    assert eff.texts_added == ("alert closed",)
    (dialog,) = eff.dialogs
    assert (dialog.type, dialog.message, dialog.accepted) == ("alert", "Draft saved", True)
    assert _status(page) == "alert closed"  # the page's script went on after the alert
    assert "Draft saved" in eff.text()
    after = page.act(one(obs, "Nothing happens", "button").id, "click")
    assert after.kinds == ("no_op",) and after.dialogs == ()


def test_a_confirm_is_dismissed_by_default(page: Any, server: StaticServer) -> None:
    _goto(page, server, "act-dialogs.html")
    eff = page.act(one(page.observe(), "Delete item", "button").id, "click")
    assert "dialog" in eff.kinds
    (dialog,) = eff.dialogs
    assert (dialog.type, dialog.message, dialog.accepted) == ("confirm", "Delete this item?", False)
    assert _status(page) == "cancelled"


def test_a_page_can_be_told_to_accept_confirms_and_answer_prompts(
    page: Any, server: StaticServer
) -> None:
    _goto(page, server, "act-dialogs.html")
    obs = page.observe()
    page.dialogs = DialogPolicy(confirm="accept", prompt="accept", prompt_text="Quarterly")
    confirmed = page.act(one(obs, "Delete item", "button").id, "click")
    (dialog,) = confirmed.dialogs
    assert (dialog.type, dialog.accepted) == ("confirm", True)
    assert _status(page) == "confirmed"
    renamed = page.act(one(obs, "Rename item", "button").id, "click")
    (dialog,) = renamed.dialogs
    assert (dialog.type, dialog.message, dialog.accepted) == ("prompt", "New name?", True)
    assert _status(page) == "renamed to Quarterly"


def test_a_prompt_is_dismissed_by_default(page: Any, server: StaticServer) -> None:
    _goto(page, server, "act-dialogs.html")
    eff = page.act(one(page.observe(), "Rename item", "button").id, "click")
    (dialog,) = eff.dialogs
    assert (dialog.type, dialog.accepted) == ("prompt", False)
    assert _status(page) == "no name"


def test_a_button_that_focuses_a_field_reports_the_field(page: Any, server: StaticServer) -> None:
    _goto(page, server, "act-focus.html")
    obs = page.observe()
    email = one(obs, "Email", "textbox")
    eff = page.act(one(obs, "Edit email", "button").id, "click")
    assert eff.kinds == ("focus_change",)
    assert eff.focused is not None
    assert (eff.focused.id, eff.focused.name) == (email.id, "Email")
    assert page.playwright.evaluate("document.activeElement.id") == "email"


def test_tab_moves_focus_to_the_next_field(page: Any, server: StaticServer) -> None:
    _goto(page, server, "act-focus.html")
    obs = page.observe()
    email, phone, city = (one(obs, name, "textbox") for name in ("Email", "Phone", "City"))
    eff = page.act(email.id, "press_key", key="Tab")
    assert "focus_change" in eff.kinds
    assert eff.focused is not None and eff.focused.id == phone.id
    assert page.playwright.evaluate("document.activeElement.id") == "phone"
    # No element: the key goes to whatever has focus.
    eff = page.act(None, "press_key", key="Tab")
    assert eff.focused is not None and eff.focused.id == city.id
    assert page.playwright.evaluate("document.activeElement.id") == "city"


def test_a_button_with_no_handler_is_a_no_op(page: Any, server: StaticServer) -> None:
    start = _goto(page, server, "act-links.html")
    button = one(page.observe(), "Nothing happens", "button")
    eff = page.act(button.id, "click")
    assert eff.kinds == ("no_op",)
    assert eff.url_after == eff.url_before == start
    assert eff.changes is not None
    assert (eff.changes.added, eff.changes.removed) == ((), ())
    # The clicked button itself may now show [focused]; nothing else changed.
    assert all(after.id == button.id for _, after in eff.changes.changed), eff.changes.changed
    assert eff.values == () and eff.texts_added == () and eff.focused is None
    assert "no_op" in eff.text()
