"""Tool calls a model wrote as text instead of calling: the usual slips of local models.

A model served without its tool-calling template (or a small one that forgets it) answers
with the call in its words. These are the shapes seen from Ollama, vLLM and llama.cpp:

* Qwen / Hermes: ``<tool_call>{"name": "click", "arguments": {"ref": 3}}</tool_call>``, one
  block a call; Qwen3-Coder's ``<tool_call><function=click><parameter=ref>3</parameter>…``;
* a bare JSON object, often in a ```` ```json ```` fence or followed by prose: ``{"name": …,
  "arguments": …}``; Llama's ``"parameters"``, ``{"tool": …, "args": …}``, OpenAI's
  ``{"function": {"name": …, "arguments": "<json>"}}``; a JSON list of them (Mistral's
  ``[TOOL_CALLS][…]``), Llama's ``<|python_tag|>`` before it;
* a Python call of a tool by name: ``click(ref=3)``, Llama 3.2's ``[click(ref=3), …]``.

:func:`read_calls` recovers what is unambiguous. Several calls count as one reading only
when they stand together (``<tool_call>`` blocks, a list, objects one after another);
two different calls apart in the text are two readings, and it guesses neither: it says so,
for the model to be told. Reasoning in ``<think>`` blocks is skipped.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from pagesight.messages import ToolCall

_THINK = re.compile(r"<think>.*?(?:</think>|$)", re.DOTALL)
_TOOL_CALL = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.DOTALL)
_XML_FUNCTION = re.compile(r"<function=([\w.-]+)>(.*?)(?:</function>|$)", re.DOTALL)
_XML_PARAMETER = re.compile(r"<parameter=(\w+)>\n?(.*?)\n?</parameter>", re.DOTALL)
_JSON_START = re.compile(r"[{\[]")
_BETWEEN_CALLS = re.compile(r"[\s,\[\]]*")
_NAME_KEYS = ("name", "tool", "tool_name", "function")
_ARGUMENT_KEYS = ("arguments", "args", "parameters", "input", "tool_input")
_PYTHON_WORDS = {"true": True, "false": False, "null": None, "none": None}


@dataclass(frozen=True, kw_only=True)
class WrittenCalls:
    """What :func:`read_calls` found: the calls, or why none could be taken (``problem``,
    said to the model)."""

    calls: tuple[ToolCall, ...] = ()
    problem: str | None = None


@dataclass(frozen=True, kw_only=True)
class _Reading:
    start: int
    end: int
    calls: tuple[tuple[str, str], ...]
    """(name, arguments as canonical JSON): comparable, so a repeat is not a second reading."""


class _Unreadable(ValueError):
    """A call the text clearly means but whose parts cannot be read."""


def read_calls(text: str, tools: Collection[str]) -> WrittenCalls | None:
    """The tool calls written in ``text``; ``None`` when it holds none (plain words).
    ``tools``: the names a Python-style call may use (``click(ref=3)``)."""
    text = _THINK.sub("", text)
    try:
        readings = _tagged(text) + _json_calls(text) + _python_calls(text, tools)
    except _Unreadable as exc:
        return WrittenCalls(problem=str(exc))
    if not readings:
        return _stray_json(text)
    readings = _drop_nested(sorted(readings, key=lambda r: (r.start, -r.end)))
    groups: list[list[_Reading]] = [[readings[0]]]
    for reading in readings[1:]:
        gap = text[groups[-1][-1].end : reading.start]
        if _BETWEEN_CALLS.fullmatch(gap) or _only_markup(gap):
            groups[-1].append(reading)
        else:
            groups.append([reading])
    distinct = {tuple(c for r in g for c in r.calls) for g in groups}
    if len(distinct) > 1:
        shown = "; ".join(_describe(calls) for calls in sorted(distinct))
        return WrittenCalls(
            problem=(
                f"your reply holds {len(distinct)} different tool calls written as text "
                f"({shown}) and it is not clear which one you mean; call exactly the one "
                "you mean, with the tool-calling interface"
            )
        )
    (chosen,) = distinct
    return WrittenCalls(
        calls=tuple(
            ToolCall(id=f"text_{i}", name=name, arguments=json.loads(arguments))
            for i, (name, arguments) in enumerate(chosen, start=1)
        )
    )


def _tagged(text: str) -> list[_Reading]:
    """``<tool_call>`` blocks (Hermes/Qwen), each one call: JSON or Qwen3-Coder's XML."""
    out = []
    for match in _TOOL_CALL.finditer(text):
        calls: tuple[tuple[str, str], ...]
        body = match.group(1).strip()
        function = _XML_FUNCTION.search(body)
        if function is not None:
            arguments = {k: v.strip() for k, v in _XML_PARAMETER.findall(function.group(2))}
            calls = ((function.group(1), _canonical(arguments)),)
        else:
            try:
                value = json.loads(body)
            except json.JSONDecodeError as exc:
                raise _Unreadable(
                    f"the <tool_call> block is not valid JSON ({exc.msg} at character "
                    f'{exc.pos}); write it as {{"name": …, "arguments": {{…}}}}'
                ) from exc
            found = _calls_of(value)
            if found is None:
                raise _Unreadable(
                    'the <tool_call> block names no tool; write {"name": …, "arguments": {…}}'
                )
            calls = found
        out.append(_Reading(start=match.start(), end=match.end(), calls=calls))
    return out


