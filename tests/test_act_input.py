"""Typing, selecting, hovering and keys, as the page's own scripts see them."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import StaticServer
from pagesight import ActionError  # type: ignore[attr-defined, unused-ignore]
from support import absent, one


def _goto(page: Any, server: StaticServer, path: str) -> str:
    url = server.url(path)
    page.playwright.goto(url)
    return url


def _js(page: Any, expression: str) -> Any:
    return page.playwright.evaluate(expression)


# --- text ---------------------------------------------------------------------------------


def test_typing_into_a_controlled_input_updates_the_page_state(
    page: Any, server: StaticServer
) -> None:
    _goto(page, server, "act-controlled.html")
    box = one(page.observe(), "Display name", "textbox")
    eff = page.act(box.id, "input", text="Grace Hopper")
    assert eff.kinds == ("dom_change", "value_change")
    # The page's own state (updated only by real input events) holds the text, not "Ada…".
    assert _js(page, "window.state.name") == "Grace Hopper"
    assert _js(page, "window.inputEvents") >= 1
    ((before, after),) = eff.values
    assert (before.id, before.value, after.id, after.value) == (
        box.id,
        "Ada",
        box.id,
        "Grace Hopper",
    )
    assert "Hello, Grace Hopper!" in eff.texts_added
    assert eff.observation.element(box.id).value == "Grace Hopper"

    more = page.act(box.id, "input", text=" (admiral)", append=True)
    assert _js(page, "window.state.name") == "Grace Hopper (admiral)"
    ((before, after),) = more.values
    assert (before.value, after.value) == ("Grace Hopper", "Grace Hopper (admiral)")


def test_input_submit_runs_the_forms_submit_handler(page: Any, server: StaticServer) -> None:
    start = _goto(page, server, "act-form.html")
    field = one(page.observe(), "Filter", "searchbox")
    eff = page.act(field.id, "input_submit", text="red shoes")
    assert _js(page, "window.submits") == ["red shoes"]
    assert eff.kinds == ("dom_change", "value_change")  # no navigation: the handler stops it
    assert "Results for red shoes" in eff.texts_added
    ((before, after),) = eff.values
    assert (before.id, before.value, after.value) == (field.id, None, "red shoes")
    assert eff.url_after == start


def test_pressing_enter_in_a_field_submits_its_form(page: Any, server: StaticServer) -> None:
    _goto(page, server, "act-form.html")
    field = one(page.observe(), "Filter", "searchbox")
    page.act(field.id, "input", text="blue")
    assert _js(page, "window.submits") == []  # typing alone does not submit
    eff = page.act(field.id, "press_key", key="Enter")
    assert _js(page, "window.submits") == ["blue"]
    assert "Results for blue" in eff.texts_added


def test_input_submit_on_a_classic_form_navigates(page: Any, server: StaticServer) -> None:
    _goto(page, server, "act-form.html")
    field = one(page.observe(), "Search the site", "textbox")
    eff = page.act(field.id, "input_submit", text="red shoes")
    assert "navigation" in eff.kinds
    assert eff.url_after == server.url("act-target.html?site_q=red+shoes") == page.url


# --- keys ---------------------------------------------------------------------------------


def test_control_a_then_backspace_clears_a_field(page: Any, server: StaticServer) -> None:
    _goto(page, server, "act-keys.html")
    note = one(page.observe(), "Note", "textbox")
    page.act(note.id, "press_key", key="Control+A")
    assert [k.lower() for k in _js(page, "window.keys")] == ["control+a"]  # one chord
    selection = "[document.activeElement.selectionStart, document.activeElement.selectionEnd]"
    assert _js(page, selection) == [0, len("draft text")]
    eff = page.act(note.id, "press_key", key="Backspace")
    assert _js(page, "document.getElementById('note').value") == ""
    assert "value_change" in eff.kinds
    ((before, after),) = eff.values
    assert before.value == "draft text" and not after.value
    assert _js(page, "window.keys")[-1] == "Backspace"


def test_a_key_with_no_element_goes_to_the_page(page: Any, server: StaticServer) -> None:
    _goto(page, server, "act-keys.html")
    obs = page.observe()
    assert "Press Escape to close this tip" in obs.text()
    eff = page.act(None, "press_key", key="Escape")
    assert _js(page, "window.keys") == ["Escape"]
    assert eff.kinds == ("dom_change",)
    assert eff.texts_removed == ("Press Escape to close this tip",)
    assert _js(page, "document.getElementById('help')") is None


# --- select -------------------------------------------------------------------------------


def test_a_native_select_by_label_and_by_value(page: Any, server: StaticServer) -> None:
    _goto(page, server, "act-select.html")
    city = one(page.observe(), "City", "combobox")
    eff = page.act(city.id, "select", values="Tokyo")  # a label
    assert eff.kinds == ("dom_change", "value_change")
    assert _js(page, "window.state.city") == "tyo"
    ((before, after),) = eff.values
    assert (before.value, after.value) == ("London", "Tokyo")
    eff = page.act(city.id, "select", values="par")  # a value
    assert _js(page, "window.state.city") == "par"
    assert eff.observation.element(city.id).value == "Paris"


def test_a_multiple_select_picks_every_option_given(page: Any, server: StaticServer) -> None:
    _goto(page, server, "act-select.html")
    toppings = one(page.observe(), "Toppings", "listbox")
    eff = page.act(toppings.id, "select", values=["Cheese", "olv"])
    assert eff.kinds == ("dom_change", "value_change")
    ((before, after),) = eff.values
    assert (before.id, before.value, after.value) == (toppings.id, None, "Cheese, Olives")
    assert _js(page, "window.state.toppings") == ["chs", "olv"]
    picked = "[...document.getElementById('toppings').selectedOptions].map((o) => o.label)"
    assert _js(page, picked) == ["Cheese", "Olives"]


def test_an_option_that_is_not_there_is_refused_with_the_options(
    page: Any, server: StaticServer
) -> None:
    _goto(page, server, "act-select.html")
    city = one(page.observe(), "City", "combobox")
    with pytest.raises(ActionError) as info:
        page.act(city.id, "select", values="Berlin")
    assert info.value.reason == "option_not_found"
    assert info.value.element_id == city.id
    assert info.value.options == ("London", "Paris", "Tokyo")
    assert "Berlin" in str(info.value)
    assert _js(page, "window.state.city") == "lon"


def test_an_aria_combobox_is_opened_and_its_option_clicked(page: Any, server: StaticServer) -> None:
    _goto(page, server, "act-select.html")
    fruit = one(page.observe(), "Fruit", "combobox")
    eff = page.act(fruit.id, "select", values="Banana")
    assert eff.kinds == ("dom_change", "value_change")
    ((before, after),) = eff.values
    assert (before.id, before.value, after.value) == (fruit.id, "Choose a fruit", "Banana")
    assert _js(page, "window.state.fruit") == "banana"
    assert _js(page, "document.getElementById('fruit-list').hidden")  # closed again
    assert eff.observation.element(fruit.id).value == "Banana"


def test_an_aria_combobox_lists_its_options_when_one_is_missing(
    page: Any, server: StaticServer
) -> None:
    _goto(page, server, "act-select.html")
    fruit = one(page.observe(), "Fruit", "combobox")
    with pytest.raises(ActionError) as info:
        page.act(fruit.id, "select", values="Mango")
    assert info.value.reason == "option_not_found"
    assert info.value.options == ("Apple", "Banana", "Cherry")
    assert _js(page, "window.state.fruit") is None


# --- hover --------------------------------------------------------------------------------


def test_hovering_a_menu_reveals_its_items_which_can_then_be_clicked(
    page: Any, server: StaticServer
) -> None:
    _goto(page, server, "act-hover.html")
    obs = page.observe()
    absent(obs, "Laptops", "Phones")
    eff = page.act(one(obs, "Products").id, "hover")
    assert eff.kinds == ("dom_change",)
    assert eff.changes is not None
    assert {"Laptops", "Phones"} <= {el.name for el in eff.changes.added}
    phones = one(eff.observation, "Phones", "button")
    picked = page.act(phones.id, "click")
    assert _js(page, "window.picked") == "Phones"
    assert "Picked Phones" in picked.texts_added
