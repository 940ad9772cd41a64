"""The steps language: one step a line, in English or Chinese, parsed into typed :class:`Step`
values, and written back (:func:`format_step`) for the ``steps.txt`` a run leaves.

::

    go to URL                        打开 URL
    click X                          点击 X
    type "V" into X                  在 X 输入 "V"
    select "V" in X                  在 X 选择 "V"
    press KEY  (press KEY in X)      按 KEY  (在 X 按 KEY)
    hover X                          悬停 X
    scroll to X                      滚动到 X
    drag X to Y                      拖动 X 到 Y
    upload "FILE" to X               上传 "FILE" 到 X
    wait for "TEXT"                  等待 "TEXT"
    expect "TEXT"                    确认 "TEXT"
    expect text containing "TEXT"    确认包含 "TEXT"
    expect X to be "V"               确认 X 为 "V"
    accept the next dialog           接受下一个对话框
    done  (done "ANSWER")            完成  (完成 "ANSWER")
    # a comment

X is the element in words, as a person writes them ("the Save button", "Alice Chen's Edit
button", "搜索框"); ``in "Alice Chen"``, ``Alice Chen's`` and ``Alice Chen 的`` name the
group or heading it sits in. A target may end with ``@ SELECTOR``, the selector it had when
it was recorded: a hint a replay tries first (see :mod:`pagesight.planners.resolve`).
Quoted values take ``\\"`` for a quote; Chinese quotes (“…”) work too. URLs may be relative
to the page the step runs on. ``{{NAME}}`` in a typed value (or a URL) is the secret NAME.
``expect "TEXT"`` holds where the page shows TEXT as written, starting a phrase: "Saved"
is shown by "Saved", "Saved." or "✓ Saved", never by "Not saved", "Unsaved" or "Contact saved"
(the rule: :mod:`pagesight.observe.shown`). ``expect text containing "TEXT"`` takes TEXT
anywhere, in any case; so does ``wait for``, which waits for the page to get there, where an
``expect`` checks it. ``accept the next dialog`` answers the ``confirm()`` the next step
opens with OK (by default a confirm is dismissed); ``done "ANSWER"`` ends the script with
the answer to a goal that asked a question, and is its last step.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from pagesight.errors import StepsError

Kind = Literal[
    "go_to",
    "click",
    "type",
    "select",
    "press",
    "hover",
    "scroll_to",
    "drag",
    "upload",
    "wait_for",
    "expect_text",
    "expect_containing",
    "expect_value",
    "accept_dialog",
    "done",
]
CHECKS: frozenset[Kind] = frozenset(
    {"wait_for", "expect_text", "expect_containing", "expect_value"}
)
"""Steps that look at the page rather than act on it."""

_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


@dataclass(frozen=True, kw_only=True)
class Target:
    """An element in words as the step wrote them (quotes kept), and the recorded selector."""

    words: str
    hint: str | None = None

    @property
    def query(self) -> str:
        """The words without their quote marks, as find reads them."""
        return unquote_all(self.words)

    def splits(self) -> list[tuple[str, str | None]]:
        """Ways to read the words as (what the element is called, the group it is in), most
        specific first; the last has no group. ``Sign in button`` reads as ("Sign", "button")
        too: the resolver keeps a reading only if the page has such a group."""
        words = self.words
        explicit = _EXPLICIT_CONTEXT.fullmatch(words)
        if explicit:
            # The group first; without it when the page has no such group any more.
            head = unquote_all(explicit["x"])
            return [(head, unquote(explicit["ctx"])), (head, None)]
        out: list[tuple[str, str | None]] = []
        for at in reversed(_outside_quotes(words, " in ")):
            out.append((unquote_all(words[:at]), unquote_all(words[at + 4 :])))
        for at in _outside_quotes(words, "'s "):
            out.append((unquote_all(words[at + 3 :]), unquote_all(words[:at])))
        for at in _outside_quotes(words, "的"):
            out.append((unquote_all(words[at + 1 :]), unquote_all(words[:at])))
        out = [(w.strip(), c.strip()) for w, c in out if w.strip() and c and c.strip()]
        return [*out, (self.query, None)]


@dataclass(frozen=True, kw_only=True)
class Step:
    """One line of a script. ``value`` is the URL, the text typed, the option, the key, the
    file or the text waited for or expected, by ``kind``; ``to`` the drop target of a drag."""

    kind: Kind
    line: int = 0
    text: str = ""
    """The line as written (for messages and progress)."""
    target: Target | None = None
    to: Target | None = None
    value: str | None = None

    @property
    def secret_names(self) -> tuple[str, ...]:
        return tuple(_PLACEHOLDER.findall(self.value or ""))


# --- quotes ---------------------------------------------------------------------------------

_QUOTED = r'"(?:[^"\\]|\\.)*"|“[^”]*”'
_V = rf"(?P<v>{_QUOTED})"
_EXPLICIT_CONTEXT = re.compile(rf"(?P<x>.+?)\s+in\s+(?P<ctx>{_QUOTED})")


def quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def unquote(token: str) -> str:
    if token.startswith("“"):
        return token[1:-1]
    return re.sub(r"\\(.)", r"\1", token[1:-1])


def unquote_all(text: str) -> str:
    """``text`` with each quoted part replaced by what it quotes."""
    return re.sub(_QUOTED, lambda m: unquote(m.group(0)), text).strip()


def _outside_quotes(text: str, needle: str) -> list[int]:
    """Where ``needle`` starts in ``text`` outside any quoted part."""
    spans = [m.span() for m in re.finditer(_QUOTED, text)]
    out = []
    start = text.find(needle)
    while start != -1:
        if not any(a <= start < b for a, b in spans):
            out.append(start)
        start = text.find(needle, start + 1)
    return out


def _target(words: str, line: int) -> Target:
    words = words.strip()
    at = _outside_quotes(words, " @ ")
    hint = None
    if at:
        words, hint = words[: at[0]].strip(), words[at[0] + 3 :].strip() or None
    if not unquote_all(words):
        raise StepsError("the step names no element: say which, as a person would", line=line)
    if _PLACEHOLDER.search(words):
        raise StepsError("a secret cannot name an element: the planner never sees it", line=line)
    return Target(words=words, hint=hint)


# --- the forms ------------------------------------------------------------------------------

_Build = Callable[[re.Match[str], int], Step]


def _x(m: re.Match[str], line: int, group: str = "x") -> Target:
    return _target(m[group], line)


def _v(m: re.Match[str]) -> str:
    return unquote(m["v"])


def _drag(m: re.Match[str], line: int, sep: str) -> Step:
    rest = m["rest"]
    cuts = _outside_quotes(rest, sep)
    if not cuts:
        raise StepsError(f"a drag names what to drop it on: drag X{sep}Y", line=line)
    at = cuts[-1]
    return Step(
        kind="drag",
        target=_target(rest[:at], line),
        to=_target(rest[at + len(sep) :], line),
    )


_EN = re.IGNORECASE
_FORMS: list[tuple[re.Pattern[str], _Build]] = [
    (re.compile(r"go\s+to\s+(?P<url>\S+)", _EN), lambda m, n: Step(kind="go_to", value=m["url"])),
    (re.compile(r"打开\s*(?P<url>\S+)"), lambda m, n: Step(kind="go_to", value=m["url"])),
    (
        re.compile(rf"type\s+{_V}\s+(?:into|in)\s+(?P<x>.+)", _EN),
        lambda m, n: Step(kind="type", target=_x(m, n), value=_v(m)),
    ),
    (
        re.compile(rf"在\s*(?P<x>.+?)\s*(?:中|里)?\s*输入\s*{_V}"),
        lambda m, n: Step(kind="type", target=_x(m, n), value=_v(m)),
    ),
    (
        re.compile(rf"select\s+{_V}\s+(?:in|from)\s+(?P<x>.+)", _EN),
        lambda m, n: Step(kind="select", target=_x(m, n), value=_v(m)),
    ),
    (
        re.compile(rf"在\s*(?P<x>.+?)\s*(?:中|里)?\s*选择\s*{_V}"),
        lambda m, n: Step(kind="select", target=_x(m, n), value=_v(m)),
    ),
    (
        re.compile(r"press\s+(?P<key>\S+)\s+(?:in|on)\s+(?P<x>.+)", _EN),
        lambda m, n: Step(kind="press", target=_x(m, n), value=m["key"]),
    ),
    (re.compile(r"press\s+(?P<key>\S+)", _EN), lambda m, n: Step(kind="press", value=m["key"])),
    (
        re.compile(r"在\s*(?P<x>.+?)\s*按\s*(?P<key>[A-Za-z0-9][\w+-]*|\S)"),
        lambda m, n: Step(kind="press", target=_x(m, n), value=m["key"]),
    ),
    (
        re.compile(r"按\s*(?P<key>[A-Za-z0-9][\w+-]*|\S)"),
        lambda m, n: Step(kind="press", value=m["key"]),
    ),
    (
        re.compile(r"hover\s+(?:over\s+)?(?P<x>.+)", _EN),
        lambda m, n: Step(kind="hover", target=_x(m, n)),
    ),
    (
        re.compile(r"悬停\s*(?:在\s*)?(?P<x>.+?)(?:\s*上)?"),
        lambda m, n: Step(kind="hover", target=_x(m, n)),
    ),
    (
        re.compile(r"scroll\s+to\s+(?P<x>.+)", _EN),
        lambda m, n: Step(kind="scroll_to", target=_x(m, n)),
    ),
    (re.compile(r"滚动到\s*(?P<x>.+)"), lambda m, n: Step(kind="scroll_to", target=_x(m, n))),
    (re.compile(r"drag\s+(?P<rest>.+)", _EN), lambda m, n: _drag(m, n, " to ")),
    (re.compile(r"拖动\s*(?P<rest>.+)"), lambda m, n: _drag(m, n, "到")),
    (
        re.compile(rf"upload\s+{_V}\s+(?:to|into)\s+(?P<x>.+)", _EN),
        lambda m, n: Step(kind="upload", target=_x(m, n), value=_v(m)),
    ),
    (
        re.compile(rf"上传\s*{_V}\s*到\s*(?P<x>.+)"),
        lambda m, n: Step(kind="upload", target=_x(m, n), value=_v(m)),
    ),
    (re.compile(rf"wait\s+for\s+{_V}", _EN), lambda m, n: Step(kind="wait_for", value=_v(m))),
    (re.compile(rf"等待\s*{_V}"), lambda m, n: Step(kind="wait_for", value=_v(m))),
    (
        re.compile(rf"expect\s+text\s+containing\s+{_V}", _EN),
        lambda m, n: Step(kind="expect_containing", value=_v(m)),
    ),
    (re.compile(rf"确认\s*包含\s*{_V}"), lambda m, n: Step(kind="expect_containing", value=_v(m))),
    (
        re.compile(rf"expect\s+(?P<x>.+?)\s+to\s+be\s+{_V}", _EN),
        lambda m, n: Step(kind="expect_value", target=_x(m, n), value=_v(m)),
    ),
    (re.compile(rf"expect\s+{_V}", _EN), lambda m, n: Step(kind="expect_text", value=_v(m))),
    (
        re.compile(rf"确认\s*(?P<x>.+?)\s*(?:为|是)\s*{_V}"),
        lambda m, n: Step(kind="expect_value", target=_x(m, n), value=_v(m)),
    ),
    (re.compile(rf"确认\s*{_V}"), lambda m, n: Step(kind="expect_text", value=_v(m))),
    (
        re.compile(r"accept\s+(?:the\s+)?(?:next\s+)?dialog", _EN),
        lambda m, n: Step(kind="accept_dialog"),
    ),
    (re.compile(r"接受(?:下一个)?对话框"), lambda m, n: Step(kind="accept_dialog")),
    (
        re.compile(rf"done(?:\s+{_V})?", _EN),
        lambda m, n: Step(kind="done", value=_v(m) if m["v"] else None),
    ),
    (
        re.compile(rf"完成(?:\s*{_V})?"),
        lambda m, n: Step(kind="done", value=_v(m) if m["v"] else None),
    ),
    (
        re.compile(r"click\s+(?:on\s+)?(?P<x>.+)", _EN),
        lambda m, n: Step(kind="click", target=_x(m, n)),
    ),
    (re.compile(r"点击\s*(?P<x>.+)"), lambda m, n: Step(kind="click", target=_x(m, n))),
]

FORMS_HELP = (
    'go to URL, click X, type "V" into X, select "V" in X, press KEY, hover X, scroll to X, '
    'drag X to Y, upload "FILE" to X, wait for "TEXT", expect "TEXT", '
    'expect text containing "TEXT", expect X to be "V", accept the next dialog, done ("ANSWER") '
    '(or 打开, 点击, 在 X 输入 "V", 在 X 选择 "V", 按, 悬停, 等待, 确认, 确认包含, '
    "接受下一个对话框, 完成)"
)


def parse_line(text: str, line: int) -> Step | None:
    """The step on one line (``None`` for a blank line or a ``# comment``)."""
    stripped = text.strip()
    if not stripped or stripped.startswith("#"):
        return None
    for pattern, build in _FORMS:
        m = pattern.fullmatch(stripped)
        if m:
            step = build(m, line)
            break
    else:
        raise StepsError(f"{stripped!r} is not a step; a step is one of: {FORMS_HELP}", line=line)
    if step.kind in CHECKS and step.secret_names:
        raise StepsError(
            "a secret cannot be waited for or expected: the planner never sees its value",
            line=line,
        )
    return Step(
        kind=step.kind,
        line=line,
        text=stripped,
        target=step.target,
        to=step.to,
        value=step.value,
    )


def parse(text: str) -> tuple[Step, ...]:
    """Every step of a script; :class:`~pagesight.errors.StepsError` naming the first line
    that is no step (or saying the script has none)."""
    steps: list[Step] = []
    for number, line in enumerate(text.splitlines(), start=1):
        step = parse_line(line, number)
        if step is not None:
            if steps and steps[-1].kind == "done":
                raise StepsError(
                    "done ends the script: it must be the last step", line=steps[-1].line
                )
            steps.append(step)
    if not steps:
        raise StepsError("the script has no steps (only blank lines and comments)")
    return tuple(steps)


# --- writing steps back -----------------------------------------------------------------------

# The word find reads as each role (observe/find.py's role words), for the words a step names
# its target by.
_ROLE_WORDS = {
    "button": "button",
    "link": "link",
    "textbox": "field",
    "searchbox": "search field",
    "spinbutton": "field",
    "combobox": "dropdown",
    "listbox": "dropdown",
    "checkbox": "checkbox",
    "switch": "switch",
    "radio": "radio",
    "tab": "tab",
    "menuitem": "menu item",
    "slider": "slider",
}


def element_words(role: str, name: str, context: str | None) -> str:
    """The words that name an element by what the page shows: ``"Edit" button in "Alice
    Chen"``."""
    word = _ROLE_WORDS.get(role, "field" if role in ("date", "time", "month", "week") else "")
    parts = [quote(name)] if name else []
    if word:
        parts.append(word)
    if not parts:
        parts.append(quote(role))
    if context:
        parts.append(f"in {quote(context)}")
    return " ".join(parts)


def format_target(target: Target) -> str:
    return target.words + (f" @ {target.hint}" if target.hint else "")


def format_step(step: Step) -> str:
    """The step as one line of the steps language (English), which :func:`parse_line` reads
    back as the same step."""
    x = format_target(step.target) if step.target is not None else ""
    v = quote(step.value or "")
    match step.kind:
        case "go_to":
            return f"go to {step.value}"
        case "click":
            return f"click {x}"
        case "type":
            return f"type {v} into {x}"
        case "select":
            return f"select {v} in {x}"
        case "press":
            return f"press {step.value}" + (f" in {x}" if x else "")
        case "hover":
            return f"hover {x}"
        case "scroll_to":
            return f"scroll to {x}"
        case "drag":
            to = format_target(step.to) if step.to is not None else ""
            return f"drag {x} to {to}"
        case "upload":
            return f"upload {v} to {x}"
        case "wait_for":
            return f"wait for {v}"
        case "expect_text":
            return f"expect {v}"
        case "expect_containing":
            return f"expect text containing {v}"
        case "expect_value":
            return f"expect {x} to be {v}"
        case "accept_dialog":
            return "accept the next dialog"
        case "done":
            return "done" if step.value is None else f"done {v}"
