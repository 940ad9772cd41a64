"""Edge cases a reviewer found on real sites, each pinned on a small fixture page.

Every test asserts both sides: what a person at the screen can see or reach is in, and what
they cannot is out.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable
from typing import Any

import pytest

from conftest import StaticServer
from pagesight import Browser, InvalidOption, Observation, Page, PagesightError, PageUnresponsive
from pagesight.aio import AsyncBrowser
from support import absent, named, one


def _line(obs: Observation, needle: str) -> str:
    """The one outline line that contains ``needle``."""
    found = [line for line in obs.text().splitlines() if needle in line]
    assert len(found) == 1, f"expected one line with {needle!r}:\n{obs.text()}"
    return found[0]


# --- accessible names -----------------------------------------------------------------------


def test_icon_only_controls_are_named_by_their_hidden_label(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("edge-names.html"))
    obs = page.observe()
    one(obs, "Close", "button")  # .sr-only span beside an aria-hidden svg
    one(obs, "Twitter", "link")  # empty <i> icon + .sr-only span
    one(obs, "Search", "button")  # <svg><title>
    one(obs, "Cart (3 items)", "link")  # visible text + .sr-only suffix
    # The hidden labels name their controls; they are not text a person reads on the page.
    lines = {line.strip() for line in obs.text().splitlines()}
    for hidden in ("Close", "Twitter", "Search", "(3 items)"):
        assert hidden not in lines, obs.text()
        assert obs.text().count(hidden) == 1, obs.text()  # only in the control's name
    # A visually hidden control of its own (a skip link) is still out.
    absent(obs, "Skip to main content")
    page.close()


# --- native controls hidden behind what a person operates ------------------------------------


def test_hidden_native_controls_operated_through_a_visible_label_stay_once(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("edge-controls.html"))
    obs = page.observe()
    one(obs, "Accept terms", "checkbox")  # .sr-only input, visible <label for>
    monthly = one(obs, "Monthly", "radio")  # Bootstrap .btn-check + label.btn
    yearly = one(obs, "Yearly", "radio")
    assert "checked" in monthly.states and "checked" not in yearly.states
    one(obs, "Dark mode", "checkbox")  # display:none input, its label drawn as a switch
    one(obs, "Upload photo", "button")  # opacity:0 file input (Chromium's role: button)
    newest = [el for el in obs.elements if el.role == "combobox" and el.value == "Newest"]
    assert len(newest) == 1, obs.text()  # opacity:0 <select> over "Sort: Newest"
    # Exactly once: the label (cursor:pointer) is not a second element for the same control.
    for name in ("Accept terms", "Monthly", "Yearly", "Dark mode", "Upload photo"):
        assert len([el for el in obs.elements if name in el.name]) == 1, (name, obs.text())
    sort = [el for el in obs.elements if "Newest" in el.name or el.value == "Newest"]
    assert len(sort) == 1, obs.text()
    page.close()


# --- covers -----------------------------------------------------------------------------------


def test_nearly_transparent_gradient_over_a_teaser_keeps_it(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("edge-cover.html"))
    obs = page.observe()
    one(obs, "Continue reading", "link")
    text = obs.text()
    assert "The plan turns the old freight yard" in text
    assert "Construction starts in spring" in text
    page.close()


def test_content_scrolled_under_a_fixed_header_stays_until_an_opaque_backdrop_covers_it(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("edge-cover.html"))
    page.playwright.evaluate("scrollTo(0, 1000)")
    # The fixture really puts them under the 60px header.
    tops = page.playwright.evaluate(
        "[...document.querySelectorAll('.latest h2, .latest a')]"
        ".map(e => e.getBoundingClientRect().top)"
    )
    assert len(tops) == 2 and all(0 <= top < 60 for top in tops), tops
    obs = page.observe()
    # A person scrolls up a little and reads them: they are reachable, so they stay.
    assert 'h2 "Latest headlines"' in obs.text()
    one(obs, "Markets close higher on rate hopes", "link")
    one(obs, "The Daily Ledger", "link")  # the header itself

    # An opaque full-viewport backdrop hides everything under it, header included.
    page.playwright.evaluate("document.querySelector('.wall').hidden = false")
    obs = page.observe()
    absent(obs, "Latest headlines", "Markets close higher on rate hopes", "Updated every hour")
    assert not named(obs, "The Daily Ledger"), obs.text()  # (the title line says it too)
    one(obs, "Subscribe now", "button")
    page.close()


def test_scaled_to_zero_content_is_out(browser: Browser, server: StaticServer) -> None:
    page = browser.open(server.url("edge-cover.html"))
    obs = page.observe()
    absent(obs, "Undo autosave", "Draft autosaved")
    one(obs, "Continue reading", "link")
    page.close()


# --- modal <dialog> -----------------------------------------------------------------------------


def test_show_modal_dialog_makes_the_page_behind_it_unreachable(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("edge-modal.html"))
    obs = page.observe()
    # Chromium's default ::backdrop only dims the page, but showModal() makes everything
    # outside the dialog inert: a person sees those controls and cannot use them.
    absent(obs, "Rename project", "Transfer ownership", "Manage members")
    one(obs, "Keep project", "button")
    one(obs, "Delete project", "button")
    assert 'dialog "Delete this project?"' in obs.text()
    page.close()


# --- scrolling --------------------------------------------------------------------------------


def test_rtl_scroller_keeps_what_scrolling_left_reveals(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("edge-scroll.html?layout=rtl"))
    # The fixture: the last photo lies to the left of the strip, reached by scrolling left.
    assert page.playwright.evaluate(
        "(() => { const s = document.querySelector('.strip');"
        " const last = s.lastElementChild.getBoundingClientRect();"
        " return s.scrollLeft === 0 && last.right < s.getBoundingClientRect().left; })()"
    )
    obs = page.observe()
    photos = [one(obs, f"Photo {i}", "link") for i in range(1, 13)]
    assert not photos[0].offscreen
    assert photos[11].offscreen and photos[11].scroll_container is not None
    assert photos[11].scroll_container == photos[0].scroll_container
    page.close()


def test_body_as_the_scroll_container_keeps_content_below_the_fold(
    browser: Browser, server: StaticServer
) -> None:
    # html { overflow:hidden; height:100% } body { height:100%; overflow:auto }: an app shell.
    page = browser.open(server.url("edge-scroll.html?layout=app"))
    obs = page.observe()
    back = one(obs, "Back to top", "link")
    assert back.offscreen
    one(obs, "Comment by Ana", "link")
    page.close()


def test_scroller_below_the_fold_marks_only_what_it_hides_itself(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("edge-scroll.html"))
    assert page.playwright.evaluate(
        "document.querySelector('.comments').getBoundingClientRect().top > innerHeight"
    )
    obs = page.observe()
    # The first comments show as soon as the page is scrolled there: the outline does not say
    # [offscreen] for the page fold (Element.offscreen may), only for the box's own scroll.
    for name in ("Comment by Ana", "Comment by Ben", "Comment by Chen"):
        assert "[offscreen]" not in _line(obs, f'"{name}"'), obs.text()
    assert "[offscreen]" in _line(obs, '"Older comments"'), obs.text()
    older = one(obs, "Older comments", "link")
    assert older.offscreen and older.scroll_container is not None
    assert older.scroll_container == one(obs, "Comment by Ana").scroll_container
    page.close()


def test_srcdoc_iframe_below_the_fold_is_offscreen(browser: Browser, server: StaticServer) -> None:
    page = browser.open(server.url("edge-scroll.html"))
    obs = page.observe()
    assert one(obs, "Post reply", "button").offscreen
    assert not one(obs, "Photo 1", "link").offscreen
    page.close()


# --- what acts as a control ----------------------------------------------------------------------


def test_delegation_containers_with_roles_are_not_controls(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("edge-controls.html"))
    obs = page.observe()
    # <nav>, <main>, <table> and <ul> with a click listener and many controls inside are
    # delegation roots: the controls inside are what a person clicks.
    roots = [el for el in obs.elements if el.role in {"navigation", "main", "table", "list"}]
    assert not roots, obs.text()
    for name in ("Orders", "#1001", "Track", "Cancel order", "All", "Unread", "Flagged"):
        one(obs, name)
    # A row with its own listener and nothing clickable inside is the control.
    rows = [el for el in obs.elements if "#1003" in el.name]
    assert len(rows) == 1 and rows[0].role in {"row", "clickable"}, obs.text()
    assert "click" in rows[0].actions
    # So is a list item with an onclick attribute and plain text.
    assert "click" in one(obs, "Mark all as read").actions
    page.close()


def test_onclick_assigned_as_a_property_makes_a_control(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("edge-controls.html"))
    obs = page.observe()
    snooze = one(obs, "Snooze reminders")  # div.onclick = () => …, no attribute, no listener
    assert "click" in snooze.actions
    page.close()


def test_contenteditable_text_appears_once_as_its_value(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("edge-controls.html"))
    page.playwright.get_by_label("Comment").click()
    page.playwright.keyboard.type("Looks good to me")
    obs = page.observe()
    assert one(obs, "Comment").value == "Looks good to me"
    assert obs.text().count("Looks good to me") == 1, obs.text()
    page.close()


def test_datalist_suggestions_are_the_inputs_options(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("edge-controls.html"))
    obs = page.observe()
    assert one(obs, "City").options == ("Berlin", "Lisbon", "Oslo")
    page.close()


def test_disabled_fieldset_disables_its_controls_but_not_its_links(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("edge-controls.html"))
    obs = page.observe()
    assert "disabled" in one(obs, "Pay now", "button").states
    assert "disabled" in one(obs, "Card number", "textbox").states
    # <fieldset disabled> disables form controls only: the link still opens.
    assert "disabled" not in one(obs, "Card security help", "link").states
    page.close()


# --- context and grouping -----------------------------------------------------------------------


def test_table_rows_give_identical_buttons_their_context(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("edge-controls.html"))
    obs = page.observe(view="interactive")
    edits = [el for el in obs.elements if el.name == "Edit"]
    assert [el.context for el in edits] == ["Alice", "Bob"], obs.text()
    page.close()


def test_a_table_row_is_known_by_its_first_cell_even_a_link_or_by_its_header_cell(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("table-row-context.html"))
    obs = page.observe(view="interactive")
    # A CRM list: the name cell is a link, and Alice and Lena share a job title.
    assert [el.context for el in named(obs, "Edit")] == ["Alice Chen", "Bob Martin", "Lena Novak"]
    # A th scope=row names its row, though a status badge comes before it.
    assert [el.context for el in named(obs, "Download")] == ["INV-1041", "INV-1042"]
    # A leading select box is no row's name (every one says "Select"): the next cell's text is.
    assert [el.context for el in named(obs, "Delete")] == ["report.pdf", "notes.txt"]
    alice, edit = one(obs, "Alice Chen", "link").id, named(obs, "Edit")[0].id
    text = obs.text()
    assert f'# Alice Chen\n[{alice}] link "Alice Chen"\n[{edit}] link "Edit"' in text, text
    page.close()


def test_adjacent_classless_divs_are_not_groups(browser: Browser, server: StaticServer) -> None:
    page = browser.open(server.url("edge-controls.html"))
    obs = page.observe()
    lines = obs.text().splitlines()
    start = lines.index(_line(obs, 'h2 "Announcements"'))
    end = lines.index(_line(obs, '"Open billing"'))
    section = lines[start : end + 1]
    # Plain layout divs of different shapes: only repeated siblings (one class, or classless
    # with the same inner structure, like cards) read as groups.
    assert not [line for line in section if line.strip().split(" ")[0] == "group"], section
    assert any("Maintenance window on Sunday night." in line for line in section), section
    one(obs, "Status page", "link")
    page.close()


# --- robustness -------------------------------------------------------------------------------


def test_busy_renderer_fails_the_observation_instead_of_hanging(server: StaticServer) -> None:
    # Its own browser: the hung renderer must not slow down or break the shared one.
    url = server.url("edge-busy.html")

    async def scenario() -> None:
        browser = await AsyncBrowser.launch()
        try:
            page = await asyncio.wait_for(browser.open(url), 20)
            await asyncio.sleep(0.3)  # the loop starts 50 ms after load
            with pytest.raises(PageUnresponsive):
                await asyncio.wait_for(page.observe(timeout=3), 20)  # a hang fails, not blocks
            # Asking again costs its own short time, not another observation's.
            assert not await asyncio.wait_for(page.answers(0.5), 5)
            bad_seconds: tuple[Any, ...] = (0, float("nan"), float("inf"), "2", True)
            for bad in bad_seconds:
                with pytest.raises(InvalidOption, match="within must be"):
                    await page.answers(bad)
        finally:
            await asyncio.wait_for(browser.close(), 20)

    asyncio.run(scenario())


def _raised(call: Callable[[], object]) -> type[Exception] | None:
    """The type of the exception ``call`` raises, or None.

    Only the type is kept: a kept traceback would keep the library's coroutines alive until
    the end of the session, where their warnings no longer name this test.
    """
    try:
        call()
    except Exception as exc:  # noqa: BLE001 - any exception type is an answer here
        return type(exc)
    return None


def test_closing_twice_is_harmless_and_later_calls_raise_pagesight_errors(
    server: StaticServer,
) -> None:
    url = server.url("edge-names.html")
    browser = Browser.launch()
    page = browser.open(url)
    browser.close()
    assert _raised(browser.close) is None
    for call in (lambda: browser.open(url), browser.new_page, page.observe):
        kind = _raised(call)
        # Not a bare RuntimeError ("Event loop is closed"): callers catch PagesightError.
        assert kind is not None and issubclass(kind, PagesightError), kind
    gc.collect()  # a coroutine created and never awaited warns here, inside this test


@pytest.mark.parametrize("mode", ["cdp", "evaluate"])
def test_page_that_overrides_array_tojson_still_observes(page: Page, mode: Any) -> None:
    # Prototype.js (1.6 and older) shipped its own Array.prototype.toJSON.
    page.playwright.set_content(
        "<h1>Classic shop</h1><button type=button>Add to basket</button>"
        "<a href=/basket>Basket</a>"
        '<script>Array.prototype.toJSON = function () { return "broken"; };</script>'
    )
    obs = page.observe(mode=mode)
    one(obs, "Add to basket", "button")
    one(obs, "Basket", "link")
    assert 'h1 "Classic shop"' in obs.text()
