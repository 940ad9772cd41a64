"""What an Effect says when the page answers a click only with how it looks: a submit the
browser's own validation stopped, a card highlighted by a class."""

from __future__ import annotations

from typing import Any

from conftest import StaticServer
from pagesight import Observation
from support import line, one, open_and_observe


def _open(page: Any, server: StaticServer, path: str) -> Observation:
    return open_and_observe(page, server.url(path))


def _js(page: Any, expression: str) -> Any:
    return page.playwright.evaluate(expression)


# --- why a submit did nothing -------------------------------------------------------------------


def test_a_submit_stopped_by_the_browsers_validation_says_so_and_names_the_fields(
    page: Any, server: StaticServer
) -> None:
    obs = _open(page, server, "form-validation.html")
    submit = one(obs, "Create account", "button")
    email, age = one(obs, "Email", "textbox"), one(obs, "Age", "spinbutton")
    assert "invalid" not in line(obs, '"Email"')  # nothing was said to the person yet

    eff = page.act(submit.id, "click")
    assert _js(page, "window.submits") == 0
    assert "form_invalid" in eff.kinds
    assert [(el.id, el.error) for el in eff.invalid] == [
        (email.id, "Please fill out this field."),
        (age.id, "Value must be greater than or equal to 18."),
    ]
    text = eff.text()
    assert "form not sent: the browser's validation stopped it" in text
    assert f'invalid [{email.id}] textbox "Email": "Please fill out this field."' in text

    now = page.observe()
    assert line(now, '"Email"') == (
        f'[{email.id}] textbox "Email" [required focused invalid: "Please fill out this field."]'
    )
    assert line(now, '"Age"') == (
        f'[{age.id}] spinbutton "Age": 12 [invalid: "Value must be greater than or equal to 18."]'
    )
    assert now.element(email.id).to_dict()["error"] == "Please fill out this field."
    assert now.element(submit.id).error is None

    # Clicking again changes nothing on the page, but it is still not a bare no_op.
    again = page.act(submit.id, "click")
    assert again.kinds == ("form_invalid",)
    assert [el.id for el in again.invalid] == [email.id, age.id]

    # Once the fields are right the form is sent, and nothing is invalid any more.
    page.act(email.id, "input", text="ada@example.com")
    page.act(age.id, "input", text="30")
    sent = page.act(submit.id, "click")
    assert _js(page, "window.submits") == 1
    assert "form_invalid" not in sent.kinds and sent.invalid == ()
    assert "Account created" in sent.texts_added
    assert page.observe().element(email.id).error is None


def test_form_invalid_names_only_the_fields_this_submit_stopped_on_and_not_live_checks(
    page: Any, server: StaticServer
) -> None:
    obs = _open(page, server, "form-validation.html")
    email = one(obs, "Email", "textbox")
    first = page.act(one(obs, "Create account", "button").id, "click")
    assert "form_invalid" in first.kinds
    assert line(page.observe(), '"Email"').endswith('invalid: "Please fill out this field."]')

    # A form whose own submit handler calls reportValidity: only its field is named, not the
    # other form's fields, still invalid from before.
    message = one(obs, "Message", "textbox")
    eff = page.act(one(obs, "Send feedback", "button").id, "click")
    assert _js(page, "window.feedbacks") == 0
    assert "form_invalid" in eff.kinds
    assert [(el.id, el.error) for el in eff.invalid] == [
        (message.id, "Please fill out this field.")
    ]
    assert f"invalid [{email.id}]" not in eff.text()

    # A wizard's Next button (not a submit) that asks the browser to report its step's field.
    street = one(obs, "Street", "textbox")
    step = page.act(one(obs, "Next", "button").id, "click")
    assert _js(page, "window.steps") == 0
    assert [el.id for el in step.invalid] == [street.id]
    assert line(page.observe(), '"Street"') == (
        f'[{street.id}] textbox "Street" [required focused invalid: "Please fill out this field."]'
    )

    # Typing into a form the page checks as the person types is not a submit stopped.
    typed = page.act(one(obs, "Newsletter email", "textbox").id, "input", text="ada")
    assert "form_invalid" not in typed.kinds and typed.invalid == ()
    assert "form not sent" not in typed.text()


# --- a click that changes only how things look --------------------------------------------------


