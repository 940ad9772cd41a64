"""The decisions planner's policy, one test per rule in policy order: each shows the rules
before it not firing (their figures just below their cutoffs), its own rule firing exactly at
its cutoff, and not firing just below it. The policy is a pure function: no page, no server."""

from __future__ import annotations

import math
from typing import Any

import pytest

from pagesight.agent.decision import Action, Done, Stop
from pagesight.errors import InvalidOption
from pagesight.planners.decisions import (
    Answers,
    ChoiceAnswer,
    Cutoffs,
    NoulAnswer,
    ScoreAnswer,
    Situation,
    decide,
)


def below(cut: float) -> float:
    """The largest float under ``cut``: just below the cutoff."""
    return math.nextafter(cut, 0.0)


def choice(probabilities: dict[str, float]) -> ChoiceAnswer:
    return ChoiceAnswer(
        choice=max(probabilities, key=probabilities.__getitem__), probabilities=probabilities
    )


def answers(**given: Any) -> Answers:
    """Answers where no rule fires (next_action split 0.5/0.5), but for ``given``."""
    fields: dict[str, Any] = {
        "goal_reached": NoulAnswer(p=0.1),
        "risk": ScoreAnswer(score=0.0, probabilities=(1.0, 0.0, 0.0, 0.0)),
        "blocked": NoulAnswer(p=0.1),
        "dismiss": choice({"none": 1.0, "7": 0.0}),
        "target_visible": NoulAnswer(p=0.9),
        "next_action": choice({"12": 0.5, "13": 0.5}),
    }
    for name, value in given.items():
        if isinstance(value, float):
            fields[name] = NoulAnswer(p=value)
        elif isinstance(value, dict):
            fields[name] = choice(value)
        elif isinstance(value, tuple):
            fields[name] = ScoreAnswer(score=0.0, probabilities=value)
        else:
            fields[name] = value
    return Answers(**fields)


PAGE = Situation(
    room_to_scroll=True,
    names={"7": 'button "No thanks"', "12": 'link "Alice Chen"', "13": 'button "Edit"'},
)
EARLIER_BELOW = {"goal_reached": below(0.8)}


def test_rule_1_goal_reached_at_its_cutoff_is_done() -> None:
    fired = decide(answers(goal_reached=0.8, next_action={"12": 0.99}), PAGE)
    assert isinstance(fired, Done)
    not_yet = decide(answers(goal_reached=below(0.8), next_action={"12": 0.99}), PAGE)
    assert isinstance(not_yet, Action) and not_yet.tool == "click"  # a later rule decides


def test_rule_2_risk_of_level_3_or_more_at_its_cutoff_stops_for_a_person() -> None:
    risky = (0.3, 0.0, 0.7, 0.0)  # P(level ≥ 3) = 0.7 exactly
    fired = decide(answers(**EARLIER_BELOW, risk=risky, next_action={"12": 0.99}), PAGE)
    assert isinstance(fired, Stop) and fired.reason == "needs_person"
    assert 'link "Alice Chen"' in fired.message and "0.70" in fired.message
    payment = (0.3, 0.0, 0.0, 0.7)  # level 4 counts too
    fired = decide(answers(**EARLIER_BELOW, risk=payment), PAGE)
    assert isinstance(fired, Stop) and fired.reason == "needs_person"
    just_below = (1 - below(0.7), 0.0, below(0.7), 0.0)
    not_yet = decide(answers(**EARLIER_BELOW, risk=just_below, next_action={"12": 0.99}), PAGE)
    assert isinstance(not_yet, Action) and not_yet.arguments["ref"] == 12
    entering = (0.0, 1.0, 0.0, 0.0)  # level 2, "enters information", is not risky
    assert isinstance(decide(answers(**EARLIER_BELOW, risk=entering), PAGE), Stop)
    assert decide(answers(**EARLIER_BELOW, risk=entering), PAGE).reason == "uncertain"  # type: ignore[union-attr]


EARLIER_2 = {**EARLIER_BELOW, "risk": (1 - below(0.7), 0.0, below(0.7), 0.0)}


def test_rule_3_blocked_with_a_dismiss_badge_at_their_cutoffs_clicks_it_once() -> None:
    blocker = {"none": 0.4, "7": 0.6}
    fired = decide(answers(**EARLIER_2, blocked=0.8, dismiss=blocker), PAGE)
    assert isinstance(fired, Action)
    assert (fired.tool, fired.arguments["ref"]) == ("click", 7)
    assert fired.arguments["element"] == 'button "No thanks"'
    # Just below either cutoff, or the badge clicked before: the rule does not fire.
    weak = {"none": 1 - below(0.6), "7": below(0.6)}
    assert isinstance(decide(answers(**EARLIER_2, blocked=0.8, dismiss=weak), PAGE), Stop)
    not_blocked = answers(**EARLIER_2, blocked=below(0.8), dismiss=blocker)
    assert isinstance(decide(not_blocked, PAGE), Stop)
    clicked = Situation(clicked=frozenset({"7"}), names=PAGE.names)
    assert isinstance(decide(answers(**EARLIER_2, blocked=0.8, dismiss=blocker), clicked), Stop)
    # "none" is never a badge to click, however sure.
    assert isinstance(decide(answers(**EARLIER_2, blocked=0.99, dismiss={"none": 1.0}), PAGE), Stop)


EARLIER_3 = {**EARLIER_2, "blocked": below(0.8), "dismiss": {"none": 0.4, "7": 0.6}}


