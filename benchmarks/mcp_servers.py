"""Benchmark pagesight's MCP server against Playwright's own on two tasks, each server
driven by the official MCP SDK's client over stdio. (Not named mcp.py: run as a script, or
type-checked with benchmarks/ as a source root, that file would shadow the SDK, `mcp`.)

    .venv/bin/python benchmarks/mcp_servers.py [--runs N] [--tasks orbit,booking]
                                               [--show [LINES]] [--no-install]
                                               [--playwright-reads snapshot|file|find]
                                               [--fill-form]

The tasks, each run on a fresh site:

* **orbit**: the demo task on Orbit CRM (the bundled app, SQLite, 127.0.0.1): find Alice Chen,
  open her contact, edit, type the job title, choose the location, save, confirm both; done
  when SQLite holds both changes;
* **booking**: the one-form page, tests/pages/booking.html (served over HTTP on 127.0.0.1):
  open the form, fill its five fields (a date among them, one in a click-to-focus box), tick
  the custom terms checkbox, confirm, and see "Booking confirmed"; done when the server's own
  snapshot at the end (taken after the clock, not counted) shows the status line with the
  name, party and date, the email and notes in their fields and the terms ticked.

The servers, in turns:

* **pagesight**: ``python -m pagesight mcp`` (this tree's source), its default tools
  (``--tools core``);
* **Playwright MCP**: ``@playwright/mcp`` (``PLAYWRIGHT_MCP_VERSION``, installed with npm into
  benchmarks/node_modules, no browser download) on the same Debian Chromium, headless, with
  an in-memory profile, the same page size and the same quiet flags as pagesight's.

Both get the same script of intents after navigating; each intent's element (a role and a
name) is looked up in what that server itself returned — its latest reply first, then what
the model read earlier on the same document — and acted on by that server's own ref. Only when
the element is in nothing the model has read does it read the page. How each acts is how a
capable model would use that server's tools:

* Playwright MCP: a tool call for each intent (``browser_type``, ``browser_select_option``,
  ``browser_click``). Its action replies link the page's snapshot in a file rather than
  showing it, so its model reads the page with ``browser_snapshot`` (the default
  ``--playwright-reads snapshot``; ``file``: the linked file, one read, its text counted, as
  for a client with a file tool; ``find``: ``browser_find`` for the element's name);
* pagesight: ``browser_act``, a line for each intent, consecutive intents whose elements the
  model has seen going in one call; a call ends after a click that may load another document
  or show new elements (a link, a button: Save, Confirm, "Book a table"), and the last one
  ends with the task's ``expect`` lines, so the confirmation needs no extra read. Its
  replies carry the page after (whole, or what changed); else ``browser_snapshot``.

The confirmation is read the same way, from what came back after the last step.
``--fill-form``: the form's fields in one ``browser_fill_form`` call instead, on both servers.

Reported per task and server (medians): tool calls (MCP calls and snapshot-file reads), the
calls made, characters and cl100k tokens of all the text the tools returned (images counted
apart; the tasks need none), wall time from spawning the server to the confirmed page (and of
it: the start to the MCP handshake, and the first call, which starts the browser), and whether
the task was done. Then pagesight / Playwright ratios and the targets (issue 23): reply tokens
≤ 0.5x, tool calls ≤ 1.0x; and an estimate of a model's input over the task, since every call
is one more model request that carries the tool list, the instructions and every reply before
it. Last, the tool list a model is shown (tools/list: names, descriptions and input schemas,
as JSON; the server's instructions apart) of each server's default, and of pagesight's
``--tools full`` for reference; target: pagesight's default ≤ 0.5x Playwright MCP's.

A measurement: it exits 1 only when a server did not do a task (or could not run).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import http.server
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, AsyncExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, TextIO

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
PAGES = ROOT / "tests" / "pages"
TITLE, CITY = "Senior Software Engineer", "New York"
WANT = [{"job_title": TITLE, "location": CITY}]
RUN_TIMEOUT_S = 180
CALL_TIMEOUT_S = 90


@dataclass(frozen=True, kw_only=True)
class Intent:
    """One step of the script: act on the element with this role and name (or one of the
    ``also`` roles: the servers do not always name a role alike)."""

    action: Literal["type", "click", "select"]
    role: str
    name: str
    value: str = ""  # typed, chosen, or for a checkbox "true" (browser_fill_form's value)
    also: tuple[str, ...] = ()

    @property
    def roles(self) -> tuple[str, ...]:
        return (self.role, *self.also)

    @property
    def ends_group(self) -> bool:
        """A step after which the page may be another document, or show elements the model
        has not seen yet: a click on a link or a button (not on a checkbox)."""
        return self.action == "click" and self.role in ("link", "button")


class Site(Protocol):
    """Where a task runs, started fresh for each run of each server."""

    url: str

    def verify(self, snapshot: str) -> str:
        """Why the task is not done, read in the site's own state ("" when it is):
        ``snapshot``, the server's own snapshot of the page at the end (not counted)."""
        ...


