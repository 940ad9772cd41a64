"""A scripted fake of the Decisions API: a real HTTP server on 127.0.0.1, for tests.

It speaks ``POST /v1/decisions`` as :mod:`pagesight.planners.decisions.api` describes it,
checks each request as the real API does (bearer key, model, 1 to 128 questions, at most 255
options a choice, images of at most 2,048 tiles: refused with a 400 at once, where the real
API stalls), records it (body, headers and the screenshots it carried, decoded) and answers
with the next item of its script::

    from pagesight.testing.decisions import FakeDecisionsServer, RateLimit

    script = [
        RateLimit(retry_after=0),                         # a 429 first: the client retries
        {"next_action": "12", "goal_reached": 0.02},      # answers by question name
        lambda request: {"next_action": request.badge("Save"), "risk": [0.2, 0.7, 0.05, 0.05]},
        {"goal_reached": 0.97},
    ]
    with FakeDecisionsServer(script, api_key="test-key") as fake:
        planner = DecisionsPlanner.from_env(api_key="test-key", base_url=fake.base_url)
        ...
        fake.requests[1].png                              # the screenshot of the second call

A script item is a mapping of answers, a :class:`Reply`, one of the failures
(:func:`RateLimit` — a 429 with ``Retry-After``; :func:`Fail` — a 500 or any status;
:func:`Malformed` — a 200 whose body is not what was asked; :class:`Hang` — no answer, so the
client times out), or a function of the :class:`DecisionsRequest` that returns one (to pick
the badge of "Save" off the request). Past its end the server answers 500, loudly. The
failures are the script items every fake of :mod:`pagesight.testing` plays
(:class:`~pagesight.testing.Failure`, :class:`~pagesight.testing.Hang`), which a script may
hold too; the server is theirs (:class:`~pagesight.testing.server.ScriptedServer`).

An answer is given per question, by its type: a noul by P(yes) (``0.97``); a choice by the
option (``"12"``: 0.9 on it, the rest spread over the others) or by probabilities
(``{"12": 0.7, "5": 0.2}``: the mass left spread over the options not named); a score by its
level (``1``: 0.9 on it) or by one probability a level (``[0.2, 0.7, 0.05, 0.05]``). A
question the item does not name gets an uninformed answer: 0.5, or an even spread. The
probabilities given are sent as they are, at full precision. ``usage.input_tokens`` is an
estimate unless the item gives one: the text's cl100k tokens, one a 32x32 tile of each image
(as Perplexity bills images) and 100 for the request.
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from PIL import Image, UnidentifiedImageError
from starlette.requests import Request

from pagesight.planners.decisions.api import MAX_OPTIONS, MAX_QUESTIONS, MAX_TILES, image_tiles
from pagesight.testing.script import Failure, Hang
from pagesight.testing.server import Refused, ScriptedServer

__all__ = [
    "DEFAULT_MODEL",
    "DecisionsRequest",
    "Fail",
    "Failure",
    "FakeDecisionsServer",
    "Hang",
    "Item",
    "Malformed",
    "RateLimit",
    "Reply",
    "ScriptItem",
    "estimate",
    "image_tokens",
    "reply_body",
    "text_tokens",
]

DEFAULT_MODEL = "pplx-decider-v1.1-27b"
REQUEST_OVERHEAD = 100
"""Tokens the estimate adds to each request, as Perplexity's measured fixed overhead."""
_DATA_URL = re.compile(r"^data:image/(png|jpeg|webp);base64,(.*)$", re.DOTALL)
_ERROR_TYPES = {400: "invalid_request", 401: "authentication_error", 429: "rate_limit"}


@dataclass(frozen=True, kw_only=True)
class Reply:
    """A 200 with these answers (by question name, as the module says); ``input_tokens``
    replaces the estimate."""

    answers: Mapping[str, Any] = field(default_factory=dict)
    input_tokens: int | None = None


