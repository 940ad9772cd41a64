"""What both providers share: the checks of their options,
and the translation of an SDK's exception into a ModelError (both SDKs are generated from
the same template: APIStatusError, APIConnectionError, APITimeoutError, …)."""

from __future__ import annotations

import json
import math
import re
from types import ModuleType
from typing import Any

from pagesight.errors import InvalidOption, ModelError
from pagesight.models.retry import RetryLater, retry_after

_MESSAGE_CHARS = 200  # of a server's error text quoted in our message


def check_options(*, model: str, timeout: float, retries: int) -> None:
    if not isinstance(model, str) or not model.strip():
        raise InvalidOption(
            "model", f"name the model to ask, such as 'gpt-4.1-mini', not {model!r}"
        )
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        raise InvalidOption(
            "timeout", f"timeout must be a positive number of seconds, not {timeout!r}"
        )
    if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
        raise InvalidOption("retries", f"retries must be an int ≥ 0, not {retries!r}")


def translate(
    exc: Exception,
    sdk: ModuleType,
    *,
    where: str,
    timeout: float,
    key_hint: str,
    model: str,
    api_key: str | None = None,
) -> Exception:
    """The ModelError (or RetryLater, for a failure worth another try) for ``exc``, an
    exception of the SDK ``sdk``; ``exc`` itself when it is not the SDK's. ``api_key`` is
    never quoted: a proxy or a local server may echo the key it refuses in its error text,
    and the message is printed on the terminal and written into the run's report."""
    if isinstance(exc, sdk.APITimeoutError):
        return ModelError(
            f"{where} did not answer within {timeout:g} s; raise the model timeout or use a "
            "smaller model"
        )
    if isinstance(exc, sdk.APIConnectionError):
        cause = exc.__cause__ or exc
        return RetryLater(
            ModelError(
                f"no model server answers at {where} ({_quoted(cause, api_key)}); start it or "
                "fix the base URL"
            )
        )
    if isinstance(exc, sdk.APIStatusError):
        status = int(exc.status_code)
        said = f"HTTP {status}: {detail(exc.body, exc.message, api_key)}"
        if status == 429 or status >= 500:
            error = ModelError(f"{where} failed ({said})", status=status)
            return RetryLater(error, wait=retry_after(exc.response.headers))
        if status in (401, 403):
            hint = f"check the API key ({key_hint})"
        elif status == 404:
            hint = f"check the model name {model!r} and the base URL"
        else:
            hint = "the request was refused as it is; see the message"
        return ModelError(f"{where} refused the request ({said}); {hint}", status=status)
    if isinstance(exc, sdk.APIResponseValidationError | json.JSONDecodeError):
        return malformed(where, _quoted(exc, api_key))
    return exc


def redact(text: str, api_key: str | None) -> str:
    """``text`` with the key written as ``[API key]`` wherever it is quoted — as a whole
    token, so a short key ("k" in a test) does not rewrite the words around it."""
    if not api_key:
        return text
    return re.sub(rf"(?<![\w-]){re.escape(api_key)}(?![\w-])", "[API key]", text)


def _quoted(exc: BaseException, api_key: str | None) -> str:
    return one_line(redact(str(exc), api_key) or type(exc).__name__)


def malformed(where: str, what: str) -> ModelError:
    return ModelError(
        f"{where} answered in a shape its API does not have ({what}); is the base URL that "
        "of the right kind of server?"
    )


def detail(body: object, fallback: str, api_key: str | None = None) -> str:
    """The message of an error body: ``{"error": {"message"}}``, ``{"error": "…"}``, or
    the SDK's own message; the key redacted before the text is cut, so no part of it is
    left at the cut."""
    error = body.get("error", body) if isinstance(body, dict) else body
    if isinstance(error, dict):
        error = error.get("message")
    return one_line(redact(error if isinstance(error, str) and error else fallback, api_key))


def one_line(value: object) -> str:
    text = value.decode(errors="replace") if isinstance(value, bytes) else str(value)
    text = " ".join(text.split()) or type(value).__name__
    return text if len(text) <= _MESSAGE_CHARS else text[: _MESSAGE_CHARS - 1] + "…"


def parse_arguments(raw: object) -> dict[str, Any]:
    """A tool call's arguments as a dict. Text that is no JSON object is kept whole under
    ``_unparsed``: the tool's schema then refuses it and the model is told why."""
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            value = json.loads(raw) if raw.strip() else {}
        except ValueError:
            value = None
        if isinstance(value, dict):
            return value
    return {"_unparsed": raw}


def token_count(reported: object, name: str) -> int:
    """The token count ``name`` of a reply's usage (or of a part of it), as an int; 0 when
    the server left it out or sent something that is no count."""
    value = getattr(reported, name, None)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return 0
    return max(int(value), 0)
