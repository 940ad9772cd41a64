"""Names and states a page gives only through its markup: hint names (``~"name"``) for unnamed
controls, placeholders of empty labelled fields, names from label titles, editor groups and
untied labels beside a field, and chosen items shown by class names (issue 9, §2)."""

from __future__ import annotations

import json
import re

import pytest

from conftest import StaticServer
from pagesight import ActionError, Browser, Element, Observation
from pagesight.observe.tooltext import element_line


def _line(obs: Observation, element: Element) -> str:
    """The outline line of ``element`` (without its indent and id), or its part of a line of
    text that holds it (up to the next id)."""
    found = re.findall(rf"(?:^|\s)\[{element.id}\] (.*?)(?= \[\d+\] |$)", obs.text(), re.M)
    assert len(found) == 1, obs.text()
    return str(found[0])


def _by_line(obs: Observation, shown: str) -> Element:
    """The one element whose outline line, without its id, is ``shown``."""
    found = [el for el in obs.elements if _line(obs, el) == shown]
    assert len(found) == 1, f"no single element shown as {shown!r}:\n{obs.text()}"
    return found[0]


# --- hint names ---------------------------------------------------------------------------------


def test_unnamed_controls_are_named_from_their_markup_as_hints(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("names-hints.html"))
    obs = page.observe()
    for shown in (
        'button ~"search"',  # <i class="fa fa-search"> in a submit button
        'link ~"user menu toggle"',  # data-testid
        'button ~"trash"',  # glyphicon-trash
        'button ~"heart"',  # bi-heart
        'button ~"more"',  # a Material ligature "more_vert" inside an aria-hidden icon
        'button ~"download"',  # <use href="#icon-download">
        'button ~"search icon"',  # <img src="img/search-icon.svg"> without alt
        'button ~"bell"',  # a CSS background image
        'combobox ~"page size": 20 a page options=[20 a page, 50 a page]',  # name="page_size"
        'clickable ~"Share"',  # an SVG <title> in a listener-only span
        'button ~"close"',  # icon-close
        'button ~"menu"',  # menu-btn: the suffix form
        'button ~"print"',  # iconPrint: the camel-case form
        'button ~"row delete"',  # data-testid="row-17-delete": the counter is dropped
        'video ~"intro video"',  # data-testid
        'clickable ~"intro video"',  # named by the guess inside it: still a guess
    ):
        el = _by_line(obs, shown)
        assert el.name_hint, shown
        assert el.to_dict()["name_hint"] is True
    # A name the page gave is not a hint, and costs nothing more.
    help_button = _by_line(obs, 'button "Help"')
    assert not help_button.name_hint and "name_hint" not in help_button.to_dict()
    assert _by_line(obs, 'searchbox "Search articles"').name_hint is False
    # An icon beside a button's own text changes nothing.
    assert _by_line(obs, 'button "Save draft"').name_hint is False
    # A field's classes are its look: Bootstrap's btn-check is not a name ("check").
    assert _by_line(obs, "checkbox").name == ""
    # Ids a framework generated name nothing, nor a one-letter id, nor an image file named for
    # its look: the seven such buttons, the one with id "b" and the one with white_icon.png.
    assert [el.name for el in obs.elements if el.role == "button" and not el.name] == [""] * 9
    tree = json.loads(obs.to_json())["tree"]
    assert '"name": "trash", "name_hint": true' in json.dumps(tree)
    page.close()


def test_find_matches_a_hint_name_the_search_button_not_the_search_field(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("names-hints.html"))
    best = page.find("search button")[0]
    assert (best.element.role, best.element.name, best.element.name_hint) == (
        "button",
        "search",
        True,
    )
    assert best.description.startswith('button ~"search" <button')
    # The agent's tool text and the legend mark the guess the same way.
    assert element_line(best.element).startswith(f'[{best.element.id}] button ~"search" ')
    legend = page.observe().text("legend").splitlines()
    assert f'[{best.element.id}] button ~"search" in "Northwind Journal"' in legend
    assert best.to_dict()["name_hint"] is True
    assert "name_hint" not in page.find("Search articles")[0].to_dict()
    # An action's refusal names it so too.
    with pytest.raises(ActionError) as refused:
        page.act(best.element.id, "input", text="shoes")
    assert f'[{best.element.id}] button ~"search"' in str(refused.value)
    assert best.selector is not None
    # The selector find hands back is the page's icon-only submit button.
    shown = page.playwright.evaluate(
        "([path, sel]) => { const el = document.querySelector(sel);"
        " return [el.localName, el.type, el.className]; }",
        [best.path, best.selector],
    )
    assert shown == ["button", "submit", "search-submit"]
    page.close()


