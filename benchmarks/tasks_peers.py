"""The suite's tasks through five stacks, side by side, each driven by the same reference model
(:mod:`pagesight.testing.reference`: a deterministic OpenAI-compatible server on 127.0.0.1 that
does each task's intents, read from its steps file, in the asking stack's own format).

    PYTHONPATH=src .venv/bin/python benchmarks/tasks_peers.py [--stacks a,b] [--tasks x,y]
                                                            [--show] [--no-install]

What this measures is what each stack's protocol and observations cost an *ideal* model: the
same intents, resolved by role and name in what each stack itself showed, batched by one
policy (every consecutive intent whose element is shown, up to and including one that changes
the page, as far as the stack allows in one response). Seed 003's figures came from a real
model; these do not.

Tasks: src/pagesight/eval/suites/orbit/suite.toml's ``[[tasks]]`` (``id``, ``goal``, ``start``,
``steps``, ``[[tasks.checks]]`` ``sql`` + ``equals``) when the file is there; else the demo task
(src/pagesight/demo/alice-chen.steps, checked in SQLite here). Each task runs on a fresh Orbit
(:class:`pagesight.demo.OrbitApp`, its own SQLite), and is judged by its checks alone.

No person is asked anywhere: every stack runs as ``--confirm never`` would — pagesight's Agent
with ``confirm="never"`` (its default), pagesight's MCP server with ``--confirm never``, and the
peers as they come (none gates a page action by default; agent-browser's
``--confirm-actions`` is off). So delete-contact is judged by its ``when_confirm = "never"``
checks: Kenji Mori deleted, and nobody else. Its ``confirm()`` is answered each stack's way
(peer_dialects.py): pagesight's ``use_tool`` → ``handle_dialog`` (``accept``: true) in a reply
of its own before the click (the planner takes ``act`` alone), the MCP server's
``browser_use_tool`` → ``browser_handle_dialog`` beside the ``browser_act`` of the click,
Playwright MCP's ``browser_handle_dialog`` after the click that opened it, agent-browser's
``click @eN && dialog accept``, and nothing for browser-use, which accepts every ``confirm()``
itself.

The stacks, all on Debian's Chromium (no browser download anywhere), and how each protocol
was learned — and what a round is in each (a model response; side calls counted apart):

* **pagesight** — the ``llm`` planner (:class:`pagesight.Agent`, ModelPlanner over
  ``pagesight.models``' openai provider with ``base_url``), its default ``core`` tools. Its own
  code. A round: a chat completion the planner asked for (a refused reply asked again too).
  The Agent opens the start page itself.
* **pagesight MCP** — ``python -m pagesight mcp`` through the MCP SDK client, in a minimal tool
  loop (tools/list as the chat API's tools, the server's instructions in the system prompt,
  each tool call run through the session, the loop ends on an answer in words). A round: a
  chat completion. The model opens the start page (``browser_navigate``).
* **Playwright MCP** — ``@playwright/mcp`` (benchmarks/node_modules) in the same loop. Learned
  from its replies (benchmarks/mcp_servers.py ``--show``): actions link the snapshot in a
  file, ``browser_snapshot`` shows it, refs are ``target``. Several tool calls in a response
  (the chat API's parallel calls, run in order); ``browser_wait_for`` checks text.
* **agent-browser** — its CLI (npm, 0.41.x, native) in a one-tool shell loop; the system prompt
  is its own core skill (``agent-browser skills get core``, the text its SKILL.md stub tells
  agents to load). A round: a chat completion; an ``&&`` chain is one. Its browser is Debian's
  Chromium (``AGENT_BROWSER_EXECUTABLE_PATH``), its session named by the loop's environment.
* **browser-use** — 0.13.x from PyPI in its own venv (benchmarks/.venv-browser-use, made here),
  its ``Agent`` with its ``ChatOpenAI`` at the reference server, ``use_vision=False``, its
  BrowserProfile on /usr/bin/chromium. Its protocol was learned by capturing a real request:
  structured output (``response_format``: JSON schema of its AgentOutput, an ``action`` list)
  over a ``<browser_state>`` element list in the user message. A round: an agent step's
  completion; its judge's completion is counted apart.

Per task and stack: success (the checks; else why not), rounds, input tokens (schemas: tools
or response format; messages: everything else, cl100k, summed over the rounds), wall time
(from starting the stack — its browser, its server or its daemon — to its last response;
closing it is not counted, except in browser-use's, which is its ``Agent.run``: that closes its
browser and asks its judge). Then totals, pagesight's ratios to each peer against the targets
(≤ 0.8x rounds, ≤ 0.5x input tokens, every task; pagesight's own MCP server is shown beside,
not a target), and, where one of the two failed a task, the ratios on the tasks both did (a
stack that stops early spends less than doing the task would have). A failure is said in the
model's words, and, where it was looked into by hand, what was found behind it (``DIAGNOSED``).
A measurement: it exits 0 whatever the figures.

**Where pagesight's wall time goes**, where a peer is faster (agent-browser, a Rust CLI talking
CDP to Chromium through a daemon, did each task but reassign-deals in 1.5-3.3 s where pagesight
took 3.4-8.6 s, 29.8 s against 52.6 s over the suite, at load average ~9-15 on 2 cores). Timed
on bob-message (3 rounds, 6 actions, 4 page loads) with every stage wrapped, twice, at load
average ~12 on 2 cores: 5.4-6.6 s in all, of which

* launching, 1.0-2.1 s: Playwright's driver (a node process) 0.7-1.6 s, Chromium itself
  0.2-0.3 s — agent-browser has no driver; and, outside this benchmark's clock (it runs
  pagesight in-process), a ``pagesight`` command's interpreter start and imports, 0.9-3.3 s;
* readiness after loads: 0.3 s of quiet a page load at the least (``HOOKED_NETWORK_QUIET_S``,
  with ``DOM_QUIET_MS`` alongside), so the start page's open 0.4-0.5 s and 0.9 s for the three
  pages the actions led to; the settle after the other actions 0.4-0.6 s in all;
* the actions themselves, with the DOM walk before and after each (13 walks, 0.18 s), 0.5 s;
* model round trips 0.4-0.5 s (the reference model on 127.0.0.1: the same for every stack);
* the first observation 0.4 s, screenshots 0.1 s, the run's record 0.02 s.

agent-browser waits for none of that: ``wait --load load`` returns at the load event, and its
snapshot reads whatever is there then. That is what "ready" costs, and it is not cut here.
What would cut the rest without making "ready" less true: (1) start Playwright's driver while
Chromium starts (they are independent until the CDP connection: ``asyncio.gather`` in
``AsyncBrowser.launch``), which saves the shorter of the two, 0.2-0.3 s a launch — on a loaded
machine, where both are CPU-bound, it saved nothing measurable (2.65 s together against 2.6 s
one after the other at load ~30); (2) keep a browser warm between runs, as the MCP server
already does and as agent-browser's daemon does, which takes the launch (1-2 s) off every run
after the first — a ``pagesight`` daemon for the CLI, a product decision; (3) in a batch, take
an action's walk after it as the next action's walk before it when the page reports no DOM
mutation in between (the init script counts them), half the walks, about 0.1 s a task here.
Shortening the quiet windows would make pages read "ready" that are still rendering or still
fetching what they show: Orbit's pages are served whole, so these tasks would not show the
difference, which is why it is not measured by them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from openai import AsyncOpenAI

from pagesight import Agent, Browser
from pagesight.demo import OrbitApp
from pagesight.models import open_model
from pagesight.planners.llm.planner import ModelPlanner
from pagesight.testing.reference import (
    ActDialect,
    Conversation,
    Dialect,
    Intent,
    McpActDialect,
    ReferenceModel,
    read_intents,
    request_tokens,
)

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SUITE = ROOT / "src" / "pagesight" / "eval" / "suites" / "orbit" / "suite.toml"
DEMO_STEPS = ROOT / "src" / "pagesight" / "demo" / "alice-chen.steps"
KEY = "reference"
MAX_ROUNDS = 30
TARGET_ROUNDS, TARGET_TOKENS = 0.8, 0.5


@dataclass(frozen=True, kw_only=True)
class Check:
    sql: str
    equals: Any


@dataclass(frozen=True, kw_only=True)
class Task:
    id: str
    goal: str
    start: str
    intents: tuple[Intent, ...]
    checks: tuple[Check, ...]
    max_rounds: int = MAX_ROUNDS


def load_tasks() -> list[Task]:
    """The suite's tasks, or the demo task while the suite is not there."""
    if not SUITE.is_file():
        return [
            Task(
                id="alice-chen",
                goal="Alice Chen: job title Senior Software Engineer, location New York",
                start="/",
                intents=read_intents(DEMO_STEPS.read_text(encoding="utf-8")),
                checks=(
                    Check(
                        sql="SELECT job_title, location FROM contacts WHERE name = 'Alice Chen'",
                        equals=[["Senior Software Engineer", "New York"]],
                    ),
                ),
            )
        ]
    suite = tomllib.loads(SUITE.read_text(encoding="utf-8"))
    tasks = []
    for entry in suite.get("tasks", []):
        steps = (SUITE.parent / entry["steps"]).read_text(encoding="utf-8")
        try:
            intents = read_intents(steps)
        except ValueError as exc:  # a step the reference model does not drive yet: said
            print(f"task {entry['id']} not run: {exc}", file=sys.stderr)
            continue
        # The SQL checks of a run that asks no person (--confirm never, as every stack here
        # runs); the others (a stop reason, an answer) are the eval's.
        checks = tuple(
            Check(sql=c["sql"], equals=c["equals"])
            for c in entry.get("checks", [])
            if "sql" in c and c.get("when_confirm", "never") == "never"
        )
        tasks.append(
            Task(
                id=entry["id"],
                goal=entry["goal"],
                start=entry.get("start", "/"),
                intents=intents,
                checks=checks,
                max_rounds=int(entry.get("max_steps", MAX_ROUNDS)) + 5,
            )
        )
    return tasks