# The failures are the shared script items of every fake (pagesight.testing.Failure, Hang),
# made under the names this module has always documented.


def RateLimit(*, retry_after: float | None = 1.0) -> Failure:
    """A 429 with ``Retry-After: retry_after`` (seconds; None: no header)."""
    return Failure.rate_limited(retry_after)


def Fail(*, status: int = 500, message: str = "internal error (fake)") -> Failure:
    """An error reply: ``status`` (500, 503, 400, 401, …) with the API's error body."""
    return Failure(status=status, message=message)


def Malformed(*, body: bytes | None = None, json: Any = None) -> Failure:
    """A 200 whose body is ``body`` as it is (bytes: not even JSON) or ``json`` encoded."""
    return Failure.malformed(body if body is not None else _json_bytes(json))


def _json_bytes(value: Any) -> bytes:
    return json.dumps(value).encode()


Item = Mapping[str, Any] | Reply | Failure | Hang
ScriptItem = Item | Callable[["DecisionsRequest"], Item]


@dataclass(frozen=True, kw_only=True)
class DecisionsRequest:
    """One request the fake got, as it got it."""

    id: str
    """The ``x-request-id`` it was answered with."""
    headers: Mapping[str, str]
    body: Mapping[str, Any]
    texts: tuple[str, ...]
    """The strings of ``state``."""
    images: tuple[bytes, ...]
    """The images of ``state``, decoded (PNG bytes for a PNG)."""

    @property
    def png(self) -> bytes | None:
        """The first image, if any."""
        return self.images[0] if self.images else None

    @property
    def questions(self) -> Mapping[str, Any]:
        questions: Mapping[str, Any] = self.body.get("questions") or {}
        return questions

    def options(self, question: str) -> list[str]:
        """The options of a choice question."""
        return list((self.questions.get(question) or {}).get("criteria") or {})

    def badge(self, name: str, role: str | None = None) -> str:
        """The badge of the element named ``name`` (and of ``role``) in :attr:`legend`
        (``[12] button "Save"``, as the outline writes an element); AssertionError if none."""
        who = re.escape(role) if role else r"\S+"
        found = re.search(rf'\[(\d+)\] {who} ~?"{re.escape(name)}"', self.legend)
        if found is None:
            raise AssertionError(f"no badge named {name!r} in the request's legend:\n{self.legend}")
        return found.group(1)

    @property
    def legend(self) -> str:
        """The last text of ``state``: where pagesight's decisions planner puts the legend of
        the badges (the outline lines that hold them)."""
        return self.texts[-1] if self.texts else ""


class FakeDecisionsServer(ScriptedServer):
    """The fake; ``base_url`` once started. A context manager that starts and stops it.

    ``api_key``: when set, requests must bear it (else 401, before the script plays: the
    request is in ``refused``, not in ``requests``); ``models``: the names served (another
    is a 400).
    """

    paths = ("/v1/decisions",)
    end_of_script = Failure(status=500, message="the fake's script has no more replies")
    script_error_status = 500  # a test's script failed: loudly, never as the API's refusal
    requests: list[DecisionsRequest]
    """Every request that passed the checks, in order."""

    def __init__(
        self,
        script: Iterable[ScriptItem] = (),
        *,
        api_key: str | None = None,
        models: Sequence[str] = (DEFAULT_MODEL,),
        port: int = 0,
    ) -> None:
        super().__init__((), api_key=api_key, port=port)
        self.script = list(script)
        self.models = tuple(models)

    def authorised(self, request: Request) -> bool:
        return request.headers.get("authorization") == f"Bearer {self.api_key}"

    def receive(self, request: Request, raw: bytes, request_id: str) -> DecisionsRequest:
        # Checked as the real API checks, the key first; a refused request is not played.
        if self.api_key is not None and not self.authorised(request):
            raise Refused(401, "invalid API key")
        try:
            body = json.loads(raw)
        except ValueError as exc:
            raise Refused(400, f"the body is not JSON: {exc}") from exc
        if not isinstance(body, dict):
            raise Refused(400, "the body must be a JSON object")
        if body.get("model") not in self.models:
            raise Refused(400, f"unknown model {body.get('model')!r}")
        questions = body.get("questions")
        if not isinstance(questions, dict) or not 1 <= len(questions) <= MAX_QUESTIONS:
            raise Refused(400, f"questions must map 1 to {MAX_QUESTIONS} names to questions")
        for name, question in questions.items():
            _check_question(name, question)
        texts, images = _state(body.get("state"))
        return DecisionsRequest(
            id=request_id,
            headers=dict(request.headers),
            body=body,
            texts=tuple(texts),
            images=tuple(images),
        )

    def answer(
        self, item: Mapping[str, Any] | Reply, received: DecisionsRequest, raw: bytes
    ) -> tuple[Any, tuple[int, int]]:
        reply = item if isinstance(item, Reply) else Reply(answers=item)
        try:
            body = reply_body(received, reply.answers, input_tokens=reply.input_tokens)
        except ValueError as exc:
            raise ValueError(f"the fake's script is wrong: {exc}") from exc
        return body, (body["usage"]["input_tokens"], 0)

    def error_body(self, status: int, message: str) -> Any:
        return {"error": {"message": message, "type": _ERROR_TYPES.get(status, "server_error")}}