@dataclass(frozen=True, kw_only=True)
class Task:
    name: str
    title: str
    script: tuple[Intent, ...]
    confirm: tuple[str, ...]  # what the page after the last step must show
    expect: tuple[str, ...]  # pagesight's `expect` lines, after the last step
    form: tuple[Intent, ...]  # --fill-form: these in one browser_fill_form call
    site: Callable[[], AbstractContextManager[Site]]


class Orbit:
    """Orbit CRM, the bundled app: the task is done when SQLite holds both changes."""

    def __init__(self, app: OrbitApp) -> None:
        self.app, self.url = app, app.url

    def verify(self, snapshot: str) -> str:
        rows = self.app.query("SELECT job_title, location FROM contacts WHERE name = 'Alice Chen'")
        return "" if rows == WANT else f"the database holds {rows}, not {WANT}"

    @classmethod
    @contextmanager
    def start(cls) -> Iterator[Orbit]:
        with OrbitApp.start() as app:
            yield cls(app)


class _Pages(http.server.SimpleHTTPRequestHandler):
    """tests/pages, quietly; a favicon that is there (a 404 would be a console error that
    Playwright MCP reports in every reply, which no real site's favicon costs it)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, directory=str(PAGES), **kwargs)

    def do_GET(self) -> None:
        if self.path == "/favicon.ico":
            self.send_response(204)
            self.end_headers()
            return
        super().do_GET()

    def log_message(self, format: str, *args: Any) -> None:
        pass


class Booking:
    """tests/pages/booking.html over HTTP on 127.0.0.1: the task is done when the page says
    the booking is confirmed, with every value in its field and the terms ticked."""

    def __init__(self, url: str) -> None:
        self.url = url

    def verify(self, snapshot: str) -> str:
        lines = snapshot.splitlines()
        missing = [] if BOOKED in snapshot else [f"the status line {BOOKED!r}"]
        for intent in BOOKING_SCRIPT:
            field = f'"{intent.name}"'
            if intent.action == "type" and not any(
                field in line and intent.value in line for line in lines
            ):
                missing.append(f"{intent.value!r} in {intent.name}")
            if intent.role == "checkbox" and not any(
                f"checkbox {field}" in line and "[checked]" in line for line in lines
            ):
                missing.append(f"{intent.name} ticked")
        if not missing:
            return ""
        return f"the page at the end lacks {'; '.join(missing)}:\n{snapshot[:1500]}"

    @classmethod
    @contextmanager
    def start(cls) -> Iterator[Booking]:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Pages)
        server.daemon_threads = True
        thread = threading.Thread(target=server.serve_forever, name="bench-pages", daemon=True)
        thread.start()
        try:
            yield cls(f"http://127.0.0.1:{server.server_address[1]}/booking.html")
        finally:
            server.shutdown()
            server.server_close()
            thread.join()


# The demo task (src/pagesight/demo/alice-chen.steps), after navigating to the app.
ORBIT_SCRIPT = (
    Intent(action="type", role="searchbox", name="Search contacts", value="Alice Chen"),
    Intent(action="click", role="link", name="Alice Chen"),
    Intent(action="click", role="link", name="Edit"),
    Intent(action="type", role="textbox", name="Job title", value=TITLE),
    Intent(action="select", role="combobox", name="Location", value=CITY),
    Intent(action="click", role="button", name="Save"),
)
GUEST, EMAIL, DAY, PARTY = "Ada Lovelace", "ada@example.com", "2026-12-24", "4 people"
NOTES = "A table by the window, please."
BOOKED = f"Booking confirmed for {GUEST}: {PARTY} on {DAY}."
# The one-form page: open the form, fill it, tick the terms, confirm.
BOOKING_SCRIPT = (
    Intent(action="click", role="button", name="Book a table"),
    Intent(action="type", role="textbox", name="Full name", value=GUEST),
    Intent(action="type", role="textbox", name="Email address", value=EMAIL),
    Intent(action="type", role="date", name="Date", value=DAY, also=("textbox",)),
    Intent(action="select", role="combobox", name="Party size", value=PARTY),
    Intent(action="type", role="textbox", name="Notes", value=NOTES),
    Intent(action="click", role="checkbox", name="I agree to the terms", value="true"),
    Intent(action="click", role="button", name="Confirm"),
)
TASKS = {
    "orbit": Task(
        name="orbit",
        title="the demo task on Orbit CRM",
        script=ORBIT_SCRIPT,
        confirm=(TITLE, CITY),
        expect=("Saved",),
        form=ORBIT_SCRIPT[3:5],  # title and location
        site=Orbit.start,
    ),
    "booking": Task(
        name="booking",
        title="the one-form page (tests/pages/booking.html)",
        script=BOOKING_SCRIPT,
        confirm=("Booking confirmed",),
        expect=("Booking confirmed",),
        form=BOOKING_SCRIPT[1:7],  # the five fields and the terms
        site=Booking.start,
    ),
}
TOOLS = {"type": "browser_type", "click": "browser_click", "select": "browser_select_option"}
READS = {
    "snapshot": "calls browser_snapshot",
    "file": "reads the snapshot files its actions link",
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
    done: bool = False  # the site holds the task's result
    failure: str = ""
    raised: bool = False  # the failure is an exception (the server's stderr may say more)
    schema_tokens: int = 0  # tools/list: names, descriptions, input schemas
    instructions_tokens: int = 0  # the server's instructions (initialize)

    def count(self, what: str) -> int:
        if what == "calls":
            return sum(r.tool != "read file" for r in self.replies)
        if what == "reads":
            return sum(r.tool == "read file" for r in self.replies)
        if what == "all calls":
            return len(self.replies)
        if what == "context":  # a request before each call and after the last reply
            so_far = [sum(r.tokens for r in self.replies[:i]) for i in range(len(self.replies) + 1)]
            return sum(so_far) + len(so_far) * (self.schema_tokens + self.instructions_tokens)
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

    def find(self, text: str, roles: Sequence[str], name: str) -> str | int | None:
        """The ref of the first element with one of these roles and this name in ``text``."""
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
    _FIELD_TYPES = ("textbox", "checkbox", "radio", "combobox", "slider")

    def __init__(self, workdir: Path, *, reads: str = "snapshot") -> None:
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
        # Its field types; a date field is a textbox in its snapshots.
        kind = next((r for r in intent.roles if r in self._FIELD_TYPES), "textbox")
        return {**super().form_field(intent, ref), "name": intent.name, "type": kind}

    def find(self, text: str, roles: Sequence[str], name: str) -> str | None:
        for line in self._LINE.finditer(text):
            if line[1] in roles and json.loads(f'"{line[2]}"') == name:
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
        args += ["--tools", self.tools]
        return StdioServerParameters(command=sys.executable, args=args, env=env, cwd=self.workdir)

    def __init__(self, workdir: Path, *, tools: str = "core") -> None:
        super().__init__(workdir)
        self.tools = tools

    def find(self, text: str, roles: Sequence[str], name: str) -> int | None:
        either = "|".join(map(re.escape, roles))
        pattern = re.compile(rf"\[(\d+)\] (?:{either}) ~?{re.escape(json.dumps(name))}")
        for line in text.splitlines():
            if line.lstrip().startswith("- "):  # an element a change list says was removed
                continue
            if found := pattern.search(line):
                return int(found[1])
        return None

    def note(self, text: str) -> str | None:
        url = self._PAGE.search(text)
        return url[1].split("?")[0] if url else None

    @staticmethod
    def line(intent: Intent, ref: str | int) -> str:
        """The intent as a line of browser_act's steps."""
        if intent.action == "type":
            return f"type {json.dumps(intent.value)} into [{ref}]"
        if intent.action == "select":
            return f"select {json.dumps(intent.value)} in [{ref}]"
        return f"click [{ref}]"


