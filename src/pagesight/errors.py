"""The one error hierarchy of pagesight, split by who must act.

::

    PagesightError                 base class; ``exit_code`` is what the CLI exits with
    ├── InputError        (2)      the caller passed something unusable: fix the input
    │   ├── UnsupportedURL         a scheme pagesight cannot open (http, https, file, about, data)
    │   ├── NavigationError        the URL could not be loaded (refused, unknown host, …)
    │   ├── OriginNotAllowed       the browser's origin policy refused the URL (allowed_origins)
    │   ├── SecretNotAllowedHere   a secret typed on an origin it is not scoped to; nothing typed
    │   ├── ConnectError           nothing answers at the CDP URL given to Browser.connect
    │   ├── InvalidOption          an option out of range (also a ValueError); names the option
    │   ├── ActionError            an action that cannot run as asked; ``reason`` says why
    │   │   └── StaleElement       an element id whose element is gone (observe again)
    │   ├── StepsError             a steps script that cannot be run; ``line`` names the line
    │   ├── SuiteError             a task suite (``pagesight eval``) that cannot be run
    │   └── BrowserClosed          a call on a Browser (or its pages) after close()
    ├── SetupError        (2)      the machine lacks something: install it
    │   ├── BrowserNotFound        no Chromium executable was found, or it would not run
    │   ├── OcrNotFound            the tesseract binary or one of its language packs is missing
    │   └── ModelNotConfigured     a model's API key, or its provider's SDK (an extra), is missing
    ├── RuntimeFailure    (1)      the browser failed underneath us: retry or report
    │   ├── PageCrashed            the page's renderer crashed or the tab was closed
    │   ├── PageUnresponsive       the page did not answer in time (a script keeps it busy)
    │   ├── ProtocolError          a DevTools/Playwright failure we could not classify
    │   ├── RecordsNotWritten      a run's records could not be written (a full disk, say)
    │   ├── AppNotStarted          a task suite's app did not start or answer
    │   ├── OcrFailed              tesseract ran but failed (a bad image, a crash, a time-out)
    │   └── ModelError             a model's server refused, failed, timed out or answered garbage
    │       ├── VisionModelError   a vision-language model did not answer usably
    │       └── DecisionsError     the Decisions API failed or refused (``request_id``: the call)
    │           ├── DecisionsRateLimited   429 asking to wait too long, or retries used up
    │           └── DecisionsAnswerInvalid the API answered, but not in the shape asked for
    └── ContextOverflow            a model's context outgrew its token budget (a run's stop reason)

Each class names itself with ``reason`` (``page_crashed``; an ActionError's own, given when
it is raised: ``stale_id``, ``covered``, …), the name a tool result and the MCP server give
it; a message that ends with what to do next keeps that clause in ``advice`` too.

Playwright and CDP errors are translated once, where pagesight calls them, with
``raise … from exc`` so the original stays attached; :func:`first_line` is how a foreign
message is quoted in ours.
"""

from __future__ import annotations

import math
import re
from typing import Literal

_CALLER = re.compile(r"^(?:[A-Z][A-Za-z]*\.[a-z][A-Za-z]*: |Protocol error \([\w.]+\): )+")
"""What Playwright puts before the reason: the API it was called through (``Page.goto: ``,
``CDPSession.send: ``) and the DevTools method (``Protocol error (DOM.resolveNode): ``). Our
message names what was being done in its own words; those names would only repeat it, in a
vocabulary the user never used."""


def first_line(exc: BaseException | str) -> str:
    """A foreign error's message as ours quote it: its first non-blank line (Playwright
    appends a call log, which is no part of a one-line error) without the Playwright call
    it came through, or the error's type name when it has no message at all. The one place
    a Playwright or DevTools message is turned into words of ours."""
    text = exc if isinstance(exc, str) else str(exc)
    for line in text.splitlines():
        if line.strip():
            return _CALLER.sub("", line.strip()) or line.strip()
    return "no message" if isinstance(exc, str) else type(exc).__name__