def _check_question(name: str, question: Any) -> None:
    if not isinstance(question, dict) or question.get("type") not in ("noul", "choice", "score"):
        raise Refused(400, f"question {name!r} needs a type: noul, choice or score")
    criteria = question.get("criteria")
    if question["type"] == "choice":
        if not isinstance(criteria, dict) or not criteria:
            raise Refused(400, f"choice {name!r} needs criteria: options to descriptions")
        if len(criteria) > MAX_OPTIONS:
            raise Refused(
                400, f"choice {name!r} has {len(criteria)} options; at most {MAX_OPTIONS}"
            )
    if question["type"] == "score" and (
        not isinstance(criteria, list) or not 2 <= len(criteria) <= 10
    ):
        raise Refused(400, f"score {name!r} needs 2 to 10 levels as a list")
    if question["type"] == "noul" and not (question.get("instructions") or criteria):
        raise Refused(400, f"noul {name!r} needs instructions or criteria")


def _state(state: Any) -> tuple[list[str], list[bytes]]:
    if isinstance(state, str):
        return [state], []
    if not isinstance(state, list) or not state:
        raise Refused(400, "state must be a string or a non-empty array")
    texts: list[str] = []
    images: list[bytes] = []
    for part in state:
        if isinstance(part, str):
            texts.append(part)
            continue
        url = part.get("image_url", {}).get("url") if isinstance(part, dict) else None
        found = _DATA_URL.match(url) if isinstance(url, str) else None
        if not isinstance(part, dict) or part.get("type") != "image_url" or found is None:
            raise Refused(400, "a state part is a string or an image_url part with a data URL")
        try:
            data = base64.b64decode(found.group(2), validate=True)
            with Image.open(io.BytesIO(data)) as image:
                width, height = image.size
        except (binascii.Error, UnidentifiedImageError, OSError) as exc:
            raise Refused(400, f"an image is not readable: {exc}") from exc
        tiles = image_tiles(width, height)
        if tiles > MAX_TILES:
            raise Refused(
                400, f"an image of {width}x{height} is {tiles} tiles; at most {MAX_TILES}"
            )
        images.append(data)
    return texts, images


def reply_body(
    request: DecisionsRequest, answers: Mapping[str, Any], *, input_tokens: int | None = None
) -> dict[str, Any]:
    """The JSON body of a 200 answering ``request`` with ``answers`` (as the module says), to
    send as it is or to spoil first (``Malformed(json=…)``). ValueError for an answer that
    names an option or a question the request does not have."""
    return {
        "model": request.body["model"],
        "answers": _answers(request.questions, answers),
        "usage": {
            "input_tokens": estimate(request) if input_tokens is None else input_tokens,
            "output_tokens": 0,
        },
    }


