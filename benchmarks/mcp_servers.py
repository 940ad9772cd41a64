"""Benchmark pagesight's MCP server against Playwright's own on the demo task, each server
driven by the official MCP SDK's client over stdio. (Not named mcp.py: run as a script, or
type-checked with benchmarks/ as a source root, that file would shadow the SDK, `mcp`.)

    .venv/bin/python benchmarks/mcp_servers.py [--runs N] [--show [LINES]] [--no-install]
                                               [--playwright-reads file|snapshot|find]
                                               [--fill-form]

In one run, each time on a fresh Orbit CRM (the bundled app, SQLite, 127.0.0.1), in turns:

* **pagesight**: ``python -m pagesight mcp`` (this tree's source);
* **Playwright MCP**: ``@playwright/mcp`` (``PLAYWRIGHT_MCP_VERSION``, installed with npm into
  benchmarks/node_modules, no browser download) on the same Debian Chromium, headless, with
  an in-memory profile, the same page size and the same quiet flags as pagesight's.

Both get the same script of intents, the demo's task (find Alice Chen, open her contact, edit,
type the job title, choose the location, save, confirm both): navigate, then each intent's
element (a role and a name) is looked up in what that server itself returned — its latest
response first, then what the model read earlier on the same document — and acted on by that
server's own ref. Only when the element is in nothing the model has read does it read the page:
Playwright MCP's action responses link the snapshot in a file (read as a model's client reads
a file: one call, its text counted; ``--playwright-reads snapshot``: ``browser_snapshot``
instead, as for a client with no file tool; ``find``: ``browser_find`` for the element's name,
which its docs call cheaper than a snapshot), else ``browser_snapshot``; pagesight's actions
return the change inline, else ``browser_snapshot``. The confirmation is read the same way, from
what came back after Save.

Reported per server (medians): tool calls (MCP calls and snapshot-file reads), characters and
cl100k tokens of all the text the tools returned (images counted apart; the task needs none),
wall time from spawning the server to the confirmed page (and of it: the start to the MCP
handshake, and the first call, which starts the browser), and whether SQLite holds both changes.
Then pagesight / Playwright ratios and the targets: total tokens ≤ 0.5x, tool calls ≤ 1.0x; and
an estimate of a model's input over the task, since every call is one more model request that
carries the tools' schemas and every reply before it.

A measurement: it exits 1 only when a server did not save the right state (or could not run).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TextIO

from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_types import CallToolResult

import tokens
from chromium import CHROMIUM
from pagesight.browser.launch import QUIET_FLAGS
from pagesight.browser.viewport import DEFAULT_VIEWPORT
from pagesight.demo import OrbitApp

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PLAYWRIGHT_MCP_VERSION = "0.0.83"
PLAYWRIGHT_CLI = HERE / "node_modules" / "@playwright" / "mcp" / "cli.js"
TITLE, CITY = "Senior Software Engineer", "New York"
WANT = [{"job_title": TITLE, "location": CITY}]
RUN_TIMEOUT_S = 180
CALL_TIMEOUT_S = 90


@dataclass(frozen=True, kw_only=True)
class Intent:
    """One step of the script: act on the element with this role and name."""

    action: Literal["type", "click", "select"]
    role: str
    name: str
    value: str = ""


# The demo task (src/pagesight/demo/alice-chen.steps), after navigating to the app.
SCRIPT = (
    Intent(action="type", role="searchbox", name="Search contacts", value="Alice Chen"),
    Intent(action="click", role="link", name="Alice Chen"),
    Intent(action="click", role="link", name="Edit"),
    Intent(action="type", role="textbox", name="Job title", value=TITLE),
    Intent(action="select", role="combobox", name="Location", value=CITY),
    Intent(action="click", role="button", name="Save"),
)
CONFIRM = (TITLE, CITY)
FORM = (SCRIPT[3], SCRIPT[4])  # --fill-form: title and location in one browser_fill_form
TOOLS = {"type": "browser_type", "click": "browser_click", "select": "browser_select_option"}
READS = {
    "file": "reads the snapshot files",
    "snapshot": "calls browser_snapshot",
    "find": "calls browser_find for each element",
}


@dataclass(frozen=True, kw_only=True)
class Reply:
    tool: str
    text: str
    chars: int
    tokens: int
    images: int
    ms: float
    error: bool


@dataclass(kw_only=True)
class Tally:
    """One server's run of the task."""

    replies: list[Reply] = field(default_factory=list)
    seconds: float = 0.0
    startup_seconds: float = 0.0
    saved: bool = False
    failure: str = ""
    raised: bool = False  # the failure is an exception (the server's stderr may say more)
    schema_tokens: int = 0

    def count(self, what: str) -> int:
        if what == "calls":
            return sum(r.tool != "read file" for r in self.replies)
        if what == "reads":
            return sum(r.tool == "read file" for r in self.replies)
        if what == "all calls":
            return len(self.replies)
        if what == "context":  # a request before each call and after the last reply
            so_far = [sum(r.tokens for r in self.replies[:i]) for i in range(len(self.replies) + 1)]
            return sum(so_far) + len(so_far) * self.schema_tokens
        return int(sum(getattr(r, what) for r in self.replies))


