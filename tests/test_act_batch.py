"""Batches: steps in order, stop at the first failure, never roll back, navigation last."""

from __future__ import annotations

from typing import Any

from conftest import StaticServer
from pagesight import ActionError, NavigationError, Observation  # type: ignore[attr-defined, unused-ignore]
from support import one


def _profile(page: Any, server: StaticServer) -> Observation:
    page.playwright.goto(server.url("act-profile.html"))
    obs: Observation = page.observe()
    return obs


def _js(page: Any, expression: str) -> Any:
    return page.playwright.evaluate(expression)


def test_a_batch_fills_two_fields_and_saves(page: Any, server: StaticServer) -> None:
    obs = _profile(page, server)
    first, last = one(obs, "First name", "textbox"), one(obs, "Last name", "textbox")
    save = one(obs, "Save", "button")
    result = page.batch(
        [
            (first.id, "input", {"text": "Ada"}),
            (last.id, "input", {"text": "Lovelace"}),
            (save.id, "click"),
        ]
    )
    assert result.ok
    steps = result.steps
    assert [s.status for s in steps] == ["done", "done", "done"]
    assert [s.index for s in steps] == [0, 1, 2]
    assert [(s.element_id, s.action) for s in steps] == [
        (first.id, "input"),
        (last.id, "input"),
        (save.id, "click"),
    ]
    assert all(s.error is None and s.effect is not None for s in steps)
    assert "value_change" in steps[0].effect.kinds
    assert _js(page, "window.saved") == {"first": "Ada", "last": "Lovelace"}
    assert result.effect is not None
    assert "Saved Ada Lovelace" in result.effect.texts_added


def test_a_batch_stops_at_a_failing_step_and_keeps_what_was_done(
    page: Any, server: StaticServer
) -> None:
    obs = _profile(page, server)
    first = one(obs, "First name", "textbox")
    publish, save = one(obs, "Publish", "button"), one(obs, "Save", "button")
    result = page.batch(
        [(first.id, "input", {"text": "Ada"}), (publish.id, "click"), (save.id, "click")]
    )
    assert not result.ok
    done, failed, skipped = result.steps
    assert (done.status, failed.status, skipped.status) == ("done", "failed", "not_run")
    assert isinstance(failed.error, ActionError)
    assert failed.error.reason == "disabled" and failed.effect is None
    assert skipped.effect is None and skipped.error is None
    # Step 1 happened and stays (no roll back); Save never ran.
    assert done.effect is not None and "value_change" in done.effect.kinds
    assert result.effect is not None and result.effect.values == done.effect.values
    assert _js(page, "document.getElementById('first').value") == "Ada"
    assert _js(page, "window.saved") is None
    assert _js(page, "window.published") is None


def test_steps_after_a_navigation_are_refused(page: Any, server: StaticServer) -> None:
    obs = _profile(page, server)
    first, last = one(obs, "First name", "textbox"), one(obs, "Last name", "textbox")
    guide = one(obs, "Open the guide", "link")
    result = page.batch(
        [
            (first.id, "input", {"text": "Ada"}),
            (guide.id, "click"),
            (last.id, "input", {"text": "Lovelace"}),
            (None, "back"),
        ]
    )
    assert not result.ok
    assert [s.status for s in result.steps] == ["done", "done", "refused", "refused"]
    for step in result.steps[2:]:
        assert step.error is not None and step.error.reason == "page_changed"
        assert step.effect is None
    target = server.url("act-target.html?from=profile")
    assert result.effect is not None and "navigation" in result.effect.kinds
    assert result.effect.url_after == target == page.url  # "back" never ran


def test_navigate_may_be_the_last_step_but_not_a_middle_one(
    page: Any, server: StaticServer
) -> None:
    obs = _profile(page, server)
    first = one(obs, "First name", "textbox")
    target = server.url("act-target.html?from=batch")
    last_step = page.batch(
        [(first.id, "input", {"text": "Ada"}), (None, "navigate", {"url": target})]
    )
    assert last_step.ok
    assert [s.status for s in last_step.steps] == ["done", "done"]
    assert page.url == target

    obs = _profile(page, server)
    first = one(obs, "First name", "textbox")
    middle = page.batch([(None, "navigate", {"url": target}), (first.id, "input", {"text": "Ada"})])
    assert not middle.ok
    assert [s.status for s in middle.steps] == ["done", "refused"]
    error = middle.steps[1].error
    assert error is not None and error.reason == "page_changed"
    assert page.url == target


def test_a_step_that_changes_the_page_in_place_is_followed_by_the_rest(
    page: Any, server: StaticServer
) -> None:
    # A search box filtering a list and writing the query into the URL (replaceState): the
    # document is the same and so are the ids, so the click on a result still runs.
    page.playwright.goto(server.url("batch-filter.html"))
    obs = page.observe()
    search = one(obs, "Search contacts", "searchbox")
    alice = one(obs, "Alice Chen", "link")
    bob = one(obs, "Bob Martin", "link")
    result = page.batch([(search.id, "input", {"text": "Alice"}), (alice.id, "click")])
    assert [s.status for s in result.steps] == ["done", "done"]
    assert "navigation" in result.steps[0].effect.kinds  # the URL took the query
    assert _js(page, "window.opened") == "Alice Chen"
    # A step whose element the filter removed is refused, not tried.
    page.playwright.goto(server.url("batch-filter.html"))
    obs = page.observe()
    search, bob = one(obs, "Search contacts", "searchbox"), one(obs, "Bob Martin", "link")
    result = page.batch([(search.id, "input", {"text": "Alice"}), (bob.id, "click")])
    assert [s.status for s in result.steps] == ["done", "refused"]
    assert result.steps[1].error is not None and result.steps[1].error.reason == "page_changed"
    assert _js(page, "window.opened") is None


def test_a_step_that_fails_to_load_keeps_the_steps_before(
    page: Any, server: StaticServer, closed_port: int
) -> None:
    # Not an ActionError: a NavigationError once raised out of the batch, and the typed
    # first name was lost with it.
    obs = _profile(page, server)
    first = one(obs, "First name", "textbox")
    result = page.batch(
        [
            (first.id, "input", {"text": "Ada"}),
            (None, "navigate", {"url": f"http://127.0.0.1:{closed_port}/", "timeout": 5}),
        ]
    )
    assert not result.ok
    typed, went = result.steps
    assert typed.status == "done" and typed.effect is not None
    assert "value_change" in typed.effect.kinds
    assert went.status == "failed" and went.effect is None
    assert isinstance(went.error, NavigationError)
    assert went.error.reason == "navigation_error"
