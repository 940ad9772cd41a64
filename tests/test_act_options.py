"""Bad arguments to act and batch are refused before anything touches the page."""

from __future__ import annotations

import math
from typing import Any

import pytest

from conftest import StaticServer
from pagesight import ActionError, InvalidOption
from support import one


def _form(page: Any, server: StaticServer) -> Any:
    page.playwright.goto(server.url("act-form.html"))
    return page.observe()


@pytest.mark.parametrize(
    ("action", "args", "option"),
    [
        ("input", {}, "text"),
        ("press_key", {"key": "Hyper+Q"}, "key"),
        ("press_key", {}, "key"),
        ("select", {"values": []}, "values"),
        ("scroll", {"direction": "sideways"}, "direction"),
        ("scroll", {"direction": "down", "pixels": 1.5}, "pixels"),
        ("upload", {"files": "/no/such/file.pdf"}, "files"),
        ("click", {"hold": 0}, "hold"),
        ("click", {"count": 4}, "count"),
        ("click", {"button": "back"}, "button"),
        ("drag", {"to": "x"}, "to"),
        ("drag", {"by": (math.nan, 5)}, "by"),  # not a move: Chromium's protocol refuses it
        ("input", {"text": "x", "keys": "yes"}, "keys"),
    ],
)
def test_bad_arguments_name_the_option(
    page: Any, server: StaticServer, action: str, args: dict[str, Any], option: str
) -> None:
    field = one(_form(page, server), "Search the site", "textbox")
    with pytest.raises(InvalidOption) as info:
        page.act(field.id, action, **args)
    assert info.value.option == option
    assert info.value.exit_code == 2
    assert page.playwright.evaluate("window.submits") == []


def test_a_misspelt_option_is_refused_as_a_signature_would_before_the_click(
    page: Any, server: StaticServer
) -> None:
    # act takes its options as keywords: one that is no option is a TypeError, as for any
    # Python call, not a keyword dropped and a plain left click done instead.
    go = one(_form(page, server), "Go", "button")
    with pytest.raises(TypeError, match="unexpected keyword argument 'buton'"):
        page.act(go.id, "click", buton="right")
    with pytest.raises(TypeError, match="unexpected keyword argument 'cout'"):
        page.act(go.id, "click", cout=2)
    assert page.playwright.evaluate("window.submits") == []


def test_an_unknown_action_lists_what_the_element_accepts(page: Any, server: StaticServer) -> None:
    field = one(_form(page, server), "Search the site", "textbox")
    with pytest.raises(ActionError) as info:
        page.act(field.id, "tap")
    assert info.value.reason == "unsupported_action"
    assert "input" in info.value.actions and "click" in info.value.actions


def test_keys_and_chords_that_are_accepted(page: Any, server: StaticServer) -> None:
    page.playwright.goto(server.url("act-keys.html"))
    field = one(page.observe(), "Note", "textbox")
    keys = ("a", "Enter", "Shift+ArrowLeft", "Control+Shift+KeyZ", "F5", "Control++")
    effects = [page.act(field.id, "press_key", key=key, wait=0) for key in keys]
    # Each reached the page as the key and modifiers named (the page logs every keydown).
    assert page.playwright.evaluate("window.keys") == [
        "a", "Enter", "Shift+ArrowLeft", "Control+Shift+Z", "F5", "Control++",
    ]  # fmt: skip
    # The letter was typed into the field (where the caret was), and the Effect says so.
    ((before, after),) = effects[0].values
    assert (before.id, before.value) == (field.id, "draft text")
    assert after.value is not None and sorted(after.value) == sorted("draft text" + "a")
    assert page.playwright.evaluate("document.getElementById('note').value") == after.value


def test_a_malformed_batch_runs_nothing(page: Any, server: StaticServer) -> None:
    field = one(_form(page, server), "Search the site", "textbox")
    steps: list[Any] = [(field.id, "input", {"text": "shoes"}), (field.id, "fly")]
    with pytest.raises(InvalidOption):
        page.batch(steps)
    with pytest.raises(InvalidOption):
        page.batch([(field.id, "input", {"txt": "shoes"})])
    with pytest.raises(InvalidOption):
        page.batch([(None, "navigate", {})])
    # A bad value in a later step is refused before the first runs, as page.act would refuse it.
    for bad in ({"files": "/no/such/file.pdf"}, {"count": 4}, {"by": (0, 0)}, {"wait": -1}):
        action = "upload" if "files" in bad else "drag" if "by" in bad else "click"
        with pytest.raises(InvalidOption) as info:
            page.batch([(field.id, "input", {"text": "shoes"}), (field.id, action, bad)])
        assert info.value.option == next(iter(bad))
    assert page.playwright.evaluate("document.querySelector('[name=site_q]').value") == ""


def test_an_unknown_tab_id_is_refused(browser: Any) -> None:
    with pytest.raises(InvalidOption) as info:
        browser.page(10_000)
    assert "open tabs" in str(info.value)


def test_a_custom_checkbox_is_clicked_at_its_label(page: Any, server: StaticServer) -> None:
    page.playwright.goto(server.url("edge-controls.html"))
    for name in ("Accept terms", "Dark mode"):
        box = one(page.observe(), name)
        eff = page.act(box.id, "click")
        assert eff.kinds[0] == "value_change", eff.text()
        assert "checked" in eff.values[0][1].states
