"""Pointer gestures: press and hold, double, right and middle clicks, and drags of
pointer-driven widgets (a slider, a sortable list) and of HTML5 draggable cards."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import StaticServer
from pagesight import ActionError, InvalidOption  # type: ignore[attr-defined, unused-ignore]
from support import one


def _open(page: Any, server: StaticServer, name: str) -> Any:
    page.playwright.goto(server.url(name))
    return page.observe()


def _js(page: Any, expression: str) -> Any:
    return page.playwright.evaluate(expression)


# --- press and hold, double, right and middle clicks -------------------------------------


def test_a_hold_to_confirm_button_confirms_only_after_a_long_enough_hold(
    page: Any, server: StaticServer
) -> None:
    button = one(_open(page, server, "act-clicks.html"), "Hold to delete", "button")
    short = page.act(button.id, "click")
    assert "Hold longer to confirm" in short.texts_added
    eff = page.act(button.id, "click", hold=1.0)
    assert _js(page, "window.heldMs") >= 800  # the page measured the press itself
    assert "Deleted" in eff.texts_added and "dom_change" in eff.kinds


def test_a_double_click_runs_the_pages_dblclick_handler(page: Any, server: StaticServer) -> None:
    cell = one(_open(page, server, "act-clicks.html"), "Double-click to edit")
    eff = page.act(cell.id, "click", count=2)
    assert _js(page, "window.log") == ["click", "click", "dblclick:true"]
    assert "dom_change" in eff.kinds
    assert eff.observation.element(cell.id).name == "Editing"


def test_a_right_click_opens_the_pages_context_menu(page: Any, server: StaticServer) -> None:
    obs = _open(page, server, "act-clicks.html")
    eff = page.act(one(obs, "report.pdf").id, "click", button="right")
    assert _js(page, "window.log") == ["contextmenu:2:true"]
    assert "Rename · Delete" in eff.texts_added
    page.act(one(obs, "Open in background").id, "click", button="middle")
    assert _js(page, "window.log")[-1] == "auxclick:1"


def test_a_middle_click_on_a_link_opens_it_in_a_new_tab(
    page: Any, browser: Any, server: StaticServer
) -> None:
    obs = _open(page, server, "act-clicks.html")
    eff = page.act(one(obs, "Planner", "link").id, "click", button="middle")
    assert "new_tab" in eff.kinds and "navigation" not in eff.kinds
    assert page.url == server.url("act-clicks.html")
    (opened,) = eff.new_tabs
    tab = browser.page(opened.id)
    try:
        assert opened.url == server.url("act-drag.html")
        assert "Planner" in tab.observe().text()
    finally:
        tab.close()


@pytest.mark.parametrize(
    ("options", "option"),
    [
        ({"hold": 0}, "hold"),
        ({"hold": -1}, "hold"),
        ({"hold": 60}, "hold"),
        ({"hold": "1"}, "hold"),
        ({"count": 0}, "count"),
        ({"count": 4}, "count"),
        ({"count": True}, "count"),
        ({"hold": 1, "count": 2}, "hold"),
        ({"button": "back"}, "button"),
    ],
)
def test_click_options_out_of_range_are_refused_first(
    page: Any, server: StaticServer, options: dict[str, Any], option: str
) -> None:
    button = one(_open(page, server, "act-clicks.html"), "Hold to delete")
    with pytest.raises(InvalidOption) as info:
        page.act(button.id, "click", **options)
    assert info.value.option == option
    with pytest.raises(InvalidOption) as hover:
        page.act(button.id, "hover", count=2)
    assert hover.value.option == "count"
    assert _js(page, "window.heldMs") is None


# --- drags ---------------------------------------------------------------------------------


def test_drag_is_listed_only_on_what_a_person_would_drag(page: Any, server: StaticServer) -> None:
    obs = _open(page, server, "act-drag.html")
    assert "drag" in one(obs, "Volume", "slider").actions
    assert "drag" in one(obs, "Fix login bug").actions  # draggable="true"
    assert "drag" in one(obs, "Write report").actions  # a sortable item: cursor: grab
    # Not on a heading's link, a button, a field: there it is noise in every observation.
    clicks = _open(page, server, "act-clicks.html")
    for el in (one(clicks, "Hold to delete"), one(clicks, "Open in background")):
        assert "drag" not in el.actions and "hover" in el.actions
    assert '"drag"' not in clicks.to_json()


def test_dragging_a_slider_thumb_by_an_offset_sets_its_value(
    page: Any, server: StaticServer
) -> None:
    thumb = one(_open(page, server, "act-drag.html"), "Volume", "slider")
    assert thumb.value == "20" and "drag" in thumb.actions
    eff = page.act(thumb.id, "drag", by=(150, 0))  # the track is 300 px: half of it
    assert _js(page, "document.getElementById('thumb').getAttribute('aria-valuenow')") == "70"
    assert _js(page, "window.sliderMoves") > 5  # it followed the moves, not one jump
    assert eff.moved is not None
    assert (eff.moved.value_before, eff.moved.value_after) == ("20", "70")
    assert eff.moved.box_after is not None
    assert eff.moved.box_after[0] - eff.moved.box_before[0] == 150
    assert "value 20 -> 70" in eff.text() and "moved: box" in eff.text()
    assert "value_change" in eff.kinds and "dom_change" in eff.kinds
    assert eff.to_dict()["moved"]["value_after"] == "70"


def test_dragging_a_list_item_onto_another_reorders_the_list(
    page: Any, server: StaticServer
) -> None:
    obs = _open(page, server, "act-drag.html")
    first, last = one(obs, "Write report"), one(obs, "Call supplier")
    eff = page.act(first.id, "drag", to=last.id)
    assert _js(page, "window.order()") == ["review", "call", "write"]
    assert eff.moved is not None
    assert eff.moved.order_before == ("Write report", "Review budget", "Call supplier")
    assert eff.moved.order_after == ("Review budget", "Call supplier", "Write report")
    assert "order Write report, Review budget, Call supplier -> " in eff.text()
    assert "dom_change" in eff.kinds  # no element changed, but the list did


def test_an_html5_card_dragged_to_another_column_is_dropped_there(
    page: Any, server: StaticServer
) -> None:
    obs = _open(page, server, "act-drag.html")
    card, done = one(obs, "Fix login bug"), one(obs, "Done", "group")  # the drop zone
    eff = page.act(card.id, "drag", to=done.id)
    assert _js(page, "window.drops") == ["card-1->done"]
    assert eff.moved is not None
    assert eff.moved.holder_before.startswith('<section id="todo"')
    assert eff.moved.holder_after.startswith('<section id="done"')
    assert 'into <section id="done"' in eff.text()
    assert "dom_change" in eff.kinds


def test_a_card_dragged_between_look_alike_lists_is_said_to_go_into_the_named_column(
    page: Any, server: StaticServer
) -> None:
    # Every column's list is the same <ul class="cards">: only the column's title, in a
    # header beside the list, tells them apart.
    obs = _open(page, server, "act-drag-lists.html")
    card, review = one(obs, "CSV export", "listitem"), one(obs, "Review", "group")
    eff = page.act(card.id, "drag", to=review.id)
    assert _js(page, "window.drops") == ["card-export->list-review"]
    assert eff.moved is not None
    assert eff.moved.holder_before == '<ul class="cards"> "Doing"'
    assert eff.moved.holder_after == '<ul class="cards"> "Review"'
    assert 'from <ul class="cards"> "Doing" into <ul class="cards"> "Review"' in eff.text()


def test_a_ticket_sorted_into_another_aria_labelled_list_names_both_lists(
    page: Any, server: StaticServer
) -> None:
    obs = _open(page, server, "act-drag-lists.html")
    ticket, solved = one(obs, "Wrong invoice"), one(obs, "Password reset")
    eff = page.act(ticket.id, "drag", to=solved.id)
    owner = "document.getElementById('ticket-invoice').parentElement.getAttribute('aria-label')"
    assert _js(page, owner) == "Solved"
    assert eff.moved is not None
    assert 'from <ul class="queue"> "Waiting" into <ul class="queue"> "Solved"' in eff.text()


def test_a_drag_that_moves_nothing_says_so(page: Any, server: StaticServer) -> None:
    obs = _open(page, server, "act-drag.html")
    card = one(obs, "Update docs")
    # Dropped where nothing accepts it, while the page renames a neighbour: the card stays.
    rename = "document.getElementById('card-1').textContent = 'Fix login bug (seen)'"
    _js(page, f"document.addEventListener('dragend', () => {{ {rename}; }})")
    eff = page.act(card.id, "drag", by=(0, -120))
    assert _js(page, "document.getElementById('card-2').parentElement.id") == "todo"
    assert eff.moved is not None and not eff.moved.changed
    assert "moved: nothing; the dragged element stayed at " in eff.text()
    assert "order" not in eff.text()
    assert eff.changes is not None  # what did change is still reported
    assert "Fix login bug (seen)" in [after.name for _, after in eff.changes.changed]


def test_a_drag_target_is_checked_like_the_dragged_element(page: Any, server: StaticServer) -> None:
    obs = _open(page, server, "act-drag.html")
    card = one(obs, "Fix login bug")
    with pytest.raises(ActionError) as info:
        page.act(card.id, "drag", to=999_999)
    assert info.value.reason == "stale_id"
    _js(page, "document.getElementById('done').style.visibility = 'hidden'")
    with pytest.raises(ActionError) as hidden:
        page.act(card.id, "drag", to=one(obs, "Done", "group").id)
    assert hidden.value.reason == "not_visible" and "drop target" in str(hidden.value)
    assert _js(page, "window.drops") == []


@pytest.mark.parametrize(
    ("options", "option"),
    [
        ({}, "to"),
        ({"to": 1, "by": (1, 1)}, "to"),
        ({"by": (0, 0)}, "by"),
        ({"by": (1,)}, "by"),
        ({"by": "10,0"}, "by"),
        ({"by": (1e6, 0)}, "by"),
        ({"to": "Done"}, "to"),
    ],
)
def test_drag_needs_one_target_or_offset(
    page: Any, server: StaticServer, options: dict[str, Any], option: str
) -> None:
    card = one(_open(page, server, "act-drag.html"), "Fix login bug")
    with pytest.raises(InvalidOption) as info:
        page.act(card.id, "drag", **options)
    assert info.value.option == option
