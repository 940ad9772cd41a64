"""What a planner is shown (State) and what a run leaves (StepRecord, RunResult)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pagesight.agent.decision import Decision, PlannerStop, decision_dict
from pagesight.agent.tool import ToolFailure
from pagesight.messages import ToolSpec, Usage
from pagesight.observe.observation import Observation

LoopStop = Literal["done", "unproven", "max_steps", "repeated_errors", "context_overflow"]
"""Why the agent loop itself ends a run: the goal was reached (``done``); the planner said
so, but an action before was blocked and nothing after showed it reached (``unproven``,
see :mod:`pagesight.agent.blocked`); ``max_steps``
decisions were made; the same kind of error three steps in a row (``repeated_errors``); a
model's context outgrew its token budget (``context_overflow``)."""

StopReason = Literal[LoopStop, PlannerStop]
"""Why a run ended: the goal was reached (``done``); the planner said so, unproven
(``unproven``); ``max_steps`` decisions were made; the
same kind of error three steps in a row (``repeated_errors``); the planner gave up
(``planner_stopped``), asked for a person (``needs_person``) or was not sure enough of any
step to take it (``uncertain``); a model's context outgrew
its token budget (``context_overflow``); and the steps planner's own stops (see
:data:`~pagesight.agent.decision.PlannerStop`): ``expect_failed``, ``target_not_found``,
``target_ambiguous``, ``no_effect``, ``step_failed``; and the model planner's:
``model_invalid`` (its tool calls stayed invalid after the retries), ``model_no_tool_call``
(it answered in words, twice in a row). The loop's reasons and the planners', each list
written once."""


@dataclass(frozen=True, kw_only=True)
class CallRecord:
    """One tool call of a step, as recorded: secrets are ``{{NAME}}`` in all of it."""

    tool: str
    arguments: dict[str, Any]
    text: str
    """What the tool answered, as a model reads it."""
    value: dict[str, Any]
    error: ToolFailure | None
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "arguments": self.arguments,
            "ok": self.error is None,
            "text": self.text,
            "value": self.value,
            "error": self.error.to_dict() if self.error is not None else None,
            "seconds": round(self.seconds, 4),
        }


@dataclass(frozen=True, kw_only=True)
class StepRecord:
    """One step: the page it was decided on, the decision, and the calls it made."""

    number: int
    url: str
    mode: str
    """How the page was read: ``cdp``, ``evaluate`` or ``vision`` — or ``text``: fetched
    and its text extracted, with no browser (the text layer)."""
    tokens: int
    """Tokens of the observation the planner was shown."""
    decision: Decision
    calls: tuple[CallRecord, ...]
    observe_seconds: float
    decide_seconds: float
    act_seconds: float
    targets: tuple[dict[str, Any], ...] = ()
    """The elements the decision named by ``ref``, as the page showed them then (id, role,
    name, value, context): what a report or a replay calls the target in words."""
    screenshot: Path | None = None

    @property
    def error(self) -> ToolFailure | None:
        """The first failure among the calls, if any."""
        return next((c.error for c in self.calls if c.error is not None), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "step": self.number,
            "url": self.url,
            "observation": {"mode": self.mode, "tokens": self.tokens},
            "decision": decision_dict(self.decision),
            "targets": list(self.targets),
            "calls": [c.to_dict() for c in self.calls],
            "seconds": {
                "observe": round(self.observe_seconds, 4),
                "decide": round(self.decide_seconds, 4),
                "act": round(self.act_seconds, 4),
            },
            "screenshot": self.screenshot.name if self.screenshot is not None else None,
        }


Layer = Literal["text", "dom", "vision"]
"""Which layer of the cascade answered: the page's text with no browser (``text``, see
:mod:`pagesight.planners.llm.textlayer`), the browser reading the DOM (``dom``), or the browser
reading the screen when the DOM offered nothing (``vision``: the run's last observation)."""