def test_choosing_a_card_that_the_page_only_highlights_is_a_dom_change(
    page: Any, server: StaticServer
) -> None:
    obs = _open(page, server, "card-highlight.html")
    visa = one(obs, "Visa •••• 4242", "clickable")
    eff = page.act(visa.id, "click")
    assert _js(page, "window.chosen") == "visa"
    assert eff.kinds == ("dom_change",)
    # The class gave it a blue border; its hover background (a transition) is not the answer.
    assert eff.restyled == (
        f'[{visa.id}] clickable "Visa •••• 4242": border-color rgb(221, 221, 221) -> '
        "rgb(37, 99, 235)",
    )
    # Said as what it is, without a count of elements that did not change.
    assert eff.text().splitlines() == [
        f"click [{visa.id}] -> dom_change",
        f"  look: {eff.restyled[0]}",
    ]
    assert eff.to_dict()["restyled"] == list(eff.restyled)

    # Clicking it again leaves it as it was: nothing happened.
    again = page.act(visa.id, "click")
    assert again.kinds == ("no_op",) and again.restyled == ()


def test_an_animation_running_before_a_click_does_not_make_it_a_change(
    page: Any, server: StaticServer
) -> None:
    obs = _open(page, server, "card-highlight.html")
    # The button sits in a badge that pulses its colour, beside a spinner, before any click.
    assert _js(page, "document.querySelector('.live').getAnimations().length") == 1
    refresh = one(obs, "Refresh status", "button")
    eff = page.act(refresh.id, "click")
    assert eff.kinds == ("no_op",)
    assert eff.restyled == ()


def test_a_restyle_is_seen_under_a_hover_fade_deep_inside_above_and_at_a_fades_end(
    page: Any, server: StaticServer
) -> None:
    obs = _open(page, server, "card-highlight.html")
    # A toggle's hover background fades in under the same transition as its chosen colour.
    bold = one(obs, "Bold", "clickable")
    eff = page.act(bold.id, "click")
    assert eff.kinds == ("dom_change",)
    assert eff.restyled == (
        f'[{bold.id}] clickable "Bold": background-color rgb(240, 240, 240) -> rgb(25, 118, 210)',
    )
    # The chosen class colours a dot two levels inside, and starts a 600 ms border fade: the
    # border is said at the colour it fades to.
    express = one(obs, "Express", "clickable")
    eff = page.act(express.id, "click")
    assert eff.restyled == (
        f'[{express.id}] clickable "Express": border-color rgb(221, 221, 221) -> rgb(204, 0, 0)',
        '<span class="dot">: background-color rgb(204, 204, 204) -> rgb(46, 125, 50)',
    )
    # A button that highlights the card around it.
    choose = one(obs, "Choose Pro", "button")
    eff = page.act(choose.id, "click")
    assert eff.restyled == (
        '<div id="plan" class="plan on">: border-color rgb(221, 221, 221) -> rgb(37, 99, 235)',
    )
    # A focus ring where the click moved focus is not the page's answer to it.
    tile = one(obs, "Help tile", "clickable")
    eff = page.act(tile.id, "click")
    assert _js(page, "document.activeElement.className") == "ring"
    assert eff.kinds == ("no_op",) and eff.restyled == ()


# --- texts that went, and texts still shown -----------------------------------------------------


def test_a_text_still_shown_by_a_row_left_is_not_reported_removed(
    page: Any, server: StaticServer
) -> None:
    # Filtering the table takes three rows away; Alice's row, left, shows the same title,
    # company and city as some of them: those texts are not gone.
    obs = _open(page, server, "effect-filter-rows.html")
    page.act(one(obs, "Search contacts", "searchbox").id, "input", text="Alice")
    eff = page.act(one(page.observe(), "Search", "button").id, "click")
    assert _js(page, "document.querySelectorAll('#rows tr').length") == 1
    assert eff.texts_removed == ("Bob Martin", "Carla Diaz", "Designer", "Madrid", "Dev Patel")
    text = eff.text()
    for still_shown in ("Software Engineer", "Northwind Labs", "London"):
        assert f'- text "{still_shown}"' not in text
    assert '- text "Madrid"' in text


def test_the_elements_past_the_summary_are_counted_not_pointed_at(
    page: Any, server: StaticServer
) -> None:
    # 22 links go: eight are named, the rest counted; no pointer to a Python attribute a
    # model reading the text cannot follow.
    obs = _open(page, server, "mcp-search-filter.html")
    eff = page.act(one(obs, "Search contacts", "searchbox").id, "input", text="Alice Chen")
    lines = eff.text().splitlines()
    assert "  elements: 0 added, 22 removed, 0 changed" in lines
    assert sum(line.startswith("  - [") for line in lines) == 8
    assert "  … 14 more" in lines
    assert len(eff.changes.removed if eff.changes else ()) == 22