class TaskFailed(RuntimeError):
    pass


class Side:
    """How one MCP server is started, addressed and read."""

    label = ""
    ref_name = "ref"  # the argument that takes the element's ref

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir

    def params(self) -> StdioServerParameters:
        raise NotImplementedError

    def find(self, text: str, role: str, name: str) -> str | int | None:
        """The ref of the first element with this role and name in ``text``."""
        raise NotImplementedError

    def note(self, text: str) -> str | None:
        """Take note of a reply the model read; returns the URL (without its query) of the
        document it reports, if any."""
        raise NotImplementedError

    def arguments(self, intent: Intent, ref: str | int) -> dict[str, Any]:
        args: dict[str, Any] = {self.ref_name: ref, "element": f"{intent.name} {intent.role}"}
        if intent.action == "type":
            args["text"] = intent.value
        elif intent.action == "select":
            args["values"] = [intent.value]
        return args

    def form_field(self, intent: Intent, ref: str | int) -> dict[str, Any]:
        """One field of browser_fill_form."""
        return {self.ref_name: ref, "value": intent.value, "element": intent.name}

    async def read_page(self, run: Run, wanted: str) -> str:
        """Read the page when nothing read so far has ``wanted`` (a name, a value)."""
        return await run.call("browser_snapshot", {})


class Playwright(Side):
    label = "Playwright MCP"
    ref_name = "target"  # @playwright/mcp 0.0.8x names the ref `target`
    _LINE = re.compile(r"^\s*-\s+'?(\w+) \"((?:[^\"\\]|\\.)*)\"((?: \[[^\]]*\])*)", re.M)
    _LINK = re.compile(r"^- \[Snapshot\]\(([^)]+)\)", re.M)
    _URL = re.compile(r"^- Page URL: (\S+)", re.M)

    def __init__(self, workdir: Path, *, reads: str = "file") -> None:
        super().__init__(workdir)
        self.reads = reads  # one of READS
        self.unread_link: Path | None = None

    def params(self) -> StdioServerParameters:
        config = self.workdir / "playwright-mcp.json"
        # Flags Playwright does not add itself (it adds most of pagesight's quiet ones).
        launch = {"args": list(QUIET_FLAGS)}
        config.write_text(json.dumps({"browser": {"launchOptions": launch}}))
        node = shutil.which("node") or "node"
        args = [str(PLAYWRIGHT_CLI), "--headless", "--isolated", "--executable-path", CHROMIUM]
        args += ["--viewport-size", f"{DEFAULT_VIEWPORT[0]}x{DEFAULT_VIEWPORT[1]}"]
        args += ["--config", str(config), "--output-dir", str(self.workdir / "out")]
        if hasattr(os, "geteuid") and os.geteuid() == 0:  # as root Chromium has no sandbox
            args.append("--no-sandbox")
        return StdioServerParameters(command=node, args=args, cwd=self.workdir)

    def form_field(self, intent: Intent, ref: str | int) -> dict[str, Any]:
        return {**super().form_field(intent, ref), "name": intent.name, "type": intent.role}

    def find(self, text: str, role: str, name: str) -> str | None:
        for line in self._LINE.finditer(text):
            if line[1] == role and json.loads(f'"{line[2]}"') == name:
                ref = re.search(r"\[ref=([^\]]+)\]", line[3])
                if ref:
                    return ref[1]
        return None

    def note(self, text: str) -> str | None:
        # The snapshot an action links is the page after it; a reply without one (a type
        # with no submit) leaves no snapshot of the page as it now is.
        self.unread_link = None if (link := self._LINK.search(text)) is None else Path(link[1])
        url = self._URL.search(text)
        return url[1].split("?")[0] if url else None

    async def read_page(self, run: Run, wanted: str) -> str:
        if self.reads == "find":  # the matching nodes and a few lines around them
            return await run.call("browser_find", {"text": wanted})
        if self.unread_link is None or self.reads == "snapshot":
            return await super().read_page(run, wanted)
        path, self.unread_link = self.workdir / self.unread_link, None
        t0 = time.perf_counter()
        text = path.read_text(encoding="utf-8")
        run.record("read file", [text], (time.perf_counter() - t0) * 1000)
        return text