def test_an_effect_names_a_hinted_control_with_its_tilde_as_the_outline_does(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("names-hints.html"))
    more = _by_line(page.observe(), 'button "More tools"')
    eff = page.act(more.id, "click")
    (filt,) = [el for el in eff.observation.elements if el.name == "filter" and el.name_hint]
    assert f'  + [{filt.id}] button ~"filter"' in eff.text().splitlines(), eff.text()
    assert page.playwright.evaluate("document.getElementById('more-tools').hidden") is False
    # A look that changed names its element the same way.
    star = _by_line(page.observe(), 'clickable ~"star"')
    eff = page.act(star.id, "click")
    assert eff.restyled == (
        f'[{star.id}] clickable ~"star": border-color rgb(209, 213, 219) -> rgb(234, 179, 8)',
    )
    assert page.playwright.evaluate("document.querySelector('.star').style.borderColor") == (
        "rgb(234, 179, 8)"
    )
    page.close()

    page = browser.open(server.url("names-nearby.html"))
    nickname = _by_line(page.observe(), 'textbox ~"Nickname"')
    eff = page.act(nickname.id, "input", text="ada")
    assert f'  value [{nickname.id}] textbox ~"Nickname": - -> "ada"' in eff.text().splitlines()
    page.close()


def test_a_link_named_only_by_where_it_goes_reads_as_a_hint(
    browser: Browser, server: StaticServer
) -> None:
    # A logo or a social icon with nothing in it to name it: its address says where it goes,
    # not what the page calls it (issue 23, §4).
    page = browser.open(server.url("names-href.html"))
    obs = page.observe()
    home = _by_line(obs, 'link ~"/"')
    twitter = _by_line(obs, 'link ~"https://twitter.com/voxdotcom"')
    assert home.name_hint and twitter.name_hint
    assert twitter.to_dict()["name_hint"] is True
    # A link the page names stays named: by its text or its aria-label.
    assert not _by_line(obs, 'link "Politics"').name_hint
    assert not _by_line(obs, 'link "Facebook"').name_hint
    page.close()


# --- placeholders -------------------------------------------------------------------------------


def test_an_empty_labelled_field_shows_its_placeholder_until_it_has_a_value(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("names-placeholder.html"))
    obs = page.observe()
    email = _by_line(obs, 'textbox "Card email" placeholder="name@example.com"')
    assert email.placeholder == "name@example.com"
    assert email.to_dict()["placeholder"] == "name@example.com"
    _by_line(obs, 'textbox "Card number" placeholder="1234 1234 1234 1234"')
    _by_line(obs, 'textbox "Delivery notes" placeholder="Leave it with the neighbour"')
    # Not where there is a value, nor where the placeholder already is the name.
    assert _by_line(obs, 'textbox "Name on card": Ada Lovelace').placeholder is None
    assert _by_line(obs, 'textbox "Coupon code"').placeholder is None
    assert _by_line(obs, 'textbox "ZIP code"').placeholder is None
    assert _by_line(obs, 'textbox "Search the shop"').placeholder is None
    assert _by_line(obs, 'textbox "Ville :"').placeholder is None
    assert _by_line(obs, 'date "Card expiry"').placeholder is None  # the browser shows none
    assert obs.text().count("placeholder=") == 3

    eff = page.act(email.id, "input", text="ada@example.org")
    # The effect's delta: the value now, the placeholder before.
    changed = [line for line in eff.observation.text().splitlines() if line.startswith("~ ")]
    assert changed == [
        f'~ [{email.id}] textbox "Card email": ada@example.org [focused] in "Payment details"'
        ' (was textbox "Card email" placeholder="name@example.com")'
    ]
    assert eff.observation.element(email.id).placeholder is None

    # A placeholder that changes alone is a change the delta shows.
    number = _by_line(obs, 'textbox "Card number" placeholder="1234 1234 1234 1234"')
    eff = page.act(_by_line(obs, 'button "Amex"').id, "click")
    lines = eff.observation.text().splitlines()
    assert (
        lines[lines.index('in "Payment details":') + 1 :].count(
            f'  ~ [{number.id}] textbox "Card number" placeholder="1234 123456 12345"'
            ' (was textbox "Card number" placeholder="1234 1234 1234 1234")'
        )
        == 1
    )
    assert page.playwright.evaluate("document.getElementById('card-email').value") == (
        "ada@example.org"
    )
    page.close()


# --- names from where pages put them ------------------------------------------------------------