class Run:
    """One server doing a task once, on a site of its own."""

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

    def seen(self, intent: Intent) -> str | int | None:
        """The element's ref in what the model has read on this document, newest first."""
        for text in reversed(self.read):
            if (ref := self.side.find(text, intent.roles, intent.name)) is not None:
                return ref
        return None

    async def ref(self, intent: Intent) -> str | int:
        if (ref := self.seen(intent)) is not None:
            return ref
        page = await self.side.read_page(self, intent.name)
        self.took(page)
        if (ref := self.side.find(page, intent.roles, intent.name)) is not None:
            return ref
        raise TaskFailed(f'no {intent.role} "{intent.name}" on the page:\n{page[:1500]}')

    async def fill(self, task: Task) -> None:
        """--fill-form: the form's fields in one browser_fill_form call."""
        fields = [self.side.form_field(i, await self.ref(i)) for i in task.form]
        self.took(await self.call("browser_fill_form", {"fields": fields}))

    async def task(self, task: Task, url: str) -> None:
        self.took(await self.call("browser_navigate", {"url": url}))
        if isinstance(self.side, Pagesight):
            await self.act_in_groups(task)
        else:
            await self.one_call_each(task)
        after = self.read[-1]
        for value in task.confirm:
            if value not in after:
                after += "\n" + await self.side.read_page(self, value)
            if value not in after:
                raise TaskFailed(f"the page at the end does not show {value!r}:\n{after[:1500]}")

    async def one_call_each(self, task: Task) -> None:
        """A tool call for each intent (Playwright MCP's way): browser_type, browser_click, …"""
        for intent in task.script:
            if self.fill_form and intent in task.form:
                if intent is task.form[0]:
                    await self.fill(task)
                continue
            ref = await self.ref(intent)
            self.took(await self.call(TOOLS[intent.action], self.side.arguments(intent, ref)))

    async def act_in_groups(self, task: Task) -> None:
        """browser_act, a line for each intent, as a capable model writes it: consecutive
        intents whose elements it has seen go in one call, which ends after a click that may
        load another document or show new elements (a link, a button); an element not seen
        yet first sends what is gathered, then reads the page only if the reply lacks it.
        The last group ends with the task's ``expect`` lines."""
        group: list[str] = []

        async def send() -> None:
            if group:
                self.took(await self.call("browser_act", {"steps": "\n".join(group)}))
                group.clear()

        for i, intent in enumerate(task.script):
            if self.fill_form and intent in task.form:
                if intent is task.form[0]:
                    await send()
                    await self.fill(task)
                continue
            ref = self.seen(intent)
            if ref is None:
                await send()
                ref = await self.ref(intent)
            group.append(Pagesight.line(intent, ref))
            if i == len(task.script) - 1:
                group += [f"expect {json.dumps(text)}" for text in task.expect]
            if intent.ends_group:
                await send()
        await send()