def estimate(request: DecisionsRequest) -> int:
    """The input tokens the fake reports: the text's (state and questions) cl100k tokens,
    a token per 32x32 tile of each image, and the request's overhead."""
    return text_tokens(request) + image_tokens(request) + REQUEST_OVERHEAD


def text_tokens(request: DecisionsRequest) -> int:
    """The cl100k tokens of the request's text: its state's strings and its questions."""
    from pagesight.tokens import count_tokens

    text = "\n".join(request.texts) + json.dumps(request.questions, ensure_ascii=False)
    return count_tokens(text)


def image_tokens(request: DecisionsRequest) -> int:
    """A token per 32x32 tile of each image of the request, as Perplexity bills images."""
    tiles = 0
    for data in request.images:
        with Image.open(io.BytesIO(data)) as image:
            tiles += image_tiles(*image.size)
    return tiles


def _answers(questions: Mapping[str, Any], given: Mapping[str, Any]) -> dict[str, Any]:
    stray = [name for name in given if name not in questions]
    if stray:
        raise ValueError(f"answers for questions not asked: {stray}")
    out: dict[str, Any] = {}
    for name, question in questions.items():
        kind = question["type"]
        value = given.get(name)
        if kind == "noul":
            out[name] = {"type": "noul", "noul": 0.5 if value is None else float(value)}
        elif kind == "choice":
            out[name] = _choice(name, list(question["criteria"]), value)
        else:
            out[name] = _score(name, list(question["criteria"]), value)
    return out


def _spread(keys: Sequence[str], given: Mapping[str, float]) -> dict[str, float]:
    """``given``, and the probability left spread evenly over the other keys."""
    left = [k for k in keys if k not in given]
    rest = max(0.0, 1.0 - sum(given.values()))
    out = {k: given.get(k, rest / len(left) if left else 0.0) for k in keys}
    return out


def _choice(name: str, keys: list[str], value: Any) -> dict[str, Any]:
    if value is None:
        probabilities = _spread(keys, {})
    elif isinstance(value, str | int) and not isinstance(value, bool):
        key = str(value)
        if key not in keys:
            raise ValueError(f"{name}: {key!r} is not an option ({keys[:10]}…)")
        probabilities = _spread(keys, {key: 0.9 if len(keys) > 1 else 1.0})
    elif isinstance(value, Mapping):
        missing = [k for k in value if str(k) not in keys]
        if missing:
            raise ValueError(f"{name}: {missing} are not options")
        probabilities = _spread(keys, {str(k): float(p) for k, p in value.items()})
    else:
        raise ValueError(f"{name}: a choice is an option or a mapping, not {value!r}")
    choice = max(keys, key=lambda k: probabilities[k])
    return {
        "type": "choice",
        "choice": choice,
        "probabilities": probabilities,
        "confidence": probabilities[choice],
    }


def _score(name: str, levels: list[str], value: Any) -> dict[str, Any]:
    keys = [str(i) for i in range(len(levels))]
    if value is None:
        probs = [1 / len(levels)] * len(levels)
    elif isinstance(value, int) and not isinstance(value, bool):
        if not 0 <= value < len(levels):
            raise ValueError(f"{name}: level {value} is not 0 to {len(levels) - 1}")
        probs = list(_spread(keys, {str(value): 0.9}).values())
    elif isinstance(value, Sequence) and len(value) == len(levels):
        probs = [float(p) for p in value]
    else:
        raise ValueError(f"{name}: a score is a level index or {len(levels)} probabilities")
    probabilities = dict(zip(keys, probs, strict=True))
    return {
        "type": "score",
        "score": sum(i * p for i, p in enumerate(probs)),
        "probabilities": probabilities,
        "legend": dict(zip(keys, levels, strict=True)),
        "confidence": max(probs),
    }
