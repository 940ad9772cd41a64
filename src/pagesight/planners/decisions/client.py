"""DecisionsClient: one call to the Decisions API (see :mod:`.api` for the shape), over httpx.

No official SDK exists for this API, so the client is httpx, with the habits of the official
SDKs: a timeout on every call; 429 and 5xx (and a time-out or a dropped connection) retried
``retries`` times, waiting what ``Retry-After`` asks — a 429 asking more than
``max_retry_after`` seconds (30) is a :class:`~pagesight.errors.DecisionsRateLimited` at
once, no waiting; without the header, ``backoff`` x 2^n seconds; 400, 401 and every other 4xx
never retried. Every failure is a :class:`~pagesight.errors.DecisionsError` carrying the
HTTP status and the ``x-request-id`` of the reply it came from.
"""

from __future__ import annotations

import asyncio
import base64
import email.utils
import json
import math
import time
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

import httpx

from pagesight.errors import (
    DecisionsAnswerInvalid,
    DecisionsError,
    DecisionsRateLimited,
    InvalidOption,
)
from pagesight.planners.decisions.api import MAX_QUESTIONS, Question, Reply, parse_reply

DEFAULT_BASE_URL = "https://api.perplexity.ai"
DEFAULT_MODEL = "pplx-decider-v1.1-27b"
MAX_RETRY_AFTER = 30.0
_QUOTED = 200  # characters of a server's error message quoted in ours

State = Sequence[str | Mapping[str, Any]]
"""What ``state`` holds: strings and image parts (``image_part``)."""


def image_part(png: bytes) -> dict[str, Any]:
    """An image for ``state``: a PNG as a base64 data URL in an ``image_url`` part."""
    url = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
    return {"type": "image_url", "image_url": {"url": url}}