def test_rule_4_target_not_visible_with_room_to_scroll_scrolls_down() -> None:
    fired = decide(answers(**EARLIER_3, target_visible=below(0.5), next_action={"12": 0.99}), PAGE)
    assert isinstance(fired, Action)
    assert (fired.tool, fired.arguments) == ("scroll", {"direction": "down"})
    at_cutoff = decide(answers(**EARLIER_3, target_visible=0.5, next_action={"12": 0.99}), PAGE)
    assert isinstance(at_cutoff, Action) and at_cutoff.tool == "click"
    no_room = Situation(names=PAGE.names)
    unseen = answers(**EARLIER_3, target_visible=0.0, next_action={"12": 0.99})
    assert decide(unseen, no_room).tool == "click"  # type: ignore[union-attr]


EARLIER_4 = {**EARLIER_3, "target_visible": 0.5}


def test_rule_5_next_action_at_its_cutoff_clicks_the_badge() -> None:
    fired = decide(answers(**EARLIER_4, next_action={"12": 0.6, "13": 0.4}), PAGE)
    assert isinstance(fired, Action)
    assert fired.tool == "click"
    assert fired.arguments == {"ref": 12, "element": 'link "Alice Chen"'}
    assert fired.label is not None and "next_action 0.60" in fired.label
    just_below = {"12": below(0.6), "13": 1 - below(0.6)}
    not_yet = decide(answers(**EARLIER_4, next_action=just_below), PAGE)
    assert isinstance(not_yet, Stop) and not_yet.reason == "uncertain"


def test_rule_6_otherwise_stops_rather_than_guess() -> None:
    stop = decide(answers(**EARLIER_4, next_action={"12": 0.5, "13": 0.5}), PAGE)
    assert isinstance(stop, Stop)
    assert stop.reason == "uncertain"
    assert "no step is sure enough" in stop.message and "0.50" in stop.message


FIELDS = Situation(
    handling={"20": "type", "21": "choose", "22": "click"},
    options={"21": ("London", "New York", "Tokyo")},
    names={"20": 'textbox "Job title"', "21": 'combobox "Location"', "22": 'button "Save"'},
    values=("Senior Software Engineer", "new york"),
)


def test_a_text_field_gets_the_quoted_value_the_value_question_picks() -> None:
    typed = decide(
        answers(next_action={"20": 0.9}, value={"none": 0.1, "1": 0.6, "2": 0.3}), FIELDS
    )
    assert isinstance(typed, Action)
    assert typed.tool == "input"
    assert typed.arguments["ref"] == 20 and typed.arguments["text"] == "Senior Software Engineer"
    chosen = decide(answers(next_action={"21": 0.9}, value={"2": 0.95, "none": 0.05}), FIELDS)
    assert isinstance(chosen, Action)
    assert (chosen.tool, chosen.arguments["values"]) == ("select", ["New York"])  # the page's
    unsure = decide(answers(next_action={"20": 0.9}, value={"1": below(0.6), "none": 0.4}), FIELDS)
    assert isinstance(unsure, Stop) and unsure.reason == "uncertain"
    assert 'textbox "Job title"' in unsure.message
    no_values = decide(answers(next_action={"20": 0.9}), FIELDS)
    assert isinstance(no_values, Stop) and no_values.reason == "uncertain"
    clicked = decide(answers(next_action={"22": 0.9}, value={"none": 0.9, "1": 0.1}), FIELDS)
    assert isinstance(clicked, Action) and clicked.tool == "click"


def test_cutoffs_are_configurable_and_checked() -> None:
    loose = Cutoffs(next_action=0.5)
    fired = decide(answers(next_action={"12": 0.5, "13": 0.5}), PAGE, loose)
    assert isinstance(fired, Action) and fired.tool == "click"
    level_2 = Cutoffs(risk_level=2)
    entering = answers(risk=(0.0, 1.0, 0.0, 0.0))
    assert decide(entering, PAGE, level_2).reason == "needs_person"  # type: ignore[union-attr]
    with pytest.raises(InvalidOption) as err:
        Cutoffs(goal_reached=1.5)
    assert err.value.option == "goal_reached"
    with pytest.raises(InvalidOption) as err:
        Cutoffs(risk_level=5)
    assert err.value.option == "risk_level"


def test_with_every_rule_ready_to_fire_the_earliest_one_decides() -> None:
    # Each rule's own test keeps the rules after it quiet; this one keeps them all ready, so
    # that a policy checking its rules in another order gives another Decision.
    ready: dict[str, Any] = {
        "goal_reached": 0.8,
        "risk": (0.3, 0.0, 0.7, 0.0),
        "blocked": 0.8,
        "dismiss": {"none": 0.4, "7": 0.6},
        "target_visible": below(0.5),
        "next_action": {"12": 0.6, "13": 0.4},
    }
    first = decide(answers(**ready), PAGE)
    assert isinstance(first, Done)
    ready["goal_reached"] = below(0.8)
    second = decide(answers(**ready), PAGE)
    assert isinstance(second, Stop) and second.reason == "needs_person"
    ready["risk"] = (1 - below(0.7), 0.0, below(0.7), 0.0)
    third = decide(answers(**ready), PAGE)
    assert isinstance(third, Action) and (third.tool, third.arguments["ref"]) == ("click", 7)
    ready["blocked"] = below(0.8)
    fourth = decide(answers(**ready), PAGE)
    assert isinstance(fourth, Action) and fourth.tool == "scroll"
    ready["target_visible"] = 0.5
    fifth = decide(answers(**ready), PAGE)
    assert isinstance(fifth, Action) and (fifth.tool, fifth.arguments["ref"]) == ("click", 12)
    ready["next_action"] = {"12": below(0.6), "13": 1 - below(0.6)}
    last = decide(answers(**ready), PAGE)
    assert isinstance(last, Stop) and last.reason == "uncertain"
