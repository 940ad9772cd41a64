"""Real widgets' DOM shapes (Material UI, Select2, a date picker, product cards, a sortable
table), each reproduced in plain HTML: the outline lists what a person operates, by the name
they read, and acting through those ids does what a person's click or typing would."""

from __future__ import annotations

from typing import Any

from conftest import StaticServer
from pagesight import Observation
from support import line, one, open_and_observe


def _open(page: Any, server: StaticServer, path: str) -> Observation:
    return open_and_observe(page, server.url(path))


def _js(page: Any, expression: str) -> Any:
    return page.playwright.evaluate(expression)


# --- a field stays a field --------------------------------------------------------------------


def test_a_text_field_inside_a_listening_wrapper_is_listed_as_the_field(
    page: Any, server: StaticServer
) -> None:
    obs = _open(page, server, "field-wrapped.html")
    # The box Material UI draws around the input listens for clicks; it is the field's frame,
    # also when an icon button sits beside the field in it.
    basket = one(obs, "Trail Runner, size 42 Qty", "clickable")
    assert [el for el in obs.elements if el.role == "clickable"] == [basket], obs.text()
    pw = one(obs, "Password", "textbox")
    eye = one(obs, "toggle password visibility", "button")
    assert line(obs, '"Password"') == f'[{pw.id}] textbox "Password"'
    email = one(obs, "Email Address *", "textbox")
    assert line(obs, "Email Address") == f'[{email.id}] textbox "Email Address *" [required]'
    nick = one(obs, "Nickname", "textbox")
    assert line(obs, "Nickname") == f'[{nick.id}] textbox "Nickname": ada'
    born = one(obs, "Date of birth", "date")  # a date field's frame is a frame too
    assert line(obs, "Date of birth") == f'[{born.id}] date "Date of birth": 1990-04-02'

    eff = page.act(email.id, "input", text="ada@example.com")
    assert _js(page, "window.state.email") == "ada@example.com"
    assert eff.observation.element(email.id).value == "ada@example.com"
    after = page.observe()
    assert line(after, "Email Address") == (
        f'[{email.id}] textbox "Email Address *": ada@example.com [required focused]'
    )
    page.act(eye.id, "click")
    assert _js(page, "document.getElementById('pw').type") == "text"

    # A card that opens an item, with a small quantity field in it, stays a target of its
    # own: the field is a part of it, not what it frames.
    qty = one(obs, "Qty", "spinbutton")
    assert obs.text().splitlines()[-2:] == [
        f'[{basket.id}] clickable "Trail Runner, size 42 Qty"',
        f'  [{qty.id}] spinbutton "Qty": 1',
    ], obs.text()
    page.act(basket.id, "click")
    assert _js(page, "window.opened") == 1


# --- what the page hides stays out; the widget that replaces it takes its name ----------------


def test_a_native_control_hidden_behind_a_custom_select_is_not_listed(
    page: Any, server: StaticServer
) -> None:
    obs = _open(page, server, "select-replaced.html")
    # Material UI's aria-hidden, transparent input behind its Select: not a second control.
    assert not [el for el in obs.elements if el.role == "textbox"], obs.text()
    one(obs, "Size Medium", "combobox")
    # Select2: the clipped, aria-hidden <select> is out; the drawn combobox has its label.
    country = one(obs, "Country *", "combobox")
    assert country.value == "Select an option"
    assert not country.options, "the native select's options belong to the hidden select"
    # A Select2 multiple: its combobox (beside remove buttons) has the label, the <select> is out.
    tags = one(obs, "Tags", "combobox")
    assert not [el for el in obs.elements if el.role == "listbox"], obs.text()
    assert [el.name for el in obs.elements if el.id != tags.id and el.role != "searchbox"] == [
        "Size Medium",
        "Country *",
    ], obs.text()
    assert line(obs, "Country") == (
        f'[{country.id}] combobox "Country *": Select an option [collapsed]'
    )


def test_select_on_the_widget_that_replaces_a_native_select_picks_the_option(
    page: Any, server: StaticServer
) -> None:
    obs = _open(page, server, "select-replaced.html")
    country = one(obs, "Country *", "combobox")
    eff = page.act(country.id, "select", values="Germany")
    assert _js(page, "window.changes") == ["de"]
    assert _js(page, "document.getElementById('country').value") == "de"
    assert _js(page, "document.querySelector('[role=listbox]')") is None  # closed again
    after = eff.observation.element(country.id)
    assert (after.name, after.value) == ("Country *", "Germany")
    assert "value_change" in eff.kinds


# --- delegated clicks ---------------------------------------------------------------------------


def test_calendar_days_clicked_through_their_tables_listener_get_ids(
    page: Any, server: StaticServer
) -> None:
    obs = _open(page, server, "calendar-delegated.html")
    day = one(obs, "15", "cell")
    row = line(obs, f'[{day.id}] cell "15"')
    assert row.startswith("row: [") and row.count("] cell ") == 7, row
    assert len([el for el in obs.elements if el.role == "cell"]) == 35, obs.text()
    assert line(obs, "Su |") == "row: Su | Mo | Tu | We | Th | Fr | Sa"  # headers do nothing

    # A row with a listener of its own stays one target: its cells are its parts.
    booking = one(obs, "2 May Ada 4 guests", "row")
    assert not [el for el in obs.elements if el.name == "Ada"], obs.text()

    eff = page.act(day.id, "click")
    assert _js(page, "window.picked") == "2025-05-15"
    assert "dom_change" in eff.kinds
    assert "Picked: 2025-05-15" in eff.texts_added
    page.act(booking.id, "click")
    assert _js(page, "window.openedBooking") == "b1"


