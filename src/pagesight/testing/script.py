"""What a scripted fake server answers, one item a request: a :class:`Reply` (text, tool
calls, structured output), a :class:`Failure` (an HTTP error, a malformed body), a
:class:`Hang` (no answer until the client has given up) or a :class:`Drop` (the connection
closed under the request, no answer at all). A script may also hold functions of
the request body (the JSON the client sent) that return one of them, to answer as a capable
model would: by reading the element ids off the outline it was sent."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, kw_only=True)
class Reply:
    """A model's answer: ``text`` and ``tool_calls`` (a tool's name and its arguments: a
    dict, or raw text sent as it is — to script arguments that are not even JSON).
    ``usage``: the (input, output) tokens to report, the input counting every input token,
    cached or not; by default counted from the request. ``cache``: of that input, the
    tokens to report (read from the prompt cache, written to it); by default measured from
    the requests as the API's cache would (see each fake), or none when ``usage`` is
    scripted."""

    text: str | None = None
    tool_calls: tuple[tuple[str, Mapping[str, Any] | str], ...] = ()
    usage: tuple[int, int] | None = None
    cache: tuple[int, int] | None = None

    @classmethod
    def calling(cls, name: str, /, **arguments: Any) -> Reply:
        """One tool call: ``Reply.calling("click", ref=3)``."""
        return cls(tool_calls=((name, arguments),))

    @classmethod
    def calls(cls, *calls: tuple[str, Mapping[str, Any]]) -> Reply:
        """Several tool calls in one reply: ``Reply.calls(("input", {...}), ("click", {...}))``."""
        return cls(tool_calls=tuple(calls))

    @classmethod
    def structured(cls, value: Any) -> Reply:
        """Structured output: ``value`` as the JSON text of the reply."""
        return cls(text=json.dumps(value))

    @classmethod
    def invalid_arguments(cls, name: str, arguments: Mapping[str, Any] | str) -> Reply:
        """A call of ``name`` whose arguments do not fit its schema (a dict of wrong
        types or names), or are not JSON at all (a string)."""
        return cls(tool_calls=((name, arguments),))


@dataclass(frozen=True, kw_only=True)
class Failure:
    """An HTTP error (``status``, the API's own error body with ``message``), or with
    ``raw`` a body sent as it is (a malformed one)."""

    status: int
    message: str = "scripted failure"
    headers: Mapping[str, str] = field(default_factory=dict)
    raw: bytes | None = None

    @classmethod
    def rate_limited(cls, retry_after: float | None = 1, *, millis: bool = False) -> Failure:
        """429 with ``Retry-After: retry_after`` (or ``retry-after-ms`` with ``millis``;
        None: neither header)."""
        if retry_after is None:
            headers = {}
        elif millis:
            headers = {"retry-after-ms": f"{retry_after * 1000:g}"}
        else:
            headers = {"retry-after": f"{retry_after:g}"}
        return cls(status=429, message="rate limit reached, slow down", headers=headers)

    @classmethod
    def server_error(cls, status: int = 500) -> Failure:
        return cls(status=status, message="the server had an error processing your request")

    @classmethod
    def unauthorized(cls) -> Failure:
        return cls(status=401, message="invalid api key")

    @classmethod
    def malformed(cls, raw: bytes | None = None) -> Failure:
        """A 200 whose body is not what was asked: ``raw`` as it is (a reply spoilt on
        purpose), by default a JSON body cut short, as a proxy that drops the connection
        sends."""
        if raw is None:
            raw = b'{"id": "cut-short", "choices": [{"index": 0, "mess'
        return cls(status=200, raw=raw)


@dataclass(frozen=True, kw_only=True)
class Hang:
    """No answer for ``seconds`` (longer than the client's timeout; None: until the server
    closes), then a 504."""

    seconds: float | None = 30.0


@dataclass(frozen=True, kw_only=True)
class Drop:
    """No answer at all: the server closes the connection once it has read the request, as
    a proxy or a crashed server does (the client sees the connection reset, not a status)."""


Item = Reply | Failure | Hang | Drop
Script = Item | Callable[[dict[str, Any]], Item]
