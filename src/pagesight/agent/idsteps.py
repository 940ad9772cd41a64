"""The steps language over ids: what the ``act`` tool takes, one step a line.

::

    click [4]                      type "Ada" into [5]        select "Tokyo" in [6]
    press Enter  (press Enter in [5])                         hover [4]
    scroll to [4]                  scroll down  (scroll down in [8])
    drag [4] to [9]                upload "cv.pdf" to [7]     go to URL      go back
    wait for "Saved"               expect "Saved"             expect [5] to be "Ada"
    expect text containing "saved"
    done  (done "the answer")

These are the steps planner's lines (:mod:`pagesight.runs.grammar`), with an element named by
its id in brackets — the number the page's outline gives it — instead of words; words after
the id (``click [4] "Save"``) are the model's own label for it. ``go back``, ``scroll
up/down/left/right`` and ``done`` are the few lines a model needs that a replayed script
does not. Each action line is a call of the page tool that does it (``click``, ``input``,
``select``, …, with that tool's arguments), so a line runs exactly as the tool would, and a
run's ``steps.txt`` writes it back in words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from pagesight.errors import StepsError
from pagesight.runs.grammar import Step, Target, parse_line, unquote

CheckKind = Literal["wait_for", "expect_text", "expect_containing", "expect_value"]


@dataclass(frozen=True, kw_only=True)
class ToolLine:
    """A line that acts: the page tool that does it and its arguments."""

    line: int
    text: str
    tool: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class CheckLine:
    """A line that looks: ``value`` is the text waited for or expected (``ref``'s value, for
    ``expect_value``)."""

    line: int
    text: str
    kind: CheckKind
    value: str
    ref: int | None = None


@dataclass(frozen=True, kw_only=True)
class DoneLine:
    """``done``: the goal is reached (``answer``, when it asked a question)."""

    line: int
    text: str
    answer: str | None = None


Line = ToolLine | CheckLine | DoneLine

TOOLS = frozenset(
    {"click", "input", "select", "press_key", "hover", "scroll", "drag", "upload"}
    | {"navigate", "back"}
)
"""The page tools a line can be (see :func:`_of_step` and :func:`_line`)."""

FORMS = (
    'click [4], type "V" into [4], select "V" in [4], press KEY (in [4]), hover [4], '
    'scroll to [4], scroll down (in [4]), drag [4] to [9], upload "FILE" to [4], go to URL, '
    'go back, wait for "TEXT", expect "TEXT", expect [4] to be "V", done ("ANSWER")'
)
"""Every form, for an error naming a line that is none."""

_QUOTED = r'"(?:[^"\\]|\\.)*"|“[^”]*”'
_BACK = re.compile(r"(?:go\s+)?back", re.IGNORECASE)
_SCROLL = re.compile(
    r"scroll\s+(?P<dir>up|down|left|right)(?:\s+(?:in|on)\s+(?P<x>.+))?", re.IGNORECASE
)
_DONE = re.compile(rf"done\b(?:\s*:?\s*(?P<v>{_QUOTED}|.+))?", re.IGNORECASE)  # not "doneness"
_ID = re.compile(r"\[(\d+)\](?P<words>.*)")


def parse_steps(text: str) -> tuple[Line, ...]:
    """Every line of ``text`` that is a step (blank lines and ``# comments`` skipped);
    :class:`~pagesight.errors.StepsError` naming the first that is none, a target named by
    anything but its id, a ``done`` that is not last, or no step at all."""
    out: list[Line] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if out and isinstance(out[-1], DoneLine):
            raise StepsError("done must be the last step", line=out[-1].line)
        out.append(_line(line, number))
    if not out:
        raise StepsError("give at least one step, one a line: click [4]")
    return tuple(out)


def refs(text: str) -> list[int]:
    """The ids the steps of ``text`` act on (none when it does not parse)."""
    try:
        lines = parse_steps(text)
    except StepsError:
        return []
    out: list[int] = []
    for line in lines:
        args = line.arguments if isinstance(line, ToolLine) else {"ref": getattr(line, "ref", None)}
        out.extend(v for k in ("ref", "to_ref") if isinstance(v := args.get(k), int))
    return out


def _line(text: str, number: int) -> Line:
    if _BACK.fullmatch(text):
        return ToolLine(line=number, text=text, tool="back")
    done = _DONE.fullmatch(text)
    if done:
        said = done["v"]
        answer = unquote(said) if said and said[0] in '"“' else said
        return DoneLine(line=number, text=text, answer=answer.strip() if answer else None)
    scroll = _SCROLL.fullmatch(text)
    if scroll:
        args: dict[str, Any] = {"direction": scroll["dir"].lower()}
        if scroll["x"]:
            args["ref"] = _ref(Target(words=scroll["x"].strip()), number)
        return ToolLine(line=number, text=text, tool="scroll", arguments=args)
    try:
        step = parse_line(text, number)
    except StepsError as exc:
        if " is not a step; " not in str(exc):
            raise
        # The grammar's own list names elements in words; here they are ids.
        raise StepsError(
            f"{text!r} is not a step; a step is one of: {FORMS}", line=number
        ) from None
    assert step is not None  # blank lines and comments were skipped
    return _of_step(step, number)


def _of_step(step: Step, number: int) -> Line:
    """The tool call (or check) a grammar step is, its targets read as ids."""
    value = step.value or ""

    def ref() -> int:
        assert step.target is not None
        return _ref(step.target, number)

    def call(tool: str, **arguments: Any) -> ToolLine:
        return ToolLine(line=number, text=step.text, tool=tool, arguments=arguments)

    kind = step.kind
    if kind == "done":  # 完成 "…": the English form is read before the grammar's
        return DoneLine(line=number, text=step.text, answer=step.value)
    if kind == "accept_dialog":
        # A batch runs page actions only; the dialog's answer is a tool of its own.
        raise StepsError(
            f"{step.text}: not a line of act; call handle_dialog with accept true, then the "
            "action that opens the dialog",
            line=number,
        )
    if kind in ("wait_for", "expect_text", "expect_containing"):
        if not value.strip():  # every page shows the empty text: a check that cannot fail
            raise StepsError(f"{step.text}: give the text the page should show", line=number)
        return CheckLine(line=number, text=step.text, kind=kind, value=value)
    if kind == "expect_value":
        return CheckLine(line=number, text=step.text, kind=kind, value=value, ref=ref())
    if kind == "go_to":
        return call("navigate", url=value)
    if kind == "press":
        return call("press_key", key=value, **({"ref": ref()} if step.target else {}))
    if kind == "drag":
        assert step.to is not None
        return call("drag", ref=ref(), to_ref=_ref(step.to, number))
    tools: dict[str, tuple[str, dict[str, Any]]] = {
        "click": ("click", {}),
        "type": ("input", {"text": value}),
        "select": ("select", {"values": [value]}),
        "hover": ("hover", {}),
        "scroll_to": ("scroll", {}),
        "upload": ("upload", {"files": [value]}),
    }
    tool, extra = tools[kind]
    return call(tool, ref=ref(), **extra)


def _ref(target: Target, number: int) -> int:
    found = _ID.fullmatch(target.words.strip())
    if found is None:
        raise StepsError(
            f"name the element by its id in brackets, the number the page gives it: "
            f"[4], not {target.words}",
            line=number,
        )
    return int(found.group(1))
