"""The registry tools an MCP client needs beside the basic ones: fill_form (several fields in
one round), wait_for (a text to show or to go, or readiness) and handle_dialog (how the next
JavaScript dialog is answered). Each through ToolRegistry.call, on a fixture page of its own."""

from __future__ import annotations

from typing import Any

from conftest import StaticServer
from pagesight import Browser
from pagesight.agent import Session, ToolRegistry, ToolResult
from pagesight.agent.secrets import Secrets
from support import one


def _session(page: Any, browser: Browser, secrets: Secrets | None = None) -> Session:
    return Session(
        browser=browser._browser, page=page._page, registry=ToolRegistry.discover(), secrets=secrets
    )


def _call(browser: Browser, session: Session, tool: str, /, **arguments: Any) -> ToolResult:
    return browser._loop.run(session.registry.call(tool, arguments, session))


def _value(page: Any, selector: str) -> Any:
    return page.playwright.evaluate(f"document.querySelector({selector!r}).value")


# --- fill_form ------------------------------------------------------------------------------


def test_fill_form_types_chooses_and_ticks_only_what_differs_in_one_round(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("tools-fill-form.html"))
    try:
        session = _session(page, browser)
        obs = _call(browser, session, "observe").observation
        assert obs is not None
        ref = {name: one(obs, name).id for name in (
            "Full name", "Country", "Team", "Subscribe to newsletter", "Accept the terms",
            "Phone", "Dark mode",
        )}  # fmt: skip
        filled = _call(
            browser,
            session,
            "fill_form",
            fields=[
                {"ref": ref["Full name"], "value": "Ada Lovelace", "element": "the name field"},
                {"ref": ref["Country"], "value": "Japan"},
                {"ref": ref["Team"], "value": "Platform"},
                {"ref": ref["Subscribe to newsletter"], "value": "true"},  # checked already
                {"ref": ref["Accept the terms"], "value": "true"},
                {"ref": ref["Phone"], "value": "true"},
                {"ref": ref["Dark mode"], "value": "true"},
            ],
        )
        assert filled.error is None, filled.text
        lines = filled.text.splitlines()
        # One batch: each field that needed a step says its effect (as the tool alone would),
        # and the field left alone is named as such.
        assert [line for line in lines if not line.startswith(" ")] == [
            f"input [{ref['Full name']}] -> value_change",
            f"select [{ref['Country']}] -> value_change",
            f"select [{ref['Team']}] -> value_change",
            f"click [{ref['Accept the terms']}] -> value_change",
            f"click [{ref['Phone']}] -> value_change",
            f"click [{ref['Dark mode']}] -> dom_change, value_change",  # its text: "on"
        ]
        assert f'  value [{ref["Country"]}] combobox "Country": "Canada" -> "Japan"' in lines
        assert f"  [{ref['Subscribe to newsletter']}] checkbox: already checked" in lines
        statuses = {f["ref"]: f["status"] for f in filled.value["fields"]}
        assert statuses[ref["Subscribe to newsletter"]] == "unchanged"
        assert set(statuses.values()) == {"done", "unchanged"}
        # The ticked checkbox was not clicked (a click would have unticked it).
        assert page.playwright.evaluate("window.toggles") == ["terms", "by-phone", "dark"]
        save = one(filled.observation, "Save").id if filled.observation else 0
        _call(browser, session, "click", ref=save)
        assert page.playwright.evaluate("window.saved") == {
            "name": "Ada Lovelace", "country": "Japan", "team": "Platform", "news": True,
            "terms": True, "phone": True, "dark": True,
        }  # fmt: skip
        # Unticking goes by the page's state now: the terms box is clicked again, the
        # newsletter box too; the switch already on is left alone.
        again = _call(
            browser,
            session,
            "fill_form",
            fields=[
                {"ref": ref["Accept the terms"], "value": "false"},
                {"ref": ref["Dark mode"], "value": "true"},
            ],
        )
        assert again.error is None, again.text
        assert page.playwright.evaluate("window.toggles") == ["terms", "by-phone", "dark", "terms"]
        assert page.playwright.evaluate("document.getElementById('terms').checked") is False
    finally:
        page.close()


