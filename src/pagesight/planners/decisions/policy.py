"""The decisions planner's policy: probabilities and cutoffs in, one Decision out — a pure
function, no page, no network, no clock.

The rules, in this order (the first that fires decides):

1. ``goal_reached`` ≥ 0.8 — :class:`Done`;
2. P(``risk`` ≥ level 3, "changes account state") ≥ 0.7 — :class:`Stop` ``needs_person``;
3. ``blocked`` ≥ 0.8 and a ``dismiss`` badge ≥ 0.6 not clicked before — click it;
4. ``target_visible`` < 0.5 and the page has room to scroll — scroll down a screen;
5. a ``next_action`` badge ≥ 0.6 — click it; a text field gets the goal's quoted value that
   ``value`` picks ≥ 0.6 typed into it, a select that value chosen (no such value: stop);
6. otherwise :class:`Stop` ``uncertain``: stop rather than guess.

Every cutoff is a field of :class:`Cutoffs`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Literal

from pagesight.agent.decision import Action, Decision, Done, Stop
from pagesight.errors import InvalidOption
from pagesight.planners.decisions.api import ChoiceAnswer, NoulAnswer, ScoreAnswer

NONE = "none"
"""The option of ``dismiss`` and ``value`` that means "nothing"."""

Handling = Literal["click", "type", "choose"]
"""How a badge is acted on: clicked, typed into (a text field), or chosen from (a select)."""


@dataclass(frozen=True, kw_only=True)
class Cutoffs:
    """The probabilities each rule needs, as the rules are numbered above."""

    goal_reached: float = 0.8
    risk: float = 0.7
    risk_level: int = 3
    """P(risk ≥ this level, 1 "read only" … 4 "payment, purchase or deletion") is compared
    with ``risk``."""
    blocked: float = 0.8
    dismiss: float = 0.6
    target_visible: float = 0.5
    next_action: float = 0.6
    value: float = 0.6

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "risk_level":
                if isinstance(value, bool) or value not in (1, 2, 3, 4):
                    raise InvalidOption("risk_level", f"risk_level is 1 to 4, not {value!r}")
            elif (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not 0.0 <= value <= 1.0
            ):
                raise InvalidOption(f.name, f"the {f.name} cutoff is in [0, 1], not {value!r}")


@dataclass(frozen=True, kw_only=True)
class Answers:
    """The six answers of one step (and ``value`` when the goal quotes values to enter)."""

    blocked: NoulAnswer
    dismiss: ChoiceAnswer
    """Over the badges and ``none``."""
    target_visible: NoulAnswer
    next_action: ChoiceAnswer
    """Over the badges."""
    goal_reached: NoulAnswer
    risk: ScoreAnswer
    value: ChoiceAnswer | None = None
    """Over ``none`` and the goal's quoted values, by position (``"1"`` the first)."""


@dataclass(frozen=True, kw_only=True)
class Situation:
    """What the policy knows besides the answers: the run so far and the page."""

    clicked: frozenset[str] = frozenset()
    """Badges clicked in earlier steps (a dismiss button is clicked once)."""
    room_to_scroll: bool = False
    """The page goes on below the screen and the last scroll moved it."""
    handling: Mapping[str, Handling] | None = None
    """How each badge is acted on (a badge not listed is clicked)."""
    options: Mapping[str, tuple[str, ...]] | None = None
    """A select's options, by badge."""
    names: Mapping[str, str] | None = None
    """Each badge's element in words (``link "Alice Chen"``), for labels and messages."""
    values: tuple[str, ...] = ()
    """The goal's quoted values, which ``value`` picks from."""


