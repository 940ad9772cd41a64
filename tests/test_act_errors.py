"""Re-validation when an action runs: a clear, typed refusal instead of a wrong click."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import StaticServer
from pagesight import (
    ActionError,  # type: ignore[attr-defined, unused-ignore]
    InputError,
    Observation,
    StaleElement,
)
from support import one


def _errors_page(page: Any, server: StaticServer) -> Observation:
    page.playwright.goto(server.url("act-errors.html"))
    obs: Observation = page.observe()
    return obs


def _clicks(page: Any) -> dict[str, int]:
    clicks: dict[str, int] = page.playwright.evaluate("window.clicks")
    return clicks


def _refused(page: Any, element_id: int, action: str, reason: str, **args: Any) -> Any:
    """Run the action, expect an ActionError for ``reason``, and check what every one says."""
    with pytest.raises(ActionError) as info:
        page.act(element_id, action, **args)
    error = info.value
    assert error.reason == reason, str(error)
    assert error.element_id == element_id
    assert isinstance(error, InputError) and error.exit_code == 2
    message = str(error)
    assert message and "\n" not in message  # one clear line
    return error


def test_a_re_rendered_element_is_stale_not_its_look_alike(page: Any, server: StaticServer) -> None:
    obs = _errors_page(page, server)
    save = one(obs, "Save", "button")
    page.playwright.evaluate("window.rerender()")  # a new node with the same text
    error = _refused(page, save.id, "click", "stale_id")
    assert isinstance(error, StaleElement)
    assert _clicks(page)["save"] == 0  # the new button was not clicked in its place
    fresh = one(page.observe(), "Save", "button")
    assert fresh.id != save.id
    page.act(fresh.id, "click")
    assert _clicks(page)["save"] == 1


def test_an_id_from_before_a_reload_is_stale(page: Any, server: StaticServer) -> None:
    obs = _errors_page(page, server)
    export = one(obs, "Export", "button")
    page.playwright.reload()
    error = _refused(page, export.id, "click", "stale_id")
    assert isinstance(error, StaleElement)
    assert _clicks(page)["export"] == 0


def test_an_element_hidden_after_observing_is_not_visible(page: Any, server: StaticServer) -> None:
    obs = _errors_page(page, server)
    details = one(obs, "Show details", "button")
    page.playwright.evaluate("document.getElementById('details').style.display = 'none'")
    _refused(page, details.id, "click", "not_visible")
    assert _clicks(page)["details"] == 0


def test_a_button_under_an_opaque_overlay_is_covered_and_the_overlay_named(
    page: Any, server: StaticServer
) -> None:
    obs = _errors_page(page, server)
    pay = one(obs, "Pay now", "button")
    page.playwright.evaluate("window.showBackdrop()")
    error = _refused(page, pay.id, "click", "covered")
    assert "backdrop" in str(error), str(error)
    assert _clicks(page)["pay"] == 0  # the overlay swallowed nothing either: no click was sent


def test_a_disabled_button_is_refused(page: Any, server: StaticServer) -> None:
    obs = _errors_page(page, server)
    _refused(page, one(obs, "Archive", "button").id, "click", "disabled")
    # Disabled after it was observed: the live state counts, not the observation.
    export = one(obs, "Export", "button")
    page.playwright.evaluate("document.getElementById('export').disabled = true")
    _refused(page, export.id, "click", "disabled")
    assert _clicks(page)["export"] == 0


def test_typing_into_a_readonly_field_is_refused(page: Any, server: StaticServer) -> None:
    obs = _errors_page(page, server)
    _refused(page, one(obs, "Account ID", "textbox").id, "input", "readonly", text="ACC-2")
    assert page.playwright.evaluate("document.getElementById('account').value") == "ACC-1"


def test_typing_into_a_button_is_not_editable(page: Any, server: StaticServer) -> None:
    obs = _errors_page(page, server)
    error = _refused(page, one(obs, "Export", "button").id, "input", "not_editable", text="x")
    assert "click" in error.actions and "input" not in error.actions


def test_selecting_an_option_that_is_not_there_lists_the_options(
    page: Any, server: StaticServer
) -> None:
    obs = _errors_page(page, server)
    plan = one(obs, "Plan", "combobox")
    error = _refused(page, plan.id, "select", "option_not_found", values="Enterprise")
    assert error.options == ("Free", "Pro", "Team")
    assert page.playwright.evaluate("document.getElementById('plan').value") == "Free"


def test_selecting_on_a_button_is_unsupported_and_lists_what_applies(
    page: Any, server: StaticServer
) -> None:
    obs = _errors_page(page, server)
    error = _refused(
        page, one(obs, "Export", "button").id, "select", "unsupported_action", values="x"
    )
    assert "click" in error.actions and "select" not in error.actions
    assert _clicks(page)["export"] == 0
