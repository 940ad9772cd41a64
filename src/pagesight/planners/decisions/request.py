"""What the decisions planner asks: the marked elements, the state it sends, the questions.

The badges are the ids the set-of-marks screenshot draws (:func:`pagesight.vision.marks_for`
picks them: the elements in view), so every option of a choice is a number the model can see.
A choice has at most 255 options: with more marks than fit (254 badges and ``none``), the
page is **split**, not narrowed — see :func:`groups`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from pagesight.agent.state import State
from pagesight.agent.untrusted import untrusted
from pagesight.observe.elements import Element
from pagesight.observe.observation import Observation
from pagesight.observe.roles import DATE_ROLES
from pagesight.planners.decisions.api import MAX_OPTIONS, Question
from pagesight.planners.decisions.policy import NONE, Handling
from pagesight.vision.marks import marks_for

GROUP = MAX_OPTIONS - 1
"""Badges per choice: 255 options less ``none`` (which ``dismiss`` always offers)."""

RISK_LEVELS = (
    "read only",
    "enters information",
    "changes account state",
    "payment, purchase or deletion",
)

_TEXT_ROLES = frozenset({"textbox", "searchbox", "spinbutton", *DATE_ROLES})
_ID = re.compile(r"\[(\d+)\]")
_SAYS = re.compile(r'(?:status|alert)(?: ".*")?')
"""An outline line that opens a status or alert block (a live region: what the page says)."""
_QUOTED = re.compile(r'"([^"]+)"|“([^”]+)”|「([^」]+)」')


def marked(obs: Observation) -> list[Element]:
    """The elements the set-of-marks screenshot numbers, in the page's order."""
    ids = {m.id for m in marks_for(obs.elements)}
    return [el for el in obs.elements if el.id in ids]


def groups(badges: Sequence[Element], size: int = GROUP) -> list[list[Element]]:
    """``badges`` in groups of at most ``size``, in the page's order.

    Why split and not narrow: narrowing (keeping the elements whose words match the goal)
    would need a guess at which element matters, and a wrong guess hides the right one from
    the model; a split asks about every one of them. Each group is a request of its own, its
    screenshot marking only that group's badges, and the best ``next_action`` and ``dismiss``
    of each go on to a final request that asks all the questions about those finalists
    (through more rounds of groups while they are still too many: 32,000 badges and up).
    """
    return [list(badges[i : i + size]) for i in range(0, len(badges), size)] or [[]]


def quoted_values(goal: str | None) -> tuple[str, ...]:
    """The values a goal quotes (``set job title "Senior Software Engineer"``): the only text
    the planner ever types, since the API answers with probabilities, never with words."""
    if not goal:
        return ()
    found = (next(g for g in m.groups() if g is not None) for m in _QUOTED.finditer(goal))
    return tuple(dict.fromkeys(v.strip() for v in found if v.strip()))


def handling(el: Element) -> Handling:
    """How a badge is acted on: a select (its options listed) is chosen from, a text or date
    field typed into, anything else clicked (an ARIA combobox without listed options opens
    on a click)."""
    if el.options and "select" in el.actions:
        return "choose"
    if el.role in _TEXT_ROLES and "input" in el.actions:
        return "type"
    return "click"


def words(el: Element) -> str:
    """The element as the legend and the labels name it: ``link "Alice Chen"``."""
    return f"{el.role} {el.quoted_name}"


def legend(state: State, badges: Sequence[Element]) -> str:
    """The page and its badges in words, as the outline a model reads writes them (``[12]
    textbox "Job title": Software Engineer``): the lines of ``state.text`` — where secrets are
    masked — that hold a badge, each with the context that tells alike badges apart (``[2]
    button "Book" in "Trattoria Roma"``, as ``steps.txt`` and the outline's legend write it),
    and the page's status and alert blocks, whose text says what the last action did
    ("Booking confirmed for…"). Page content, so it travels inside the untrusted markers."""
    by_id = {el.id: el for el in badges}
    head, *rest = state.text.splitlines() or [""]
    lines = [head]
    shown: set[int] = set()
    said: int | None = None  # the indent of the status or alert block being read, if any
    for line in rest:
        body = line.lstrip(" ")
        indent = len(line) - len(body)
        if said is not None and indent <= said:
            said = None
        ids = {int(i) for i in _ID.findall(line)}
        if ids & by_id.keys():
            on_line = [by_id[i] for i in sorted(ids & by_id.keys())]
            lines.append(body + _where(on_line, body, state.text))
            shown |= ids
        elif said is not None and not ids:  # its text; not the ids of elements out of view
            lines.append(" " * (indent - said) + body)
        elif said is None and _SAYS.fullmatch(body):
            said = indent
            lines.append(body)
    # An element the outline left out (a budget cut the text): its role and name alone.
    left = (el for el in badges if el.id not in shown)
    lines += [f"[{el.id}] {words(el)}{_where([el], '', state.text)}" for el in left]
    return untrusted("\n".join(lines))