class Pagesight(Side):
    label = "pagesight"
    _PAGE = re.compile(r"^page \"(?:[^\"\\]|\\.)*\" (\S+)", re.M)

    def params(self) -> StdioServerParameters:
        env = {
            "PYTHONPATH": os.pathsep.join(
                filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")])
            )
        }
        if chromium := os.environ.get("PAGESIGHT_CHROMIUM"):
            env["PAGESIGHT_CHROMIUM"] = chromium
        args = ["-m", "pagesight", "mcp", "--output-dir", str(self.workdir / "out")]
        return StdioServerParameters(command=sys.executable, args=args, env=env, cwd=self.workdir)

    def find(self, text: str, role: str, name: str) -> int | None:
        pattern = re.compile(rf"\[(\d+)\] {re.escape(role)} ~?{re.escape(json.dumps(name))}")
        for line in text.splitlines():
            if line.lstrip().startswith("- "):  # an element a change list says was removed
                continue
            if found := pattern.search(line):
                return int(found[1])
        return None

    def note(self, text: str) -> str | None:
        url = self._PAGE.search(text)
        return url[1].split("?")[0] if url else None


class Run:
    """One server doing the script once, on an app of its own."""

    def __init__(self, side: Side, client: Client, tally: Tally, *, fill_form: bool) -> None:
        self.side = side
        self.fill_form = fill_form
        self.client = client
        self.tally = tally
        self.read: list[str] = []  # what the model read on the current document, oldest first
        self.url: str | None = None

    def record(
        self,
        tool: str,
        texts: Sequence[str],
        ms: float,
        images: Sequence[str] = (),
        error: bool = False,
    ) -> None:
        self.tally.replies.append(
            Reply(
                tool=tool,
                text="\n".join(texts),
                chars=sum(len(t) for t in texts),
                tokens=sum(tokens.count(t) for t in texts),
                images=len(images),
                ms=ms,
                error=error,
            )
        )

    async def call(self, tool: str, args: dict[str, Any]) -> str:
        t0 = time.perf_counter()
        result: CallToolResult = await self.client.call_tool(
            tool, args, read_timeout_seconds=CALL_TIMEOUT_S
        )
        ms = (time.perf_counter() - t0) * 1000
        texts = [block.text for block in result.content if block.type == "text"]
        images = [block.data for block in result.content if block.type == "image"]
        self.record(tool, texts, ms, images, result.is_error)
        text = "\n".join(texts)
        if result.is_error:
            raise TaskFailed(f"{tool} {json.dumps(args)} failed: {text[:300]}")
        return text

    def took(self, text: str) -> None:
        """A reply arrived: a new document makes everything read before it stale."""
        url = self.side.note(text)
        if url is not None and url != self.url:
            self.url, self.read = url, []
        self.read.append(text)

    async def ref(self, intent: Intent) -> str | int:
        for text in reversed(self.read):
            if (ref := self.side.find(text, intent.role, intent.name)) is not None:
                return ref
        page = await self.side.read_page(self, intent.name)
        self.took(page)
        if (ref := self.side.find(page, intent.role, intent.name)) is not None:
            return ref
        raise TaskFailed(f'no {intent.role} "{intent.name}" on the page:\n{page[:1500]}')

    async def task(self, url: str) -> None:
        self.took(await self.call("browser_navigate", {"url": url}))
        for intent in SCRIPT:
            if self.fill_form and intent in FORM:
                if intent is FORM[0]:
                    fields = [self.side.form_field(i, await self.ref(i)) for i in FORM]
                    self.took(await self.call("browser_fill_form", {"fields": fields}))
                continue
            ref = await self.ref(intent)
            self.took(await self.call(TOOLS[intent.action], self.side.arguments(intent, ref)))
        after_save = self.read[-1]
        for value in CONFIRM:
            if value not in after_save:
                after_save += "\n" + await self.side.read_page(self, value)
            if value not in after_save:
                raise TaskFailed(
                    f"the page after Save does not show {value!r}:\n{after_save[:1500]}"
                )


