"""Each error's ``reason``: the name it goes by in a tool result (``error (reason): …``), a
run's records and the MCP server's replies. A protocol: a class renamed keeps its reason,
and a new class says its own."""

from __future__ import annotations

import inspect
from typing import get_args

import pytest

from pagesight import errors
from pagesight.errors import (
    ActionError,
    ActionReason,
    BrowserClosed,
    PageCrashed,
    PagesightError,
    StaleElement,
)

REASONS: dict[type[PagesightError], str] = {
    errors.PagesightError: "pagesight_error",
    errors.InputError: "input_error",
    errors.UnsupportedURL: "unsupported_url",
    errors.NavigationError: "navigation_error",
    errors.SuiteError: "suite_error",
    errors.AppNotStarted: "app_not_started",
    errors.OriginNotAllowed: "origin_not_allowed",
    errors.SecretNotAllowedHere: "secret_not_allowed_here",
    errors.ConnectError: "connect_error",
    errors.InvalidOption: "invalid_option",
    errors.StaleElement: "stale_id",
    errors.StepsError: "steps_error",
    errors.BrowserClosed: "browser_closed",
    errors.SetupError: "setup_error",
    errors.BrowserNotFound: "browser_not_found",
    errors.RuntimeFailure: "runtime_failure",
    errors.PageCrashed: "page_crashed",
    errors.PageUnresponsive: "page_unresponsive",
    errors.ProtocolError: "protocol_error",
    errors.RecordsNotWritten: "records_not_written",
    errors.OcrNotFound: "ocr_not_found",
    errors.OcrFailed: "ocr_failed",
    errors.ModelNotConfigured: "model_not_configured",
    errors.ModelError: "model_error",
    errors.VisionModelError: "vision_model_error",
    errors.ContextOverflow: "context_overflow",
    errors.DecisionsError: "decisions_error",
    errors.DecisionsRateLimited: "decisions_rate_limited",
    errors.DecisionsAnswerInvalid: "decisions_answer_invalid",
}
"""Every error class's reason but ActionError's, which each error is given when raised."""

ACTION_REASONS = (
    "stale_id",
    "not_visible",
    "covered",
    "disabled",
    "readonly",
    "not_editable",
    "option_not_found",
    "unsupported_action",
    "page_changed",
)


def _classes() -> list[type[PagesightError]]:
    return [
        cls
        for cls in vars(errors).values()
        if inspect.isclass(cls) and issubclass(cls, PagesightError)
    ]


def test_every_error_class_says_its_own_reason() -> None:
    classes = _classes()
    assert set(classes) == set(REASONS) | {ActionError}  # a new class: add its reason here
    for cls in classes:
        if cls is not ActionError:
            assert "reason" in vars(cls), f"{cls.__name__} inherits its reason"
            assert cls.reason == REASONS[cls], cls.__name__


def test_an_action_error_carries_the_reason_it_was_raised_with() -> None:
    assert get_args(ActionReason) == ACTION_REASONS
    for reason in get_args(ActionReason):
        assert ActionError(reason, "no").reason == reason
    assert StaleElement("gone").reason == "stale_id"


@pytest.mark.parametrize(
    ("error", "said", "what"),
    [
        (
            PageCrashed("the page was closed", advice="open a new page"),
            "the page was closed; open a new page",
            "the page was closed",
        ),
        (
            BrowserClosed("this browser is closed", advice="launch or connect a new one"),
            "this browser is closed; launch or connect a new one",
            "this browser is closed",
        ),
        (PageCrashed("the page closed while loading x"), "the page closed while loading x", None),
    ],
)
def test_the_advice_ends_the_message_and_can_be_left_out(
    error: PagesightError, said: str, what: str | None
) -> None:
    assert str(error) == said
    assert error.what == (what or said)
    assert error.advice == ("" if what is None else said.removeprefix(f"{what}; "))