def judge(app: OrbitApp, checks: tuple[Check, ...]) -> str:
    """Why the task is not done by its checks ("" when it is)."""
    for check in checks:
        rows = app.query(check.sql)
        values = [list(r.values()) for r in rows]
        flat = [v for row in values for v in row]
        candidates = [rows, values, flat, flat[0] if len(flat) == 1 else None]
        wanted = check.equals
        if not any(_same(wanted, c) for c in candidates):
            return f"{check.sql} gave {values}, not {wanted}"
    return ""


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, default=str, sort_keys=True) == json.dumps(b, default=str, sort_keys=True)


# --- an outcome ----------------------------------------------------------------------------


@dataclass(kw_only=True)
class Outcome:
    stack: str
    task: str
    ok: bool = False
    why: str = ""
    rounds: int = 0
    schema_tokens: int = 0
    message_tokens: int = 0
    seconds: float = 0.0
    aside_rounds: int = 0
    aside_tokens: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def tokens(self) -> int:
        return self.schema_tokens + self.message_tokens


def tally(outcome: Outcome, talk: Conversation) -> None:
    outcome.rounds = talk.rounds
    for body in talk.requests:
        schemas, messages = request_tokens(body)
        outcome.schema_tokens += schemas
        outcome.message_tokens += messages
    outcome.aside_rounds = len(talk.asides)
    outcome.aside_tokens = sum(sum(request_tokens(b)) for b in talk.asides)
    if talk.refusal and not outcome.why:
        outcome.why = f"the model refused: {talk.refusal}"