async def run_side(make_side: Callable[[Path], Side], errlog: TextIO, *, fill_form: bool) -> Tally:
    tally = Tally()
    with tempfile.TemporaryDirectory(prefix="pagesight-bench-mcp-") as tmp, OrbitApp.start() as app:
        side = make_side(Path(tmp))
        t0 = time.perf_counter()
        try:
            async with asyncio.timeout(RUN_TIMEOUT_S), AsyncExitStack() as stack:
                transport = stdio_client(side.params(), errlog=errlog)
                client = await stack.enter_async_context(
                    Client(transport, read_timeout_seconds=CALL_TIMEOUT_S)
                )
                tally.startup_seconds = time.perf_counter() - t0
                await Run(side, client, tally, fill_form=fill_form).task(app.url)
                tally.seconds = time.perf_counter() - t0
                listing = await client.list_tools()  # after the clock: not part of the task
                schemas = [t.model_dump(by_alias=True, exclude_none=True) for t in listing.tools]
                tally.schema_tokens = tokens.count(json.dumps(schemas))
        except Exception as exc:  # noqa: BLE001 - reported; the other server still runs
            tally.failure, tally.raised = describe(exc), True
        rows = app.query("SELECT job_title, location FROM contacts WHERE name = 'Alice Chen'")
    tally.saved = not tally.failure and rows == WANT
    if not tally.failure and rows != WANT:
        tally.failure = f"the database holds {rows}, not {WANT}"
    return tally