async def run_side(
    make_side: Callable[[Path], Side], task: Task, errlog: TextIO, *, fill_form: bool
) -> Tally:
    tally = Tally()
    with tempfile.TemporaryDirectory(prefix="pagesight-bench-mcp-") as tmp, task.site() as site:
        side = make_side(Path(tmp))
        t0 = time.perf_counter()
        try:
            async with asyncio.timeout(RUN_TIMEOUT_S), AsyncExitStack() as stack:
                transport = stdio_client(side.params(), errlog=errlog)
                client = await stack.enter_async_context(
                    Client(transport, read_timeout_seconds=CALL_TIMEOUT_S)
                )
                tally.startup_seconds = time.perf_counter() - t0
                await Run(side, client, tally, fill_form=fill_form).task(task, site.url)
                tally.seconds = time.perf_counter() - t0
                # After the clock, not part of the task: the tool list, and the page's state
                # as the server's own snapshot shows it.
                tally.schema_tokens, tally.instructions_tokens = await tool_list(client)
                end = await client.call_tool("browser_snapshot", {})
                snapshot = "\n".join(b.text for b in end.content if b.type == "text")
                tally.failure = site.verify(snapshot)
        except Exception as exc:  # noqa: BLE001 - reported; the other server still runs
            tally.failure, tally.raised = describe(exc), True
    tally.done = not tally.failure
    return tally