class DecisionsClient:
    """Asks the Decisions API at ``base_url`` (its root; a trailing ``/v1`` is accepted)."""

    def __init__(
        self,
        *,
        api_key: str,
        base_url: str = DEFAULT_BASE_URL,
        model: str = DEFAULT_MODEL,
        timeout: float = 30.0,
        retries: int = 2,
        backoff: float = 0.5,
        max_retry_after: float = MAX_RETRY_AFTER,
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise InvalidOption(
                "base_url",
                f"base_url must be an http(s) URL such as {DEFAULT_BASE_URL}, not {base_url!r}",
            )
        if not api_key:
            raise InvalidOption("api_key", "api_key is empty; set PERPLEXITY_API_KEY")
        if not model:
            raise InvalidOption("model", f"model must name a decision model, e.g. {DEFAULT_MODEL}")
        for name, value in (("timeout", timeout), ("max_retry_after", max_retry_after)):
            if not _positive(value):
                raise InvalidOption(name, f"{name} must be a positive number, not {value!r}")
        if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
            raise InvalidOption("retries", f"retries must be an int ≥ 0, not {retries!r}")
        if not _positive(backoff) and backoff != 0:
            raise InvalidOption("backoff", f"backoff must be a number ≥ 0, not {backoff!r}")
        root = base_url.rstrip("/")
        self.base_url = root[: -len("/v1")] if root.endswith("/v1") else root
        self.model = model
        self.timeout = float(timeout)
        self.retries = retries
        self.backoff = float(backoff)
        self.max_retry_after = float(max_retry_after)
        self._api_key = api_key

    @property
    def endpoint(self) -> str:
        return f"{self.base_url}/v1/decisions"

    def body(self, state: State, questions: Mapping[str, Question]) -> dict[str, Any]:
        """The JSON body of a request."""
        return {
            "model": self.model,
            "state": list(state),
            "questions": {name: q.to_json() for name, q in questions.items()},
        }

    async def decide(self, state: State, questions: Mapping[str, Question]) -> Reply:
        """Ask ``questions`` about ``state``; the checked answers."""
        if not questions or len(questions) > MAX_QUESTIONS:
            raise InvalidOption(
                "questions", f"ask 1 to {MAX_QUESTIONS} questions, not {len(questions)}"
            )
        body = self.body(state, questions)
        headers = {"Authorization": f"Bearer {self._api_key}", "Accept": "application/json"}
        async with httpx.AsyncClient(timeout=self.timeout) as http:
            attempt = 0
            while True:
                try:
                    response = await http.post(self.endpoint, json=body, headers=headers)
                except httpx.TimeoutException as exc:
                    if attempt < self.retries:
                        await asyncio.sleep(self._backoff(attempt))
                        attempt += 1
                        continue
                    raise DecisionsError(
                        f"the Decisions API at {self.base_url} did not answer within "
                        f"{self.timeout:g} s, {attempt + 1} times; raise timeout or retry later"
                    ) from exc
                except httpx.TransportError as exc:
                    if attempt < self.retries:
                        await asyncio.sleep(self._backoff(attempt))
                        attempt += 1
                        continue
                    raise DecisionsError(
                        f"could not reach the Decisions API at {self.base_url} "
                        f"({type(exc).__name__}: {_one_line(str(exc))}); check base_url and "
                        "the network"
                    ) from exc
                request_id = response.headers.get("x-request-id")
                status = response.status_code
                if status == 200:
                    return self._reply(response, questions, request_id)
                if status != 429 and status < 500:
                    raise self._refused(response, request_id)
                wait = self._wait(response, attempt, request_id)
                if attempt >= self.retries:
                    raise self._exhausted(response, request_id, attempt)
                attempt += 1
                await asyncio.sleep(wait)

    def _reply(
        self, response: httpx.Response, questions: Mapping[str, Question], request_id: str | None
    ) -> Reply:
        try:
            decoded = json.loads(response.content)
        except ValueError as exc:
            where = f" (request {request_id})" if request_id else ""
            raise DecisionsAnswerInvalid(
                f"the Decisions API answered 200 with a body that is not JSON "
                f"({_one_line(response.text[:80])!r}){where}; is {self.base_url} the "
                "Decisions API?",
                request_id=request_id,
            ) from exc
        return parse_reply(decoded, questions, request_id=request_id)

    def _backoff(self, attempt: int) -> float:
        return float(self.backoff * 2**attempt)

    def _wait(self, response: httpx.Response, attempt: int, request_id: str | None) -> float:
        """How long to wait before the next try: what Retry-After asks, else the backoff. A
        429 asking more than ``max_retry_after`` is an error now, not a long sleep."""
        asked = _retry_after(response.headers.get("retry-after"))
        if asked is None:
            return self._backoff(attempt)
        if asked > self.max_retry_after:
            raise DecisionsRateLimited(
                f"the Decisions API answered {response.status_code} asking to wait "
                f"{asked:g} s, more than the {self.max_retry_after:g} s allowed"
                f"{_request(request_id)}; slow down (10 requests a second) or retry later",
                retry_after=asked,
                status=response.status_code,
                request_id=request_id,
            )
        return asked

    def _refused(self, response: httpx.Response, request_id: str | None) -> DecisionsError:
        status = response.status_code
        said = _error_text(response)
        if status in (401, 403):
            hint = "check PERPLEXITY_API_KEY (or api_key)"
        elif status == 404:
            hint = f"is {self.base_url} the Decisions API, and {self.model!r} a model it serves?"
        else:
            hint = "the request was refused as it is: not retried"
        return DecisionsError(
            f"the Decisions API refused the request (HTTP {status}: {said}){_request(request_id)}"
            f"; {hint}",
            status=status,
            request_id=request_id,
        )

    def _exhausted(
        self, response: httpx.Response, request_id: str | None, attempt: int
    ) -> DecisionsError:
        status = response.status_code
        message = (
            f"the Decisions API answered HTTP {status} ({_error_text(response)}) "
            f"{attempt + 1} times{_request(request_id)}; retry later"
        )
        if status == 429:
            asked = _retry_after(response.headers.get("retry-after"))
            return DecisionsRateLimited(
                message, retry_after=asked, status=status, request_id=request_id
            )
        return DecisionsError(message, status=status, request_id=request_id)


def _retry_after(value: str | None) -> float | None:
    """Retry-After in seconds: a number (fractions accepted) or an HTTP date."""
    if value is None:
        return None
    try:
        seconds: float = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = float(when.timestamp()) - time.time()
    return max(0.0, seconds) if math.isfinite(seconds) else None


def _error_text(response: httpx.Response) -> str:
    try:
        body = json.loads(response.content)
    except ValueError:
        return _one_line(response.text) or "no body"
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        error = error.get("message")
    return _one_line(error if isinstance(error, str) else json.dumps(body))


def _request(request_id: str | None) -> str:
    return f" (request {request_id})" if request_id else ""


def _positive(value: object) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value > 0
    )


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _QUOTED else text[: _QUOTED - 1] + "…"