# --- the stacks ------------------------------------------------------------------------------

Runner = Callable[[Task, ReferenceModel, OrbitApp, Outcome], Awaitable[None]]


async def run_pagesight(task: Task, reference: ReferenceModel, app: OrbitApp, out: Outcome) -> None:
    talk = reference.conversation(task.intents, ActDialect())
    model = open_model("openai:gpt-4.1-mini", base_url=talk.base_url, api_key=KEY)

    def run() -> str:
        t0 = time.perf_counter()
        with tempfile.TemporaryDirectory() as folder, Browser.launch() as browser:
            agent = Agent(browser, ModelPlanner(model), out=Path(folder), max_steps=task.max_rounds)
            result = agent.run(start_url(task, app), goal=task.goal)
            # To its last response, as the others: closing the browser is not counted.
            out.seconds = time.perf_counter() - t0
            return f"{result.stop_reason}: {result.message or ''}".strip(": ")

    stopped = await asyncio.to_thread(run)
    out.extra["stop"] = stopped
    tally(out, talk)
    if not talk.finished and not out.why:
        out.why = f"the run stopped: {stopped}"


# --- a minimal tool loop, for the MCP servers and the shell ------------------------------------

Call = Callable[[str, dict[str, Any]], Awaitable[str]]


async def tool_loop(
    talk: Conversation,
    tools: list[dict[str, Any]],
    call: Call,
    *,
    system: str,
    user: str,
    limit: int,
) -> str | None:
    """Chat completions with ``tools`` until the model answers in words (returned), each tool
    call run by ``call`` in order; None when ``limit`` rounds pass first."""
    client = AsyncOpenAI(base_url=talk.base_url, api_key=KEY, max_retries=0)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": system},
        {"role": "user", "content": user},
    ]
    async with client:
        for _ in range(limit):
            reply = await client.chat.completions.create(
                model="reference",
                messages=messages,  # type: ignore[arg-type]  # (plain dicts, as JSON goes)
                tools=tools,  # type: ignore[arg-type]
            )
            said = reply.choices[0].message
            messages.append(said.model_dump(exclude_none=True, exclude={"refusal"}))
            if not said.tool_calls:
                return said.content or ""
            for tool_call in said.tool_calls:
                function = getattr(tool_call, "function", None)
                if function is None:
                    continue
                text = await call(function.name, json.loads(function.arguments or "{}"))
                messages.append({"role": "tool", "tool_call_id": tool_call.id, "content": text})
    return None


