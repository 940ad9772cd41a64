"""The reference model's dialects of the peers (see pagesight.testing.reference): how each
peer shows a page to its model, and how its model's response is written. Each was learned
from the peer itself, as the docstrings of tasks_peers.py say.

* :class:`PlaywrightDialect`: Playwright MCP's tool results (a YAML aria snapshot, refs
  ``[ref=e12]``), its tools called one per action, several in one response;
* :class:`AgentBrowserDialect`: agent-browser's CLI in a one-tool shell loop (``snapshot -i``
  lines ``- link "Edit" [ref=e3]``), one ``&&`` chain a response;
* :class:`BrowserUseDialect`: browser-use's structured output (its AgentOutput JSON with an
  action list) over its ``<browser_state>`` element list (``[12]<button>Save</button>``).
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Sequence
from typing import Any

from pagesight.testing.reference import (
    Dialect,
    Intent,
    Observation,
    Plan,
    Seen,
    message_text,
    since_last_answer,
)
from pagesight.testing.script import Reply

# Elements whose subtree is the context of what is inside it: "Alice Chen's Edit link" is
# the Edit link in the row that holds "Alice Chen", whichever cell says it.
_GROUPS = frozenset({"row", "listitem", "article", "group", "form", "region", "dialog"})
_YAML_LINE = re.compile(r'^(?P<indent>\s*)-\s+\'?(?P<role>[\w-]+)(?: "(?P<name>(?:[^"\\]|\\.)*)")?')
_REF = re.compile(r"[\[,] ?ref=(?P<ref>[^\],]+)[\],]")  # [ref=e3], [level=1, ref=e4]


def yaml_elements(text: str) -> list[Seen]:
    """The elements with a ref in an aria snapshot in YAML (Playwright's, agent-browser's),
    each with its ancestors' lines and its row's (list item's, group's) text as context."""
    lines = text.splitlines()
    parsed: list[tuple[int, str, str, str | None, str]] = []  # indent, role, name, ref, line
    for line in lines:
        m = _YAML_LINE.match(line)
        if m is None:
            continue
        found = _REF.search(line)
        name = json.loads(f'"{m["name"]}"') if m["name"] is not None else ""
        parsed.append((len(m["indent"]), m["role"], name, found["ref"] if found else None, line))
    out: list[Seen] = []
    for i, (indent, role, name, ref, line) in enumerate(parsed):
        if ref is None:
            continue
        above: list[str] = []
        group_at = None
        level = indent
        for j in range(i - 1, -1, -1):
            if parsed[j][0] < level:
                level = parsed[j][0]
                above.append(parsed[j][4].strip())
                if group_at is None and parsed[j][1] in _GROUPS:
                    group_at = j
        inside: list[str] = []
        if group_at is not None:
            for k in range(group_at + 1, len(parsed)):
                if parsed[k][0] <= parsed[group_at][0]:
                    break
                inside.append(parsed[k][4].strip())
        context = " ".join([*reversed(above), line.strip(), *inside])
        out.append(Seen(ref=ref, role=role, name=name, context=context))
    return out


def _latest_whole(
    messages: Sequence[dict[str, Any]], whole: re.Pattern[str], fresh: bool
) -> Observation:
    """The newest message holding a whole snapshot, read as YAML."""
    for message in reversed(messages):
        text = message_text(message)
        if whole.search(text):
            return Observation(elements=tuple(yaml_elements(text)), text=text, fresh=fresh)
    return Observation(elements=(), text="", fresh=fresh)


def _error(after: Sequence[dict[str, Any]]) -> str | None:
    for message in after:
        text = message_text(message)
        if message.get("role") == "tool" and text.startswith(("Error", "### Error")):
            return text[:300]
    return None


class PlaywrightDialect(Dialect):
    """Playwright MCP (``@playwright/mcp``) in a plain tool loop. Its navigate and action
    replies link the snapshot in a file (a client without a file tool reads it with
    ``browser_snapshot``); ``browser_snapshot`` shows it inline. A response may hold several
    tool calls (the chat API's parallel calls, run in order by the loop)."""

    name = "Playwright MCP"
    checks_act = True  # browser_wait_for {text}
    _SNAPSHOT = re.compile(r"```yaml\n")

    def observe(self, body: dict[str, Any]) -> Observation:
        after = since_last_answer(body)
        fresh = any(self._SNAPSHOT.search(message_text(m)) for m in after)
        seen = _latest_whole(body.get("messages") or [], self._SNAPSHOT, fresh)
        return Observation(elements=seen.elements, text=seen.text, fresh=fresh, error=_error(after))

    @staticmethod
    def _ref_name(body: dict[str, Any]) -> str:
        """What its click takes the ref as: ``target`` in 0.0.8x, ``ref`` before."""
        for tool in body.get("tools") or []:
            function = tool.get("function", {})
            if function.get("name") == "browser_click":
                properties = function.get("parameters", {}).get("properties", {})
                return "target" if "target" in properties else "ref"
        return "ref"

    def render(self, plan: Plan, body: dict[str, Any]) -> Reply:
        if plan.refusal is not None:
            return Reply(text=plan.refusal)
        if plan.read:
            return Reply.calling("browser_snapshot")
        if not plan.acts:
            return Reply(text=plan.answer or "Done: the task is complete.")
        key = self._ref_name(body)
        calls = [self._call(intent, element, key) for intent, element in plan.acts]
        if plan.changed and plan.remaining:  # its replies link the page: read it at once
            calls.append(("browser_snapshot", {}))
        return Reply.calls(*calls)

    @staticmethod
    def _call(intent: Intent, element: Seen | None, key: str) -> tuple[str, dict[str, Any]]:
        at: dict[str, Any] = {}
        if element is not None:
            at = {key: element.ref, "element": f"{element.role} {element.name}".strip()}
        match intent.kind:
            case "expect" | "wait_for":
                return "browser_wait_for", {"text": intent.value}
            case "go_to":
                return "browser_navigate", {"url": intent.value}
            case "type":
                return "browser_type", {**at, "text": intent.value}
            case "select":
                return "browser_select_option", {**at, "values": [intent.value]}
            case "press":
                return "browser_press_key", {"key": intent.value}
            case _:
                return "browser_click", at


class AgentBrowserDialect(Dialect):
    """agent-browser's CLI through one tool, ``shell`` (a command line), as its core skill
    teaches: ``snapshot -i`` shows the interactive elements with refs (``@e3``); ``fill``,
    ``select``, ``click``, ``press``, ``open`` act; a response is one command line, its
    steps joined with ``&&``, ending with ``snapshot -i`` (the skill's "re-snapshot after any
    page change") after ``wait --load load``, when the page changed and more is to do; a check
    is ``wait --text``, as the skill says to wait for what is expected."""

    name = "agent-browser"
    checks_act = True  # wait --text "…"
    _SNAPSHOT = re.compile(r'^\s*- [\w-]+(?: "[^\n]*")? \[(?:[^\]\n]*, )?ref=e\d+\]', re.M)

    def __init__(self, command: str = "agent-browser") -> None:
        self.command = command

    def observe(self, body: dict[str, Any]) -> Observation:
        after = since_last_answer(body)
        fresh = any(self._SNAPSHOT.search(message_text(m)) for m in after)
        seen = _latest_whole(body.get("messages") or [], self._SNAPSHOT, fresh)
        error = None
        for message in after:
            text = message_text(message)
            if message.get("role") == "tool" and text.startswith("exit status"):
                error = text[:300]
        return Observation(elements=seen.elements, text=seen.text, fresh=fresh, error=error)

    def render(self, plan: Plan, body: dict[str, Any]) -> Reply:
        if plan.refusal is not None:
            return Reply(text=plan.refusal)
        ab = self.command
        if plan.read:
            return Reply.calling("shell", command=f"{ab} snapshot -i")
        if not plan.acts:
            return Reply(text=plan.answer or "Done: the task is complete.")
        steps = [self._command(intent, element) for intent, element in plan.acts]
        if plan.changed and plan.remaining:  # "re-snapshot after any page change"
            steps += [f"{ab} wait --load load", f"{ab} snapshot -i"]
        return Reply.calling("shell", command=" && ".join(steps))

    def _command(self, intent: Intent, element: Seen | None) -> str:
        ab = self.command
        ref = f"@{element.ref}" if element is not None else ""
        value = shlex.quote(intent.value or "")
        match intent.kind:
            case "expect" | "wait_for":
                return f"{ab} wait --text {value}"
            case "go_to":
                return f"{ab} open {value}"
            case "type":
                return f"{ab} fill {ref} {value}"
            case "select":
                return f"{ab} select {ref} {value}"
            case "press":
                return f"{ab} press {value}"
            case _:
                return f"{ab} click {ref}"
