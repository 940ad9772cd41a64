"""The Decisions API on the wire, and the checks every answer passes before a policy reads it.

The one place this shape is written down. It follows Perplexity's published Decisions API
(``docs.perplexity.ai/docs/decisions``) as far as public documentation describes it; what it
does not say (the exact error bodies) is taken from the common shape of such APIs, and the
fake in :mod:`pagesight.testing.decisions` speaks exactly this.

Request — ``POST {base_url}/v1/decisions`` (``base_url`` default ``https://api.perplexity.ai``),
``Authorization: Bearer $PERPLEXITY_API_KEY``::

    {
      "model": "pplx-decider-v1.1-27b",
      "state": [                                   # strings, and images as image_url parts
        "goal: …",
        "last action: …",
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,…"}},
        "<<<page-content untrusted>>> … the legend of the marks … <<<end page-content>>>"
      ],
      "questions": {                               # 1 to 128, each answered under its name
        "blocked":  {"type": "noul",   "instructions": "…"},
        "dismiss":  {"type": "choice", "instructions": "…",
                     "criteria": {"none": "…", "12": "badge 12", …}},   # 1 to 255 options
        "risk":     {"type": "score",  "instructions": "…",
                     "criteria": ["read only", …]}                      # levels, lowest first
      }
    }

Reply — 200 with header ``x-request-id``::

    {
      "model": "pplx-decider-v1.1-27b",
      "answers": {
        "blocked": {"type": "noul", "noul": 0.031},                     # P(yes)
        "dismiss": {"type": "choice", "choice": "none",
                    "probabilities": {"none": 0.93, "12": 0.07}, "confidence": 0.93},
        "risk":    {"type": "score", "score": 0.14,                     # expected level index
                    "probabilities": {"0": 0.88, "1": 0.1, "2": 0.01, "3": 0.01},
                    "legend": {"0": "read only", …}, "confidence": 0.88}
      },
      "usage": {"input_tokens": 1187, "output_tokens": 0}
    }

Errors: ``{"error": {"message", "type"}}`` with 400 (a bad request: not retried), 401 (a bad
key: not retried), 429 (with ``Retry-After`` in seconds) and 5xx (retried). Limits: an image
of at most 2,048 tiles of 32x32 px (each side rounded to the nearest 32; 1280x800 is 1,000),
a choice of at most 255 options, 10 requests a second. Images are billed as input tokens,
about one a tile.

:func:`parse_reply` checks a reply against the questions asked and gives typed answers, or
raises :class:`~pagesight.errors.DecisionsAnswerInvalid` with the request id.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pagesight.errors import DecisionsAnswerInvalid, InvalidOption

MAX_OPTIONS = 255
"""Options a choice question may have."""
MAX_QUESTIONS = 128
MAX_TILES = 2048
"""32x32 px tiles an image may have."""
TILE = 32
SUM_TOLERANCE = 0.02
"""How far from 1 a distribution's sum may be (the API rounds each probability)."""

QuestionType = Literal["noul", "choice", "score"]


@dataclass(frozen=True, kw_only=True)
class Question:
    """One question: ``noul`` (yes or no: the answer is P(yes)), ``choice`` (one of
    ``options``, keys to descriptions) or ``score`` (a level of ``levels``, lowest first)."""

    type: QuestionType
    instructions: str
    options: Mapping[str, str] | None = None
    levels: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.type == "choice":
            if not self.options:
                raise InvalidOption("options", "a choice question needs at least one option")
            if len(self.options) > MAX_OPTIONS:
                raise InvalidOption(
                    "options",
                    f"a choice has at most {MAX_OPTIONS} options, not {len(self.options)}; "
                    "split the options over several questions",
                )
        if self.type == "score" and (not self.levels or len(self.levels) < 2):
            raise InvalidOption("levels", "a score question needs two levels or more")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "instructions": self.instructions}
        if self.type == "choice" and self.options is not None:
            out["criteria"] = dict(self.options)
        if self.type == "score" and self.levels is not None:
            out["criteria"] = list(self.levels)
        return out


@dataclass(frozen=True, kw_only=True)
class NoulAnswer:
    p: float
    """P(yes)."""


@dataclass(frozen=True, kw_only=True)
class ChoiceAnswer:
    choice: str
    probabilities: Mapping[str, float]
    """Every option offered (one the reply left out counts 0)."""

    def top(self, exclude: frozenset[str] = frozenset()) -> tuple[str, float] | None:
        """The most probable option not in ``exclude``, with its probability."""
        ranked = sorted(
            ((k, p) for k, p in self.probabilities.items() if k not in exclude),
            key=lambda kp: -kp[1],
        )
        return ranked[0] if ranked else None