def mcp_tools(listing: Any) -> list[dict[str, Any]]:
    """An MCP tools/list as the chat API's tools."""
    return [
        {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description or "",
                "parameters": tool.input_schema,
            },
        }
        for tool in listing.tools
    ]


def start_url(task: Task, app: OrbitApp) -> str:
    return app.url.rstrip("/") + task.start


def opening(task: Task, app: OrbitApp) -> tuple[Intent, ...]:
    """Where a stack whose model opens the start page itself begins: one more intent."""
    url = start_url(task, app)
    return (Intent(kind="go_to", text=f"go to {url}", value=url),)


def no_person_pagesight() -> type[Any]:
    import mcp_servers

    class NoPerson(mcp_servers.Pagesight):
        """pagesight's MCP server with ``--confirm never``: no stack here has a person to
        ask, and its default (``risky``) would stop at "Send message" for one, where the
        llm planner's Agent (``confirm="never"`` by default) and the peers go on."""

        def params(self) -> Any:
            params = super().params()
            return params.model_copy(update={"args": [*params.args, "--confirm", "never"]})

    return NoPerson


MCP_SYSTEM = (
    "You control a web browser through the tools to do the user's task. When it is done, "
    "say so in words."
)


async def run_mcp(
    task: Task, reference: ReferenceModel, app: OrbitApp, out: Outcome, *, playwright: bool
) -> None:
    from mcp.client import Client
    from mcp.client.stdio import stdio_client

    import mcp_servers
    from peer_dialects import PlaywrightDialect

    dialect: Dialect = PlaywrightDialect() if playwright else McpActDialect()
    talk = reference.conversation(opening(task, app) + task.intents, dialect)
    with tempfile.TemporaryDirectory(prefix="pagesight-peers-") as folder:
        side: mcp_servers.Side = (
            mcp_servers.Playwright(Path(folder))
            if playwright
            else no_person_pagesight()(Path(folder))
        )
        log = Path(folder) / "server.log"
        t0 = time.perf_counter()
        with log.open("w", encoding="utf-8") as errlog:
            async with Client(stdio_client(side.params(), errlog=errlog)) as client:
                tools = mcp_tools(await client.list_tools())
                system = MCP_SYSTEM
                if client.instructions:
                    system += "\n\n" + client.instructions

                async def call(name: str, args: dict[str, Any]) -> str:
                    result = await client.call_tool(
                        name, args, read_timeout_seconds=mcp_servers.CALL_TIMEOUT_S
                    )
                    text = "\n".join(b.text for b in result.content if b.type == "text")
                    return f"Error: {text}" if result.is_error else text

                user = f"{task.goal}\nStart at {start_url(task, app)}"
                final = await tool_loop(
                    talk, tools, call, system=system, user=user, limit=task.max_rounds
                )
                out.seconds = time.perf_counter() - t0  # (closing the server is not counted)
    tally(out, talk)
    if final is None and not out.why:
        out.why = f"no answer in {task.max_rounds} rounds"


