"""Retries of a model call: 429 and 5xx tried again after the wait the server asks for.

Both SDKs retry on their own, but neither stops when a server asks for a long wait: OpenAI's
sleeps up to two minutes and Anthropic's as long as it is told, with the run frozen meanwhile.
A run should rather stop with a line saying so, so the SDKs' retries are turned off
(``max_retries=0``) and this small loop does theirs with a cap: it reads ``retry-after-ms``
and ``Retry-After`` (seconds or an HTTP date) and gives up when either asks for more than
:data:`MAX_WAIT` seconds.
"""

from __future__ import annotations

import asyncio
import email.utils
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TypeVar

from pagesight.errors import ModelError

T = TypeVar("T")

MAX_WAIT = 30.0
"""The longest wait a server may ask for before a retry; past it the call fails."""
BACKOFF = 0.5
"""The first wait when the server names none (doubled at each retry)."""


class RetryLater(Exception):
    """A failure worth another try (429, 5xx, a dropped connection): ``error`` is what to
    raise when no try is left, ``wait`` the seconds the server asked for, if it did."""

    def __init__(self, error: ModelError, *, wait: float | None = None) -> None:
        super().__init__(str(error))
        self.error = error
        self.wait = wait


def retry_after(headers: Mapping[str, str]) -> float | None:
    """The seconds a response asks to wait: ``retry-after-ms``, else ``Retry-After`` (a
    number of seconds or an HTTP date); ``None`` when it names none it can be read as."""
    lowered = {k.lower(): v for k, v in headers.items()}
    millis = lowered.get("retry-after-ms")
    if millis is not None:
        try:
            return max(float(millis) / 1000, 0.0)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - time.time(), 0.0)


async def with_retries(
    call: Callable[[], Awaitable[T]], *, retries: int, max_wait: float = MAX_WAIT
) -> T:
    """``await call()``, tried again up to ``retries`` times while it raises RetryLater."""
    attempt = 0
    while True:
        try:
            return await call()
        except RetryLater as failure:
            wait = failure.wait if failure.wait is not None else BACKOFF * 2**attempt
            if wait > max_wait:
                raise ModelError(
                    f"{failure.error} and asks to wait {wait:g} s, more than the {max_wait:g} s "
                    "a run waits; try again later or use a model with a higher rate limit",
                    status=failure.error.status,
                ) from failure.error
            if attempt >= retries:
                tries = f"{retries + 1} tries" if retries else "1 try"
                raise ModelError(
                    f"{failure.error} ({tries})", status=failure.error.status
                ) from failure.error
            attempt += 1
            await asyncio.sleep(wait)