class PagesightError(Exception):
    """Base class of every error pagesight raises on purpose.

    ``reason`` names the error where it leaves pagesight as data (a tool result's
    ``error (reason): …``, a run's records, the MCP server's replies): a protocol, so each
    class says its own rather than having it derived from its name. ``advice`` is what to do
    next, when the message ends with it (``launch or connect a new one``): kept apart so that
    a front end with other means to do it (the MCP server's tools) can say those instead.
    """

    exit_code = 1
    reason: str = "pagesight_error"

    def __init__(self, message: str, *, advice: str = "") -> None:
        super().__init__(f"{message}; {advice}" if advice else message)
        self.advice = advice

    @property
    def what(self) -> str:
        """The message without its advice: what went wrong."""
        # Read off the message, not kept apart: a message with a secret in it is masked in
        # place (agent.secrets.mask_exception), and a copy would keep the secret.
        return str(self).removesuffix(f"; {self.advice}") if self.advice else str(self)


class InputError(PagesightError):
    """The caller passed something unusable."""

    exit_code = 2
    reason = "input_error"


class UnsupportedURL(InputError):
    """A URL whose scheme pagesight does not open."""

    reason = "unsupported_url"


class NavigationError(InputError):
    """The page at a URL could not be loaded."""

    reason = "navigation_error"


class OriginNotAllowed(InputError):
    """A URL outside the browser's ``allowed_origins`` (or a local file without
    ``allow_file_access``): nothing was loaded. ``origin`` is the origin refused, ``allowed``
    the patterns that were allowed."""

    reason = "origin_not_allowed"

    def __init__(
        self, message: str, *, url: str, origin: str, allowed: tuple[str, ...] = ()
    ) -> None:
        super().__init__(message)
        self.url = url
        self.origin = origin
        self.allowed = allowed


class SecretNotAllowedHere(InputError):
    """A secret scoped to some origins (``NAME@https://bank.example``) was to be typed on a
    page or frame of another origin: nothing was typed. ``name`` is the secret's name,
    ``origin`` where it was to go, ``allowed`` the origins it is scoped to."""

    reason = "secret_not_allowed_here"

    def __init__(self, message: str, *, name: str, origin: str, allowed: tuple[str, ...]) -> None:
        super().__init__(message)
        self.name = name
        self.origin = origin
        self.allowed = allowed


class ConnectError(InputError):
    """No browser answered at the DevTools URL."""

    reason = "connect_error"


class InvalidOption(InputError, ValueError):
    """An option given a value it does not accept; ``option`` names the parameter."""

    reason = "invalid_option"

    def __init__(self, option: str, message: str) -> None:
        super().__init__(message)
        self.option = option