async def tool_list(client: Client) -> tuple[int, int]:
    """The tokens of the tools a model is shown (tools/list: names, descriptions, input
    schemas, as JSON) and of the server's instructions."""
    listing = await client.list_tools()
    schemas = [t.model_dump(by_alias=True, exclude_none=True) for t in listing.tools]
    return tokens.count(json.dumps(schemas)), tokens.count(client.instructions or "")


async def listed_only(side: Side) -> tuple[int, int]:
    """A server's tool list without doing any task (no browser is started)."""
    with open(os.devnull, "w", encoding="utf-8") as errlog:
        async with Client(stdio_client(side.params(), errlog=errlog)) as client:
            return await tool_list(client)


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
    if what in ("seconds", "startup_seconds", "schema_tokens", "instructions_tokens"):
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


def verdict(ratio: float, target: float) -> str:
    return f"{ratio:.2f}x (target ≤ {target:.1f}x: {'met' if ratio <= target else 'MISSED'})"


def print_task(task: Task, sides: dict[str, list[Tally]], runs: int, reads: str) -> None:
    print(f"\n{task.title} over MCP (stdio, the SDK's client), {runs} runs each, medians")
    print(
        "  (pagesight: its default tools, browser_act with a line for each intent, grouped;"
        f"\n   Playwright MCP: a tool call for each intent; its model {READS[reads]} when an"
        "\n   element is in no earlier reply on the document)"
    )
    head = f"  {'':16}{'calls':>6}{'reads':>6}{'chars':>8}{'tokens':>8}{'images':>7}{'wall':>8}"
    print(head + f"{'startup':>9}{'1st nav':>9}  done")
    for label, tallies in sides.items():
        done = sum(t.done for t in tallies)
        print(
            f"  {label:16}{median(tallies, 'calls'):>6.0f}{median(tallies, 'reads'):>6.0f}"
            f"{median(tallies, 'chars'):>8.0f}{median(tallies, 'tokens'):>8.0f}"
            f"{median(tallies, 'images'):>7.0f}{median(tallies, 'seconds'):>7.2f}s"
            f"{median(tallies, 'startup_seconds'):>8.2f}s"
            f"{median(tallies, 'navigate_seconds'):>8.2f}s  {done}/{len(tallies)}"
        )
    for label, tallies in sides.items():
        calls = [r.tool for r in tallies[0].replies]
        print(f"  {label} calls: {', '.join(calls)}")
    ours, peer = sides[Pagesight.label], sides[Playwright.label]
    if not all(t.done for t in ours + peer):
        print("  (no ratios: a server did not do the task in every run)")
        return
    ratio = {
        w: median(ours, w) / median(peer, w) for w in ("tokens", "all calls", "seconds", "context")
    }
    print("  pagesight / Playwright MCP:")
    print(f"    reply tokens: {verdict(ratio['tokens'], 0.5)}")
    print(f"    tool calls (calls + reads): {verdict(ratio['all calls'], 1.0)}")
    print(f"    wall time: {ratio['seconds']:.2f}x")
    print(
        f"    a model's input over the task, estimated: {median(ours, 'context'):.0f} vs "
        f"{median(peer, 'context'):.0f} tokens, {ratio['context']:.2f}x"
    )
    print(
        "      (a request before each call and after the last reply, each carrying the tool"
        "\n      list, the instructions and every reply before it; no prompt, no model text)"
    )


