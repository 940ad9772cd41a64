"""Decisions: what a planner answers, as typed values — never free text to be parsed.

A planner's :meth:`~pagesight.agent.planner.Planner.decide` returns one of:

* :class:`Action` — one tool call: a tool's name and its arguments (checked against the tool's
  own schema, the one a model sees, right before it runs);
* :class:`Batch` — several page actions run in order as one round (``page.batch``), stopping
  at the first failure;
* :class:`Done` — the goal is reached, with the ``answer`` when the goal asked a question;
* :class:`Stop` — the planner gives up, with a typed ``reason`` and a message for a person.

Every decision may carry ``label`` (the step in words, shown in the record and the report),
``raw`` (the planner's raw answer or probabilities, JSON-able, written to ``run.jsonl`` as it
is) and ``usage`` (a model's token counts and cost).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from pagesight.errors import InvalidOption
from pagesight.messages import Usage

PlannerStop = Literal[
    "planner_stopped",
    "needs_person",
    "uncertain",
    "expect_failed",
    "target_not_found",
    "target_ambiguous",
    "no_effect",
    "step_failed",
    "model_invalid",
    "model_no_tool_call",
]
"""Why a planner may stop a run: it cannot go on, a person must decide (a risky step), or no
answer was sure enough to act on (``uncertain``: the decisions planner stops rather than
guess). The steps planner says more precisely why a script could not go on: an ``expect``
(or a ``wait for``) that failed, a target no element matches or two match too closely to
tell apart, a click that changed nothing, a step whose action failed. A model planner stops
when the model's tool calls stayed invalid after the retries it was given
(``model_invalid``) or when it answered in words without calling a tool twice in a row
(``model_no_tool_call``)."""


@dataclass(frozen=True, kw_only=True)
class _Common:
    label: str | None = None
    """The step in words (a steps line, the element's description), for people."""
    raw: Any = None
    """The planner's raw answer (a model's reply, the Decisions API's probabilities)."""
    usage: Usage | None = None


@dataclass(frozen=True, kw_only=True)
class Action(_Common):
    """Call the tool named ``tool`` with ``arguments`` (see the registry for each schema).

    A string argument may hold ``{{NAME}}``: the agent's secret of that name is put in only
    when the page is acted on; records keep the placeholder.
    """

    tool: str
    arguments: dict[str, Any] = field(default_factory=dict)
    id: str | None = None
    """The model's id for this tool call, to answer it with the result."""

    def __post_init__(self) -> None:
        if not isinstance(self.tool, str) or not self.tool:
            raise InvalidOption("tool", f"an Action needs a tool name, not {self.tool!r}")
        if not isinstance(self.arguments, dict):
            raise InvalidOption(
                "arguments", f"arguments must be a dict, not {type(self.arguments).__name__}"
            )

    def to_dict(self) -> dict[str, Any]:
        return {"tool": self.tool, "arguments": self.arguments, "id": self.id}


@dataclass(frozen=True, kw_only=True)
class Batch(_Common):
    """Page actions (click, input, select, …) run in order as one round; the first failure
    stops the rest. An action that navigates must be the last (ids die with their page)."""

    actions: tuple[Action, ...]

    def __post_init__(self) -> None:
        if not self.actions or not all(isinstance(a, Action) for a in self.actions):
            raise InvalidOption("actions", "a Batch needs one or more Actions")


@dataclass(frozen=True, kw_only=True)
class Done(_Common):
    """The goal is reached; ``answer`` is the reply when the goal asked a question."""

    answer: str | None = None


@dataclass(frozen=True, kw_only=True)
class Stop(_Common):
    """The planner ends the run short of the goal; ``message`` says why, for a person."""

    reason: PlannerStop = "planner_stopped"
    message: str = ""
    proposed: Action | None = None
    """With ``needs_person``: the step the planner would take if a person allows it (the
    decisions planner's risk stop); the agent asks its confirmer, and takes it on a yes."""

    def __post_init__(self) -> None:
        # A run's stop reason is typed: a Stop(reason="done") would pass for a goal reached
        # (exit 0), and a misspelt one would reach no branch of a caller's match.
        if self.reason not in get_args(PlannerStop):
            raise InvalidOption(
                "reason",
                f"a Stop's reason is one of {', '.join(get_args(PlannerStop))}, "
                f"not {self.reason!r}; Done() says the goal is reached",
            )


Decision = Action | Batch | Done | Stop


def decision_dict(decision: Decision) -> dict[str, Any]:
    """The decision as JSON for ``run.jsonl`` (arguments as the planner gave them, so a
    secret stays ``{{NAME}}``)."""
    out: dict[str, Any]
    if isinstance(decision, Action):
        out = {"type": "action", **decision.to_dict()}
    elif isinstance(decision, Batch):
        out = {"type": "batch", "actions": [a.to_dict() for a in decision.actions]}
    elif isinstance(decision, Done):
        out = {"type": "done", "answer": decision.answer}
    else:
        out = {"type": "stop", "reason": decision.reason, "message": decision.message}
    out["label"] = decision.label
    out["raw"] = decision.raw
    out["usage"] = decision.usage.to_dict() if decision.usage is not None else None
    return out