def decide(answers: Answers, situation: Situation, cutoffs: Cutoffs | None = None) -> Decision:
    """The Decision the rules give for these answers (see the module's docstring)."""
    cut = cutoffs or Cutoffs()
    if answers.goal_reached.p >= cut.goal_reached:
        return Done(label=f"done: goal_reached {answers.goal_reached.p:.2f}")
    risky = answers.risk.at_least(cut.risk_level)
    if risky >= cut.risk:
        target = answers.next_action.top()
        what = _words(situation, target[0]) if target else "the next step"
        # The step the rules below would take: the agent asks a person about it (confirm),
        # and takes it if they say go on.
        proposed = _after_risk(answers, situation, cut)
        return Stop(
            reason="needs_person",
            message=(
                f"the next step ({what}) looks risky: P(risk ≥ level {cut.risk_level}) = "
                f"{risky:.2f} ≥ {cut.risk:g}; a person should decide"
            ),
            label="stop for a person",
            proposed=proposed if isinstance(proposed, Action) else None,
        )
    return _after_risk(answers, situation, cut)


def _after_risk(answers: Answers, situation: Situation, cut: Cutoffs) -> Decision:
    """Rules 3 to 6."""
    if answers.blocked.p >= cut.blocked:
        dismiss = answers.dismiss.top(exclude=frozenset({NONE}) | situation.clicked)
        if dismiss is not None and dismiss[1] >= cut.dismiss:
            return _click(dismiss[0], situation, why=f"dismiss {dismiss[1]:.2f}")
    if answers.target_visible.p < cut.target_visible and situation.room_to_scroll:
        return Action(
            tool="scroll",
            arguments={"direction": "down"},
            label=f"scroll down: target_visible {answers.target_visible.p:.2f}",
        )
    best = answers.next_action.top()
    if best is not None and best[1] >= cut.next_action:
        return _act(best[0], best[1], answers, situation, cut)
    shown = f"{best[0]} at {best[1]:.2f}" if best else "none"
    return Stop(
        reason="uncertain",
        message=(
            f"no step is sure enough to take: the best next action is badge {shown} "
            f"(needs {cut.next_action:g}), goal_reached {answers.goal_reached.p:.2f}, "
            f"blocked {answers.blocked.p:.2f}, target_visible {answers.target_visible.p:.2f}"
        ),
        label="stop rather than guess",
    )


def _act(badge: str, p: float, answers: Answers, situation: Situation, cut: Cutoffs) -> Decision:
    handling = (situation.handling or {}).get(badge, "click")
    if handling == "click":
        return _click(badge, situation, why=f"next_action {p:.2f}")
    picked = answers.value.top(exclude=frozenset({NONE})) if answers.value else None
    value = None
    if picked is not None and picked[1] >= cut.value:
        index = int(picked[0]) - 1
        value = situation.values[index] if 0 <= index < len(situation.values) else None
    what = _words(situation, badge)
    if value is None:
        return Stop(
            reason="uncertain",
            message=(
                f"the next action is {what}, which needs a value, and no quoted value of the "
                f"goal fits it with P ≥ {cut.value:g}; quote the value in the goal"
            ),
            label="stop rather than guess",
        )
    ref = int(badge)
    if handling == "type":
        return Action(
            tool="input",
            arguments={"ref": ref, "text": value, "element": what},
            label=f"type {value!r} into [{badge}] {what}",
        )
    options = (situation.options or {}).get(badge, ())
    option = next((o for o in options if o.casefold() == value.casefold()), None)
    if option is None:
        return Stop(
            reason="uncertain",
            message=f"{what} has no option {value!r} (its options: {', '.join(options)})",
            label="stop rather than guess",
        )
    return Action(
        tool="select",
        arguments={"ref": ref, "values": [option], "element": what},
        label=f"select {option!r} in [{badge}] {what}",
    )


def _click(badge: str, situation: Situation, *, why: str) -> Action:
    what = _words(situation, badge)
    return Action(
        tool="click",
        arguments={"ref": int(badge), "element": what},
        label=f"click [{badge}] {what} ({why})",
    )


def _words(situation: Situation, badge: str) -> str:
    return (situation.names or {}).get(badge, f"badge {badge}")