def test_label_titles_editor_groups_and_untied_labels_name_fields_as_hints(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("names-nearby.html"))
    obs = page.observe()
    # Radios whose label tile has only a title; a checkbox whose drawn box has only a title.
    for shown in (
        'radio ~"Visa"',
        'radio ~"Mastercard"',
        'radio ~"amex"',  # the label shows only a logo image, amex.svg
        'checkbox ~"I accept the terms"',
    ):
        assert _by_line(obs, shown).name_hint
    # Editors: the label before the toolbar, the fieldset's legend, the labelled group.
    _by_line(obs, 'textbox ~"Email Address" placeholder="you@example.com"')
    _by_line(obs, 'textbox ~"Cover letter": Dear committee,')
    _by_line(obs, 'textbox ~"References"')
    # A shadow-DOM component's untied <label>, its bare text before the input, and a label
    # outside a component whose shadow root holds only the input.
    _by_line(obs, 'textbox ~"Promo code"')
    _by_line(obs, 'textbox ~"Gift card"')
    _by_line(obs, 'textbox ~"Voucher"')
    # A fieldset's legend names an editor over the description before it.
    _by_line(obs, 'textbox ~"Shipping"')
    # Short text before a field, its colon dropped; a checkbox's text after it; a radio's value.
    _by_line(obs, 'spinbutton ~"Quantity"')
    _by_line(obs, 'textbox ~"Nickname"')
    _by_line(obs, 'date ~"Arrival": 2025-05-01')  # not [selected] for its class "active"
    _by_line(obs, 'checkbox ~"Send me the newsletter" Send me the newsletter')
    _by_line(obs, 'radio ~"yearly"')
    _by_line(obs, 'checkbox ~"gift"')
    _by_line(obs, 'radio ~"small"')  # not ~"Plan size", the question its fieldset asks
    _by_line(obs, 'radio ~"large"')
    _by_line(obs, 'textbox ~"Gift message"')
    # Not names: a paragraph or a long line of prose before a field, a hidden label, a label
    # tied to another field (before it, or in a cell before it), the heading above another form.
    unnamed = [el for el in obs.elements if el.role == "textbox" and not el.name]
    assert len(unnamed) == 6, obs.text()
    assert [el.name_hint for el in obs.elements if "Coupon" in el.name] == [False]
    page.close()


def test_find_returns_the_editor_named_by_the_label_before_it(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("names-nearby.html"))
    best = page.find("Email Address")[0]
    assert (best.element.role, best.element.name) == ("textbox", "Email Address")
    assert best.selector is not None
    where = page.playwright.evaluate(
        "sel => { const el = document.querySelector(sel);"
        " return [el.className, el.parentElement.id]; }",
        best.selector,
    )
    assert where == ["ql-editor ql-blank", "email-editor"]
    page.close()


# --- states from class names --------------------------------------------------------------------


def test_a_card_chosen_by_its_class_shows_selected_after_the_click(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("names-selected.html"))
    obs = page.observe()
    amex = _by_line(obs, 'clickable "Amex ending 0005"')
    assert obs.text().count("[selected]") == 1  # the ARIA tab only
    # ARIA first: an "active" tab that aria-selected says is not chosen stays unselected.
    assert _by_line(obs, 'tab "New card"').hinted_states == frozenset()
    assert _by_line(obs, 'tab "Saved cards" [selected]').hinted_states == frozenset()
    # A list item marked active speaks for its one link (not for a link beside a submenu).
    payment = _by_line(obs, 'link "Payment" [current]')
    assert payment.hinted_states == {"current"}
    _by_line(obs, 'link "Shop"')
    # Only a list item speaks so: a wrapper div marked active is not the link's state.
    _by_line(obs, 'link "Help"')
    # A button's active class is pressed; a look class (btn-active) and a field's are no state.
    assert _by_line(obs, 'button "Bold" [pressed]').hinted_states == {"pressed"}
    _by_line(obs, 'button "Italic"')
    _by_line(obs, 'textbox "Card nickname"')
    assert _by_line(obs, 'button "Filters" [expanded]').hinted_states == frozenset()
    tree = json.dumps(json.loads(obs.to_json())["tree"])
    assert '"name": "Payment", "states": ["current"], "hinted_states": ["current"]' in tree

    eff = page.act(amex.id, "click")
    assert "no_op" not in eff.kinds, eff.text()
    chosen = eff.observation.element(amex.id)
    changed = [line for line in eff.observation.text().splitlines() if line.startswith("~ ")]
    assert changed == [
        f'~ [{amex.id}] clickable "Amex ending 0005" [selected] in "Choose a card"'
        ' (was clickable "Amex ending 0005")'
    ]
    assert chosen.hinted_states == {"selected"}
    assert chosen.to_dict()["hinted_states"] == ["selected"]
    assert page.playwright.evaluate("document.body.dataset.chosen") == "amex"
    page.close()