@dataclass(frozen=True, kw_only=True)
class ScoreAnswer:
    score: float
    """The expected level index (0 the lowest)."""
    probabilities: tuple[float, ...]
    """P(level i), lowest first."""

    def at_least(self, level: int) -> float:
        """P(level ≥ ``level``), levels numbered from 1."""
        return math.fsum(self.probabilities[level - 1 :])


Answer = NoulAnswer | ChoiceAnswer | ScoreAnswer


@dataclass(frozen=True, kw_only=True)
class Reply:
    """A checked reply: an answer for every question asked, the input tokens it cost."""

    answers: Mapping[str, Answer]
    input_tokens: int
    output_tokens: int
    request_id: str | None
    model: str | None
    raw: Mapping[str, Any]
    """The reply's ``answers`` as they came (every probability at full precision)."""


def image_tiles(width: int, height: int) -> int:
    """How many 32x32 tiles the API counts for an image of this size."""
    return max(1, round(width / TILE)) * max(1, round(height / TILE))


def parse_reply(body: Any, questions: Mapping[str, Question], *, request_id: str | None) -> Reply:
    """The typed answers of ``body`` (a decoded JSON reply) to ``questions``; anything not of
    the shape asked for raises DecisionsAnswerInvalid naming the question and the request."""

    def bad(message: str, question: str | None = None) -> DecisionsAnswerInvalid:
        where = f" (request {request_id})" if request_id else ""
        return DecisionsAnswerInvalid(
            f"the Decisions API answered {message}{where}; this is the API's fault, not the "
            "page's: retry, or report the request id",
            question=question,
            request_id=request_id,
        )

    if not isinstance(body, dict):
        raise bad(f"with a {type(body).__name__}, not a JSON object")
    answers = body.get("answers")
    if not isinstance(answers, dict):
        raise bad("without an 'answers' object")
    usage = body.get("usage")
    tokens = usage.get("input_tokens") if isinstance(usage, dict) else None
    input_tokens = _count(tokens)
    if input_tokens is None:
        raise bad(f"without a token count (usage.input_tokens is {tokens!r})")
    output = _count(usage.get("output_tokens", 0)) if isinstance(usage, dict) else None
    typed: dict[str, Answer] = {}
    for name, question in questions.items():
        answer = answers.get(name)
        if not isinstance(answer, dict):
            raise bad(f"no answer to the question {name!r}", name)
        if answer.get("type") != question.type:
            raise bad(
                f"{name!r} with a {answer.get('type')!r} answer, not the {question.type!r} asked",
                name,
            )
        typed[name] = _typed(name, answer, question, bad)
    model = body.get("model")
    return Reply(
        answers=typed,
        input_tokens=input_tokens,
        output_tokens=output or 0,
        request_id=request_id,
        model=model if isinstance(model, str) else None,
        raw={name: answers[name] for name in questions},
    )


def _typed(name: str, answer: dict[str, Any], question: Question, bad: Any) -> Answer:
    if question.type == "noul":
        p = _probability(answer.get("noul"))
        if p is None:
            raise bad(
                f"{name!r} with noul {answer.get('noul')!r}, not a probability in [0, 1]", name
            )
        return NoulAnswer(p=p)
    keys: Sequence[str]
    if question.type == "choice":
        keys = list(question.options or {})
    else:
        keys = [str(i) for i in range(len(question.levels or ()))]
    probabilities = answer.get("probabilities")
    if not isinstance(probabilities, dict) or not probabilities:
        raise bad(f"{name!r} without its probabilities", name)
    stray = [k for k in probabilities if k not in keys]
    if stray:
        raise bad(f"{name!r} with probabilities for {stray[:3]!r}, not among the options", name)
    given: dict[str, float] = {}
    for key, value in probabilities.items():
        p = _probability(value)
        if p is None:
            raise bad(f"{name!r} with P({key}) = {value!r}, not a probability in [0, 1]", name)
        given[key] = p
    total = math.fsum(given.values())
    if abs(total - 1) > SUM_TOLERANCE:
        raise bad(f"{name!r} with probabilities summing to {total:.3f}, not 1", name)
    full = {k: given.get(k, 0.0) for k in keys}
    if question.type == "choice":
        choice = answer.get("choice")
        if not isinstance(choice, str) or choice not in full:
            raise bad(f"{name!r} with the choice {choice!r}, not one of the options offered", name)
        return ChoiceAnswer(choice=choice, probabilities=full)
    score = _number(answer.get("score"))
    top = len(keys) - 1
    if score is None or not 0 <= score <= top:
        raise bad(
            f"{name!r} with the score {answer.get('score')!r}, not a level index in [0, {top}]",
            name,
        )
    return ScoreAnswer(score=score, probabilities=tuple(full[k] for k in keys))


def _number(value: object) -> float | None:
    """``value`` as a finite float, or None (a bool is no number here)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _probability(value: object) -> float | None:
    number = _number(value)
    return number if number is not None and 0.0 <= number <= 1.0 else None


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None