def print_tool_lists(sides: dict[str, list[Tally]], full: tuple[int, int]) -> None:
    print("\nthe tool list a model is shown (tools/list: names, descriptions, input schemas)")
    rows = [
        (f"{label} (default)", median(t, "schema_tokens"), median(t, "instructions_tokens"))
        for label, t in sides.items()
    ]
    rows.insert(1, ("pagesight --tools full", *full))
    print(f"  {'':28}{'tools':>8}{'instructions':>14}")
    for label, listed, said in rows:
        print(f"  {label:28}{listed:>8.0f}{said:>14.0f}")
    ours, peer = rows[0][1], rows[-1][1]
    print(f"  pagesight / Playwright MCP, default tools: {verdict(ours / peer, 0.5)}")
    print(f"    with the instructions: {(ours + rows[0][2]) / (peer + rows[-1][2]):.2f}x")


async def main(options: argparse.Namespace) -> int:
    why = install_playwright_mcp(allow_install=not options.no_install)
    if why:
        print(f"cannot run Playwright MCP: {why}", file=sys.stderr)
        return 1
    makers: list[tuple[str, Callable[[Path], Side]]] = [
        (Pagesight.label, Pagesight),
        (Playwright.label, functools.partial(Playwright, reads=options.playwright_reads)),
    ]
    tasks = [TASKS[name] for name in options.tasks]
    results = {task.name: {label: list[Tally]() for label, _ in makers} for task in tasks}
    with tempfile.TemporaryDirectory(prefix="pagesight-bench-mcp-log-") as logs:
        for i in range(options.runs):
            for task in tasks:
                sides = results[task.name]
                for label, make_side in makers if i % 2 == 0 else makers[::-1]:  # in turns
                    name = f"{task.name}-{len(sides[label])}-{label.replace(' ', '-')}.log"
                    log = Path(logs) / name
                    with log.open("w", encoding="utf-8") as errlog:
                        tally = await run_side(make_side, task, errlog, fill_form=options.fill_form)
                    sides[label].append(tally)
                    if tally.failure:
                        print(
                            f"{task.name}, {label}, run {i + 1}: {tally.failure}", file=sys.stderr
                        )
                    if tally.raised:
                        stderr = log.read_text(encoding="utf-8").strip().splitlines()[-15:]
                        print("\n".join(f"  server stderr: {s}" for s in stderr), file=sys.stderr)
        with tempfile.TemporaryDirectory(prefix="pagesight-bench-mcp-") as tmp:
            full = await listed_only(Pagesight(Path(tmp), tools="full"))
    for task in tasks:
        if options.show:
            for label, tallies in results[task.name].items():
                show(tallies[0], f"{task.name}, {label}", options.show)
        print_task(task, results[task.name], options.runs, reads=options.playwright_reads)
    print_tool_lists(results[tasks[0].name], full)
    return 0 if all(t.done for r in results.values() for ts in r.values() for t in ts) else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs of each server (default 3)")
    parser.add_argument(
        "--tasks",
        type=lambda text: text.split(","),
        default=list(TASKS),
        metavar="NAMES",
        help=f"the tasks, comma-separated (default {','.join(TASKS)})",
    )
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
        help="the form's fields in one browser_fill_form call (both servers): Orbit's job "
        "title and location; the booking's five fields and the terms",
    )
    parser.add_argument(
        "--playwright-reads",
        choices=tuple(READS),
        default="snapshot",
        help="how Playwright MCP's model reads the page: browser_snapshot (default), the "
        "snapshot file its action linked (a client with a file tool), or browser_find for "
        "the element's name (fewer tokens, a call for every element)",
    )
    options = parser.parse_args()
    if options.runs < 1:
        parser.error("--runs must be 1 or more")
    if unknown := [name for name in options.tasks if name not in TASKS]:
        parser.error(f"no task {', '.join(unknown)}; tasks: {', '.join(TASKS)}")
    sys.exit(asyncio.run(main(options)))
