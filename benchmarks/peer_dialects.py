"""The reference model's dialects of the peers (see pagesight.testing.reference): how each
peer shows a page to its model, and how its model's response is written. Each was learned
from the peer itself, as the docstrings of tasks_peers.py say.

* :class:`PlaywrightDialect`: Playwright MCP's tool results (a YAML aria snapshot, refs
  ``[ref=e12]``), its tools called one per action, several in one response;
* :class:`AgentBrowserDialect`: agent-browser's CLI in a one-tool shell loop (``snapshot -i``
  lines ``- link "Edit" [ref=e3]``), one ``&&`` chain a response;
* :class:`BrowserUseDialect`: browser-use's structured output (its AgentOutput JSON with an
  action list) over its ``<browser_state>`` element list (``[12]<button>Save</button>``).

Two things each stack does its own way, each learned from the stack:

* **a confirm() dialog** (``accept the next dialog``, then the click that opens it): Playwright
  MCP clicks, is told of a "Modal state", and answers with ``browser_handle_dialog``
  (``accept``: true); agent-browser clicks and is told "A JavaScript confirm dialog is
  blocking the page … use ``dialog accept``" (its core skill says so too), so the chain is
  ``click @eN && dialog accept``; browser-use's popups watchdog accepts every ``confirm()`` by
  itself, so its model has nothing to do. Each answer goes in the response of the click.
* **a choice in a combobox** (``select "Data" in the Team combobox``): each of these stacks'
  select actions takes a native ``<select>`` only (Playwright: "Element is not a <select>
  element"; agent-browser: "by value or visible label"; browser-use's ``select_dropdown``: "Set
  the option of a <select> element."). A native one is shown with its options under it (the
  aria snapshots' ``- option "…"`` lines, browser-use's ``<select … options=A|B|…>``); one
  shown without them is a custom ARIA combobox, which a model clicks open and then clicks the
  option of, in the next observation. Decided on what the stack showed, never on the page.
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
        options: list[str] = []  # a native <select> shows its options under it
        for k in range(i + 1, len(parsed)):
            if parsed[k][0] <= indent:
                break
            if parsed[k][1] == "option":
                options.append(parsed[k][2])
        out.append(Seen(ref=ref, role=role, name=name, context=context, options=tuple(options)))
    return out


def dialog_last(plan: Plan) -> list[tuple[Intent, Seen | None]]:
    """The plan's acts with each ``accept the next dialog`` moved after the action that
    opens the dialog: these stacks answer a dialog once it is open."""
    acts: list[tuple[Intent, Seen | None]] = []
    held: tuple[Intent, Seen | None] | None = None
    for act in plan.acts:
        if act[0].kind == "accept_dialog":
            held = act
            continue
        acts.append(act)
        if held is not None:
            acts.append(held)
            held = None
    if held is not None:
        acts.append(held)
    return acts


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
    select_needs_options = True  # browser_select_option: "Element is not a <select> element"
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
        calls = [self._call(intent, element, key) for intent, element in dialog_last(plan)]
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
            case "accept_dialog":  # after the click that opened it ("Modal state")
                return "browser_handle_dialog", {"accept": True}
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
    select_needs_options = True  # select: a <select>'s option "by value or visible label"
    _SNAPSHOT = re.compile(r'^\s*- [\w-]+(?: "[^\n]*")? \[(?:[^\]\n]*, )?ref=e\d+\]', re.M)

    def __init__(self, command: str = "agent-browser") -> None:
        self.command = command

    def observe(self, body: dict[str, Any]) -> Observation:
        after = since_last_answer(body)
        fresh = any(self._SNAPSHOT.search(message_text(m)) for m in after)
        messages = body.get("messages") or []
        seen = _latest_whole(messages, self._SNAPSHOT, fresh)
        error = None
        for message in after:
            text = message_text(message)
            if message.get("role") == "tool" and text.startswith("exit status"):
                error = text[:300]
        answers = [i for i, m in enumerate(messages) if m.get("role") == "assistant"]
        if fresh and error is None and answers:
            link = self._left_behind(messages, answers[-1], seen)
            if link is not None:
                fresh = False  # the page the link left: a model snapshots again
            elif len(answers) > 1 and self._read_only(messages[answers[-1]]):
                link = self._left_behind(messages, answers[-2], seen)
                if link is not None:  # snapshotted again, and still there
                    error = (
                        f'the click on the link "{link.name}" (@{link.ref}) said "✓ Done", yet '
                        "the page is still the one it was on (the same refs, snapshotted again)"
                    )
        return Observation(elements=seen.elements, text=seen.text, fresh=fresh, error=error)

    _CLICKED = re.compile(r"\bclick @(e\d+)")

    def _read_only(self, answer: dict[str, Any]) -> bool:
        command = json.dumps(answer.get("tool_calls") or [])
        return f"{self.command} snapshot -i" in command and "&&" not in command

    def _left_behind(
        self, messages: Sequence[dict[str, Any]], at: int, seen: Observation
    ) -> Seen | None:
        """The link the response at ``messages[at]`` clicked, when the page shown now is still
        the one it was on: every ref as before (a new document's elements get new refs, never
        recycled). A model seeing the page it meant to leave snapshots again (the page may
        not have been replaced yet when ``wait --load load`` passed), and if it is still
        there, the click led nowhere."""
        clicked = set(self._CLICKED.findall(json.dumps(messages[at].get("tool_calls") or [])))
        if not clicked or not seen.elements:
            return None
        before = _latest_whole(messages[:at], self._SNAPSHOT, False)
        if {e.ref for e in before.elements} != {e.ref for e in seen.elements}:
            return None
        return next((e for e in before.elements if e.ref in clicked and e.role == "link"), None)

    def render(self, plan: Plan, body: dict[str, Any]) -> Reply:
        if plan.refusal is not None:
            return Reply(text=plan.refusal)
        ab = self.command
        if plan.read:
            return Reply.calling("shell", command=f"{ab} snapshot -i")
        if not plan.acts:
            return Reply(text=plan.answer or "Done: the task is complete.")
        steps = [self._command(intent, element) for intent, element in dialog_last(plan)]
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
            case "accept_dialog":  # after the click that opened it (the skill's dialogs)
                return f"{ab} dialog accept"
            case _:
                return f"{ab} click {ref}"


_BU_ELEMENT = re.compile(
    r"^(?P<indent>\t*)(?:\|SHADOW\(\w+\)\|)?\*?\[(?P<ref>\d+)\]<(?P<tag>\w+)(?P<attrs>[^>]*?)\s*/?>"
)
_BU_ATTR = re.compile(r"([\w-]+)=((?:(?! [\w-]+=).)*)")
_BU_INPUTS = {
    "search": "searchbox",
    "checkbox": "checkbox",
    "radio": "radio",
    "submit": "button",
    "button": "button",
    "date": "date",
    "number": "spinbutton",
}
_BU_TAGS = {"a": "link", "button": "button", "select": "combobox", "textarea": "textbox"}
_BU_TAGS |= {"tr": "row", "td": "cell", "th": "cell", "li": "listitem", "form": "form"}


def browser_use_elements(state: str) -> list[Seen]:
    """The elements of browser-use's ``<browser_state>`` list (``[12]<button type=submit />``
    and the text lines under it), with ARIA roles for their tags, each named by its text,
    else its aria-label, placeholder or title, else the text line before it (its label)."""
    lines = state.splitlines()
    out: list[Seen] = []
    for i, line in enumerate(lines):
        m = _BU_ELEMENT.match(line)
        if m is None:
            continue
        depth = len(m["indent"])
        attrs = {k: v.strip() for k, v in _BU_ATTR.findall(m["attrs"])}
        tag = m["tag"].lower()
        role = attrs.get("role") or _BU_TAGS.get(tag, "")
        if tag == "input":
            role = _BU_INPUTS.get(attrs.get("type", "text"), "textbox")
        if attrs.get("contenteditable") == "true":
            role = "textbox"
        texts: list[str] = []
        for j in range(i + 1, len(lines)):
            below = lines[j]
            if len(below) - len(below.lstrip("\t")) <= depth or _BU_ELEMENT.match(below):
                break
            texts.append(below.strip())
        label = next(
            (
                lines[j].strip()
                for j in range(i - 1, -1, -1)
                if lines[j].strip() and not _BU_ELEMENT.match(lines[j])
            ),
            "",
        )
        name = " ".join(texts) or next(
            (attrs[k] for k in ("aria-label", "placeholder", "title") if attrs.get(k)), ""
        )
        if not name and role in ("textbox", "searchbox", "combobox", "date", "spinbutton"):
            name = label
        if not name and role in ("radio", "checkbox"):  # its label is the line after it
            following = next((lines[j] for j in range(i + 1, len(lines)) if lines[j].strip()), "")
            if not _BU_ELEMENT.match(following):
                name = following.strip()
        options: tuple[str, ...] = ()
        if tag == "select":  # compound_components=(…,(name=Options,…,options=A|B|C))
            listed = re.search(r"options=([^)]*)", m["attrs"])
            options = tuple(listed[1].split("|")) if listed else ("…",)
        parents = []
        level = depth
        for j in range(i - 1, -1, -1):
            above = _BU_ELEMENT.match(lines[j])
            if above and len(above["indent"]) < level:
                level = len(above["indent"])
                parents.append(lines[j].strip())
        row = ""
        for j in range(i - 1, -1, -1):  # the row it is in: its text, for "Alice Chen's Edit"
            above = _BU_ELEMENT.match(lines[j])
            if above and above["tag"] in ("tr", "li") and len(above["indent"]) < depth:
                end = next(
                    (
                        k
                        for k in range(j + 1, len(lines))
                        if len(lines[k]) - len(lines[k].lstrip("\t")) <= len(above["indent"])
                    ),
                    len(lines),
                )
                row = " ".join(x.strip() for x in lines[j:end])
                break
        context = " ".join([*reversed(parents), line.strip(), *texts, row])
        out.append(Seen(ref=m["ref"], role=role, name=name, context=context, options=options))
    return out


class BrowserUseDialect(Dialect):
    """browser-use 0.13: each step's request carries the page as ``<browser_state>`` in the
    last user message (always fresh); the response is structured output, its AgentOutput JSON
    (``thinking``, ``memory``, ``next_goal``, …, and an ``action`` list of at most
    ``max_actions_per_step``, 5 by default: ``click``, ``input``, ``select_dropdown``,
    ``send_keys``, ``navigate``, ``done``). A read is a ``wait`` (the next step sees the page
    again). Its judge's request (another response format) is answered apart."""

    name = "browser-use"
    max_acts = 5
    select_needs_options = True  # select_dropdown: "Set the option of a <select> element."
    dialogs_accepted = True  # its popups watchdog accepts alert() and confirm() at once
    _STATE = re.compile(r"<browser_state>(.*?)</browser_state>", re.S)

    def observe(self, body: dict[str, Any]) -> Observation:
        messages = body.get("messages") or []
        for message in reversed(messages):
            if message.get("role") != "user":
                continue
            found = self._STATE.search(message_text(message))
            if found:
                state = found[1]
                return Observation(
                    elements=tuple(browser_use_elements(state)), text=state, fresh=True
                )
        return Observation(elements=(), text="", fresh=True)

    _RESULTS = re.compile(r"<step>\n(?:(?!<step>).)*?\nResult\n(?P<lines>(?:(?!<step>).)*)$", re.S)

    def ran(self, body: dict[str, Any]) -> int | None:
        # Its history ends with the last step's results, one line an action it ran.
        messages = body.get("messages") or []
        text = message_text(messages[-1]) if messages else ""
        history = re.search(r"<agent_history>(.*?)</agent_history>", text, re.S)
        found = self._RESULTS.search(history[1].rstrip() + "\n") if history else None
        if found is None:
            return None
        return len([line for line in found["lines"].splitlines() if line.strip()])

    def aside(self, body: dict[str, Any]) -> Reply | None:
        form = (body.get("response_format") or {}).get("json_schema", {})
        schema = form.get("schema", {})
        if "verdict" not in (schema.get("properties") or {}):
            return None
        # Its judge (the same format's name, another schema): whether the run did the task.
        # The checks say that, not this; it is answered yes and counted apart.
        answer: dict[str, Any] = {}
        for key, spec in (schema.get("properties") or {}).items():
            kind = spec.get("type")
            answer[key] = (
                True
                if kind == "boolean"
                else ([] if kind == "array" else ("" if kind == "string" else None))
            )
        return Reply.structured(answer)

    def render(self, plan: Plan, body: dict[str, Any]) -> Reply:
        actions: list[dict[str, Any]]
        if plan.refusal is not None:
            actions = [{"done": {"text": plan.refusal, "success": False, "files_to_display": []}}]
        elif plan.read:
            actions = [{"wait": {"seconds": 1}}]
        elif not plan.acts:
            text = plan.answer or "Done: the task is complete."
            actions = [{"done": {"text": text, "success": True, "files_to_display": []}}]
        else:
            actions = [self._action(intent, element) for intent, element in plan.acts]
        goal = "; ".join(intent.text for intent, _ in plan.acts) or "finish"
        return Reply.structured(
            {
                "thinking": None,
                "evaluation_previous_goal": "Success",
                "memory": "",
                "next_goal": goal,
                "current_plan_item": None,
                "plan_update": None,
                "action": actions,
            }
        )

    @staticmethod
    def _action(intent: Intent, element: Seen | None) -> dict[str, Any]:
        index = int(element.ref) if element is not None else None
        match intent.kind:
            case "go_to":
                return {"navigate": {"url": intent.value, "new_tab": False}}
            case "type":
                return {"input": {"index": index, "text": intent.value, "clear": True}}
            case "select":
                return {"select_dropdown": {"index": index, "text": intent.value}}
            case "press":
                return {"send_keys": {"keys": intent.value}}
            case _:
                return {"click": {"index": index}}
