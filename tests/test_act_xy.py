"""Actions at a point of the viewport (``page.act_at``): CSS pixels as element bounds give
them, through the same runner as every action (readiness, settling, an Effect), and refused
outside the viewport before anything is done."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import StaticServer
from pagesight import Browser, InvalidOption
from pagesight.observe.elements import Element
from support import one
from vision_support import app_state, open_canvas


def _centre(el: Element) -> tuple[float, float]:
    assert el.bounds is not None
    x, y, w, h = el.bounds
    return x + w / 2, y + h / 2


def _open(browser: Browser, server: StaticServer) -> Any:
    return browser.open(server.url("act-xy.html"))


def test_a_click_at_a_buttons_centre_reports_what_it_added(
    browser: Browser, server: StaticServer
) -> None:
    page = _open(browser, server)
    try:
        obs = page.observe(include={"bounds"})
        add = one(obs, "Add note", "button")
        x, y = _centre(add)
        eff = page.act_at("click", x, y)
        # The button there is named as the one clicked (so its focus is no news).
        assert eff.kinds == ("dom_change",)
        assert eff.element_id == add.id
        lines = eff.text().splitlines()
        assert lines[0] == f"click [{add.id}] -> dom_change"
        assert lines[1:] == [
            "  elements: 1 added, 0 removed, 0 changed",
            f'  + [{one(eff.observation, "Note 1").id}] button "Note 1"',
        ]
        assert one(eff.observation, "Note 1", "button")  # the observation after it
        assert page.playwright.evaluate("document.querySelectorAll('#notes li').length") == 1
        # A double click is two clicks.
        page.act_at("click", x, y, count=2)
        assert page.playwright.evaluate("document.querySelectorAll('#notes li').length") == 3
    finally:
        page.close()


def test_the_element_a_point_names_is_the_innermost_one_in_view_there(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("act-xy-boxes.html"))
    try:
        obs = page.observe(include={"bounds"})
        log = "document.getElementById('log').textContent"
        # The small button inside the clickable card, not the card around it.
        remove, card = one(obs, "Remove", "button"), one(obs, "Open invoice", "button")
        eff = page.act_at("click", *_centre(remove))
        assert page.playwright.evaluate(log) == "remove clicked"
        assert eff.element_id == remove.id
        assert eff.text().splitlines()[0] == f"click [{remove.id}] -> dom_change"
        assert card.bounds is not None
        x, y, _, _ = card.bounds
        assert page.act_at("click", x + 8, y + 8).element_id == card.id
        assert page.playwright.evaluate(log) == "card clicked"
        # "Three" is scrolled out of its list, and its box lies over "Big": the click is
        # Big's, and so is the name.
        big, three = one(obs, "Big", "button"), one(obs, "Three", "button")
        assert three.bounds is not None and three.offscreen
        tx, ty, tw, th = three.bounds
        assert big.bounds is not None and big.bounds[1] < ty + th / 2  # under it indeed
        eff = page.act_at("click", tx + tw / 2, ty + th / 2)
        assert page.playwright.evaluate(log) == "big clicked"
        assert eff.element_id == big.id
    finally:
        page.close()


def test_a_middle_click_at_a_link_reports_the_tab_it_opened(
    browser: Browser, server: StaticServer
) -> None:
    page = _open(browser, server)
    try:
        obs = page.observe(include={"bounds"})
        help_link = one(obs, "Help", "link")
        eff = page.act_at("click", *_centre(help_link), button="middle")
        # A link opened in a new tab has no opener: it is this action's all the same.
        assert "new_tab" in eff.kinds, eff.text()
        assert [t.url for t in eff.new_tabs] == [server.url("act-xy.html#help")]
        assert page.url == server.url("act-xy.html")  # this tab stayed
        browser.page(eff.new_tabs[0].id).close()
    finally:
        page.close()


def test_an_action_at_a_point_waits_for_the_page_to_be_ready(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.new_page()
    try:
        # Not waited for here: the button is built by a timer after the page loads.
        page.playwright.goto(server.url("act-xy-late.html"), wait_until="commit")
        eff = page.act_at("click", 160, 120)
        assert page.playwright.evaluate("document.getElementById('log').textContent") == (
            "late clicked"
        )
        assert eff.element_id == one(eff.observation, "Late", "button").id
    finally:
        page.close()


def test_a_hover_at_a_point_opens_its_menu(browser: Browser, server: StaticServer) -> None:
    page = _open(browser, server)
    try:
        obs = page.observe(include={"bounds"})
        assert not [e for e in obs.elements if e.name == "Export"]
        more = one(obs, "More", "button")
        eff = page.act_at("hover", *_centre(more))
        assert eff.kinds == ("dom_change",)
        lines = eff.text().splitlines()
        assert lines[2:] == [
            f'  + [{one(eff.observation, "Export").id}] link "Export"',
            f'  + [{one(eff.observation, "Print").id}] link "Print"',
        ]
        assert page.playwright.evaluate("document.getElementById('more-items').hidden") is False
    finally:
        page.close()


def test_a_drag_between_points_moves_a_slider_and_a_card(
    browser: Browser, server: StaticServer
) -> None:
    page = _open(browser, server)
    try:
        obs = page.observe(include={"bounds"})
        slider = one(obs, "Volume", "slider")
        x, y = _centre(slider)
        eff = page.act_at("drag", x, y, to=(x + 120, y))  # the track is 300 px: +40
        assert eff.kinds == ("dom_change", "value_change")  # the label's text changed too
        assert eff.element_id == slider.id
        assert f'  value [{slider.id}] slider "Volume": "20" -> "60"' in eff.text().splitlines()
        assert page.playwright.evaluate("thumb.getAttribute('aria-valuenow')") == "60"

        card = one(obs, "Fix login bug")
        column = page.playwright.evaluate(
            "(() => { const r = document.getElementById('done').getBoundingClientRect();"
            " return [r.left + r.width / 2, r.top + r.height / 2]; })()"
        )
        moved = page.act_at("drag", *_centre(card), to=tuple(column))
        # Measured as a drag of the card element is: it went into the other column.
        assert moved.kinds == ("dom_change",)
        assert moved.element_id == card.id
        assert moved.text().endswith(
            'from <section id="todo" class="column"> "To do" into '
            '<section id="done" class="column"> "Done"'
        )
        assert page.playwright.evaluate("document.getElementById('card').parentElement.id") == (
            "done"
        )
        # On the page's blank part there is nothing to say moved (not "the body stayed").
        width, height = page.playwright.evaluate("[innerWidth, innerHeight]")  # below the board
        blank = page.act_at("drag", width - 40, height - 10, to=(width - 140, height - 40))
        assert blank.kinds == ("no_op",) and blank.moved is None, blank.text()
        assert blank.text() == "drag -> no_op"
    finally:
        page.close()


def test_a_point_outside_the_viewport_is_refused_naming_its_size(
    browser: Browser, server: StaticServer
) -> None:
    page = _open(browser, server)
    try:
        width, height = page.playwright.evaluate("[innerWidth, innerHeight]")
        before = page.playwright.evaluate("document.body.innerHTML")
        with pytest.raises(InvalidOption) as refused:
            page.act_at("click", width + 10, 20)
        assert refused.value.option == "x, y"
        assert str(refused.value) == (
            f"({width + 10}, 20) is outside the viewport ({width}x{height} CSS px); give a "
            "point in view, or scroll first"
        )
        with pytest.raises(InvalidOption) as below:
            page.act_at("drag", 10, 10, to=(10, height))
        assert below.value.option == "to"
        assert page.playwright.evaluate("document.body.innerHTML") == before  # nothing done
        # Bad arguments are refused before the page is touched.
        with pytest.raises(InvalidOption) as no_end:
            page.act_at("drag", 10, 10)
        assert no_end.value.option == "to"
        with pytest.raises(InvalidOption) as unknown:
            page.act_at("input", 10, 10)
        assert unknown.value.option == "action"
        with pytest.raises(InvalidOption) as not_a_point:  # a number, not a pair of them
            page.act_at("drag", 10, 10, to=5)
        assert not_a_point.value.option == "to"
        with pytest.raises(InvalidOption) as nan:
            page.act_at("click", float("nan"), 10)
        assert nan.value.option == "x, y"
    finally:
        page.close()


def test_points_stay_css_pixels_at_a_device_pixel_ratio_of_two(
    browser: Browser, server: StaticServer
) -> None:
    page = _open(browser, server)
    cdp = page.playwright.context.new_cdp_session(page.playwright)
    try:
        width, height = page.playwright.evaluate("[innerWidth, innerHeight]")
        cdp.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 2, "mobile": False},
        )
        assert page.playwright.evaluate("devicePixelRatio") == 2
        obs = page.observe(include={"bounds"})
        eff = page.act_at("click", *_centre(one(obs, "Add note", "button")))
        assert eff.kinds == ("dom_change",)
        assert page.playwright.evaluate("document.querySelectorAll('#notes li').length") == 1
        with pytest.raises(InvalidOption) as refused:
            page.act_at("hover", width * 2 - 10, 10)  # a screenshot's pixel, not divided
        assert f"({width}x{height} CSS px; a screenshot of it is {width * 2}x{height * 2} px: " in (
            str(refused.value)
        )
        assert "divide its pixels by 2)" in str(refused.value)
    finally:
        cdp.send("Emulation.clearDeviceMetricsOverride")
        cdp.detach()
        page.close()


def test_a_point_on_a_page_read_off_the_screen_says_what_changed_on_screen(
    browser: Browser, server: StaticServer
) -> None:
    page = open_canvas(browser, server)  # buttons painted on a <canvas>: no DOM to name them
    try:
        obs = page.observe(mode="vision")
        save = next(el for el in obs.elements if el.name == "保存")
        eff = page.act_at("click", *_centre(save))
        assert app_state(page.playwright)["lastAction"] == "保存"
        assert "screen_change" in eff.kinds, eff.text()
        assert eff.screen is not None and 0 < eff.screen.share < 0.2
        # The page after it is read off the screen again: the app's new status line.
        assert eff.observation.mode == "vision"
        assert any(el.name == "Last action: 保存" for el in eff.observation.elements), (
            eff.observation.text()
        )
    finally:
        page.close()


def test_a_page_read_off_the_screen_then_loaded_anew_is_acted_on_by_its_dom(
    browser: Browser, server: StaticServer
) -> None:
    page = _open(browser, server)
    try:
        assert page.observe(mode="vision").mode == "vision"
        # Loaded again since, and last read by the DOM (the navigation's effect): a point
        # there is read the DOM's way, not screenshotted and read off the screen again.
        loaded = page.navigate(server.url("act-xy.html"))
        assert loaded.observation.mode == "cdp"
        x, y = page.playwright.evaluate(
            "(() => { const r = document.getElementById('add').getBoundingClientRect();"
            " return [r.left + r.width / 2, r.top + r.height / 2]; })()"
        )
        eff = page.act_at("click", x, y)
        assert eff.observation.mode == "cdp"
        assert eff.screen is None
        assert eff.element_id == one(loaded.observation, "Add note", "button").id
    finally:
        page.close()