def _json_calls(text: str) -> list[_Reading]:
    """Every JSON object or list in ``text`` that is a call or a list of calls."""
    out: list[_Reading] = []
    decoder = json.JSONDecoder()
    position = 0
    while True:
        found = _JSON_START.search(text, position)
        if found is None:
            return out
        start = found.start()
        try:
            value, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            position = start + 1
            continue
        calls = _calls_of(value)
        if calls is not None:
            out.append(_Reading(start=start, end=end, calls=calls))
            position = end
        else:  # not a call: look inside it (a call may be nested in a wrapper list)
            position = start + 1


def _calls_of(value: Any) -> tuple[tuple[str, str], ...] | None:
    """``value`` as calls: one call object, or a non-empty list of them; else ``None``."""
    if isinstance(value, list):
        calls = [_call_of(item) for item in value]
        if value and all(c is not None for c in calls):
            return tuple(c for c in calls if c is not None)
        return None
    call = _call_of(value)
    return (call,) if call is not None else None


def _call_of(value: Any) -> tuple[str, str] | None:
    if not isinstance(value, dict):
        return None
    if value.get("type") == "function" and isinstance(value.get("function"), dict):
        value = value["function"]  # OpenAI's {"type": "function", "function": {…}}
    elif isinstance(value.get("function"), dict) and len(value) == 1:
        value = value["function"]
    names = [k for k in _NAME_KEYS if isinstance(value.get(k), str) and value[k]]
    arguments = [k for k in _ARGUMENT_KEYS if k in value]
    others = set(value) - set(names) - set(arguments) - {"id", "type"}
    if len(names) != 1 or len(arguments) > 1 or others:
        return None
    raw = value[arguments[0]] if arguments else {}
    if isinstance(raw, str):  # OpenAI's arguments are a JSON string
        try:
            raw = json.loads(raw) if raw.strip() else {}
        except json.JSONDecodeError as exc:
            raise _Unreadable(
                f"the arguments of {value[names[0]]} are a string that is not JSON ({exc.msg})"
            ) from exc
    if not isinstance(raw, dict):
        raise _Unreadable(
            f"the arguments of {value[names[0]]} must be an object of names and values, "
            f"not {type(raw).__name__}"
        )
    return (value[names[0]], _canonical(raw))


def _python_calls(text: str, tools: Collection[str]) -> list[_Reading]:
    """``click(ref=3, element="Save")``: a known tool's name, keyword arguments, literals."""
    if not tools:
        return []
    names = "|".join(re.escape(t) for t in sorted(tools, key=len, reverse=True))
    out = []
    for match in re.finditer(rf"(?<![\w.\"'])({names})\s*\(", text):
        end = _closing(text, match.end() - 1)
        if end is None:
            continue
        try:
            node = ast.parse(text[match.start() : end], mode="eval").body
        except SyntaxError:
            continue
        if not isinstance(node, ast.Call):
            continue
        name = match.group(1)
        if any(not isinstance(a, ast.Constant) for a in node.args):
            continue  # prose in brackets after a tool's name: "I'm done (mostly)"
        if node.args:
            raise _Unreadable(
                f"write the arguments of {name} by name, as {name}(ref=3), not by position"
            )
        arguments = {}
        for keyword in node.keywords:
            if keyword.arg is None:
                raise _Unreadable(f"write every argument of {name} as name=value")
            arguments[keyword.arg] = _literal(name, keyword.value)
        out.append(_Reading(start=match.start(), end=end, calls=((name, _canonical(arguments)),)))
    return out


def _literal(tool: str, node: ast.expr) -> Any:
    if isinstance(node, ast.Name) and node.id.lower() in _PYTHON_WORDS:
        return _PYTHON_WORDS[node.id.lower()]  # JSON's true/false/null, as Llama writes them
    try:
        return ast.literal_eval(node)
    except ValueError as exc:
        raise _Unreadable(
            f"the arguments of {tool} must be plain values (numbers, quoted strings, lists), "
            f"not {ast.unparse(node)}"
        ) from exc


def _closing(text: str, opening: int) -> int | None:
    """The index after the parenthesis closing the one at ``opening`` (quotes respected)."""
    depth, quote, i = 0, "", opening
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def _drop_nested(readings: list[_Reading]) -> list[_Reading]:
    """Readings not inside an earlier one (a JSON call inside a ``<tool_call>`` block, a
    Python call inside a JSON string)."""
    out: list[_Reading] = []
    for reading in readings:
        if out and reading.start < out[-1].end:
            continue
        out.append(reading)
    return out


def _only_markup(gap: str) -> bool:
    """Nothing but fences and the models' call markers between two calls."""
    stripped = re.sub(r"```\w*|\[TOOL_CALLS\]|<\|python_tag\|>", "", gap)
    return _BETWEEN_CALLS.fullmatch(stripped) is not None


def _stray_json(text: str) -> WrittenCalls | None:
    """A reply whose JSON object names no tool: it meant to call, but what?"""
    decoder = json.JSONDecoder()
    for found in re.finditer(r"\{", text):
        try:
            value, _ = decoder.raw_decode(text, found.start())
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict) and value:
            return WrittenCalls(
                problem=(
                    "your reply holds a JSON object that names no tool; call a tool with "
                    'the tool-calling interface (or write {"name": …, "arguments": {…}})'
                )
            )
    return None


def _canonical(arguments: dict[str, Any]) -> str:
    return json.dumps(arguments, sort_keys=True, ensure_ascii=False)


def _describe(calls: tuple[tuple[str, str], ...]) -> str:
    return ", ".join(f"{name} {arguments}" for name, arguments in calls)