def describe(exc: BaseException) -> str:
    """The exception itself, not the task groups it came up through."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return f"{type(exc).__name__}: {exc}"


def install_playwright_mcp(allow_install: bool) -> str:
    """ "" when ``@playwright/mcp`` at the pinned version is ready, else why it is not.
    ``--ignore-scripts``: its package brings no browser and must not fetch one."""
    package = PLAYWRIGHT_CLI.parent / "package.json"
    if package.is_file() and json.loads(package.read_text())["version"] == PLAYWRIGHT_MCP_VERSION:
        return ""
    if not allow_install:
        return f"@playwright/mcp@{PLAYWRIGHT_MCP_VERSION} is not installed and --no-install given"
    npm = shutil.which("npm")
    if npm is None:
        return "npm not found, cannot install @playwright/mcp"
    cmd = [npm, "install", "--prefix", str(HERE), "--no-save", "--ignore-scripts", "--no-audit"]
    cmd += ["--no-fund", f"@playwright/mcp@{PLAYWRIGHT_MCP_VERSION}"]
    try:
        subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=True)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"npm install @playwright/mcp@{PLAYWRIGHT_MCP_VERSION} failed: {str(exc)[:200]}"
    return "" if PLAYWRIGHT_CLI.is_file() else "npm installed @playwright/mcp without its cli.js"


def median(tallies: list[Tally], what: str) -> float:
    if what in ("seconds", "startup_seconds", "schema_tokens"):
        return float(statistics.median(getattr(t, what) for t in tallies))
    if what == "navigate_seconds":  # the first call: it starts the browser too
        return float(statistics.median(t.replies[0].ms / 1000 if t.replies else 0 for t in tallies))
    return float(statistics.median(t.count(what) for t in tallies))


def show(tally: Tally, label: str, lines: int) -> None:
    """Each reply of one run: the tool, its size and its first lines."""
    print(f"\n{label}: every reply of the first run")
    for reply in tally.replies:
        flag = " ERROR" if reply.error else ""
        print(
            f"  -- {reply.tool}{flag}: {reply.chars} chars, {reply.tokens} tokens, "
            f"{reply.ms:.0f} ms"
        )
        body = reply.text.splitlines()
        for line in body[:lines]:
            print(f"     | {line}")
        if len(body) > lines:
            print(f"     | … {len(body) - lines} more lines")


def print_table(sides: dict[str, list[Tally]], runs: int, reads: str) -> None:
    print(
        f"the demo task on Orbit CRM over MCP (stdio, the SDK's client), {runs} runs each, medians"
    )
    print(f"  (Playwright MCP links each action's snapshot in a file; its model {READS[reads]})")
    head = f"  {'':16}{'calls':>6}{'reads':>6}{'chars':>8}{'tokens':>8}{'images':>7}{'wall':>8}"
    print(head + f"{'startup':>9}{'1st nav':>9}  saved")
    for label, tallies in sides.items():
        saved = sum(t.saved for t in tallies)
        print(
            f"  {label:16}{median(tallies, 'calls'):>6.0f}{median(tallies, 'reads'):>6.0f}"
            f"{median(tallies, 'chars'):>8.0f}{median(tallies, 'tokens'):>8.0f}"
            f"{median(tallies, 'images'):>7.0f}{median(tallies, 'seconds'):>7.2f}s"
            f"{median(tallies, 'startup_seconds'):>8.2f}s"
            f"{median(tallies, 'navigate_seconds'):>8.2f}s  {saved}/{len(tallies)}"
        )
    for label, tallies in sides.items():
        print(
            f"  {label}: tools' schemas (tools/list, in every model request) "
            f"{median(tallies, 'schema_tokens'):.0f} tokens;\n"
            f"    a model's input over the task, estimated: {median(tallies, 'context'):.0f} tokens"
        )
    ours, peer = sides[Pagesight.label], sides[Playwright.label]
    if not all(t.saved for t in ours + peer):
        return
    ratio = {
        w: median(ours, w) / median(peer, w) for w in ("tokens", "all calls", "seconds", "context")
    }
    print("  pagesight / Playwright MCP:")
    print(f"    total tokens: {ratio['tokens']:.2f}x (target ≤ 0.5x)")
    print(f"    tool calls (calls + reads): {ratio['all calls']:.2f}x (target ≤ 1.0x)")
    print(f"    wall time: {ratio['seconds']:.2f}x")
    print(f"    a model's input: {ratio['context']:.2f}x (every call is a request carrying the")
    print("      schemas and all replies before it; no prompt, no model text counted)")


async def main(options: argparse.Namespace) -> int:
    why = install_playwright_mcp(allow_install=not options.no_install)
    if why:
        print(f"cannot run Playwright MCP: {why}", file=sys.stderr)
        return 1
    makers: list[tuple[str, Callable[[Path], Side]]] = [
        (Pagesight.label, Pagesight),
        (Playwright.label, functools.partial(Playwright, reads=options.playwright_reads)),
    ]
    sides: dict[str, list[Tally]] = {label: [] for label, _ in makers}
    with tempfile.TemporaryDirectory(prefix="pagesight-bench-mcp-log-") as logs:
        for i in range(options.runs):
            for label, make_side in makers if i % 2 == 0 else makers[::-1]:  # in turns
                log = Path(logs) / f"{len(sides[label])}-{label.replace(' ', '-')}.log"
                with log.open("w", encoding="utf-8") as errlog:
                    tally = await run_side(make_side, errlog, fill_form=options.fill_form)
                sides[label].append(tally)
                if tally.failure:
                    print(f"{label}, run {i + 1}: {tally.failure}", file=sys.stderr)
                if tally.raised:
                    stderr = log.read_text(encoding="utf-8").strip().splitlines()[-15:]
                    print("\n".join(f"  server stderr: {line}" for line in stderr), file=sys.stderr)
    if options.show:
        for label, tallies in sides.items():
            show(tallies[0], label, options.show)
    print_table(sides, options.runs, reads=options.playwright_reads)
    return 0 if all(t.saved for tallies in sides.values() for t in tallies) else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs of each server (default 3)")
    parser.add_argument(
        "--show",
        type=int,
        nargs="?",
        const=12,
        default=0,
        metavar="LINES",
        help="print every reply of the first run, its first LINES lines (default 12)",
    )
    parser.add_argument("--no-install", action="store_true", help="never run npm install")
    parser.add_argument(
        "--fill-form",
        action="store_true",
        help="the job title and the location in one browser_fill_form call (both servers)",
    )
    parser.add_argument(
        "--playwright-reads",
        choices=tuple(READS),
        default="file",
        help="how Playwright MCP's model reads the page: the snapshot file its action linked "
        "(default), browser_snapshot (a client with no file tool), or browser_find for the "
        "element's name (fewer tokens, a call for every element)",
    )
    options = parser.parse_args()
    if options.runs < 1:
        parser.error("--runs must be 1 or more")
    sys.exit(asyncio.run(main(options)))
