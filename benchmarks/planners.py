"""Benchmark the model planners' requests: what every request carries besides the page (the
system prompt and the tool schemas) with the default tool profile (``core``: ``act``, one
step a line) beside ``full`` (a tool an action); what a whole task costs with each, on Orbit
CRM and on a booking form; per step, the input tokens the ``llm`` planner sends with its
latest-only context beside the same planner keeping the whole history; and the tokens of
each Decisions request (screenshot included).

    PYTHONPATH=src .venv/bin/python benchmarks/planners.py     # against the fakes, anywhere
    PAGESIGHT_BENCH_MODEL=openai:gpt-4.1-mini OPENAI_API_KEY=… PERPLEXITY_API_KEY=… \\
        PYTHONPATH=src .venv/bin/python benchmarks/planners.py # live

**The llm planner** runs a 10-step task on Orbit CRM (the bundled app, SQLite, 127.0.0.1) in
real Chromium: find Alice Chen, open her, edit, type her new title, pick her new location,
save, back to the list, find Bob Martin, open him, and answer his job title with ``done``. It
talks to its model through :mod:`pagesight.models` and the real ``openai`` SDK: by default to
:class:`~pagesight.testing.FakeOpenAI` on 127.0.0.1, scripted as a capable model would answer
(each id read off the request it was sent, so it can only act on what the context shows);
with ``PAGESIGHT_BENCH_MODEL=PROVIDER:MODEL`` (and that provider's key and URL variables, as
``pagesight run --model`` reads them) to that model. The task runs twice:

* **latest-only**: :class:`~pagesight.agent.ModelPlanner` as shipped — one whole page in the
  context, the change after an action when smaller, older pages collapsed to their action
  and effect;
* **whole history**: the same planner whose context keeps every message as it was sent and
  is shown the whole page after every action (what a tool-calling loop that appends
  everything sends).

Per step it prints the input tokens of each request as pagesight counts them (cl100k: the
messages, then the tools' schemas, which every request also carries), the provider's own
count (the fake's is the request's bytes / 4), and the ratios; the target is ≤ 0.3x at
step 10.

**The tool surface.** The same task with the ``core`` profile, as a capable model batches it
with ``act`` (Alice's Edit link; her form filled, saved, checked and the list loaded again in
one call; Bob; the answer), beside ``full`` one action a round (the latest-only run above).
Then a booking form (tests/pages/booking.html: a button opens it, five fields, a custom
checkbox, Confirm) with ``core`` (open it; every field, Confirm, ``expect`` and ``done`` in
one call) beside ``full`` (open it; a ``batch``; ``done``). Targets: fixed tokens ≤ 1,000; the
Orbit task's input ≤ 0.35x full's; the form in ≤ 2 rounds.

**The decisions planner** runs Orbit CRM's demo task (find Alice Chen, set her title and
location, save) against :class:`~pagesight.testing.decisions.FakeDecisionsServer` answering as
a capable model would (:mod:`pagesight.testing.decisions_demo`), or the real API when
``PERPLEXITY_API_KEY`` is set (``PERPLEXITY_BASE_URL`` too). Per step: the requests it took,
the screenshot's tiles (about a token each), the text's cl100k tokens and the input tokens
reported (the fake's: tiles + text + 100).

Per task: rounds (model calls), input and output tokens and the cost by the price table.
Nothing leaves 127.0.0.1 unless those variables are set. A measurement: it prints figures and
ratios against the target and exits 0 whatever they say.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pagesight import Agent, Browser
from pagesight.agent.profiles import Profile
from pagesight.agent.state import RunResult
from pagesight.demo import OrbitApp
from pagesight.messages import Message, ModelReply, ToolSpec
from pagesight.models import open_model
from pagesight.models.model import Model
from pagesight.planners.decisions import DecisionsPlanner
from pagesight.planners.llm.context import Context
from pagesight.planners.llm.planner import ModelPlanner
from pagesight.testing import FakeOpenAI, Reply
from pagesight.testing.decisions import FakeDecisionsServer, image_tokens, text_tokens
from pagesight.testing.decisions_demo import ORBIT_GOAL, orbit_script
from pagesight.tokens import count_tokens
from serve import FIXTURES, serve

STEPS = 10
TARGET = 0.3
MODEL_ENV = "PAGESIGHT_BENCH_MODEL"
DECISIONS_KEY_ENV = "PERPLEXITY_API_KEY"
FAKE_MODEL = "openai:gpt-4.1-mini"
"""The model name the fake answers as (its price prices the fake's tokens)."""
FAKE_KEY = "benchmark-key"
LLM_GOAL = "Alice Chen: Senior Software Engineer in New York; then: what is Bob Martin's job title?"


# --- the two contexts -----------------------------------------------------------------


class WholeHistory(Context):
    """A context that never collapses: every page stays as it was sent (for comparison)."""

    def add(self, message: Message, *, observation: bool = False) -> None:
        super().add(message, observation=False)


class WholeHistoryPlanner(ModelPlanner):
    """The planner as shipped but keeping everything, the whole page after every action."""

    def __init__(self, model: Model) -> None:
        super().__init__(model, deltas=False)

    def make_context(self, system: str) -> Context:
        # No real budget: the point is to see how far it grows.
        return WholeHistory(system=system, budget=10_000_000)


# --- a meter around any Model ---------------------------------------------------------


@dataclass
class Metered:
    """Wraps a Model; counts what each request sends (and what the provider reports)."""

    model: Model
    sent: list[int] = field(default_factory=list)
    schemas: list[int] = field(default_factory=list)
    system: list[int] = field(default_factory=list)
    reported: list[int | None] = field(default_factory=list)

    async def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelReply:
        self.sent.append(sum(m.tokens for m in messages))
        self.system.append(sum(m.tokens for m in messages if m.role == "system"))
        self.schemas.append(count_tokens(json.dumps([t.to_dict() for t in tools])))
        reply = await self.model.complete(messages, tools)
        self.reported.append(reply.usage.input_tokens if reply.usage is not None else None)
        return reply


# --- the capable model, scripted for the fake chat-completions server ------------------


def _contents(body: dict[str, Any]) -> list[str]:
    """The text of each message of a chat-completions request, newest first."""
    out = []
    for message in reversed(body.get("messages", [])):
        content = message.get("content")
        if isinstance(content, list):
            content = "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
        out.append(content or "")
    return out


def seen_ref(body: dict[str, Any], role: str, name: str) -> int:
    """The id of ``role "name"`` in the newest message that shows it."""
    pattern = re.compile(rf'\[(\d+)\] {role} "{re.escape(name)}"')
    for content in _contents(body):
        found = pattern.findall(content)
        if found:
            return int(found[-1])
    raise LookupError(f'the model was not shown {role} "{name}"')


def _call(tool: str, role: str, name: str, **arguments: object) -> Callable[..., Reply]:
    return lambda body: Reply.calling(tool, ref=seen_ref(body, role, name), **arguments)


def _answer(body: dict[str, Any]) -> Reply:
    found = re.search(r"\n\s*Job title\n\s*(.+)", _contents(body)[0])
    return Reply.calling("done", answer=found.group(1).strip() if found else None)


def capable_script() -> list[Callable[[dict[str, Any]], Reply]]:
    """The ten decisions of the task, each reading its id off the request it was sent."""
    return [
        _call("input", "searchbox", "Search contacts", text="Alice Chen", submit=True),
        _call("click", "link", "Alice Chen"),
        _call("click", "(?:link|button)", "Edit"),
        _call("input", "textbox", "Job title", text="Senior Software Engineer"),
        _call("select", "combobox", "Location", values=["New York"]),
        _call("click", "button", "Save"),
        _call("click", "link", "Contacts"),
        _call("input", "searchbox", "Search contacts", text="Bob Martin", submit=True),
        _call("click", "link", "Bob Martin"),
        _answer,
    ]


def _act(*lines: Callable[[dict[str, Any]], str]) -> Callable[[dict[str, Any]], Reply]:
    """One ``act`` call whose lines are written from the request (each reading its ids)."""
    return lambda body: Reply.calling("act", steps="\n".join(line(body) for line in lines))


def _line(template: str, role: str, name: str) -> Callable[[dict[str, Any]], str]:
    return lambda body: template.format(seen_ref(body, role, name))


def _answer_act(body: dict[str, Any]) -> Reply:
    found = re.search(r"\n\s*Job title\n\s*(.+)", _contents(body)[0])
    answer = found.group(1).strip() if found else ""
    return Reply.calling("act", steps=f"done {json.dumps(answer)}")


def _alice_edit(body: dict[str, Any]) -> str:
    page = _contents(body)[0]
    found = re.search(r'row: \[\d+\] link "Alice Chen" .*?\[(\d+)\] link "Edit"', page)
    if found is None:
        raise LookupError("the model was not shown Alice Chen's row")
    return f"click [{found.group(1)}]"


def capable_act_script() -> list[Callable[[dict[str, Any]], Reply]]:
    """The same task with ``act`` (the core profile), as a capable model batches it: Alice's
    Edit link from the list; her form filled, saved, checked and the list loaded again in
    one call; Bob; the answer."""
    return [
        _act(_alice_edit),
        _act(
            _line('type "Senior Software Engineer" into [{}]', "textbox", "Job title"),
            _line('select "New York" in [{}]', "combobox", "Location"),
            _line("click [{}]", "button", "Save"),
            lambda body: 'expect "Senior Software Engineer"',
            lambda body: "go to /",
        ),
        _act(_line("click [{}]", "link", "Bob Martin")),
        _answer_act,
    ]


FORM_GOAL = (
    "Book a table for Ada Lovelace (ada@example.com) on 2027-01-15 for 4 people, note "
    '"Window seat", agreeing to the terms'
)
FORM_WANT = {
    "name": "Ada Lovelace",
    "email": "ada@example.com",
    "date": "2027-01-15",
    "party": "4",
    "notes": "Window seat",
    "agreed": True,
}


def _form_fields() -> tuple[Callable[[dict[str, Any]], str], ...]:
    return (
        _line('type "Ada Lovelace" into [{}]', "textbox", "Full name"),
        _line('type "ada@example.com" into [{}]', "textbox", "Email address"),
        _line('type "2027-01-15" into [{}]', "date", "Date"),
        _line('select "4 people" in [{}]', "combobox", "Party size"),
        _line('type "Window seat" into [{}]', "textbox", "Notes"),
        _line("click [{}]", "checkbox", "I agree to the terms"),
        _line("click [{}]", "button", "Confirm"),
    )


def form_act_script() -> list[Callable[[dict[str, Any]], Reply]]:
    """The booking form with ``act``: open it; then everything, the check and done."""
    return [
        _act(_line("click [{}]", "button", "Book a table")),
        _act(*_form_fields(), lambda body: 'expect "Booking confirmed"', lambda body: "done"),
    ]


def form_tools_script() -> list[Callable[[dict[str, Any]], Reply]]:
    """The booking form with one tool a call (the full profile), batched as that allows:
    open it; every field and Confirm in one ``batch``; then ``done``."""

    def batch(body: dict[str, Any]) -> Reply:
        def ref(role: str, name: str) -> int:
            return seen_ref(body, role, name)

        fields: list[tuple[str, str, str, dict[str, Any]]] = [
            ("input", "textbox", "Full name", {"text": "Ada Lovelace"}),
            ("input", "textbox", "Email address", {"text": "ada@example.com"}),
            ("input", "date", "Date", {"text": "2027-01-15"}),
            ("select", "combobox", "Party size", {"values": ["4 people"]}),
            ("input", "textbox", "Notes", {"text": "Window seat"}),
            ("click", "checkbox", "I agree to the terms", {}),
            ("click", "button", "Confirm", {}),
        ]
        actions = [
            {"tool": tool, "arguments": {"ref": ref(role, name), **extra}}
            for tool, role, name, extra in fields
        ]
        return Reply.calling("batch", actions=actions)

    return [_call("click", "button", "Book a table"), batch, lambda body: Reply.calling("done")]


@contextmanager
def chat_model(
    live: str | None, script: Callable[[], list[Callable[[dict[str, Any]], Reply]]]
) -> Iterator[Model]:
    """The model one side runs with: ``live`` (``PROVIDER:MODEL``) as the environment
    configures it, else the openai SDK against a fresh FakeOpenAI on 127.0.0.1 answering
    as ``script`` says."""
    if live:
        yield open_model(live)
        return
    with FakeOpenAI(script(), api_key=FAKE_KEY) as fake:
        yield open_model(FAKE_MODEL, base_url=fake.base_url, api_key=FAKE_KEY)


# --- running the llm planner ----------------------------------------------------------


@dataclass(frozen=True)
class Side:
    name: str
    sent: list[int]
    schemas: list[int]
    system: list[int]
    reported: list[int | None]
    result: RunResult
    saved: bool

    @property
    def fixed(self) -> int:
        """What every request carried besides the page and the history: the system prompt
        and the tool schemas (the first request's)."""
        return self.system[0] + self.schemas[0] if self.sent else 0

    @property
    def total(self) -> int:
        """Every request's input over the task: the messages and the schemas."""
        return sum(self.sent) + sum(self.schemas)


def run_side(
    name: str,
    make_planner: Callable[[Model], ModelPlanner],
    live: str | None,
    browser: Browser,
    *,
    profile: Profile = "full",
    script: Callable[[], list[Callable[[dict[str, Any]], Reply]]] = capable_script,
) -> Side:
    """The Orbit task (Alice's new title and city, then Bob's title) with the ``profile``'s
    tools."""
    with (
        chat_model(live, script) as model,
        OrbitApp.start() as app,
        tempfile.TemporaryDirectory() as out,
    ):
        metered = Metered(model)
        agent = Agent(
            browser, make_planner(metered), out=Path(out), max_steps=STEPS, tool_profile=profile
        )
        result = agent.run(app.url, goal=LLM_GOAL)
        if agent.page is not None:
            agent.page.close()
        rows = app.query("SELECT job_title, location FROM contacts WHERE name = 'Alice Chen'")
    saved = rows == [{"job_title": "Senior Software Engineer", "location": "New York"}]
    return _side(name, metered, result, saved)


def run_form(
    name: str,
    live: str | None,
    browser: Browser,
    *,
    profile: Profile,
    script: Callable[[], list[Callable[[dict[str, Any]], Reply]]],
) -> Side:
    """The booking form (tests/pages/booking.html over HTTP on 127.0.0.1) with the
    ``profile``'s tools; saved when the page's own record of the booking is the one asked."""
    with (
        chat_model(live, script) as model,
        serve(FIXTURES) as base,
        tempfile.TemporaryDirectory() as out,
    ):
        metered = Metered(model)
        agent = Agent(
            browser, ModelPlanner(metered), out=Path(out), max_steps=6, tool_profile=profile
        )
        result = agent.run(f"{base}/booking.html", goal=FORM_GOAL)
        booked = agent.page.playwright.evaluate("window.booking") if agent.page else None
        if agent.page is not None:
            agent.page.close()
    return _side(name, metered, result, booked == FORM_WANT)


def _side(name: str, metered: Metered, result: RunResult, saved: bool) -> Side:
    return Side(
        name=name,
        sent=metered.sent,
        schemas=metered.schemas,
        system=metered.system,
        reported=metered.reported,
        result=result,
        saved=saved,
    )


# --- running the decisions planner ----------------------------------------------------


@dataclass(frozen=True)
class DecisionsStep:
    step: int
    action: str
    requests: int
    image_tokens: int | None
    """Tiles of the screenshots sent (None when live: the requests are not seen)."""
    text_tokens: int | None
    input_tokens: int
    """As the API (or the fake) reported them."""


@dataclass(frozen=True)
class DecisionsRun:
    steps: list[DecisionsStep]
    result: RunResult


def run_decisions(live: bool, browser: Browser) -> DecisionsRun:
    """The Orbit demo task with the decisions planner; a DecisionsStep a step."""
    with OrbitApp.start() as app, tempfile.TemporaryDirectory() as out:
        if live:
            result = _run_decisions(DecisionsPlanner.from_env(), app, browser, Path(out))
            sent = []
        else:
            with FakeDecisionsServer(orbit_script(), api_key=FAKE_KEY) as fake:
                planner = DecisionsPlanner.from_env(api_key=FAKE_KEY, base_url=fake.base_url)
                result = _run_decisions(planner, app, browser, Path(out))
            sent = list(fake.requests)
    steps = []
    for step in result.steps:
        raw = step.decision.raw if isinstance(step.decision.raw, dict) else {}
        count = 1 + len(raw.get("split", ()))  # a page of many badges takes rounds
        mine, sent = sent[:count], sent[count:]
        usage = step.decision.usage
        steps.append(
            DecisionsStep(
                step=step.number,
                action=step.decision.label or type(step.decision).__name__,
                requests=count,
                image_tokens=None if live else sum(image_tokens(r) for r in mine),
                text_tokens=None if live else sum(text_tokens(r) for r in mine),
                input_tokens=usage.input_tokens if usage is not None else 0,
            )
        )
    return DecisionsRun(steps=steps, result=result)


def _run_decisions(
    planner: DecisionsPlanner, app: OrbitApp, browser: Browser, out: Path
) -> RunResult:
    agent = Agent(browser, planner, max_steps=15, out=out / "run")
    result = agent.run(app.url, goal=ORBIT_GOAL)
    if agent.page is not None:
        agent.page.close()
    return result


# --- the report -----------------------------------------------------------------------


def _task_line(name: str, result: RunResult, rounds: int) -> str:
    usage = result.usage
    tokens = f"{usage.input_tokens:,} in / {usage.output_tokens:,} out" if usage else "no usage"
    cost = f"${usage.cost:.4f}" if usage is not None and usage.cost is not None else "cost n/a"
    return (
        f"{name}: {rounds} rounds, {len(result.steps)} steps, {tokens}, {cost}; "
        f"stop {result.stop_reason}, answer {result.answer!r}"
    )


def _count(tokens: int | None) -> str:
    return "-" if tokens is None else f"{tokens:,}"


def _ratio(a: int | None, b: int | None) -> str:
    return f"{a / b:.2f}" if a and b else "-"


def report(latest: Side, whole: Side, decisions: DecisionsRun, *, model: str) -> None:
    print(f"llm planner ({model}), the 10-step task:")
    for side in (latest, whole):
        print("  " + _task_line(side.name, side.result, len(side.sent)))
        print(f"    Alice saved: {side.saved}")
    rounds = sum(s.requests for s in decisions.steps)
    print("decisions planner, the Orbit demo task:")
    print("  " + _task_line("decisions", decisions.result, rounds))
    print()
    by_step = {s.step: s.input_tokens for s in decisions.steps}
    print(
        f"{'step':>4}  {'latest msgs':>11}  {'whole msgs':>10}  {'ratio':>5}  "
        f"{'+ schemas':>9}  {'latest all':>10}  {'whole all':>9}  {'ratio':>5}  "
        f"{'reported l/w':>13}  {'ratio':>5}  {'decisions':>9}"
    )
    for i in range(max(len(latest.sent), len(whole.sent), len(decisions.steps))):
        cells = [f"{i + 1:>4}"]
        if i < min(len(latest.sent), len(whole.sent)):
            lm, wm, schema = latest.sent[i], whole.sent[i], latest.schemas[i]
            lr, wr = latest.reported[i], whole.reported[i]
            reported = f"{_count(lr)}/{_count(wr)}"
            cells += [
                f"{lm:>11,}",
                f"{wm:>10,}",
                f"{lm / wm:>5.2f}",
                f"{schema:>9,}",
                f"{lm + schema:>10,}",
                f"{wm + schema:>9,}",
                f"{(lm + schema) / (wm + schema):>5.2f}",
                f"{reported:>13}",
                f"{_ratio(lr, wr):>5}",
            ]
        else:
            cells += [f"{'':>11}", f"{'':>10}", f"{'':>5}", f"{'':>9}", f"{'':>10}"]
            cells += [f"{'':>9}", f"{'':>5}", f"{'':>13}", f"{'':>5}"]
        cells.append(f"{_count(by_step.get(i + 1)):>9}")
        print("  ".join(cells).rstrip())
    print()
    if len(latest.sent) >= STEPS and len(whole.sent) >= STEPS:
        i = STEPS - 1
        messages = latest.sent[i] / whole.sent[i]
        everything = (latest.sent[i] + latest.schemas[i]) / (whole.sent[i] + whole.schemas[i])
        verdict = "met" if messages <= TARGET else "missed"
        print(
            f"step {STEPS}: latest-only sends {messages:.3f}x the whole history's message "
            f"tokens (target ≤ {TARGET}x: {verdict}); {everything:.2f}x with the tool schemas "
            f"every request carries; {_ratio(latest.reported[i], whole.reported[i])}x by the "
            "provider's count"
        )
    else:
        print(f"a side stopped before step {STEPS}: no ratio at step {STEPS}")
    print()
    print("decisions requests per step (the screenshot's tiles, the text's tokens, reported):")
    print(f"{'step':>4}  {'requests':>8}  {'tiles':>6}  {'text':>6}  {'input':>6}  action")
    for s in decisions.steps:
        tiles = "-" if s.image_tokens is None else str(s.image_tokens)
        text = "-" if s.text_tokens is None else str(s.text_tokens)
        print(
            f"{s.step:>4}  {s.requests:>8}  {tiles:>6}  {text:>6}  {s.input_tokens:>6}  "
            f"{s.action[:60]}"
        )
    total = sum(s.input_tokens for s in decisions.steps)
    per_step = total / len(decisions.steps) if decisions.steps else 0
    print(
        f"total {total:,} input tokens over {len(decisions.steps)} steps ({per_step:,.0f} a step)"
    )


FIXED_TARGET = 1_000
TASK_TARGET = 0.35
FORM_ROUNDS_TARGET = 2


def _verdict(ok: bool) -> str:
    return "met" if ok else "MISSED"


def _reported(side: Side) -> str:
    usage = side.result.usage
    return f"{usage.input_tokens:,}" if usage is not None else "-"


def report_surface(core: Side, full: Side, form_core: Side, form_full: Side) -> None:
    """What each request carries besides the page and the history, and what a whole task
    costs, with the core profile (act) beside the full one (a tool an action)."""
    print("what every request carries besides the page and the history (system + tool schemas):")
    for side in (core, full):
        print(f"  {side.name:<28} {side.fixed:>6,} tokens")
    met = _verdict(core.fixed <= FIXED_TARGET)
    print(f"  core: {core.fixed:,} (target ≤ {FIXED_TARGET:,}: {met}); full / core "
          f"{full.fixed / core.fixed:.1f}x")  # fmt: skip
    print()
    for title, sides in (
        ("the Orbit task", (core, full)),
        ("the booking form", (form_core, form_full)),
    ):
        print(f"{title}: rounds, input tokens over the task (pagesight's count / the provider's)")
        for side in sides:
            answer = side.result.answer
            print(
                f"  {side.name:<28} {len(side.sent):>2} rounds  {side.total:>7,} / "
                f"{_reported(side):>7}  stop {side.result.stop_reason}, saved {side.saved}"
                + (f", answer {answer!r}" if answer else "")
            )
    ratio = core.total / full.total
    print()
    print(f"the Orbit task with core: {ratio:.2f}x the input of full, one action a round "
          f"(target ≤ {TASK_TARGET}x: {_verdict(ratio <= TASK_TARGET)})")  # fmt: skip
    rounds = len(form_core.sent)
    print(f"the booking form with core: {rounds} rounds (target ≤ {FORM_ROUNDS_TARGET}: "
          f"{_verdict(rounds <= FORM_ROUNDS_TARGET and form_core.saved)})")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.parse_args(argv)
    live_model = os.environ.get(MODEL_ENV) or None
    live_decisions = bool(os.environ.get(DECISIONS_KEY_ENV))
    with Browser.launch() as browser:
        core = run_side(
            "core (act)", ModelPlanner, live_model, browser, profile="core",
            script=capable_act_script,
        )  # fmt: skip
        latest = run_side("latest-only", ModelPlanner, live_model, browser)
        whole = run_side("whole history", WholeHistoryPlanner, live_model, browser)
        form_core = run_form(
            "core (act)", live_model, browser, profile="core", script=form_act_script
        )
        form_full = run_form(
            "full (a tool an action)", live_model, browser, profile="full",
            script=form_tools_script,
        )  # fmt: skip
        decisions = run_decisions(live_decisions, browser)
    where = f"{live_model}, live" if live_model else f"FakeOpenAI on 127.0.0.1 as {FAKE_MODEL}"
    full = replace(latest, name="full (a tool an action)")
    report_surface(core, full, form_core, form_full)
    print()
    print("the full profile's context, latest page only beside the whole history:")
    report(latest, whole, decisions, model=where)
    print()
    fakes = [
        *([] if live_model else [f"FakeOpenAI (no {MODEL_ENV})"]),
        *([] if live_decisions else [f"FakeDecisionsServer (no {DECISIONS_KEY_ENV})"]),
    ]
    if fakes:
        print(f"ran against the fakes on 127.0.0.1: {', '.join(fakes)}")
    if live_model or live_decisions:
        live = [*([live_model] if live_model else []), *(["decisions"] if live_decisions else [])]
        print(f"ran live: {', '.join(live)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
