"""Typing that widgets hear: a field that listens for keys gets them key by key."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import StaticServer
from pagesight import InvalidOption  # type: ignore[attr-defined, unused-ignore]
from support import one


def _open(page: Any, server: StaticServer) -> Any:
    page.playwright.goto(server.url("act-typing.html"))
    return page.observe()


def _js(page: Any, expression: str) -> Any:
    return page.playwright.evaluate(expression)


def test_a_date_picker_that_parses_on_keyup_ends_parsed(page: Any, server: StaticServer) -> None:
    field = one(_open(page, server), "Start date", "textbox")
    eff = page.act(field.id, "input", text="01/15/2000")
    assert _js(page, "window.picked") == "2000-01-15"  # its keyup handler saw the text
    assert "Picked 2000-01-15" in eff.texts_added
    assert eff.observation.element(field.id).value == "01/15/2000"
    # Escape drops text that never parsed; parsed text stays.
    page.act(field.id, "press_key", key="Escape")
    assert _js(page, "document.getElementById('start').value") == "01/15/2000"
    # Typed again, the old text is replaced, not added to.
    again = page.act(field.id, "input", text="02/29/2000")
    assert _js(page, "window.picked") == "2000-02-29"
    ((before, after),) = again.values
    assert (before.value, after.value) == ("01/15/2000", "02/29/2000")


def test_an_input_mask_listening_on_its_form_formats_what_is_typed(
    page: Any, server: StaticServer
) -> None:
    phone = one(_open(page, server), "Phone", "textbox")
    eff = page.act(phone.id, "input", text="5551234567")
    assert _js(page, "document.getElementById('phone').value") == "(555) 123-4567"
    # The Effect shows the value as the page left it, not as it was typed.
    ((before, after),) = eff.values
    assert (before.value, after.value) == (None, "(555) 123-4567")
    assert "value [" in eff.text() and '"(555) 123-4567"' in eff.text()


def test_appended_keys_go_to_the_end_of_their_field_not_where_focus_was(
    page: Any, server: StaticServer
) -> None:
    obs = _open(page, server)
    phone, coupon = one(obs, "Phone", "textbox"), one(obs, "Coupon code", "textbox")
    page.act(phone.id, "input", text="555")
    page.act(coupon.id, "click")  # focus is elsewhere now
    eff = page.act(phone.id, "input", text="1234567", append=True)
    assert _js(page, "document.getElementById('phone').value") == "(555) 123-4567"
    assert _js(page, "document.getElementById('coupon').value") == ""
    assert eff.observation.element(phone.id).value == "(555) 123-4567"


def test_an_inline_onkeyup_handler_is_heard_too(page: Any, server: StaticServer) -> None:
    card = one(_open(page, server), "Card number", "textbox")
    eff = page.act(card.id, "input", text="4242424242424242")
    assert _js(page, "document.getElementById('card').value") == "4242 4242 4242 4242"
    assert eff.observation.element(card.id).value == "4242 4242 4242 4242"


def test_keys_false_inserts_the_text_though_the_field_listens(
    page: Any, server: StaticServer
) -> None:
    field = one(_open(page, server), "Start date", "textbox")
    eff = page.act(field.id, "input", text="01/15/2000", keys=False)
    assert _js(page, "window.picked") is None  # its keyup handler never ran
    assert eff.observation.element(field.id).value == "01/15/2000"


def test_keys_true_types_key_by_key_where_no_listener_is_seen(
    page: Any, server: StaticServer
) -> None:
    coupon = one(_open(page, server), "Coupon code", "textbox")
    page.act(coupon.id, "input", text="SAVE")  # only the document listens: inserted
    assert _js(page, "window.couponKeys") == []
    eff = page.act(coupon.id, "input", text="SAVE10", keys=True)
    # The old text goes as a person clears it (select all, Delete), then each key.
    assert _js(page, "window.couponKeys") == ["Delete", "S", "A", "V", "E", "1", "0"]
    assert eff.observation.element(coupon.id).value == "SAVE10"


def test_a_line_break_typed_into_a_one_line_field_is_a_space_not_enter(
    page: Any, server: StaticServer
) -> None:
    coupon = one(_open(page, server), "Coupon code", "textbox")
    plain = page.act(coupon.id, "input", text="SAVE\n10")  # inserted: the browser's own way
    assert _js(page, "document.getElementById('coupon').value") == "SAVE 10"
    assert plain.observation.element(coupon.id).value == "SAVE 10"
    page.act(coupon.id, "input", text="GIFT\r\n20", keys=True)  # typed: the same value
    assert _js(page, "document.getElementById('coupon').value") == "GIFT 20"
    assert "Enter" not in _js(page, "window.couponKeys")  # no Enter to submit a form


def test_keys_goes_with_text_input_only(page: Any, server: StaticServer) -> None:
    coupon = one(_open(page, server), "Coupon code", "textbox")
    with pytest.raises(InvalidOption) as info:
        page.act(coupon.id, "click", keys=True)
    assert info.value.option == "keys"
