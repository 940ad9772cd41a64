"""Form controls in one shape, with live values and states; grouping; CJK labels."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import StaticServer
from pagesight import Browser
from support import one


@pytest.mark.parametrize("mode", ["cdp", "evaluate"])
def test_contact_form_controls_with_live_values_after_typing(
    browser: Browser, server: StaticServer, mode: Any
) -> None:
    page = browser.open(server.url("form.html"))
    pw = page.playwright
    name_box = pw.get_by_label("Full name")
    name_box.fill("Ada Lovelace")
    pw.get_by_label("Country").select_option("Japan")
    pw.get_by_label("Subscribe to newsletter").check()
    pw.get_by_label("Phone").check()
    pw.get_by_label("Message").fill("Hello there")
    pw.get_by_label("Notes").click()
    pw.keyboard.type("Call after 5")
    pw.get_by_label("Password").fill("hunter2")
    obs = page.observe(mode=mode)

    # The live value, not the HTML attribute.
    assert name_box.get_attribute("value") is None
    assert one(obs, "Full name", "textbox").value == "Ada Lovelace"
    country = one(obs, "Country", "combobox")
    assert country.value == "Japan"
    assert country.options == ("Canada", "France", "Japan")
    assert "select" in country.actions
    assert "checked" in one(obs, "Subscribe to newsletter", "checkbox").states
    assert "checked" in one(obs, "Phone", "radio").states
    assert "checked" not in one(obs, "Email", "radio").states
    assert one(obs, "Message", "textbox").value == "Hello there"
    notes = one(obs, "Notes", "textbox")
    assert notes.value == "Call after 5" and "focused" not in notes.states
    assert "input" in notes.actions
    # A password's value is masked: a model never needs the secret itself.
    password = one(obs, "Password", "textbox")
    assert password.value is not None and "hunter2" not in obs.text()
    assert "focused" in password.states  # typed into last
    assert "hunter2" not in obs.to_json()
    account = one(obs, "Account ID", "textbox")
    assert account.value == "ACC-20931" and "readonly" in account.states
    assert "required" in one(obs, "Email address", "textbox").states
    assert one(obs, "Volume", "slider").value == "40"
    one(obs, "Send message", "button")
    assert 'form "Contact us"' in obs.text()
    assert 'group "Contact by"' in obs.text()
    page.close()


def test_invalid_state_after_the_user_leaves_a_required_field_empty(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("form.html"))
    field = page.playwright.get_by_label("Message")
    field.fill("x")
    field.fill("")
    page.playwright.get_by_label("Full name").click()
    assert "invalid" in one(page.observe(), "Message", "textbox").states
    page.close()


def test_each_card_keeps_its_text_beside_its_own_edit_button(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("cards.html"))
    obs = page.observe()
    edits = [el for el in obs.elements if el.name == "Edit"]
    assert len(edits) == 5
    assert [e.context for e in edits] == [
        "Alice Chen",
        "Bob Martin",
        "Carla Diaz",
        "Dev Patel",
        "Emma Schulz",
    ]
    lines = obs.text().splitlines()
    for person in ("Alice Chen", "Bob Martin"):
        at = next(i for i, line in enumerate(lines) if line.strip() == person)
        following = [line.strip() for line in lines[at : at + 4]]
        assert any(line.endswith('button "Edit"') for line in following), following
    interactive = page.observe(view="interactive").text()
    assert "# Alice Chen" in interactive and "# Emma Schulz" in interactive
    page.close()


def test_chinese_japanese_and_korean_labels(browser: Browser, server: StaticServer) -> None:
    page = browser.open(server.url("cjk.html"))
    obs = page.observe()
    one(obs, "搜索", "searchbox")
    for name in ("保存", "取消", "送信", "검색"):
        one(obs, name, "button")
    one(obs, "お名前", "textbox")
    one(obs, "이메일", "textbox")
    for heading in ("简体中文", "日本語", "한국어"):
        assert f'h2 "{heading}"' in obs.text()
    assert one(obs, "送信", "button").context == "日本語"
    page.close()