def check_seconds(option: str, value: object) -> None:
    """:class:`InvalidOption` unless ``value`` is a finite number of seconds above 0: NaN
    times out at once, infinity waits for ever, and ``True`` is an int to Python, not seconds."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value <= 0
    ):
        raise InvalidOption(option, f"{option} must be a positive number of seconds, not {value!r}")


ActionReason = Literal[
    "stale_id",
    "not_visible",
    "covered",
    "disabled",
    "readonly",
    "not_editable",
    "option_not_found",
    "unsupported_action",
    "page_changed",
]


class ActionError(InputError):
    """An action refused before it ran, because the page is not as the caller thought.

    ``reason`` is one of :data:`ActionReason`; ``options`` lists a select's options (for
    ``option_not_found``) and ``actions`` what the element accepts (for ``unsupported_action``
    and ``not_editable``), so an agent can correct itself without another observation.
    """

    reason: ActionReason
    """Each error its own, given when it is raised (a class of its own for one, StaleElement)."""

    def __init__(
        self,
        reason: ActionReason,
        message: str,
        *,
        element_id: int | None = None,
        options: tuple[str, ...] = (),
        actions: tuple[str, ...] = (),
    ) -> None:
        super().__init__(message)
        self.reason = reason
        self.element_id = element_id
        self.options = options
        self.actions = actions


class StaleElement(ActionError):
    """An element id whose element no longer exists (removed, or its document replaced)."""

    reason: ActionReason = "stale_id"

    def __init__(self, message: str, *, element_id: int | None = None) -> None:
        super().__init__(StaleElement.reason, message, element_id=element_id)


class StepsError(InputError):
    """A steps script (the steps planner's input) that cannot be run: a line that is no step,
    or a secret nobody gave. ``line`` is its 1-based line number (``None``: the whole
    script), already named in the message."""

    reason = "steps_error"

    def __init__(self, message: str, *, line: int | None = None) -> None:
        super().__init__(message if line is None else f"line {line}: {message}")
        self.line = line


class SuiteError(InputError):
    """A task suite (``pagesight eval``) that cannot be run: a TOML file that does not parse,
    a field missing or of the wrong kind, a steps file or check that is not there. The
    message names the file, the task and the field."""

    reason = "suite_error"


class BrowserClosed(InputError):
    """The browser was closed; open a new one."""

    reason = "browser_closed"


class SetupError(PagesightError):
    """Something pagesight needs is missing from this machine."""

    exit_code = 2
    reason = "setup_error"


class BrowserNotFound(SetupError):
    """No Chromium executable could be found, or the one given would not run."""

    reason = "browser_not_found"


class RuntimeFailure(PagesightError):
    """The browser failed underneath pagesight."""

    exit_code = 1
    reason = "runtime_failure"


class PageCrashed(RuntimeFailure):
    """The page's renderer crashed or the page was closed."""

    reason = "page_crashed"


class PageUnresponsive(RuntimeFailure):
    """The page did not answer within the time allowed (a script keeps its thread busy)."""

    reason = "page_unresponsive"


class ProtocolError(RuntimeFailure):
    """A DevTools Protocol or Playwright call failed for a reason pagesight cannot classify."""

    reason = "protocol_error"


class RecordsNotWritten(RuntimeFailure, OSError):
    """A run's records could not be written to its folder (the disk is full, the folder
    went). Also an :class:`OSError`, carrying the ``errno`` of the write that failed; what
    was written before it stays whole."""

    reason = "records_not_written"


class AppNotStarted(RuntimeFailure):
    """A task suite's app did not start, exited, or did not answer its ``ready`` path in
    time: an infrastructure failure, retried, never counted as the task failing."""

    reason = "app_not_started"


class OcrNotFound(SetupError):
    """Tesseract, or the language data asked for, is not installed."""

    reason = "ocr_not_found"


class OcrFailed(RuntimeFailure):
    """Tesseract ran but did not read the image."""

    reason = "ocr_failed"


class ModelNotConfigured(SetupError):
    """A model cannot be called from this machine: its API key is not set, or the SDK of its
    provider (``pip install 'pagesight[openai]'``) is not installed. Raised before a browser
    starts."""

    reason = "model_not_configured"


class ModelError(RuntimeFailure):
    """A model's server refused the request (a bad key, a bad request), kept failing after
    the retries, asked to wait too long, timed out, or answered in a shape that is not its
    API's. ``status`` is the HTTP status when there was one."""

    reason = "model_error"

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class VisionModelError(ModelError):
    """A vision-language model endpoint failed, refused, or answered in an unknown shape.

    ``status`` is the HTTP status when there was one.
    """

    reason = "vision_model_error"


class ContextOverflow(PagesightError):
    """A model's context outgrew its token budget: ``tokens`` counted, ``budget`` allowed.

    The agent loop ends the run with the stop reason ``context_overflow`` (exit code 3: it
    ended on its own, short of the goal).
    """

    exit_code = 3
    reason = "context_overflow"

    def __init__(self, message: str, *, tokens: int, budget: int) -> None:
        super().__init__(message)
        self.tokens = tokens
        self.budget = budget


class DecisionsError(ModelError):
    """The Decisions API (the ``decisions`` planner's model) failed: refused the request
    (400, 401: not retried), kept failing (5xx, time-outs, after the retries), or could not be
    reached. ``status`` is the HTTP status when there was one; ``request_id`` the API's
    ``x-request-id`` for that call (``None`` when no reply came), to quote to its support."""

    reason = "decisions_error"

    def __init__(
        self, message: str, *, status: int | None = None, request_id: str | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.request_id = request_id


class DecisionsRateLimited(DecisionsError):
    """429: the API asked to wait ``retry_after`` seconds, more than the client may wait (or
    it kept asking after every retry)."""

    reason = "decisions_rate_limited"

    def __init__(
        self,
        message: str,
        *,
        retry_after: float | None,
        status: int | None = 429,
        request_id: str | None = None,
    ) -> None:
        super().__init__(message, status=status, request_id=request_id)
        self.retry_after = retry_after


class DecisionsAnswerInvalid(DecisionsError):
    """The API answered 200, but not as asked: a body that is not JSON, a question with no
    answer or one of another type, a choice outside the options offered, a probability
    outside [0, 1], no token count. ``question`` names the answer at fault, if one is."""

    reason = "decisions_answer_invalid"

    def __init__(
        self,
        message: str,
        *,
        question: str | None = None,
        status: int | None = 200,
        request_id: str | None = None,
    ) -> None:
        super().__init__(message, status=status, request_id=request_id)
        self.question = question