# --- a clickable inside a clickable -------------------------------------------------------------


def test_a_swatch_with_its_own_listener_inside_a_clickable_card_is_listed(
    page: Any, server: StaticServer
) -> None:
    obs = _open(page, server, "card-swatches.html")
    card = one(obs, "Trail Runner $89", "clickable")
    red, blue = one(obs, "Red", "clickable"), one(obs, "Blue", "clickable")
    lines = [
        line for line in obs.text().splitlines() if "Trail Runner" in line or "] clickable" in line
    ]
    assert lines[:3] == [
        f'[{card.id}] clickable "Trail Runner $89"',
        f'  [{red.id}] clickable "Red"',
        f'  [{blue.id}] clickable "Blue"',
    ], obs.text()

    # A listener on the card's body, a box nearly the card's, is the card's own part.
    hiker = one(obs, "Trail Hiker $99", "clickable")
    assert line(obs, "Trail Hiker") == f'[{hiker.id}] clickable "Trail Hiker $99"'
    assert len([el for el in obs.elements if el.role == "clickable"]) == 5, obs.text()

    page.act(blue.id, "click")
    assert _js(page, "window.colour") == "blue"
    assert _js(page, "window.opened") == []  # the swatch, not the card
    page.act(card.id, "click")
    assert _js(page, "window.opened") == ["runner"]
    assert _js(page, "window.colour") == "blue"


# --- table header rows ----------------------------------------------------------------------


def test_clickable_column_headers_keep_their_ids_in_the_header_row(
    page: Any, server: StaticServer
) -> None:
    obs = _open(page, server, "table-sortable.html")
    name = one(obs, "Name", "columnheader")
    email = one(obs, "Email", "columnheader")
    role = one(obs, "Role", "button")
    select_all = one(obs, "Select all", "checkbox")
    assert line(obs, "Select all") == (
        f'row: [{select_all.id}] checkbox "Select all" | [{name.id}] columnheader "Name" | '
        f'[{email.id}] columnheader "Email" | [{role.id}] button "Role" | Actions'
    )
    eff = page.act(name.id, "click")
    # The same rows in another order: the sort is a change a model can see, not a no-op.
    assert _js(
        page, "Array.from(document.querySelectorAll('tbody tr'), r => r.cells[1].textContent)"
    ) == ["Bob", "Ada"]
    assert eff.kinds == ("dom_change",) and eff.reordered
    bob = one(obs, "Select Bob", "checkbox")
    assert f'  reordered: now [{bob.id}] checkbox "Select Bob", ' in eff.text()
    assert eff.to_dict()["reordered"][0] == bob.id
    page.act(role.id, "click")
    assert _js(page, "window.sorted") == ["name", "role"]


# --- the option arrow keys move to -----------------------------------------------------------


def _active_text(page: Any, box: str) -> Any:
    return _js(page, f"document.getElementById('{box}').ariaActiveDescendantElement.textContent")


def test_arrow_keys_in_an_open_combobox_move_the_active_option_and_say_so(
    page: Any, server: StaticServer
) -> None:
    obs = _open(page, server, "listbox-active.html")
    size = one(obs, "Shirt size", "combobox")
    page.act(size.id, "click")
    opened = page.observe()
    medium, large = one(opened, "Medium", "option"), one(opened, "Large", "option")
    assert line(opened, '"Medium"') == f'[{medium.id}] option "Medium" [selected active]'
    eff = page.act(size.id, "press_key", key="ArrowDown")
    assert _active_text(page, "size") == "Large"  # the page moved it
    assert "dom_change" in eff.kinds, eff.text()
    assert eff.changes is not None
    changed = {after.name: after.states for _, after in eff.changes.changed}
    assert changed == {"Medium": frozenset({"selected"}), "Large": frozenset({"active"})}
    assert f'[{large.id}] option "Large" [active]' in eff.text()
    # Focus never left the combobox: only it is focused, the option is the active one.
    after = eff.observation
    assert "focused" in one(after, "Shirt size", "combobox").states
    assert [el.name for el in after.elements if "active" in el.states] == ["Large"]


def test_a_focused_listbox_marks_its_active_option(page: Any, server: StaticServer) -> None:
    obs = _open(page, server, "listbox-active.html")
    fruit = one(obs, "Favourite fruit", "listbox")
    assert not [el for el in obs.elements if "active" in el.states]  # nothing focused yet
    eff = page.act(fruit.id, "press_key", key="ArrowDown")
    assert _active_text(page, "fruit") == "Banana"
    assert eff.kinds != ("no_op",), eff.text()
    banana = one(eff.observation, "Banana", "option")
    assert banana.states == frozenset({"active"})