@dataclass(frozen=True, kw_only=True)
class State:
    """What a planner decides on.

    ``text`` is the page as a model reads it (the outline, secrets masked); ``delta`` only
    what changed since the step before (``None`` on the first step or a new document);
    ``observation`` the page itself, for planners in this process (never sent as it is: it
    may hold a secret the page shows). ``history`` holds the steps so far with their effects.
    """

    goal: str | None
    step: int
    """1 for the first decision."""
    max_steps: int
    url: str
    observation: Observation
    text: str
    delta: str | None
    history: tuple[StepRecord, ...]
    tools: tuple[ToolSpec, ...]
    """The tools the model is shown (the agent's tool profile)."""
    skills: str
    """The skill catalog (``- name: description`` lines) for the system prompt."""
    legend: str | None = None
    """When the page was read off a screenshot (``observation.mode == "vision"``): one line
    per element, the key to the badges of :meth:`screenshot` with ``marks`` (secrets
    masked)."""
    reachable: tuple[ToolSpec, ...] = ()
    """Every tool a call may name: those not shown too (``use_tool`` reaches them, and a call
    naming one runs as well, rather than costing a round to refuse). Empty: ``tools``."""
    shoot: Callable[[bool, frozenset[int] | None], Awaitable[bytes]] | None = field(
        default=None, repr=False, compare=False
    )

    async def screenshot(self, *, marks: bool = False, only: Iterable[int] | None = None) -> bytes:
        """The page now as a PNG; with ``marks``, every element of ``observation`` in view
        gets a box and a badge with its id (set-of-marks), for a vision model — or only those
        whose ids are in ``only`` (a planner asking about some of them at a time). The fields
        that show a secret are blacked out."""
        if self.shoot is None:
            raise RuntimeError("this State was not made by a run: it has no page to shoot")
        return await self.shoot(marks, None if only is None else frozenset(only))


@dataclass(frozen=True, kw_only=True)
class RunResult:
    """How a run went. ``reached`` is True when it ended ``done``."""

    goal: str | None
    stop_reason: StopReason
    message: str
    """Why it stopped, in a sentence (the planner's message, the repeated error)."""
    answer: str | None
    steps: tuple[StepRecord, ...]
    final_url: str
    rounds: int
    """The planner's answers, a model's responses: one for each action, batch (however many
    steps) or ``done``, one more for each reply refused and asked again, and the text layer's
    answer; a stop the loop or a script made counts none."""
    tokens: int
    """Observation tokens the planner was shown, summed over the steps."""
    seconds: float
    """Wall time of the run."""
    folder: Path
    """Where its records are (``run.jsonl``, ``summary.json``, ``report.html``, …)."""
    usage: Usage | None = None
    """A model's tokens and cost, summed over the decisions that reported any."""
    layer: Layer = "dom"
    """Which layer of the cascade ended the run (see :data:`Layer`)."""
    layers_tried: tuple[Layer, ...] = ()
    """The layers the run went through, in order (``("text", "dom")``: the text layer did
    not answer, the browser did); empty means ``layer`` alone."""

    @property
    def reached(self) -> bool:
        return self.stop_reason == "done"

    def summary(self) -> dict[str, Any]:
        """What ``summary.json`` holds."""
        usage = self.usage
        return {
            "goal": self.goal,
            "stop_reason": self.stop_reason,
            "reached": self.reached,
            "layer": self.layer,
            "layers_tried": list(self.layers_tried or (self.layer,)),
            "message": self.message,
            "answer": self.answer,
            "steps": len(self.steps),
            "rounds": self.rounds,
            "final_url": self.final_url,
            "tokens": self.tokens,
            "model_tokens": _model_tokens(usage),
            "cost": usage.cost if usage is not None else None,
            "seconds": round(self.seconds, 3),
        }


def _model_tokens(usage: Usage | None) -> dict[str, int] | None:
    """A model's tokens in ``summary.json``: ``input`` all of them, ``cached_input`` and
    ``cache_write`` the parts of it read from and written to the prompt cache."""
    if usage is None:
        return None
    return {
        "input": usage.input_tokens,
        "cached_input": usage.cached_input_tokens,
        "cache_write": usage.cache_write_tokens,
        "output": usage.output_tokens,
    }


@dataclass(frozen=True, kw_only=True)
class TextLayerResult:
    """What the text layer (:mod:`pagesight.planners.llm.textlayer`) came to: the run, when the
    page's text answered the goal; else why not, and what asking the model cost (the browser
    run that follows counts it)."""

    run: RunResult | None
    """The run, ended ``done`` with ``layer`` ``"text"``, when the text answered."""
    tried: bool
    """Whether the layer ran at all: ``False`` for a goal that changes something (nothing
    fetched, no model asked)."""
    usage: Usage | None
    """What the model reported its call cost, answered or not; ``None`` when it was not
    asked (or reported nothing)."""
    reason: str
    """Why the text did not answer (empty when it did)."""

    @property
    def answered(self) -> bool:
        return self.run is not None