SHELL_TOOL = {
    "type": "function",
    "function": {
        "name": "shell",
        "description": "Run a command line in bash; answers with its output.",
        "parameters": {
            "type": "object",
            "properties": {"command": {"type": "string", "description": "The command line."}},
            "required": ["command"],
        },
    },
}


async def run_agent_browser(
    task: Task, reference: ReferenceModel, app: OrbitApp, out: Outcome
) -> None:
    import agentbrowser
    from chromium import CHROMIUM
    from peer_dialects import AgentBrowserDialect

    binary, why = agentbrowser.find(allow_install=True)
    if binary is None:
        raise RuntimeError(f"agent-browser: {why}")
    talk = reference.conversation(opening(task, app) + task.intents, AgentBrowserDialect())
    with tempfile.TemporaryDirectory(prefix="pagesight-peers-ab-") as folder:
        (Path(folder) / "agent-browser").symlink_to(binary)
        env = {
            **os.environ,
            "PATH": f"{folder}{os.pathsep}{os.environ.get('PATH', '')}",
            # The loop's own session (the skill: never the shared default one), on Debian's
            # Chromium, without its version check (a request off this machine).
            "AGENT_BROWSER_SESSION": f"peers-{os.getpid()}-{talk.key}",
            "AGENT_BROWSER_EXECUTABLE_PATH": CHROMIUM,
            "AGENT_BROWSER_NO_VERSION_CHECK": "1",
        }
        skill = await shell("agent-browser skills get core", env, folder)

        async def call(name: str, args: dict[str, Any]) -> str:
            if name != "shell":
                return f"Error: no tool {name}"
            return await shell(str(args.get("command", "")), env, folder)

        t0 = time.perf_counter()
        try:
            final = await tool_loop(
                talk,
                [SHELL_TOOL],
                call,
                system=skill,
                user=f"{task.goal}\nStart at {start_url(task, app)}",
                limit=task.max_rounds,
            )
            out.seconds = time.perf_counter() - t0
        finally:
            await shell("agent-browser close", env, folder)
    tally(out, talk)
    if final is None and not out.why:
        out.why = f"no answer in {task.max_rounds} rounds"


async def shell(command: str, env: dict[str, str], cwd: str) -> str:
    """A command line's output (and its exit status, when not 0)."""
    proc = await asyncio.create_subprocess_exec(
        "bash",
        "-c",
        command,
        env=env,
        cwd=cwd,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    output, _ = await asyncio.wait_for(proc.communicate(), timeout=120)
    text = output.decode("utf-8", "replace")
    return text if proc.returncode == 0 else f"exit status {proc.returncode}\n{text}"


BROWSER_USE_VERSION = "0.13.14"
BROWSER_USE_VENV = HERE / ".venv-browser-use"


def browser_use_python(allow_install: bool) -> Path:
    """The python of browser-use's own venv (its pins are not ours), made on first use."""
    python = BROWSER_USE_VENV / "bin" / "python"
    if python.is_file():
        return python
    if not allow_install:
        raise RuntimeError("browser-use's venv is not there and --no-install given")
    subprocess.run([sys.executable, "-m", "venv", str(BROWSER_USE_VENV)], check=True)
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", f"browser-use=={BROWSER_USE_VERSION}"],
        check=True,
        timeout=1800,
    )
    return python