def test_fill_form_stops_at_the_first_failure_and_refuses_a_field_of_the_wrong_kind(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("tools-fill-form.html"))
    try:
        session = _session(page, browser)
        obs = page.observe()
        session.latest = obs
        name, country, terms = (
            one(obs, n).id for n in ("Full name", "Country", "Accept the terms")
        )
        stopped = _call(
            browser,
            session,
            "fill_form",
            fields=[
                {"ref": name, "value": "Grace Hopper"},
                {"ref": country, "value": "Atlantis"},
                {"ref": terms, "value": "true"},
            ],
        )
        assert stopped.error is not None and stopped.error.reason == "option_not_found"
        assert stopped.error.message == (  # with the options it has
            f"[{country}] has no option 'Atlantis'; its options: 'Canada', 'France', 'Japan'"
        )
        assert [f["status"] for f in stopped.value["fields"]] == ["done", "failed", "not_run"]
        assert _value(page, "#name") == "Grace Hopper"  # nothing is rolled back
        assert page.playwright.evaluate("window.toggles") == []  # the step after never ran

        button = _call(
            browser,
            session,
            "fill_form",
            fields=[{"ref": name, "value": "X"}, {"ref": one(obs, "Save").id, "value": "true"}],
        )
        assert button.error is not None and button.error.reason == "unsupported_action"
        assert button.error.message.startswith(
            f'field 2: [{one(obs, "Save").id}] is a button "Save", not a form field'
        )
        assert _value(page, "#name") == "Grace Hopper"  # refused before anything was typed

        # A checked radio is unticked only by ticking another of its group: a click on it
        # would do nothing, and be reported as done.
        email = one(obs, "Email").id
        radio = _call(
            browser,
            session,
            "fill_form",
            fields=[{"ref": name, "value": "Y"}, {"ref": email, "value": "false"}],
        )
        assert radio.error is not None and radio.error.reason == "unsupported_action"
        assert radio.error.message.startswith(
            f'field 2: [{email}] radio "Email" is checked, and a radio is unchecked only by '
            "choosing another of its group"
        )
        assert _value(page, "#name") == "Grace Hopper"
        assert page.playwright.evaluate("document.getElementById('by-email').checked") is True

        not_a_state = _call(browser, session, "fill_form", fields=[{"ref": terms, "value": "yes"}])
        assert not_a_state.error is not None
        assert not_a_state.error.reason == "invalid_arguments"
        assert '"true" or "false", not \'yes\'' in not_a_state.error.message
    finally:
        page.close()


def test_fill_form_goes_by_the_fields_state_now_not_as_the_latest_observation_saw_it(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("tools-fill-form.html"))
    try:
        session = _session(page, browser)
        obs = _call(browser, session, "observe").observation
        assert obs is not None
        terms, news = one(obs, "Accept the terms").id, one(obs, "Subscribe to newsletter").id
        # The page changes both boxes after the model read it (a script, another tab's sync):
        # a click decided by that reading would flip each back from what is asked.
        page.playwright.evaluate(
            "document.getElementById('terms').checked = true;"
            "document.getElementById('news').checked = false"
        )
        filled = _call(
            browser,
            session,
            "fill_form",
            fields=[{"ref": terms, "value": "true"}, {"ref": news, "value": "false"}],
        )
        assert filled.error is None, filled.text
        assert [f["status"] for f in filled.value["fields"]] == ["unchanged", "unchanged"]
        assert page.playwright.evaluate("window.toggles") == []  # neither was clicked
        assert page.playwright.evaluate(
            "[document.getElementById('terms').checked, document.getElementById('news').checked]"
        ) == [True, False]
    finally:
        page.close()


def test_fill_form_says_so_when_a_field_it_filled_changed_another_it_had_planned(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("tools-fill-form.html"))
    try:
        session = _session(page, browser)
        obs = _call(browser, session, "observe").observation
        assert obs is not None
        extras, gift = one(obs, "All extras").id, one(obs, "Gift wrap").id
        # Both unticked when planned: both are clicked, but the first click ticks the second
        # box already, so the second click unticks it. That is no success.
        filled = _call(
            browser,
            session,
            "fill_form",
            fields=[{"ref": extras, "value": "true"}, {"ref": gift, "value": "true"}],
        )
        assert page.playwright.evaluate("document.getElementById('gift').checked") is False
        assert filled.error is not None and filled.error.reason == "page_changed"
        assert filled.error.message.startswith(
            f'field 2: [{gift}] checkbox "Gift wrap" is unchecked after the form was filled'
        )
        assert [f["status"] for f in filled.value["fields"]] == ["done", "failed"]
    finally:
        page.close()


def test_fill_form_types_a_secret_and_masks_it_in_the_result(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("tools-fill-form.html"))
    try:
        session = _session(page, browser, Secrets({"REAL_NAME": "Ada King"}))
        obs = page.observe()
        session.latest = obs
        filled = _call(
            browser,
            session,
            "fill_form",
            fields=[{"ref": one(obs, "Full name").id, "value": "{{REAL_NAME}}"}],
        )
        assert filled.error is None, filled.text
        assert _value(page, "#name") == "Ada King"
        assert "Ada King" not in filled.text and "{{REAL_NAME}}" in filled.text
    finally:
        page.close()


# --- wait_for -------------------------------------------------------------------------------