def _where(on_line: Sequence[Element], line: str, text: str) -> str:
    """`` in "context"``: the one context of the badges on a line, unless the line says it
    already (a table row starts with its label). Only a context the masked text shows too
    is written: a heading that shows a secret is masked there, and must not leak here."""
    contexts = {el.context for el in on_line if el.context and el.context not in line}
    if len(contexts) != 1:
        return ""
    context = contexts.pop()
    quoted = json.dumps(context, ensure_ascii=False)
    return f" in {quoted}" if context in text or quoted[1:-1] in text else ""


def last_action(state: State) -> str:
    """The step before, in words, with what it did (``navigation``, ``no_op``, an error)."""
    if not state.history:
        return "last action: none (this is the first step)"
    step = state.history[-1]
    said = step.decision.label or type(step.decision).__name__.lower()
    outcomes = []
    for call in step.calls:
        if call.error is not None:
            outcomes.append(f"failed: {call.error.reason}")
        else:
            kinds = call.value.get("kinds")
            outcomes.append(", ".join(kinds) if isinstance(kinds, list) else "done")
    result = "; ".join(outcomes) or "nothing was done"
    return "last action: " + untrusted(f"{said} -> {result}")


def goal_text(goal: str | None) -> str:
    return f"goal: {goal}" if goal else "goal: (none given; look around)"


def choice_options(badges: Sequence[Element], *, with_none: bool) -> dict[str, str]:
    options = {NONE: "no element: nothing to choose"} if with_none else {}
    options.update({str(el.id): f"badge {el.id}" for el in badges})
    return options


def page_questions(badges: Sequence[Element], values: Sequence[str]) -> dict[str, Question]:
    """The six questions of a step, and ``value`` when the goal quotes values; with no badge
    on screen, the four that need none (a choice needs options)."""
    questions = {
        "blocked": Question(
            type="noul",
            instructions=(
                "Is the page blocked by something that must be closed before the task can go "
                "on (a cookie banner, a modal dialog, a popup over the content)?"
            ),
        ),
        **_choices(badges),
        "target_visible": Question(
            type="noul",
            instructions=(
                "Is the element the goal needs next visible on this screenshot (not below the "
                "fold, not yet to be scrolled to)?"
            ),
        ),
        "goal_reached": Question(
            type="noul",
            instructions=(
                "Is the goal already reached on this page (what it asked for is done and shown "
                "as saved or visible)?"
            ),
        ),
        "risk": Question(
            type="score",
            instructions=(
                "How much would acting on the next action's element change, at most? "
                "Reading and navigating is read only; typing into a form enters information; "
                "changing settings, passwords or who can access an account changes account "
                "state; paying, buying or deleting is the highest."
            ),
            levels=RISK_LEVELS,
        ),
    }
    if values:
        questions["value"] = Question(
            type="choice",
            instructions=(
                "If the next action's element is a text field or a select, which of the goal's "
                "quoted values belongs in it? 'none' if it is to be clicked, or no value fits."
            ),
            options={
                NONE: "no value: the element is clicked",
                **{str(i): v for i, v in enumerate(values, start=1)},
            },
        )
    return questions


def _choices(badges: Sequence[Element]) -> dict[str, Question]:
    """The two questions that choose a badge (none without badges)."""
    if not badges:
        return {}
    return {
        "dismiss": Question(
            type="choice",
            instructions=(
                "Which numbered badge closes or dismisses what blocks the page (Close, Accept, "
                "No thanks, an x)? 'none' if nothing blocks it or no badge closes it."
            ),
            options=choice_options(badges, with_none=True),
        ),
        "next_action": Question(
            type="choice",
            instructions=(
                "Which numbered badge should be acted on next to move toward the goal? A text "
                "field is typed into and a select chosen from, with a value the goal quotes; "
                "anything else is clicked."
            ),
            options=choice_options(badges, with_none=False),
        ),
    }


def group_questions(badges: Sequence[Element]) -> dict[str, Question]:
    """The questions of one group of a split page: only the two that choose a badge."""
    return _choices(badges)
