"""Benchmark the model planners' requests, per step: the input tokens the ``llm`` planner sends
with its latest-only context beside the same planner keeping the whole history, and the tokens
of each Decisions request (screenshot included).

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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pagesight import Agent, Browser
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
    reported: list[int | None] = field(default_factory=list)

    async def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelReply:
        self.sent.append(sum(m.tokens for m in messages))
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


@contextmanager
def chat_model(live: str | None) -> Iterator[Model]:
    """The model one side runs with: ``live`` (``PROVIDER:MODEL``) as the environment
    configures it, else the openai SDK against a fresh FakeOpenAI on 127.0.0.1."""
    if live:
        yield open_model(live)
        return
    with FakeOpenAI(capable_script(), api_key=FAKE_KEY) as fake:
        yield open_model(FAKE_MODEL, base_url=fake.base_url, api_key=FAKE_KEY)


# --- running the llm planner ----------------------------------------------------------


@dataclass(frozen=True)
class Side:
    name: str
    sent: list[int]
    schemas: list[int]
    reported: list[int | None]
    result: RunResult
    saved: bool


def run_side(
    name: str, make_planner: Callable[[Model], ModelPlanner], live: str | None, browser: Browser
) -> Side:
    with chat_model(live) as model, OrbitApp.start() as app, tempfile.TemporaryDirectory() as out:
        metered = Metered(model)
        agent = Agent(browser, make_planner(metered), out=Path(out), max_steps=STEPS)
        result = agent.run(app.url, goal=LLM_GOAL)
        if agent.page is not None:
            agent.page.close()
        rows = app.query("SELECT job_title, location FROM contacts WHERE name = 'Alice Chen'")
    saved = rows == [{"job_title": "Senior Software Engineer", "location": "New York"}]
    return Side(
        name=name,
        sent=metered.sent,
        schemas=metered.schemas,
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.parse_args(argv)
    live_model = os.environ.get(MODEL_ENV) or None
    live_decisions = bool(os.environ.get(DECISIONS_KEY_ENV))
    with Browser.launch() as browser:
        latest = run_side("latest-only", ModelPlanner, live_model, browser)
        whole = run_side("whole history", WholeHistoryPlanner, live_model, browser)
        decisions = run_decisions(live_decisions, browser)
    where = f"{live_model}, live" if live_model else f"FakeOpenAI on 127.0.0.1 as {FAKE_MODEL}"
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