async def run_browser_use(
    task: Task, reference: ReferenceModel, app: OrbitApp, out: Outcome
) -> None:
    from chromium import CHROMIUM
    from peer_dialects import BrowserUseDialect

    python = browser_use_python(allow_install=not NO_INSTALL)
    # Its Agent opens a URL the task names before its first step (directly_open_url).
    talk = reference.conversation(task.intents, BrowserUseDialect())
    command = [str(python), str(HERE / "browseruse_run.py"), "--base-url", talk.base_url]
    command += ["--task", f"{task.goal}\nStart at {start_url(task, app)}"]
    command += ["--chromium", CHROMIUM, "--max-steps", str(task.max_rounds)]
    proc = await asyncio.create_subprocess_exec(
        *command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    stdout, stderr = await asyncio.wait_for(proc.communicate(), timeout=280)
    lines = stdout.decode("utf-8", "replace").strip().splitlines()
    try:
        ran = json.loads(lines[-1])
    except (IndexError, ValueError):
        tail = stderr.decode("utf-8", "replace").strip().splitlines()[-5:]
        raise RuntimeError(f"browser-use did not finish: {' | '.join(tail)[:300]}") from None
    out.seconds = float(ran.get("seconds", 0.0))
    out.extra["browser-use"] = ran
    tally(out, talk)
    if not ran.get("done") and not out.why:
        out.why = f"browser-use did not finish: {ran.get('errors')}"[:300]


# --- the runs ----------------------------------------------------------------------------


DIAGNOSED: dict[tuple[str, str], str] = {
    ("agent-browser", "reassign-deals"): (
        "agent-browser's click aims at the centre of the element's bounding box. A deal's "
        "title link wraps onto two lines in its card on the board, so that centre lies between "
        "the lines, beside the link's text: the events land on the <h3> around it (pointerdown, "
        "mousedown, mouseup, click, all on H3), the command says '✓ Done', and the page stays "
        "where it was. Snapshotted again, the board is unchanged, so the model stops. "
        "pagesight hit-tests the point it clicks (the element must be the one there), and "
        "Playwright MCP's click aims inside the link's own boxes: both open the deal."
    ),
}
"""What was found behind a peer's failure, by hand (shown when that failure happens)."""

OWN = frozenset({"pagesight-mcp"})
"""pagesight's own stacks besides the llm planner: in the table, not among the peers."""

STACKS: dict[str, Runner] = {
    "pagesight": run_pagesight,
    "pagesight-mcp": lambda t, r, a, o: run_mcp(t, r, a, o, playwright=False),
    "playwright-mcp": lambda t, r, a, o: run_mcp(t, r, a, o, playwright=True),
    "agent-browser": run_agent_browser,
    "browser-use": run_browser_use,
}
NO_INSTALL = False


async def run_one(stack: str, task: Task, reference: ReferenceModel) -> Outcome:
    out = Outcome(stack=stack, task=task.id)
    with OrbitApp.start() as app:
        try:
            await asyncio.wait_for(STACKS[stack](task, reference, app, out), timeout=300)
        except Exception as exc:  # noqa: BLE001 - reported in the table; the others still run
            out.why = out.why or f"{type(exc).__name__}: {exc}"[:300]
        failed = judge(app, task.checks)
    out.ok = not failed
    if failed and not out.why:
        out.why = failed
    return out


def show_table(outcomes: list[Outcome], stacks: list[str], tasks: list[Task]) -> None:
    print(
        f"\n{'task':24}{'stack':16}{'ok':>4}{'rounds':>8}{'schemas':>9}{'messages':>10}"
        f"{'input':>8}{'wall':>8}  why not"
    )
    for o in outcomes:
        why = "" if o.ok else o.why[:90]
        aside = f" (+{o.aside_rounds} judge, {o.aside_tokens} tok)" if o.aside_rounds else ""
        print(
            f"{o.task[:23]:24}{o.stack:16}{'yes' if o.ok else 'NO':>4}{o.rounds:>8}"
            f"{o.schema_tokens:>9}{o.message_tokens:>10}{o.tokens:>8}{o.seconds:>7.1f}s  "
            f"{why}{aside}"
        )
    failed = [o for o in outcomes if not o.ok]
    if failed:
        print("\nwhy each failure (the model's words, then what was found behind them):")
    for o in failed:
        print(f"  {o.task} / {o.stack}: {' '.join(o.why.split())}")
        if (diagnosis := DIAGNOSED.get((o.stack, o.task))) is not None:
            print(f"    {diagnosis}")
    print(f"\ntotals over {len(tasks)} task(s)")
    totals: dict[str, dict[str, float]] = {}
    for stack in stacks:
        mine = [o for o in outcomes if o.stack == stack]
        totals[stack] = {
            "ok": sum(o.ok for o in mine),
            "rounds": sum(o.rounds for o in mine),
            "schemas": sum(o.schema_tokens for o in mine),
            "messages": sum(o.message_tokens for o in mine),
            "tokens": sum(o.tokens for o in mine),
            "seconds": sum(o.seconds for o in mine),
        }
        t = totals[stack]
        print(
            f"  {stack:16}{int(t['ok'])}/{len(mine)} done, {int(t['rounds'])} rounds, "
            f"{int(t['tokens'])} input tokens ({int(t['schemas'])} schemas + "
            f"{int(t['messages'])} messages), {t['seconds']:.1f}s"
        )
    if "pagesight" not in totals:
        return
    ours = totals["pagesight"]
    print("\npagesight / peer (targets: rounds ≤ 0.8x, input tokens ≤ 0.5x, every task done)")
    for stack in stacks:
        if stack == "pagesight":
            continue
        peer = totals[stack]
        own = stack in OWN
        rounds = ours["rounds"] / peer["rounds"] if peer["rounds"] else float("nan")
        tokens = ours["tokens"] / peer["tokens"] if peer["tokens"] else float("nan")
        wall = ours["seconds"] / peer["seconds"] if peer["seconds"] else float("nan")
        met_rounds = "met" if rounds <= TARGET_ROUNDS else "MISSED"
        met_tokens = "met" if tokens <= TARGET_TOKENS else "MISSED"
        if own:  # pagesight's own server: shown, not a target
            met_rounds = met_tokens = "pagesight's own MCP server: no target"
        print(
            f"  vs {stack:16} rounds {rounds:.2f}x ({met_rounds}), input tokens "
            f"{tokens:.2f}x ({met_tokens}), wall {wall:.2f}x"
        )
        # A peer that stopped early spent less on that task than doing it would have.
        both = {o.task for o in outcomes if o.ok} - {
            o.task for o in outcomes if not o.ok and o.stack in ("pagesight", stack)
        }
        if len(both) < len(tasks):
            mine = [o for o in outcomes if o.task in both and o.stack == "pagesight"]
            theirs = [o for o in outcomes if o.task in both and o.stack == stack]
            r = sum(o.rounds for o in mine) / max(sum(o.rounds for o in theirs), 1)
            tk = sum(o.tokens for o in mine) / max(sum(o.tokens for o in theirs), 1)
            print(f"  {'':19} on the {len(both)} tasks both did: rounds {r:.2f}x, tokens {tk:.2f}x")
    done = int(ours["ok"])
    print(
        f"  pagesight did {done}/{len(tasks)} tasks ({'met' if done == len(tasks) else 'MISSED'})"
    )


async def main(options: argparse.Namespace) -> int:
    tasks = load_tasks()
    if options.tasks:
        tasks = [t for t in tasks if t.id in options.tasks]
    stacks = options.stacks
    outcomes = []
    with ReferenceModel() as reference:
        for task in tasks:
            for stack in stacks:
                outcome = await run_one(stack, task, reference)
                mark = "done" if outcome.ok else f"FAILED ({outcome.why[:120]})"
                print(f"{task.id} / {stack}: {mark}", file=sys.stderr, flush=True)
                outcomes.append(outcome)
        if options.show:
            for talk in reference.conversations.values():
                print(f"\n== {talk.dialect.name}: {talk.rounds} rounds")
                for plan in talk.plans:
                    print("  ", plan)
    show_table(outcomes, stacks, tasks)
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--stacks",
        type=lambda text: text.split(","),
        default=list(STACKS),
        help=f"comma-separated, of {','.join(STACKS)} (default: all)",
    )
    parser.add_argument("--tasks", type=lambda text: text.split(","), default=None)
    parser.add_argument("--show", action="store_true", help="print every plan the model made")
    parser.add_argument("--no-install", action="store_true", help="never install a peer")
    options = parser.parse_args()
    NO_INSTALL = options.no_install
    if unknown := [s for s in options.stacks if s not in STACKS]:
        parser.error(f"no stack {', '.join(unknown)}; stacks: {', '.join(STACKS)}")
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(asyncio.run(main(options)))
