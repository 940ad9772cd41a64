"""The confirm rules as data, each on the facts a page gives them (no browser): a control
named like deleting, paying or sending (English whole words, Chinese anywhere); a submit of a
form holding a password or payment field; accepting a confirm() dialog; the modes; the
rules a user adds; and the decisions planner's risk stop proposing its step."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pagesight import InvalidOption, RiskRules
from pagesight.agent.confirm import ConfirmPolicy
from pagesight.agent.decision import Action, Stop
from pagesight.guard.risk import (
    Field,
    Risk,
    Target,
    assess_call,
    assess_step,
)
from pagesight.planners.decisions.api import ChoiceAnswer, NoulAnswer, ScoreAnswer
from pagesight.planners.decisions.policy import Answers, Situation, decide

RULES = RiskRules()
PASSWORD = Field(type="password", words=("password",))
EMAIL = Field(type="email", words=("email",))


def _button(name: str, **facts: object) -> Target:
    return Target(description=f'[1] button "{name}"', names=(name,), **facts)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "word"),
    [
        ("Delete account", "delete"),
        ("REMOVE item", "remove"),
        ("Pay now", "pay"),
        ("Place order", "order"),
        ("Send invoice", "send"),
        ("Buy", "buy"),
        ("Transfer funds", "transfer"),
        ("删除联系人", "删除"),
        ("立即支付", "支付"),
        ("确认购买", "购买"),
        ("确认支付", "支付"),
        ("Del\u200bete", "delete"),  # a zero-width space draws nothing
        ("\uff24\uff45\uff4c\uff45\uff54\uff45 all", "delete"),  # full-width letters
        ("Re\u00admove", "remove"),  # a soft hyphen
        ("提交下单", "下单"),
        ("转账", "转账"),
        ("发送邮件", "发送"),
        ("Save profile", None),
        ("Repayment history", None),  # "payment" inside a word is not the word
        ("Sender details", None),
        ("Ordering guide", None),
    ],
)
def test_a_click_on_a_control_named_like_a_risky_act_needs_a_person(
    name: str, word: str | None
) -> None:
    risk = assess_step(RULES, "risky", "click", {}, _button(name))
    if word is None:
        assert risk is None
        return
    assert risk is not None and risk.rule == "risky_control"
    assert risk.why == f"its name says {word!r}"
    assert (
        risk.question() == f'pagesight is about to click [1] button "{name}": {risk.why}. Go ahead?'
    )


def test_only_a_click_is_judged_by_the_name() -> None:
    assert assess_step(RULES, "risky", "hover", {}, _button("Delete account")) is None


def _submit(name: str, *fields: Field) -> Target:
    return _button(name, submits=True, form_fields=fields)


def _field(field: Field, *form: Field) -> Target:
    return Target(description="[2] textbox", field=field, form_fields=form)


def _named(*words: str) -> Field:
    return Field(words=words)


ENTER = {"key": "Enter"}


@pytest.mark.parametrize(
    ("action", "args", "target", "held"),
    [
        ("click", {}, _submit("Sign in", EMAIL, PASSWORD), "a password field"),
        (
            "click",
            {},
            _submit("Go on", _named("number", "cc-number")),
            "a payment field (cc-number)",
        ),
        ("click", {}, _submit("Next", _named("Card number")), "a payment field (card number)"),
        ("click", {}, _submit("Next", _named("CVC")), "a payment field (cvc)"),
        ("click", {}, _submit("Next", _named("IBAN")), "a payment field (iban)"),
        ("click", {}, _submit("下一步", _named("卡号")), "a payment field (卡号)"),
        ("input_submit", {"text": "x"}, _field(PASSWORD), "a password field"),
        ("input_submit", {"text": "x"}, _field(EMAIL, EMAIL, PASSWORD), "a password field"),
        ("press_key", ENTER, _field(EMAIL, EMAIL, PASSWORD), "a password field"),
        # not a submit, or nothing sensitive submitted
        ("click", {}, _button("Show password", form_fields=(EMAIL, PASSWORD)), None),
        ("click", {}, _submit("Go", _named("q", "Search")), None),
        ("input", {"text": "x"}, _field(PASSWORD), None),
        ("press_key", {"key": "a"}, _field(PASSWORD), None),
        ("input_submit", {"text": "x"}, _field(EMAIL), None),
    ],
)
def test_submitting_a_password_or_payment_field_needs_a_person(
    action: str, args: dict[str, object], target: Target, held: str | None
) -> None:
    risk = assess_step(RULES, "risky", action, args, target)
    if held is None:
        assert risk is None
        return
    assert risk is not None and risk.rule == "sensitive_submit"
    assert risk.why == f"it submits {held}"


@pytest.mark.parametrize(
    ("action", "args", "role", "rule"),
    [
        ("click", {}, "button", "unread_target"),  # may be a password form's submit button
        ("click", {}, None, "unread_target"),  # never seen: nothing rules it out
        ("click", {}, "link", None),  # a link submits nothing
        ("press_key", {"key": "Enter"}, "textbox", "unread_target"),  # submits its form
        ("press_key", {"key": "Enter"}, "link", None),  # follows the link
        ("press_key", {"key": " "}, "textbox", None),  # types a space
        ("input_submit", {}, "textbox", "unread_target"),
        ("hover", {}, None, None),
    ],
)
def test_a_target_whose_facts_could_not_be_read_fails_closed(
    action: str, args: dict[str, str], role: str | None, rule: str | None
) -> None:
    def unread(name: str) -> Target:
        return Target(description="[1]", names=(name,) if role else (), role=role, read=False)

    risk = assess_step(RULES, "risky", action, args, unread("Rename team"))
    assert (risk.rule if risk else None) == rule
    if action == "click":  # the observation's name still says what is risky
        risky = assess_step(RULES, "risky", action, args, unread("Delete team"))
        assert risky is not None
        assert risky.rule == ("risky_control" if role else "unread_target")


def test_accepting_a_confirm_dialog_needs_a_person() -> None:
    accepting = assess_call(RULES, "risky", "handle_dialog", {"accept": True})
    assert accepting is not None and accepting.rule == "confirm_dialog"
    assert accepting.action == "accept the confirm() dialog the next action opens"
    assert assess_call(RULES, "risky", "handle_dialog", {"accept": False}) is None
    assert assess_call(RULES, "risky", "click", {"accept": True}) is None
    # A tab whose dialog policy accepts confirms: any action may answer one with OK.
    by_policy = assess_step(RULES, "risky", "click", {}, _button("Save"), accepts_confirms=True)
    assert by_policy is not None and by_policy.rule == "confirm_dialog"
    assert assess_step(RULES, "risky", "click", {}, _button("Save")) is None
    off = RiskRules(confirm_dialogs=False)
    assert assess_call(off, "risky", "handle_dialog", {"accept": True}) is None


def test_all_asks_before_every_action_and_never_before_none() -> None:
    save = assess_step(RULES, "all", "navigate", {"url": "https://example.com/"}, None)
    assert save is not None and save.rule == "every_action"
    assert save.action == "go to https://example.com/"
    assert assess_call(RULES, "all", "handle_dialog", {"accept": True}) is not None
    assert assess_step(RULES, "never", "click", {}, _button("Delete account")) is None
    assert assess_call(RULES, "never", "handle_dialog", {"accept": True}) is None


def test_a_user_adds_words_to_the_rules_in_code_or_a_file(tmp_path: Path) -> None:
    archive = _button("Archive all")
    assert assess_step(RULES, "risky", "click", {}, archive) is None
    extended = RULES.extended(control_words=("archive",), field_words=("routing",))
    risk = assess_step(extended, "risky", "click", {}, archive)
    assert risk is not None and risk.why == "its name says 'archive'"
    path = tmp_path / "rules.json"
    path.write_text(json.dumps({"control_words": ["归档"], "field_words": ["routing number"]}))
    loaded = RiskRules.load(path)
    assert loaded.control_word(("全部归档",)) == "归档"
    assert loaded.control_word(("Delete",)) == "delete"  # the defaults stay
    wire = _button("Send", submits=True, form_fields=(Field(words=("Routing number",)),))
    assert (
        assess_step(
            loaded,
            "risky",
            "click",
            {},
            _button("Next", submits=True, form_fields=wire.form_fields),
        )
        is not None
    )
    assert loaded.confirm_dialogs  # a file that does not say keeps asking about confirms
    # A file turning the confirm() rule off: accepting a dialog no longer asks.
    path.write_text(json.dumps({"confirm_dialogs": False}))
    quiet = RiskRules.load(path)
    assert assess_call(quiet, "risky", "handle_dialog", {"accept": True}) is None
    assert assess_call(RULES, "risky", "handle_dialog", {"accept": True}) is not None


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("{not json", "cannot read the risk rules"),
        ('{"control_words": "archive"}', "control_words must be a list of strings"),
        ('{"words": []}', "must hold a JSON object with the keys"),
        ('{"confirm_dialogs": "yes"}', "confirm_dialogs must be true or false"),
    ],
)
def test_a_bad_rules_file_is_refused_naming_the_option(
    tmp_path: Path, content: str, said: str
) -> None:
    path = tmp_path / "rules.json"
    path.write_text(content)
    with pytest.raises(InvalidOption, match=said) as caught:
        RiskRules.load(path)
    assert caught.value.option == "confirm_rules"


def test_a_bad_mode_or_rule_list_is_refused_naming_the_option() -> None:
    with pytest.raises(InvalidOption, match="confirm is one of risky, all, never, not 'maybe'"):
        ConfirmPolicy(mode="maybe")  # type: ignore[arg-type]
    with pytest.raises(InvalidOption, match="control_words must be a tuple of words"):
        RiskRules(control_words=["delete"])  # type: ignore[arg-type]


async def _no(risk: Risk) -> bool:
    return False


async def _yes(risk: Risk) -> bool:
    return True


def test_the_gate_refuses_with_no_one_to_ask_and_asks_whoever_is_given() -> None:
    import asyncio

    risk = Risk(
        rule="risky_control", action='click [1] button "Delete"', why="its name says 'delete'"
    )
    nobody = asyncio.run(ConfirmPolicy(mode="risky").decide(risk))
    assert nobody is not None and nobody.reason == "needs_person"
    assert nobody.message.startswith('a person must allow this: click [1] button "Delete"')
    declined = asyncio.run(ConfirmPolicy(mode="risky", ask=_no).decide(risk))
    assert declined is not None and declined.reason == "declined_by_person"
    assert asyncio.run(ConfirmPolicy(mode="risky", ask=_yes).decide(risk)) is None


def test_the_decisions_planners_risk_stop_proposes_the_step_a_person_may_allow() -> None:
    answers = Answers(
        blocked=NoulAnswer(p=0.01),
        dismiss=ChoiceAnswer(choice="none", probabilities={"none": 0.99}),
        target_visible=NoulAnswer(p=0.95),
        next_action=ChoiceAnswer(choice="7", probabilities={"7": 0.9, "3": 0.1}),
        goal_reached=NoulAnswer(p=0.02),
        risk=ScoreAnswer(score=3.7, probabilities=(0.0, 0.05, 0.2, 0.75)),
    )
    decision = decide(answers, Situation(names={"7": 'button "Pay now"'}))
    assert isinstance(decision, Stop) and decision.reason == "needs_person"
    assert decision.proposed == Action(
        tool="click",
        arguments={"ref": 7, "element": 'button "Pay now"'},
        label='click [7] button "Pay now" (next_action 0.90)',
    )
