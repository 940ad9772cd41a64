"""Date and time inputs: their type is their role, and input takes human forms."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import StaticServer
from pagesight import ActionError  # type: ignore[attr-defined, unused-ignore]
from pagesight.act.dates import control_value
from pagesight.vision.marks import kind_for_role
from support import one


def _open(page: Any, server: StaticServer) -> Any:
    page.playwright.goto(server.url("act-dates.html"))
    return page.observe()


def _value(page: Any, input_id: str) -> Any:
    return page.playwright.evaluate(f"document.getElementById({input_id!r}).value")


def test_date_and_time_inputs_show_their_type_as_their_role(
    page: Any, server: StaticServer
) -> None:
    text = _open(page, server).text()
    for line in (
        '[1] date "Event date": 2026-12-01',
        'time "Start time"',
        'datetime-local "Doors open"',
        'month "Billing month"',
        'week "Sprint week"',
    ):
        assert line.split("] ", 1)[-1] in text, text


@pytest.mark.parametrize(
    "case",
    [
        ("Event date", "day", "05/01/2025", "2025-05-01"),  # month first, as in US usage
        ("Event date", "day", "1 May 2025", "2025-05-01"),
        ("Event date", "day", "May 1, 2025", "2025-05-01"),
        ("Event date", "day", "2025-05-01", "2025-05-01"),
        ("Start time", "at", "13:45", "13:45"),
        ("Start time", "at", "1:45 pm", "13:45"),
        ("Doors open", "doors", "05/01/2025 7:30 pm", "2025-05-01T19:30"),
        ("Billing month", "billing", "May 2025", "2025-05"),
        ("Sprint week", "sprint", "week 18 2025", "2025-W18"),
        ("Date of birth", "born", "05/01/2025", "2025-01-05"),  # lang="en-GB": day first
    ],
)
def test_input_takes_human_forms_in_the_controls_format(
    page: Any, server: StaticServer, case: tuple[str, str, str, str]
) -> None:
    name, input_id, typed, stored = case
    field = one(_open(page, server), name)
    eff = page.act(field.id, "input", text=typed)
    assert _value(page, input_id) == stored
    assert eff.observation.element(field.id).value == stored
    assert "value_change" in eff.kinds
    # The page's own change handler saw the value.
    assert page.playwright.evaluate("window.changes")[-1].startswith(f"{input_id}={stored}:")


def test_text_that_is_no_date_says_which_format_the_field_takes(
    page: Any, server: StaticServer
) -> None:
    field = one(_open(page, server), "Event date")
    with pytest.raises(ActionError) as info:
        page.act(field.id, "input", text="next Tuesday")
    assert info.value.reason == "not_editable"
    assert "YYYY-MM-DD" in str(info.value) and "'next Tuesday' reads as no date" in str(info.value)
    assert str(info.value).lower().count("next tuesday") == 1
    assert _value(page, "day") == "2026-12-01"  # untouched
    with pytest.raises(ActionError) as month:  # a part out of range says which, with the text
        page.act(field.id, "input", text="13/13/2025")
    assert "'13/13/2025'" in str(month.value) and "month" in str(month.value)


def test_a_field_the_page_leaves_empty_is_an_error_not_a_silent_blank(
    page: Any, server: StaticServer
) -> None:
    field = one(_open(page, server), "Locked date")
    with pytest.raises(ActionError) as info:
        page.act(field.id, "input", text="May 1, 2025")
    assert info.value.reason == "not_editable"
    assert "left it empty" in str(info.value) and "YYYY-MM-DD" in str(info.value)


def test_a_value_kept_but_out_of_bounds_or_step_is_said(page: Any, server: StaticServer) -> None:
    obs = _open(page, server)
    trip = one(obs, "Trip start")
    eff = page.act(trip.id, "input", text="1 Jan 2030")
    assert _value(page, "trip") == "2030-01-01"  # the browser keeps it, as typed by a person
    message = page.playwright.evaluate("document.getElementById('trip').validationMessage")
    assert message  # the browser's own words, as it will say them when the form is sent
    assert eff.errors == (
        f"[{trip.id}] date kept '2030-01-01', but a form will not send it: {message}",
    )
    assert "error: " in eff.text()
    # Seconds in a field that takes whole minutes (no step=): kept, and not sendable either.
    check_in = one(obs, "Check-in", "datetime-local")
    late = page.act(check_in.id, "input", text="2025-05-01T13:45:30")
    assert len(late.errors) == 1 and "'2025-05-01T13:45:30'" in late.errors[0]
    assert page.act(check_in.id, "input", text="2025-05-01T13:45").errors == ()
    assert page.act(trip.id, "input", text="May 1, 2025").errors == ()


def test_find_names_date_fields_as_fields(page: Any, server: StaticServer) -> None:
    obs = _open(page, server)
    assert obs.find("event date field")[0].element.name == "Event date"
    assert obs.find("start time input")[0].element.role == "time"
    # Beside a link of the same name, the field is the one "field" means.
    assert obs.find("check-in field")[0].element.role == "datetime-local"
    assert obs.find("check-in link")[0].element.role == "link"


@pytest.mark.parametrize(
    ("typed", "kind", "lang", "value"),
    [
        ("13/01/2025", "date", "", "2025-01-13"),  # a day over 12 settles the order
        ("01/13/2025", "date", "de", "2025-01-13"),
        ("Thursday, May 1st, 2025", "date", "", "2025-05-01"),
        ("2025/05/01", "date", "", "2025-05-01"),
        ("12:05 am", "time", "", "00:05"),
        ("noon", "time", "", "12:00"),
        ("2025-05-01T13:45", "datetime-local", "", "2025-05-01T13:45"),
        ("May 1, 2025 at 1:45 pm", "datetime-local", "", "2025-05-01T13:45"),
        ("05/2025", "month", "", "2025-05"),
        ("2025-W18", "week", "", "2025-W18"),
        ("05/01/2025", "week", "", "2025-W18"),
    ],
)
def test_human_dates_read_as_the_control_format(
    typed: str, kind: str, lang: str, value: str
) -> None:
    assert control_value(typed, kind, lang=lang) == value


@pytest.mark.parametrize(
    ("typed", "kind"),
    [("02/30/2025", "date"), ("25:00", "time"), ("13", "time"), ("13:45 pm", "time")],
)
def test_impossible_dates_and_times_are_refused(typed: str, kind: str) -> None:
    with pytest.raises(ValueError):
        control_value(typed, kind)


def test_set_of_marks_draws_date_fields_as_inputs() -> None:
    for role in ("date", "time", "datetime-local", "month", "week"):
        assert kind_for_role(role) == "input"
