"""A reference model: a deterministic OpenAI-compatible chat-completions server on 127.0.0.1
that does a task the way an ideal model would, in whichever stack's format it is asked in —
so that stacks (pagesight's planner, MCP servers, other agents) can be compared on what their
protocol and their observations cost, with the model's skill taken out.

    with ReferenceModel() as reference:
        talk = reference.conversation(read_intents(steps_text), ActDialect())
        model = open_model("openai:reference", base_url=talk.base_url, api_key="x")
        ...                           # run the stack against it
        talk.rounds, talk.finished    # what it took

It knows a task as a list of **intents**, read from a steps file (the English steps language
of :mod:`pagesight.runs.grammar`, plus ``done`` or ``done "answer"``), so one file serves the
steps planner and this model. For each request it reads the stack's *own latest observation*
in the messages (a :class:`Dialect` says how that stack shows a page), resolves the next
intents' targets there by role and name with find's scoring (never by ids known in advance:
an element not shown is not acted on), and answers.

**One batching policy for every stack.** A response holds every consecutive remaining intent
whose target is in the current observation, and stops after one that changes the page (a
click on a link or button, ``go to``, pressing Enter), within what the stack allows in one
response (:attr:`Dialect.max_acts`). A check (``expect "…"``) is an action only where the
stack has one (pagesight's ``act`` lines: then it may follow a page change, since it waits
for the text, and so may ``done``); elsewhere it is met by reading the text in the next
observation. When an intent's target is not in the observation, the model reads the page
once (the stack's read tool), and if it is still not there it refuses in words, naming what
it looked for; it never invents an id. When every intent is done it finishes the stack's way.

Each conversation has its own base URL (``/<key>/v1``), its intents and its progress, so
concurrent tasks cannot cross. Its requests are kept, and :func:`request_tokens` splits each
request's input into schemas (tools, response format) and messages (cl100k).

The dialects of pagesight ship here: :class:`ActDialect` (the ``llm`` planner's ``act`` tool)
and :class:`McpActDialect` (the MCP server's ``browser_act``); other stacks' dialects live
with the benchmark that runs them.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from starlette.requests import Request

from pagesight.observe import find as finding
from pagesight.observe.roles import DATE_ROLES
from pagesight.runs.grammar import Target, parse_line, quote, unquote
from pagesight.testing.fake_openai import FakeOpenAI
from pagesight.testing.script import Reply
from pagesight.testing.server import Refused
from pagesight.tokens import count_tokens

IntentKind = Literal[
    "go_to",
    "click",
    "type",
    "select",
    "press",
    "accept_dialog",
    "expect",
    "wait_for",
    "expect_value",
    "done",
]
CHECKS = frozenset({"expect", "wait_for", "expect_value"})
_KINDS: dict[str, IntentKind] = {
    "go_to": "go_to",
    "click": "click",
    "type": "type",
    "select": "select",
    "press": "press",
    "accept_dialog": "accept_dialog",
    "expect_text": "expect",
    "wait_for": "wait_for",
    "expect_value": "expect_value",
}
_DONE = re.compile(r'done\b\s*(?P<v>"(?:[^"\\]|\\.)*"|“[^”]*”)?\s*', re.IGNORECASE)


@dataclass(frozen=True, kw_only=True)
class Intent:
    """One thing to do: ``kind``, the element in words (``target``), the value typed, chosen,
    pressed, expected or answered, or the URL."""

    kind: IntentKind
    text: str
    target: Target | None = None
    value: str | None = None

    @property
    def check(self) -> bool:
        return self.kind in CHECKS


def read_intents(text: str) -> tuple[Intent, ...]:
    """The intents of a steps file; ValueError naming a line no stack here can do (the steps
    language's own errors, and kinds this model does not drive: hover, drag, upload, …)."""
    out = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if done := _DONE.fullmatch(line):
            answer = unquote(done["v"]) if done["v"] else None
            out.append(Intent(kind="done", text=line, value=answer))
            continue
        step = parse_line(line, number)
        assert step is not None
        kind = _KINDS.get(step.kind)
        if kind is None:
            raise ValueError(f"line {number}: the reference model does not do {step.kind}")
        out.append(Intent(kind=kind, text=line, target=step.target, value=step.value))
    if not out:
        raise ValueError("the steps have no intent")
    return tuple(out)


# --- what a stack shows, and finding an intent's element in it --------------------------------


@dataclass(frozen=True, kw_only=True)
class Seen:
    """An element as a stack showed it: its ``ref`` in that stack's terms (``4``, ``e12``),
    its role (ARIA's), its name, and ``context``: the text of its line and the lines it sits
    under (its row, its form, its heading), to resolve ``in "Alice Chen"``."""

    ref: str
    role: str
    name: str
    context: str = ""
    markup: None = None  # (what find's scoring reads: a stack's text has no markup)
    looks: str | None = None
    options: tuple[str, ...] = ()
    """The options the stack shows it holding (a native ``<select>``'s): a combobox shown
    without them is a custom one, opened by a click, its option clicked."""


@dataclass(frozen=True, kw_only=True)
class Observation:
    """The stack's latest observation as the model reads it: the elements it shows (newest
    first, each ref once), all its text, ``fresh``: whether the answer to the model's last
    response showed the page (or what changed), and ``error``: what that answer said failed."""

    elements: tuple[Seen, ...]
    text: str
    fresh: bool
    error: str | None = None


_FIELDS = frozenset({"textbox", "searchbox", "combobox", "spinbutton", *DATE_ROLES})
_CHOICES = frozenset({"combobox", "listbox"})
_PLAIN = frozenset({"text", "paragraph", "generic", "heading", "row", "cell", "img", ""})
_CHANGERS = frozenset({"link", "button", "menuitem", "tab"})


def _can(kind: IntentKind, role: str) -> bool:
    """Whether an element of ``role`` can take the intent (only fields are typed into)."""
    if kind == "type":
        return role in _FIELDS
    if kind == "select":
        return role in _CHOICES
    if kind == "expect_value":
        return role in _FIELDS or role in _CHOICES
    return role not in _PLAIN


def resolve(intent: Intent, elements: Sequence[Seen]) -> Seen | None:
    """The element ``intent`` means among ``elements``, or None. Words naming a group
    (``in "Alice Chen"``, ``Alice Chen's``) narrow to elements whose context holds it; an
    element must hold at least half of the words when it is of the role they name, all of
    them otherwise; the best by find's score wins, an exact name breaking ties."""
    if intent.target is None:
        return None
    pool = [e for e in elements if _can(intent.kind, e.role)]
    for words, group in intent.target.splits():
        if group is not None:
            wanted = finding.normalise(group)
            narrowed = [e for e in pool if wanted in finding.normalise(e.context)]
        else:
            narrowed = pool
        if narrowed and (best := _best(words, narrowed)) is not None:
            return best
    return None


def _best(words: str, elements: Sequence[Seen]) -> Seen | None:
    query = finding.Query.parse(words)
    ranked: list[tuple[float, bool, int]] = []
    for i, element in enumerate(elements):
        target = finding.Target.of(element)
        points = finding.score(query, target)
        if points <= 0:
            continue
        held = sum(1 for atom in query.atoms if atom in target.text)
        of_role = bool(query.roles) and (target.role in query.roles)
        if held < (len(query.atoms) + 1) // 2 if of_role else held < len(query.atoms):
            continue
        ranked.append((-points, target.name != query.core, i))
    return elements[min(ranked)[2]] if ranked else None


def changes_page(intent: Intent, element: Seen | None) -> bool:
    """After this intent the page may be another document, or show elements not seen yet."""
    if intent.kind == "go_to":
        return True
    if intent.kind == "press":
        return (intent.value or "").lower() == "enter"
    return intent.kind == "click" and element is not None and element.role in _CHANGERS


def custom_choice(intent: Intent, element: Seen | None, dialect: Dialect) -> bool:
    """Whether ``select`` is to be done as two clicks in this stack: its select action takes
    a native ``<select>`` only, and the combobox is shown without options."""
    return (
        intent.kind == "select"
        and dialect.select_needs_options
        and element is not None
        and element.role == "combobox"
        and not element.options
    )


def open_and_choose(intent: Intent) -> tuple[Intent, Intent]:
    """``select "Data" in the Team combobox`` as a model does it in a custom combobox: click
    the combobox, then click its option ``"Data"`` (found in the list it opens)."""
    assert intent.target is not None
    value = quote(intent.value or "")
    opener = Intent(kind="click", text=f"click {intent.target.words}", target=intent.target)
    option = Intent(
        kind="click", text=f"click the {value} option", target=Target(words=f"{value} option")
    )
    return opener, option


# --- a stack's dialect, and the plan it renders ----------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Plan:
    """What one response does: ``acts`` (each intent with its element), or a ``read`` of the
    page, or ``finish`` (with ``answer``) after the acts, or a ``refusal`` in words."""

    acts: tuple[tuple[Intent, Seen | None], ...] = ()
    changed: bool = False
    """The acts may leave another document, or new elements, on the page."""
    remaining: int = 0
    """Intents left after these."""
    read: bool = False
    finish: bool = False
    answer: str | None = None
    refusal: str | None = None


class Dialect:
    """How one stack shows the page and takes actions: a subclass reads its observation
    from a request (:meth:`observe`) and writes a plan as its response (:meth:`render`)."""

    name = ""
    max_acts = 50
    """The most actions one response may hold in this stack."""
    checks_act = False
    """The stack has checks among its actions (``expect "…"``, a wait for text): they go in
    the response, and may follow a page change (they wait for the text)."""
    finish_with_acts = False
    """The stack's way of finishing may end a response that acts (``act``'s ``done``); else
    finishing is a response of its own, once the page shows the result."""
    can_read = True
    """The stack has a tool that reads the page."""
    select_needs_options = False
    """Its select action takes a native ``<select>`` only (one it shows with its options,
    :attr:`Seen.options`); a combobox shown without them is done the way a model would: a
    click opens it (a change of the page: the next observation shows the list), then a click
    on the option named by the value."""
    dialog_alone = False
    """Its answer to a dialog (``accept the next dialog``) is a response of its own, before
    the action that opens it (pagesight's ``use_tool`` cannot share a reply with ``act``);
    else it goes in the same response as that action, in the order the stack needs it
    (:meth:`render`'s business)."""
    dialogs_accepted = False
    """The stack accepts a ``confirm()`` by itself: ``accept the next dialog`` is nothing to
    do (browser-use)."""

    def observe(self, body: dict[str, Any]) -> Observation:
        raise NotImplementedError

    def render(self, plan: Plan, body: dict[str, Any]) -> Reply:
        raise NotImplementedError

    def ran(self, body: dict[str, Any]) -> int | None:
        """How many of the model's last response's actions the stack reports it ran, where it
        may skip the rest (browser-use stops a list when the page changes); None: all."""
        return None

    def aside(self, body: dict[str, Any]) -> Reply | None:
        """The answer to a request that is not a step of the task (a stack's own side call,
        such as a judge), counted apart; None for a step."""
        return None


def message_text(message: dict[str, Any]) -> str:
    """The text of a chat message (its content's text parts)."""
    content = message.get("content")
    if isinstance(content, list):
        parts = [p.get("text", "") for p in content if isinstance(p, dict)]
        return "\n".join(p for p in parts if isinstance(p, str))
    return content if isinstance(content, str) else ""


def since_last_answer(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The messages after the model's last response (what answered it)."""
    messages = body.get("messages") or []
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].get("role") == "assistant":
            return list(messages[i + 1 :])
    return list(messages)


# --- pagesight's outline ----------------------------------------------------------------------

_OUTLINE_ELEMENT = re.compile(r'\[(\d+)\] ([\w-]+)(?: ~?("(?:[^"\\]|\\.)*"))?')
_WHOLE = "\npage now:\n"
_CHANGE = "what changed on the page"


def outline_elements(text: str) -> tuple[list[Seen], set[str]]:
    """The elements of a pagesight outline (or a change list: ``- [4] …`` lines are elements
    removed, returned apart), each with the lines it sits under as its context."""
    seen: list[Seen] = []
    removed: set[str] = set()
    above: list[tuple[int, str]] = []  # (indent, text) of the lines the current one is under
    for line in text.splitlines():
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        while above and above[-1][0] >= indent:
            above.pop()
        context = " ".join([*(t for _, t in above), stripped])
        above.append((indent, stripped))
        gone = stripped.startswith("- ")
        for m in _OUTLINE_ELEMENT.finditer(stripped):
            if gone:
                removed.add(m[1])
                continue
            name = json.loads(m[3]) if m[3] else ""
            seen.append(Seen(ref=m[1], role=m[2], name=name, context=context))
    return seen, removed


def outline_observation(messages: Sequence[dict[str, Any]], fresh: bool) -> Observation:
    """The latest whole page in ``messages`` and every change shown after it, newest first."""
    elements: dict[str, Seen] = {}
    removed: set[str] = set()
    texts: list[str] = []
    for message in reversed(messages):
        text = message_text(message)
        whole = _WHOLE in f"\n{text}"
        if not whole and _CHANGE not in text:
            continue
        texts.append(text)
        found, gone = outline_elements(text)
        for element in found:
            if element.ref not in removed:
                elements.setdefault(element.ref, element)
        removed |= gone
        if whole:
            break
    return Observation(elements=tuple(elements.values()), text="\n".join(texts), fresh=fresh)


def act_line(intent: Intent, element: Seen | None) -> str:
    """The intent as a line of pagesight's steps over ids (``act``, ``browser_act``)."""
    ref = f"[{element.ref}]" if element is not None else ""
    value = quote(intent.value or "")
    match intent.kind:
        case "click":
            return f"click {ref}"
        case "type":
            return f"type {value} into {ref}"
        case "select":
            return f"select {value} in {ref}"
        case "press":
            return f"press {intent.value}" + (f" in {ref}" if ref else "")
        case "go_to":
            return f"go to {intent.value}"
        case "accept_dialog":  # (a tool call of its own in act's stacks: see the dialects)
            return "accept the next dialog"
        case "expect":
            return f"expect {value}"
        case "wait_for":
            return f"wait for {value}"
        case "expect_value":
            return f"expect {ref} to be {value}"
        case "done":
            return "done" + (f" {value}" if intent.value is not None else "")


class ActDialect(Dialect):
    """pagesight's ``llm`` planner (the ``core`` tools): the page comes as an outline, whole or
    as what changed; a response is one ``act`` call, one line a step, checks and ``done``
    among them; ``observe`` reads the page. A dialog is answered by ``use_tool`` calling
    ``handle_dialog`` (``accept``: true), in a reply of its own (the planner takes ``act``
    alone), before the ``act`` whose action opens it."""

    name = "pagesight"
    checks_act = True
    finish_with_acts = True
    dialog_alone = True

    def observe(self, body: dict[str, Any]) -> Observation:
        after = since_last_answer(body)
        fresh = any(_WHOLE in f"\n{t}" or _CHANGE in t for t in (message_text(m) for m in after))
        return outline_observation(body.get("messages") or [], fresh)

    def render(self, plan: Plan, body: dict[str, Any]) -> Reply:
        if plan.refusal is not None:
            return Reply(text=plan.refusal)
        if plan.read:
            return Reply.calling("observe", view=None, since_last=None, focus=None, max_tokens=None)
        if plan.acts and plan.acts[0][0].kind == "accept_dialog":  # alone (dialog_alone)
            return Reply.calling("use_tool", name="handle_dialog", arguments={"accept": True})
        lines = [act_line(intent, element) for intent, element in plan.acts]
        if plan.finish:
            lines.append("done" + (f" {quote(plan.answer)}" if plan.answer is not None else ""))
        return Reply.calling("act", steps="\n".join(lines))


class McpActDialect(ActDialect):
    """pagesight's MCP server (``--tools core``) in a plain tool loop: tool results carry the
    outline; a response is one ``browser_act`` call (checks among its lines; it has no
    ``done``), ``browser_snapshot`` reads, ``browser_navigate`` opens the task's start page,
    and the loop ends on an answer in words. A dialog is answered by ``browser_use_tool``
    calling ``browser_handle_dialog`` (``accept``: true), a call before the ``browser_act``
    that opens it, in the same response (the loop runs a response's calls in order)."""

    name = "pagesight MCP"
    finish_with_acts = False  # browser_act has expect lines, but no done: finishing is words
    dialog_alone = False

    def observe(self, body: dict[str, Any]) -> Observation:
        seen = super().observe(body)
        failed = [  # a tool call the server refused (the loop marks them "Error: ")
            message_text(m)
            for m in since_last_answer(body)
            if m.get("role") == "tool" and message_text(m).startswith("Error:")
        ]
        if not failed:
            return seen
        return Observation(
            elements=seen.elements, text=seen.text, fresh=seen.fresh, error=failed[0][:300]
        )

    def render(self, plan: Plan, body: dict[str, Any]) -> Reply:
        if plan.refusal is not None:
            return Reply(text=plan.refusal)
        if plan.read:
            return Reply.calling("browser_snapshot")
        if not plan.acts:
            return Reply(text=plan.answer or "Done: the task is complete.")
        if len(plan.acts) == 1 and plan.acts[0][0].kind == "go_to":
            return Reply.calling("browser_navigate", url=plan.acts[0][0].value)
        calls: list[tuple[str, dict[str, Any]]] = []
        lines: list[str] = []
        for intent, element in plan.acts:
            if intent.kind != "accept_dialog":
                lines.append(act_line(intent, element))
                continue
            if lines:
                calls.append(("browser_act", {"steps": "\n".join(lines)}))
                lines = []
            answer = {"name": "browser_handle_dialog", "arguments": {"accept": True}}
            calls.append(("browser_use_tool", answer))
        if lines:
            calls.append(("browser_act", {"steps": "\n".join(lines)}))
        return Reply.calls(*calls)


# --- the conversation and the server -------------------------------------------------------------


@dataclass(kw_only=True)
class Conversation:
    """One stack doing one task: its intents, how far it is, what it was sent."""

    key: str
    origin: str
    intents: tuple[Intent, ...]
    dialect: Dialect
    position: int = 0
    requests: list[dict[str, Any]] = field(default_factory=list)
    """Every request that was a step of the task (a round each)."""
    asides: list[dict[str, Any]] = field(default_factory=list)
    """Requests answered apart (:meth:`Dialect.aside`: a judge's)."""
    plans: list[Plan] = field(default_factory=list)
    finished: bool = False
    refusal: str | None = None
    """Why the model gave up, when it did."""
    _changed: bool = False
    _read: bool = False
    _acts_from: int = 0
    """The intent the last response's actions began at, and how many it held."""
    _acted: int = 0

    @property
    def base_url(self) -> str:
        return f"{self.origin}/{self.key}/v1"

    @property
    def rounds(self) -> int:
        return len(self.requests)

    def answer(self, body: dict[str, Any]) -> Reply:
        if (aside := self.dialect.aside(body)) is not None:
            self.asides.append(body)
            return aside
        self.requests.append(body)
        ran = self.dialect.ran(body)
        if ran is not None and ran < self._acted:  # the rest was skipped: do it again
            self.position, self._changed = self._acts_from + ran, True
        plan = self.plan(self.dialect.observe(body))
        self._acted = len(plan.acts)
        self.plans.append(plan)
        self._read = plan.read
        if plan.finish:
            self.finished = True
        if plan.refusal is not None:
            self.refusal = plan.refusal
        return self.dialect.render(plan, body)

    def plan(self, seen: Observation) -> Plan:
        """The next response by the batching policy (see the module's docstring)."""
        dialect = self.dialect
        if self.refusal is not None:  # said once, said again: it does not flip-flop
            return Plan(refusal=self.refusal)
        if seen.error is not None:
            return self._refuse(f"the last action failed: {seen.error}")
        ahead = self.intents[self.position :]
        needs_page = bool(ahead) and ahead[0].kind != "done"
        if needs_page and self._changed and not seen.fresh and dialect.can_read and not self._read:
            return Plan(read=True)  # the page changed and nothing since shows it
        acts: list[tuple[Intent, Seen | None]] = []
        changed = False
        i = self.position
        while i < len(self.intents):
            intent = self.intents[i]
            if intent.kind == "done":
                if acts and not dialect.finish_with_acts:
                    break
                i += 1
                self.position, self._changed = i, changed
                return Plan(acts=tuple(acts), changed=changed, finish=True, answer=intent.value)
            if intent.check and intent.kind != "expect_value" and dialect.checks_act:
                if not acts:
                    self._acts_from = i
                acts.append((intent, None))
                i += 1
                continue
            if intent.check:
                if acts or changed:
                    break  # seen after the acts, in the next observation
                if intent.kind != "expect_value" and (intent.value or "") in seen.text:
                    i += 1
                    continue
                element = resolve(intent, seen.elements)
                if intent.kind == "expect_value" and element is not None and dialect.checks_act:
                    self._acts_from = i
                    acts.append((intent, element))
                    i += 1
                    continue
                if dialect.can_read and not self._read:
                    return Plan(read=True)
                return self._refuse(f"the page does not show {quote(intent.value or '')}")
            if changed or len(acts) >= dialect.max_acts:
                break
            if intent.kind == "accept_dialog":
                if dialect.dialogs_accepted:  # nothing for the model to do
                    i += 1
                    if not acts:
                        self.position = i
                    continue
                if dialect.dialog_alone and acts:
                    break
                if not acts:
                    self._acts_from = i
                acts.append((intent, None))
                i += 1
                if dialect.dialog_alone:
                    break
                continue
            if not acts:
                self._acts_from = i
            element = None
            if intent.target is not None:
                element = resolve(intent, seen.elements)
                if element is None:
                    break
            if custom_choice(intent, element, dialect):
                assert element is not None
                opener, option = open_and_choose(intent)
                self.intents = (*self.intents[:i], opener, option, *self.intents[i + 1 :])
                acts.append((opener, element))
                i += 1
                changed = True  # the list it opens is seen in the next observation
                continue
            acts.append((intent, element))
            i += 1
            changed = changes_page(intent, element)
        if acts:
            done = i == len(self.intents) and dialect.finish_with_acts
            self.position, self._changed = i, changed
            left = len(self.intents) - i
            return Plan(acts=tuple(acts), changed=changed, remaining=left, finish=done)
        if i == len(self.intents):
            self.position = i
            return Plan(finish=True)
        if dialect.can_read and not self._read:
            return Plan(read=True)
        return self._refuse(f"the page shows no element for {self.intents[i].text!r}")

    def _refuse(self, why: str) -> Plan:
        return Plan(refusal=f"I cannot go on: {why}. No element the page shows fits.")


class ReferenceModel(FakeOpenAI):
    """The server; each task's stack talks to a :meth:`conversation` of its own. ``api_key``:
    the bearer token it requires, if any."""

    paths: tuple[str, ...] = ("/{key}/v1/chat/completions",)

    def __init__(self, *, api_key: str | None = None, port: int = 0) -> None:
        super().__init__((), api_key=api_key, port=port)
        self.conversations: dict[str, Conversation] = {}
        self._keys = itertools.count(1)
        self._key_of: dict[int, str] = {}

    def conversation(self, intents: Iterable[Intent], dialect: Dialect) -> Conversation:
        key = f"c{next(self._keys)}"
        talk = Conversation(key=key, origin=self.origin, intents=tuple(intents), dialect=dialect)
        self.conversations[key] = talk
        return talk

    def receive(self, request: Request, raw: bytes, request_id: str) -> Any:
        body = super().receive(request, raw, request_id)
        key = request.path_params.get("key", "")
        if key not in self.conversations:
            raise Refused(404, f"no conversation {key!r}: ask ReferenceModel.conversation()")
        self._key_of[id(body)] = key
        return body

    def _next(self, received: Any) -> Any:
        # Not a script: the answer is worked out from the request, by its conversation.
        return self.conversations[self._key_of.pop(id(received))].answer(received)


def request_tokens(body: dict[str, Any]) -> tuple[int, int]:
    """A request's input in cl100k tokens: (schemas: its tools and response format as JSON;
    messages: each message's text and the tool calls it holds)."""
    schemas = sum(
        count_tokens(json.dumps(body[k], ensure_ascii=False))
        for k in ("tools", "response_format")
        if body.get(k)
    )
    messages = 0
    for message in body.get("messages") or []:
        messages += count_tokens(message_text(message))
        if calls := message.get("tool_calls"):
            messages += count_tokens(json.dumps(calls, ensure_ascii=False))
    return schemas, messages