def test_wait_for_a_text_to_go_to_show_and_for_readiness_with_typed_failures(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("tools-wait-for.html"))
    try:
        session = _session(page, browser)
        obs = page.observe()
        _call(browser, session, "click", ref=one(obs, "Start import").id)
        gone = _call(browser, session, "wait_for", text_gone="Importing…")
        assert gone.error is None, gone.text
        assert gone.text.startswith("'Importing…' is gone after ")
        assert page.playwright.evaluate("document.getElementById('state').textContent") == (
            "Import finished"
        )
        shown = _call(browser, session, "wait_for", text="import FINISHED")  # case is no matter
        assert shown.error is None and shown.text.startswith("found 'import FINISHED' after ")

        session.latest = obs  # from before the import: a failed wait still reads the page
        never = _call(browser, session, "wait_for", text="Import failed", timeout=0.5)
        assert never.error is not None and never.error.reason == "text_not_found"
        assert never.error.message == "the page did not show 'Import failed' within 0.5 s"
        assert session.latest is not obs and "Import finished" in session.latest.text()
        still = _call(browser, session, "wait_for", text_gone="Import finished", timeout=0.5)
        assert still.error is not None and still.error.reason == "text_still_shown"
        assert still.error.message == "the page still shows 'Import finished' after 0.5 s"

        ready = _call(browser, session, "wait_for")
        assert ready.error is None and ready.text.startswith("the page is ready after ")
        bad = _call(browser, session, "wait_for", text="  ")
        assert bad.error is not None and bad.error.reason == "invalid_arguments"
        for timeout in (0, -1, 120.5):  # 120 s at most: longer, the page has another problem
            late = _call(browser, session, "wait_for", text="Import finished", timeout=timeout)
            assert late.error is not None and late.error.reason == "invalid_arguments"
            assert late.error.message == (
                f"wait_for: timeout is 0 to 120 seconds, not {float(timeout)}"
            ), timeout
    finally:
        page.close()


def test_wait_for_readiness_on_a_page_that_never_settles_is_not_ready(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("ready-poll.html"))  # it polls the network for ever
    try:
        session = _session(page, browser)
        busy = _call(browser, session, "wait_for", timeout=1.5)
        assert busy.error is not None and busy.error.reason == "not_ready"
        assert busy.error.message.startswith("the page was not ready within 1.5 s")
    finally:
        page.close()


# --- handle_dialog --------------------------------------------------------------------------


def test_handle_dialog_answers_the_next_dialog_once_then_the_policy_again(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("tools-dialogs.html"))
    try:
        session = _session(page, browser)
        obs = page.observe()
        delete = one(obs, "Delete report.pdf").id
        status = "document.getElementById('status').textContent"

        first = _call(browser, session, "click", ref=delete)
        assert '  dialog confirm "Delete report.pdf?": dismissed' in first.text.splitlines()
        assert page.playwright.evaluate(status) == "kept (try 1)"

        told = _call(browser, session, "handle_dialog", accept=True)
        assert told.error is None
        assert told.text == (
            "the dialogs of this tab's next action will be accepted; now repeat the action "
            "that opens them"
        )
        accepted = _call(browser, session, "click", ref=delete)
        assert '  dialog confirm "Delete report.pdf?": accepted' in accepted.text.splitlines()
        assert accepted.value["dialogs"][0]["accepted"] is True
        assert page.playwright.evaluate(status) == "deleted (try 2)"

        # One dialog only: the next is answered by the tab's policy again.
        third = _call(browser, session, "click", ref=delete)
        assert '  dialog confirm "Delete report.pdf?": dismissed' in third.text.splitlines()
        assert page.playwright.evaluate(status) == "kept (try 3)"

        _call(browser, session, "handle_dialog", accept=True, prompt_text="summary.pdf")
        renamed = _call(browser, session, "click", ref=one(obs, "Rename report.pdf").id)
        assert '  dialog prompt "New name for report.pdf": accepted' in renamed.text.splitlines()
        assert page.playwright.evaluate(status) == "renamed to summary.pdf"
    finally:
        page.close()


