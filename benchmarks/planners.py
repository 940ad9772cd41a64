"""Benchmark the model planners' requests: the input tokens the ``llm`` planner sends per step
with its latest-only context, beside the same planner keeping the whole history.

    PYTHONPATH=src .venv/bin/python benchmarks/planners.py

A 10-step task on Orbit CRM (the bundled app, SQLite, 127.0.0.1) in real Chromium: find Alice
Chen, open her, edit, type her new title, pick her new location, save, back to the list, find
Bob Martin, open him, and answer his job title with ``done``. The model is any
:class:`~pagesight.agent.Model`; by default a scripted one that answers as a capable model
would, reading every id off the messages it was sent (so it can only act on what the
context shows). The task runs twice:

* **latest-only**: :class:`~pagesight.agent.ModelPlanner` as shipped — one whole page in the
  context, the change after an action when smaller, older pages collapsed to their action
  and effect;
* **whole history**: the same planner whose context keeps every message as it was sent and
  is shown the whole page after every action (what a tool-calling loop that appends
  everything sends).

Per step it prints the input tokens of each request (cl100k, counted as the context counts
them: the messages, then the tools' schemas, which every request also carries), the
provider's own count when the model reports usage, and the ratio; the target is ≤ 0.3x at
step 10. The ``decisions`` column is where the Decisions planner's request tokens
(screenshot included) go once that planner exists (:func:`decisions_request_tokens`).

A measurement: it prints figures and ratios against the target and exits 0 whatever they say.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pagesight import Agent, Browser
from pagesight.agent import Message, ModelPlanner, ModelReply, ScriptedModel, ToolSpec
from pagesight.agent.context import Context
from pagesight.agent.model import Model
from pagesight.demo import OrbitApp
from pagesight.observe.tokens import count_tokens

STEPS = 10
TARGET = 0.3


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


# --- the scripted capable model -------------------------------------------------------


def seen_ref(messages: Sequence[Message], role: str, name: str) -> int:
    """The id of ``role "name"`` in the newest message that shows it."""
    pattern = re.compile(rf'\[(\d+)\] {role} "{re.escape(name)}"')
    for message in reversed(messages):
        found = pattern.findall(message.content)
        if found:
            return int(found[-1])
    raise LookupError(f'the model was not shown {role} "{name}"')


def _call(tool: str, role: str, name: str, **arguments: object) -> Callable[..., ModelReply]:
    return lambda m: ModelReply.calling(tool, ref=seen_ref(m, role, name), **arguments)


def _answer(messages: Sequence[Message]) -> ModelReply:
    found = re.search(r"\n\s*Job title\n\s*(.+)", messages[-1].content)
    return ModelReply.calling("done", answer=found.group(1).strip() if found else None)


def capable_script() -> ScriptedModel:
    """The ten decisions of the task, each reading its id off what the model was shown."""
    return ScriptedModel(
        [
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
    )


def decisions_request_tokens(step: int) -> int | None:
    """The Decisions planner's request tokens at ``step`` (goal, last action, the 1280x800
    screenshot): filled in once that planner is built (issue 12 §3); ``None`` until then."""
    return None


# --- running ------------------------------------------------------------------------


@dataclass(frozen=True)
class Side:
    name: str
    sent: list[int]
    schemas: list[int]
    reported: list[int | None]
    stop_reason: str
    answer: str | None
    saved: bool


def run_side(
    name: str, make_planner: Callable[[Model], ModelPlanner], model: Model, browser: Browser
) -> Side:
    metered = Metered(model)
    with OrbitApp.start() as app, tempfile.TemporaryDirectory() as out:
        agent = Agent(browser, make_planner(metered), out=Path(out), max_steps=STEPS)
        result = agent.run(
            app.url,
            goal="Alice Chen: Senior Software Engineer in New York; "
            "then: what is Bob Martin's job title?",
        )
        if agent.page is not None:
            agent.page.close()
        rows = app.query("SELECT job_title, location FROM contacts WHERE name = 'Alice Chen'")
    saved = rows == [{"job_title": "Senior Software Engineer", "location": "New York"}]
    return Side(
        name=name,
        sent=metered.sent,
        schemas=metered.schemas,
        reported=metered.reported,
        stop_reason=result.stop_reason,
        answer=result.answer,
        saved=saved,
    )


def report(latest: Side, whole: Side) -> None:
    for side in (latest, whole):
        print(
            f"{side.name}: {len(side.sent)} requests, stop {side.stop_reason}, "
            f"answer {side.answer!r}, Alice saved: {side.saved}"
        )
    print()
    print(
        f"{'step':>4}  {'latest msgs':>11}  {'whole msgs':>10}  {'ratio':>5}  "
        f"{'+ schemas':>9}  {'latest all':>10}  {'whole all':>9}  {'ratio':>5}  "
        f"{'reported l/w':>13}  {'decisions':>9}"
    )
    for i in range(min(len(latest.sent), len(whole.sent))):
        lm, wm, schema = latest.sent[i], whole.sent[i], latest.schemas[i]
        reported = f"{latest.reported[i] or '-'}/{whole.reported[i] or '-'}"
        decisions = decisions_request_tokens(i + 1)
        print(
            f"{i + 1:>4}  {lm:>11,}  {wm:>10,}  {lm / wm:>5.2f}  {schema:>9,}  "
            f"{lm + schema:>10,}  {wm + schema:>9,}  {(lm + schema) / (wm + schema):>5.2f}  "
            f"{reported:>13}  {decisions if decisions is not None else '-':>9}"
        )
    if len(latest.sent) >= STEPS and len(whole.sent) >= STEPS:
        i = STEPS - 1
        messages = latest.sent[i] / whole.sent[i]
        everything = (latest.sent[i] + latest.schemas[i]) / (whole.sent[i] + whole.schemas[i])
        verdict = "met" if messages <= TARGET else "missed"
        print()
        print(
            f"step {STEPS}: latest-only sends {messages:.3f}x the whole history's message "
            f"tokens (target ≤ {TARGET}x: {verdict}); {everything:.2f}x with the tool schemas "
            "every request carries"
        )
    else:
        print(f"\na side stopped before step {STEPS}: no ratio at step {STEPS}")


def main(argv: list[str] | None = None, *, model: Callable[[], Model] | None = None) -> int:
    """``model``: makes the Model each side runs with (default: the scripted capable one);
    a real endpoint plugs in here."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.parse_args(argv)
    make_model = model or capable_script
    with Browser.launch() as browser:
        latest = run_side("latest-only", ModelPlanner, make_model(), browser)
        whole = run_side("whole history", WholeHistoryPlanner, make_model(), browser)
    report(latest, whole)
    return 0


if __name__ == "__main__":
    sys.exit(main())
