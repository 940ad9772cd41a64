"""click_xy, hover_xy and drag_xy through ToolRegistry.call: a point of the viewport in CSS
pixels (as the observation's bounds give it), answered by the Effect like every action, and
a point outside the viewport a typed error naming the viewport's size."""

from __future__ import annotations

from typing import Any

from conftest import StaticServer
from pagesight import Browser
from pagesight.agent import Session, ToolRegistry, ToolResult
from support import one


def _session(page: Any, browser: Browser) -> Session:
    return Session(browser=browser._browser, page=page._page, registry=ToolRegistry.discover())


def _call(browser: Browser, session: Session, tool: str, /, **arguments: Any) -> ToolResult:
    return browser._loop.run(session.registry.call(tool, arguments, session))


def _centre(obs: Any, name: str) -> tuple[float, float]:
    bounds = one(obs, name).bounds
    assert bounds is not None
    x, y, w, h = bounds
    return x + w / 2, y + h / 2


def test_the_point_tools_act_where_the_bounds_say_and_report_the_effect(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("act-xy.html"))
    try:
        session = _session(page, browser)
        obs = _call(browser, session, "observe").observation
        assert obs is not None
        x, y = _centre(obs, "Add note")
        clicked = _call(browser, session, "click_xy", x=x, y=y, element="the Add note button")
        assert clicked.error is None, clicked.text
        assert clicked.value["kinds"] == ["dom_change"]
        assert clicked.text.splitlines()[0] == f"click [{one(obs, 'Add note').id}] -> dom_change"
        assert session.latest is clicked.observation  # since_last compares with it
        assert page.playwright.evaluate("document.querySelectorAll('#notes li').length") == 1

        # double_click and button reach the page: two notes more, and a right press.
        page.playwright.evaluate("window.buttons = []")
        twice = _call(browser, session, "click_xy", x=x, y=y, double_click=True)
        assert twice.error is None, twice.text
        assert page.playwright.evaluate("document.querySelectorAll('#notes li').length") == 3
        right = _call(browser, session, "click_xy", x=x, y=y, button="right")
        assert right.error is None, right.text
        assert page.playwright.evaluate("window.buttons") == [0, 0, 2]
        assert page.playwright.evaluate("document.querySelectorAll('#notes li').length") == 3

        hovered = _call(browser, session, "hover_xy", x=_centre(obs, "More")[0], y=y)
        assert hovered.value["kinds"] == ["dom_change"]
        assert any(line.endswith('link "Export"') for line in hovered.text.splitlines())

        sx, sy = _centre(hovered.observation, "Volume")  # the new note moved it down
        dragged = _call(
            browser, session, "drag_xy", start_x=sx, start_y=sy, end_x=sx - 60, end_y=sy
        )
        assert "value_change" in dragged.value["kinds"]
        assert page.playwright.evaluate("thumb.getAttribute('aria-valuenow')") == "0"
    finally:
        page.close()


def test_a_point_outside_the_viewport_is_a_typed_error_naming_its_size(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("act-xy.html"))
    try:
        session = _session(page, browser)
        width, height = page.playwright.evaluate("[innerWidth, innerHeight]")
        refused = _call(browser, session, "click_xy", x=50, y=height + 300)
        assert refused.error is not None and refused.error.reason == "invalid_option"
        assert refused.error.message == (
            f"(50, {height + 300}) is outside the viewport ({width}x{height} CSS px); give a "
            "point in view, or scroll first"
        )
        dragged = _call(browser, session, "drag_xy", start_x=5, start_y=5, end_x=-1, end_y=5)
        assert dragged.error is not None and dragged.error.reason == "invalid_option"
        assert page.playwright.evaluate("document.querySelectorAll('#notes li').length") == 0
    finally:
        page.close()


def test_the_point_tools_schemas_take_css_pixels() -> None:
    specs = {s.name: s for s in ToolRegistry.discover().specs()}
    click = specs["click_xy"].input_schema
    assert click["required"] == ["x", "y"]
    assert click["properties"]["x"]["type"] == "number"
    assert "devicePixelRatio" in click["properties"]["x"]["description"]
    assert specs["drag_xy"].input_schema["required"] == ["start_x", "start_y", "end_x", "end_y"]
    assert specs["hover_xy"].input_schema["required"] == ["x", "y"]