def test_handle_dialog_answers_every_dialog_of_the_next_action_and_lapses_after_it(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("tools-dialogs.html"))
    try:
        session = _session(page, browser, Secrets({"NEW_NAME": "q3-secret.pdf"}))
        obs = page.observe()
        # A prompt's text may be a secret: typed, and never shown back.
        told = _call(browser, session, "handle_dialog", accept=True, prompt_text="{{NEW_NAME}}")
        assert "q3-secret.pdf" not in told.text and "{{NEW_NAME}}" in told.text
        renamed = _call(browser, session, "click", ref=one(obs, "Rename report.pdf").id)
        assert "q3-secret.pdf" not in renamed.text
        status = "document.getElementById('status').textContent"
        assert page.playwright.evaluate(status) == "renamed to q3-secret.pdf"

        empty, sort, delete = (
            one(obs, n).id for n in ("Empty the bin", "Sort by name", "Delete report.pdf")
        )
        status = "document.getElementById('status').textContent"

        # A confirm and then its "Really?": repeating the action after handle_dialog must be
        # able to get past both, or the second could never be accepted.
        _call(browser, session, "handle_dialog", accept=True)
        emptied = _call(browser, session, "click", ref=empty)
        lines = emptied.text.splitlines()
        assert '  dialog confirm "Empty the bin?": accepted' in lines
        assert '  dialog confirm "Really? This cannot be undone.": accepted' in lines
        assert page.playwright.evaluate(status) == "bin emptied"

        # Told to accept, but the action repeated opened no dialog this time: the answer
        # lapses with it, and is not left to accept an unrelated confirm later on.
        _call(browser, session, "handle_dialog", accept=True)
        _call(browser, session, "click", ref=sort)
        assert page.playwright.evaluate(status) == "sorted by name"
        later = _call(browser, session, "click", ref=delete)
        assert '  dialog confirm "Delete report.pdf?": dismissed' in later.text.splitlines()
        assert page.playwright.evaluate(status) == "kept (try 1)"

        # A batch (fill_form too) is one action: its last step's confirm gets the answer.
        _call(browser, session, "handle_dialog", accept=True)
        both = _call(
            browser,
            session,
            "batch",
            actions=[
                {"tool": "click", "arguments": {"ref": sort}},
                {"tool": "click", "arguments": {"ref": delete}},
            ],
        )
        assert both.error is None, both.text
        assert page.playwright.evaluate(status) == "deleted (try 2)"
        after = _call(browser, session, "click", ref=delete)  # and it lapsed with the batch
        assert page.playwright.evaluate(status) == "kept (try 3)", after.text
    finally:
        page.close()


def test_handle_dialog_dismisses_a_beforeunload_so_the_page_stays(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("tools-unload.html"))
    try:
        session = _session(page, browser)
        obs = page.observe()
        _call(browser, session, "input", ref=one(obs, "Message").id, text="half written")
        leave = one(obs, "Leave the draft").id
        _call(browser, session, "handle_dialog", accept=False)
        stayed = _call(browser, session, "click", ref=leave)
        assert '  dialog beforeunload "": dismissed' in stayed.text.splitlines()
        assert "navigation" not in stayed.value["kinds"]
        assert page.url == server.url("tools-unload.html")
        assert _value(page, "#message") == "half written"
        # The policy again (a beforeunload is accepted): the link loads its page.
        left = _call(browser, session, "click", ref=leave)
        assert '  dialog beforeunload "": accepted' in left.text.splitlines()
        assert page.url == server.url("tools-dialogs.html")
    finally:
        page.close()


# --- a run's steps.txt ----------------------------------------------------------------------


def _record(tool: str, **arguments: Any) -> dict[str, Any]:
    return {
        "url": "http://127.0.0.1:8000/",
        "decision": {"type": "action", "tool": tool, "arguments": arguments},
        "calls": [{"tool": tool, "ok": True}],
    }


def test_the_new_tools_compile_into_a_runs_steps_or_say_why_not() -> None:
    from pagesight.runs.replay import compile_run

    records = [
        _record("navigate", url="http://127.0.0.1:8000/"),
        _record("wait_for", text="Import finished", timeout=10.0),
        _record("wait_for_text", text="Saved", timeout=10.0),  # a run recorded before the rename
        _record("wait_for", text_gone="Importing…", timeout=10.0),
        _record("wait_for", timeout=10.0),
        _record("wait_for", text="Done", text_gone="Loading…"),  # both: neither is dropped
        _record("fill_form", fields=[{"ref": 3, "value": "Ada"}, {"ref": 4, "value": "true"}]),
        _record("click_xy", x=412.5, y=230),
        _record("hover_xy", x=40, y=12),
        _record("drag_xy", start_x=10, start_y=20, end_x=110, end_y=20),
        _record("handle_dialog", accept=True),
    ]
    lines = compile_run(records).splitlines()
    assert lines[3:] == [
        "go to /",
        'wait for "Import finished"',
        'wait for "Saved"',
        "# waited for 'Importing…' to go",
        "# waited for the page to be ready",
        'wait for "Done"',
        "# waited for 'Loading…' to go",
        "# filled the fields [3], [4] in one round (write a step for each to replay it)",
        "# click at 412.5, 230 (no element to name)",
        "# hover at 40, 12 (no element to name)",
        "# drag from 10, 20 to 110, 20 (no element to name)",
        "accept the next dialog",  # a step now: a replay accepts the confirm too
    ]
