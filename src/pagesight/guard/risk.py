"""A person before risky actions: the risk rules, data a user can extend, judged on facts.

The rules are pure: given an action and what is known of its target (a :class:`Target`,
built from the live page's :class:`ElementFacts` and the latest observation), they say
whether a person must allow it (a :class:`Risk`) or not. Reading those facts is the page's
(:meth:`AsyncPage.risk_facts <pagesight.browser.page.AsyncPage.risk_facts>`); asking the person
is the gate's (:class:`pagesight.agent.confirm.ConfirmPolicy`), which the tool registry asks
before a page step runs (and before a tool call such as ``handle_dialog`` accepting a
confirm), so the agent, the CLI and the MCP server all pass through the same check. What the
rules decide:

* ``mode="never"``: nothing is asked;
* ``mode="all"``: every page action, and accepting a dialog, needs a person;
* ``mode="risky"`` (the default for ``pagesight run`` and ``pagesight mcp``): an action one of
  the :class:`RiskRules` names needs one —

  - ``risky_control``: a click on a control whose name holds one of ``control_words``
    (delete, remove, pay, purchase, order, transfer, send, … and 删除, 支付, 购买, 转账, …);
  - ``sensitive_submit``: a submit — a click on the page's own submit button (a
    ``type=submit``, or a ``<button>`` without a type, in a form), Enter in a field (``input``
    with ``submit``, ``press_key`` Enter) — of a form holding a password field or a payment
    field (one whose name, id, label, placeholder or ``autocomplete`` holds one of
    ``field_words``: card number, cvc, iban, ``cc-number``, 卡号, …);
  - ``confirm_dialog``: answering a ``confirm()`` dialog with OK — ``handle_dialog`` with
    ``accept=true``, or any action of a tab whose :class:`~pagesight.act.events.DialogPolicy`
    accepts confirms;
  - ``unread_target``: the rules fail closed. When the live page would not let its target's
    facts be read (a page script that throws, a form whose ``elements`` a field of that name
    shadows), the target is judged on the latest observation's name and role
    (:attr:`Target.read` false) — ``risky_control`` by that name as ever — and what those
    cannot rule out needs a person: a click on a button (or on what was never seen), or Enter
    in anything but a link, may submit a password or payment form no one could read.

The rules are data: ``RiskRules().extended(control_words=("archive",))``, or
``RiskRules.load("rules.json")`` (``pagesight run --confirm-rules FILE``) with the words to
add: ``{"control_words": ["archive", "归档"], "field_words": ["routing number"]}``.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal, get_args

from pagesight.errors import InvalidOption

Mode = Literal["risky", "all", "never"]
MODES: tuple[str, ...] = get_args(Mode)
Rule = Literal[
    "risky_control",
    "sensitive_submit",
    "confirm_dialog",
    "unread_target",
    "every_action",
    "planner_risk",
]
"""Which rule asked: the risky ones, ``every_action`` (``all``), or the planner's own risk
stop (``planner_risk``: the decisions planner's)."""

CONTROL_WORDS: tuple[str, ...] = (
    "delete",
    "remove",
    "erase",
    "destroy",
    "pay",
    "pay now",
    "payment",
    "purchase",
    "buy",
    "order",
    "checkout",
    "check out",
    "transfer",
    "send",
    "withdraw",
    "unsubscribe",
    "close account",
    "删除",
    "移除",
    "清空",
    "支付",
    "付款",
    "购买",
    "下单",
    "结算",
    "转账",
    "汇款",
    "发送",
    "注销",
)
"""Words in a control's name that make a click on it risky (English as whole words, any
case; Chinese anywhere in the name)."""

FIELD_WORDS: tuple[str, ...] = (
    "card number",
    "cardnumber",
    "card-number",
    "card_number",
    "credit card",
    "cc-number",
    "cc-csc",
    "cc-exp",
    "cvc",
    "cvv",
    "csc",
    "security code",
    "iban",
    "account number",
    "卡号",
    "信用卡",
    "银行卡",
    "安全码",
    "支付密码",
)
"""Words in a field's name, id, label, placeholder or ``autocomplete`` that make it a
payment field (a password field is one by its type)."""


@dataclass(frozen=True, kw_only=True)
class RiskRules:
    """Which actions need a person in ``risky`` mode. Extend with :meth:`extended` or
    :meth:`load`; each word list may be replaced outright too."""

    control_words: tuple[str, ...] = CONTROL_WORDS
    field_words: tuple[str, ...] = FIELD_WORDS
    confirm_dialogs: bool = True
    """Answering a ``confirm()`` dialog with OK needs a person."""

    def __post_init__(self) -> None:
        for name in ("control_words", "field_words"):
            words = getattr(self, name)
            if not isinstance(words, tuple) or not all(
                isinstance(w, str) and w.strip() for w in words
            ):
                raise InvalidOption(name, f"{name} must be a tuple of words, not {words!r}")

    def extended(
        self, *, control_words: tuple[str, ...] = (), field_words: tuple[str, ...] = ()
    ) -> RiskRules:
        """These rules with more words (a site's own "Archive", "Wire")."""
        return replace(
            self,
            control_words=(*self.control_words, *control_words),
            field_words=(*self.field_words, *field_words),
        )

    @classmethod
    def load(cls, path: str | Path) -> RiskRules:
        """The default rules extended by a JSON file: ``{"control_words": [...],
        "field_words": [...], "confirm_dialogs": true}`` (each key optional)."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InvalidOption(
                "confirm_rules", f"cannot read the risk rules in {path}: {exc}"
            ) from exc
        known = {"control_words", "field_words", "confirm_dialogs"}
        if not isinstance(data, dict) or not set(data) <= known:
            raise InvalidOption(
                "confirm_rules",
                f"{path} must hold a JSON object with the keys {sorted(known)}, not {data!r}",
            )
        lists = {}
        for key in ("control_words", "field_words"):
            words = data.get(key, [])
            if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
                raise InvalidOption("confirm_rules", f"{path}: {key} must be a list of strings")
            lists[key] = tuple(words)
        rules = cls().extended(**lists)
        dialogs = data.get("confirm_dialogs", True)
        if not isinstance(dialogs, bool):
            raise InvalidOption("confirm_rules", f"{path}: confirm_dialogs must be true or false")
        return replace(rules, confirm_dialogs=dialogs)

    def control_word(self, names: tuple[str, ...]) -> str | None:
        """The first of ``control_words`` any of ``names`` holds."""
        return _first_word(self.control_words, names)

    def field_word(self, words: tuple[str, ...]) -> str | None:
        return _first_word(self.field_words, words)


@dataclass(frozen=True, kw_only=True)
class Field:
    """A form field as the rules see it: its ``type`` and the words that name it (name, id,
    label, placeholder, ``autocomplete``)."""

    type: str = "text"
    words: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class ElementFacts:
    """What the live page says of the element an action is aimed at: the page's part of a
    :class:`Target` (read by :meth:`AsyncPage.risk_facts
    <pagesight.browser.page.AsyncPage.risk_facts>`)."""

    names: tuple[str, ...] = ()
    """Its accessible label, shown text, value (not a field's), title, alt."""
    submits: bool = False
    """It is its form's own submit button."""
    field: Field | None = None
    """It is itself a field (Enter in it submits its form)."""
    form_fields: tuple[Field, ...] = ()
    """The fields of the form it belongs to (none outside a form)."""
    default_button: tuple[str, ...] = ()
    """The names of its form's first submit button."""


@dataclass(frozen=True, kw_only=True)
class Target:
    """What the rules know of the element an action is aimed at, read from the live page."""

    description: str
    """The element as the outline shows it (``button "Delete account"``)."""
    names: tuple[str, ...] = ()
    """Its name, shown text, value, title: what a person reads on it."""
    submits: bool = False
    """It is its form's own submit button."""
    field: Field | None = None
    """It is itself a field (Enter in it submits its form)."""
    form_fields: tuple[Field, ...] = ()
    """The fields of the form it belongs to (none outside a form)."""
    default_button: tuple[str, ...] = ()
    """The names of its form's first submit button, which Enter in a field of the form
    presses (implicit submission): Enter in "Type the name to confirm" presses "Delete"."""
    read: bool = True
    """The live page's facts were read. False: the page would not let them be (``names`` and
    ``role`` are then all that is known, from the latest observation, if it showed it), so
    ``submits``, ``field``, ``form_fields`` and ``default_button`` say nothing."""
    role: str | None = None
    """Its role in the latest observation (``None``: not shown there)."""


@dataclass(frozen=True, kw_only=True)
class Risk:
    """An action the rules say a person must allow: which ``rule``, the ``action`` in words
    and ``why``."""

    rule: Rule
    action: str
    why: str

    def question(self) -> str:
        return f"pagesight is about to {self.action}: {self.why}. Go ahead?"


_SUBMIT_KEYS = frozenset({"enter", "numpadenter"})
_PRESS_KEYS = _SUBMIT_KEYS | {" ", "space"}
"""Keys that press a focused button or follow a focused link, as a click does."""


def judges_focus(action: str, args: Mapping[str, Any]) -> bool:
    """Whether a step aimed at no element is judged on the element with focus: a key that
    presses a focused button or follows a focused link (Enter, Space) acts on it."""
    return action == "press_key" and _key(args) in _PRESS_KEYS


def assess_step(
    rules: RiskRules,
    mode: Mode,
    action: str,
    args: Mapping[str, Any],
    target: Target | None,
    *,
    accepts_confirms: bool = False,
) -> Risk | None:
    """The risk of one page action (``click``, ``input_submit``, ``press_key``, …) aimed at
    ``target`` (``None``: no element, or none could be read), or ``None``: it may run."""
    what = _words(action, args, target)
    if mode == "never":
        return None
    if mode == "all":
        return Risk(
            rule="every_action", action=what, why="every action needs a person (confirm=all)"
        )
    # Enter or Space on a focused button or link presses it: a click by another name.
    pressing = action == "press_key" and _key(args) in _PRESS_KEYS
    if target is not None and (action == "click" or (pressing and target.field is None)):
        word = rules.control_word(target.names)
        if word is not None:
            return Risk(rule="risky_control", action=what, why=f"its name says {word!r}")
    submitting = (action == "click" and target is not None and target.submits) or (
        action == "input_submit" or (action == "press_key" and _submit_key(args))
    )
    if target is not None and not target.read and _may_submit(action, args, target.role):
        why = "what it submits could not be read from the page"
        return Risk(rule="unread_target", action=what, why=why)
    if submitting and target is not None and target.field is not None:
        # Enter in a field presses its form's default button, which may be "Delete".
        word = rules.control_word(target.default_button)
        if word is not None:
            why = f"Enter submits its form by the button named {word!r}"
            return Risk(rule="risky_control", action=what, why=why)
    if submitting and target is not None:
        held = _sensitive(rules, (target.field,) if target.field else ())
        held = held or _sensitive(rules, target.form_fields)
        if held is not None:
            return Risk(rule="sensitive_submit", action=what, why=f"it submits {held}")
    if accepts_confirms and rules.confirm_dialogs:
        return Risk(
            rule="confirm_dialog",
            action=what,
            why="this tab answers confirm() dialogs with OK, and this action may open one",
        )
    return None


def assess_call(rules: RiskRules, mode: Mode, tool: str, args: Mapping[str, Any]) -> Risk | None:
    """The risk of a tool call that is not a page step: ``handle_dialog`` accepting the next
    dialogs (a ``confirm()`` answered with OK)."""
    if mode == "never" or tool != "handle_dialog" or args.get("accept") is not True:
        return None
    if mode == "risky" and not rules.confirm_dialogs:
        return None
    return Risk(
        rule="confirm_dialog",
        action="accept the confirm() dialog the next action opens",
        why="answering OK to a page's confirm() carries out what it asks",
    )


def check_mode(mode: object) -> Mode:
    if mode not in MODES:
        raise InvalidOption("confirm", f"confirm is one of {', '.join(MODES)}, not {mode!r}")
    return mode  # type: ignore[return-value]  # checked just above


# --- matching --------------------------------------------------------------------------------


def _first_word(words: tuple[str, ...], texts: tuple[str, ...]) -> str | None:
    plain = tuple(_plain(text) for text in texts)
    for word in words:
        pattern = _pattern(_plain(word))
        if any(pattern.search(text) for text in plain):
            return word
    return None


def _plain(text: str) -> str:
    """``text`` as a person reads it: full-width letters as their ASCII (NFKC: "\\uff24elete"
    is "Delete"), and the characters that draw nothing (zero-width spaces and joiners, soft
    hyphens: Unicode's format characters) left out, so "Del\\u200bete" is "Delete"."""
    text = unicodedata.normalize("NFKC", text)
    return "".join(c for c in text if unicodedata.category(c) != "Cf")


def _pattern(word: str) -> re.Pattern[str]:
    # Latin words match whole (so "pay" is not found in "display"); CJK has no spaces to mark
    # a word's end, so it matches anywhere.
    escaped = re.escape(word.strip())
    if word.isascii():
        escaped = rf"(?<![a-z0-9]){escaped}(?![a-z0-9])"
    return re.compile(escaped, re.IGNORECASE)


def _sensitive(rules: RiskRules, fields: tuple[Field | None, ...]) -> str | None:
    for f in fields:
        if f is None:
            continue
        if f.type == "password":
            return "a password field"
        word = rules.field_word(f.words)
        if word is not None:
            return f"a payment field ({word})"
    return None


def _key(args: Mapping[str, Any]) -> str:
    """The key a ``press_key`` ends on, lower case: a combination's last ("Shift+Enter"
    submits a form as Enter does)."""
    key = str(args.get("key", ""))
    return (key if key.endswith("+") or "+" not in key else key.rsplit("+", 1)[1]).lower()


def _submit_key(args: Mapping[str, Any]) -> bool:
    return _key(args) in _SUBMIT_KEYS


def _may_submit(action: str, args: Mapping[str, Any], role: str | None) -> bool:
    """Whether an action on an element of ``role`` (``None``: unknown) may submit a form,
    when the page's facts of it are unknown: a click or Space on a button presses it, Enter
    submits the form of anything but a link (which it follows)."""
    pressing = action == "click" or (action == "press_key" and _key(args) in _PRESS_KEYS)
    entering = action == "input_submit" or (action == "press_key" and _submit_key(args))
    return (entering and role != "link") or (pressing and role in (None, "button"))


def _words(action: str, args: Mapping[str, Any], target: Target | None) -> str:
    on = target.description if target is not None else ""
    if action == "click":
        return f"click {on}".strip()
    if action == "input_submit":
        return f"type into {on} and press Enter".replace("  ", " ")
    if action == "press_key":
        return f"press {args.get('key')} in {on}" if on else f"press {args.get('key')}"
    if action == "navigate":
        return f"go to {args.get('url')}"
    return f"{action} {on}".strip()
