"""Under load: 8 tabs of one browser observed and acted on at once, through the async API.

    .venv/bin/python benchmarks/load.py [--minutes 5] [--tabs 8] [--warmup 120] [--poll 1]

Each tab runs its own loop on a task list served over HTTP on 127.0.0.1 (``?tab=N`` names the
tab in its title, its items and its fields, so a report that reaches the wrong tab shows):
type a task, add it, mark an earlier one done, every few rounds follow a link to a details
page and back (a new document each way). Meanwhile the task page polls the server every
second (``--poll``; a request a tab every second is a quiet page's traffic, and what a library
keeps per request shows in its memory). Checked as it goes, for every tab:

* ids: no element id appears in two tabs; each round, ids live in another tab are tried in
  this one (``locate`` and ``act``) and must raise ``StaleElement``; after a navigation, the
  old document's ids must raise ``StaleElement`` too;
* effects: each action's Effect describes its own tab (its observation's title and URL) and
  names only this tab's items; each added task and each "done" is reported exactly once,
  by the action that caused it;
* errors: anything else raised, or an Effect that does not say what the page did, is an error:
  the target is zero.

Memory: the resident set (RSS) of this Python process, of Playwright's driver (a node process)
and the summed RSS (and PSS, which counts shared pages once) of the Chromium process tree, read
from /proc after a warm-up, four times on the way and at the end; targets after warm-up: this
Python process's own RSS grows by 5 % at most (what pagesight and Playwright's Python client
keep: a request object kept for every request a tab made grew it about 1.7 MB a minute), the
others by 20 % at most. Two choices make that a measure of leaks, not of garbage:

* before each reading every tab runs a full garbage collection (CDP
  ``HeapProfiler.collectGarbage``, DevTools' bin button). Without it a renderer's V8 heap
  holds a minute or two of dead documents and results first: the raw PSS of the tree grew
  +37 % in the first two minutes and the collected one +18 %, level from then on;
* the warm-up is two minutes (``--warmup``): the V8 heaps of the renderers and of the node
  driver (which nothing outside can make collect) grow to their working size for that long
  at this pace. A driver whose heap was capped at 48 MB (``NODE_OPTIONS=--max-old-space-size=48``)
  ran the same load with its RSS flat, so what it gains is garbage collected late, not a leak.

Python's own collector runs before each reading too, and then glibc's ``malloc_trim``, which
gives the system back the pages of memory Python freed, so that the RSS judged counts what is
kept, not what the allocator holds of freed memory. Both are printed (the RSS before the trim,
and after it), with the memory blocks Python has allocated (``sys.getallocatedblocks``): growth
there is objects kept, whatever the allocator does. The ids the browser
still resolves are printed too: they grow until each tab remembers its last 32 documents (well
within the warm-up at this pace), then stay level (the target, judged on the last two
readings). Cross-talk (an id, a page or an item of one tab seen in another) is counted apart
from the other errors; the target for both is zero.

A measurement: it prints figures against the targets and exits 0 whatever they say.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import ctypes
import gc
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import serve
from pagesight.aio import AsyncBrowser, AsyncPage, Effect, Observation
from pagesight.errors import PagesightError, StaleElement

TARGET_GROWTH = 0.20
TARGET_PYTHON_GROWTH = 0.05
"""This process: what the library keeps per tab, per request or per action shows here."""
KEEP_ITEMS = 8  # the page drops its oldest task beyond this: its own size stays flat
DETAILS_EVERY = 5  # rounds between two trips to the details page and back
REPORTS_KEPT = 8 * KEEP_ITEMS  # a tab's latest reports: four times what its page can show
SAMPLES = 5  # memory readings from the end of the warm-up to the end of the run

TASKS_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>Tasks</title></head>
<body><h1 id="heading">Tasks</h1>
<label>New task <input id="new" type="text"></label>
<button id="add" type="button">Add task</button>
<a id="details" href="details.html">Details</a>
<ul id="list"></ul>
<script>
  const tab = new URLSearchParams(location.search).get("tab");
  document.title = "Tab " + tab + " tasks";
  document.getElementById("heading").textContent = "Tab " + tab + " tasks";
  document.getElementById("details").href = "details.html?tab=" + tab;
  const list = document.getElementById("list");
  const poll = () => { fetch("poll.json?t=" + Date.now()).then((r) => r.json()); };
  if (POLL_MS > 0) setInterval(poll, POLL_MS);
  document.getElementById("add").addEventListener("click", () => {
    const field = document.getElementById("new");
    const name = "Tab " + tab + " task " + field.value;
    const li = document.createElement("li");
    const label = document.createElement("span");
    label.textContent = name;
    const done = document.createElement("button");
    done.type = "button";
    done.textContent = "Done";
    done.setAttribute("aria-label", "Done " + name);
    done.addEventListener("click", () => {
      done.textContent = "Undo";
      done.setAttribute("aria-label", "Undo " + name);
    });
    li.append(label, done);
    list.append(li);
    while (list.children.length > KEEP) list.firstElementChild.remove();
    field.value = "";
  });
</script></body></html>
""".replace("KEEP", str(KEEP_ITEMS))

DETAILS_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>Details</title></head>
<body><h1 id="heading">Details</h1><p>Nothing to see.</p><a id="back" href="tasks.html">Back</a>
<script>
  const tab = new URLSearchParams(location.search).get("tab");
  document.title = "Tab " + tab + " details";
  document.getElementById("heading").textContent = "Tab " + tab + " details";
  document.getElementById("back").href = "tasks.html?tab=" + tab;
</script></body></html>
"""


@dataclass
class Shared:
    """What the tabs tell each other: ids live in each tab, who reported what, the errors."""

    live_ids: dict[int, set[int]] = field(default_factory=dict)
    # owner[id]: the tab an element id first appeared in (0: none yet). A byte an id, since
    # ids are never reused and this table must not be what grows in the Python reading.
    owner: bytearray = field(default_factory=bytearray)
    # Each tab's latest REPORTS_KEPT reports, by what they say: a task leaves its page after
    # KEEP_ITEMS rounds (two reports a round at most), so no action can report it again
    # later, and a table of every report ever made would grow in the Python reading.
    reports: dict[int, collections.OrderedDict[str, int]] = field(default_factory=dict)
    reported: int = 0  # reports made in all
    twice: dict[str, int] = field(default_factory=dict)  # reports made other than once
    errors: list[str] = field(default_factory=list)
    actions: int = 0
    observations: int = 0
    cross_tries: int = 0
    stale_tries: int = 0
    cross_talk: int = 0  # the errors that are one tab's id, page or item seen in another

    def report(self, tab: int, what: str) -> None:
        self.reported += 1
        kept = self.reports.setdefault(tab, collections.OrderedDict())
        kept[what] = kept.get(what, 0) + 1
        kept.move_to_end(what)
        while len(kept) > REPORTS_KEPT:
            self._settle(*kept.popitem(last=False))

    def _settle(self, what: str, times: int) -> None:
        if times != 1:
            self.twice[what] = times

    def settle_all(self) -> None:
        for kept in self.reports.values():
            for what, times in kept.items():
                self._settle(what, times)
        self.reports.clear()

    def error(self, tab: int, what: str) -> None:
        self.errors.append(f"tab {tab}: {what}")

    def crossed(self, tab: int, what: str) -> None:
        self.cross_talk += 1
        self.error(tab, what)


def element(obs: Observation, role: str, name: str) -> int:
    for el in obs.elements:
        if el.role == role and el.name == name:
            return el.id
    raise LookupError(f"no {role} {name!r} in {obs.url}")


class TabLoop:
    def __init__(self, tab: int, page: AsyncPage, base: str, shared: Shared) -> None:
        self.tab = tab
        self.page = page
        self.base = base
        self.shared = shared
        self.round = 0
        self.pending: list[str] = []  # tasks added and not yet marked done

    def note(self, obs: Observation) -> None:
        """Record the ids this tab shows; an id another tab showed is an error."""
        self.shared.observations += 1
        ids = {el.id for el in obs.elements}
        owner = self.shared.owner
        for i in ids:
            if i >= len(owner):
                owner.extend(bytes(i + 1 - len(owner) + 4096))
            first = owner[i] = owner[i] or self.tab
            if first != self.tab:
                self.shared.crossed(self.tab, f"id [{i}] shown here was shown in tab {first}")
        self.shared.live_ids[self.tab] = ids

    def check_effect(self, effect: Effect, doing: str) -> None:
        """The Effect is this tab's: its page, and only this tab's items in what it reports."""
        self.shared.actions += 1
        obs = effect.observation
        if f"tab={self.tab}" not in obs.url or not obs.title.startswith(f"Tab {self.tab} "):
            self.shared.crossed(self.tab, f"{doing}: the Effect shows {obs.title!r} {obs.url}")
        added = effect.changes.added if effect.changes else ()
        changed = effect.changes.changed if effect.changes else ()
        named = [el.name for el in added] + [a.name for _b, a in changed] + [*effect.texts_added]
        for name in named:
            if "Tab " in name and f"Tab {self.tab} " not in name:
                self.shared.crossed(self.tab, f"{doing}: the Effect names {name!r}")
        # Every report counts, wherever it comes from: each must be made exactly once.
        for el in added:
            if el.name.startswith("Done Tab "):
                self.shared.report(self.tab, f"added {el.name}")
        for before, after in changed:
            if after.name.startswith("Undo Tab "):
                self.shared.report(self.tab, f"{before.name} -> {after.name}")
        self.note(obs)

    async def try_foreign_ids(self) -> None:
        """Ids live in other tabs must not resolve here, nor be acted on."""
        for other, ids in list(self.shared.live_ids.items()):
            if other == self.tab or not ids:
                continue
            foreign = max(ids)
            self.shared.cross_tries += 1
            try:
                await self.page.locate(foreign)
                self.shared.crossed(self.tab, f"id [{foreign}] of tab {other} resolved here")
            except StaleElement:
                pass
            try:
                await self.page.act(foreign, "click")
                self.shared.crossed(self.tab, f"id [{foreign}] of tab {other} was clicked here")
            except StaleElement:
                pass
            return  # one other tab a round is plenty: every pair is met over the run

    async def add_task(self, obs: Observation) -> Observation:
        token = f"t{self.tab}r{self.round}"
        typed = await self.page.act(element(obs, "textbox", "New task"), "input", text=token)
        self.check_effect(typed, "input")
        if not any(after.value == token for _before, after in typed.values):
            self.shared.error(self.tab, f"input: the Effect does not show {token!r} typed")
        added = await self.page.act(element(typed.observation, "button", "Add task"), "click")
        self.check_effect(added, "add")
        name = f"Done Tab {self.tab} task {token}"
        reported = added.changes is not None and any(el.name == name for el in added.changes.added)
        if reported:
            self.pending.append(name)
        else:
            self.shared.error(self.tab, f"add: the Effect does not report {name!r} added")
        return added.observation

    async def mark_done(self, obs: Observation) -> Observation:
        shown = {el.name for el in obs.elements if el.role == "button"}
        self.pending = [n for n in self.pending if n in shown]  # the page drops the oldest
        if not self.pending:
            return obs
        name = self.pending.pop(0)
        done = await self.page.act(element(obs, "button", name), "click")
        self.check_effect(done, "done")
        undo = "Undo" + name.removeprefix("Done")
        changes = done.changes.changed if done.changes else ()
        if not any(b.name == name and a.name == undo for b, a in changes):
            self.shared.error(self.tab, f"done: the Effect does not report {name!r} -> {undo!r}")
        return done.observation

    async def details_and_back(self, obs: Observation) -> Observation:
        old = element(obs, "button", "Add task")
        went = await self.page.act(element(obs, "link", "Details"), "click")
        self.check_effect(went, "details")
        back = await self.page.act(element(went.observation, "link", "Back"), "click")
        self.check_effect(back, "back")
        self.shared.stale_tries += 1
        try:
            await self.page.locate(old)
            self.shared.error(self.tab, f"id [{old}] of a replaced document still resolves")
        except StaleElement:
            pass
        self.pending.clear()
        return back.observation

    async def run(self, until: float) -> None:
        await self.page.navigate(f"{self.base}/tasks.html?tab={self.tab}")
        obs = await self.page.observe()
        self.note(obs)
        while time.monotonic() < until:
            self.round += 1
            try:
                obs = await self.add_task(obs)
                obs = await self.mark_done(obs)
                await self.try_foreign_ids()
                if self.round % DETAILS_EVERY == 0:
                    obs = await self.details_and_back(obs)
                else:
                    obs = await self.page.observe(since=obs)
                    self.note(obs)
            except (PagesightError, LookupError) as exc:  # any failure counts; observe afresh
                self.shared.error(self.tab, f"round {self.round}: {type(exc).__name__}: {exc}")
                obs = await self.page.observe()
                self.note(obs)


@dataclass(frozen=True, kw_only=True)
class Memory:
    python_rss: int  # after malloc_trim: what Python holds, not what glibc keeps of it freed
    python_rss_untrimmed: int
    python_blocks: int  # memory blocks Python has allocated (sys.getallocatedblocks)
    driver_rss: int  # Playwright's driver, a node process
    chromium_rss: int
    chromium_pss: int
    chromium_processes: int
    ids_held: int  # ids the browser's registry resolves: bounded by what the tabs remember


def _kib(path: str, key: str) -> int:
    try:
        with open(path, encoding="ascii") as f:
            for line in f:
                if line.startswith(key):
                    return int(line.split()[1]) * 1024
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        pass  # the process ended while we read it
    return 0


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = collections.defaultdict(list)
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text(encoding="ascii")
            except (FileNotFoundError, ProcessLookupError):
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            tree[ppid].append(int(entry))
    return tree


def memory(ids_held: int) -> Memory:
    """This process's RSS (before and after the allocator gives freed pages back), its
    Playwright driver's and the Chromium tree's (every other descendant of this process)."""
    untrimmed = _kib("/proc/self/status", "VmRSS:")
    ctypes.CDLL(None).malloc_trim(0)  # glibc's: freed pages back to the system
    tree = _children()
    todo = list(tree[os.getpid()])
    driver: list[int] = []
    chromium: list[int] = []
    while todo:
        pid = todo.pop()
        try:
            comm = Path(f"/proc/{pid}/comm").read_text(encoding="utf-8")
        except (FileNotFoundError, ProcessLookupError):
            continue
        (driver if comm.startswith("node") else chromium).append(pid)
        todo.extend(tree.get(pid, ()))
    return Memory(
        python_rss=_kib("/proc/self/status", "VmRSS:"),
        python_rss_untrimmed=untrimmed,
        python_blocks=sys.getallocatedblocks(),
        driver_rss=sum(_kib(f"/proc/{p}/status", "VmRSS:") for p in driver),
        chromium_rss=sum(_kib(f"/proc/{p}/status", "VmRSS:") for p in chromium),
        chromium_pss=sum(_kib(f"/proc/{p}/smaps_rollup", "Pss:") for p in chromium),
        chromium_processes=len(chromium),
        ids_held=ids_held,
    )


def growth(start: int, end: int, target: float = TARGET_GROWTH) -> str:
    share = (end - start) / start if start else 0.0
    verdict = "ok" if share <= target else "OVER"
    return f"{share:+.1%} ({verdict}, target <= +{target:.0%})"


def level(held: list[int]) -> str:
    """Whether the ids the browser resolves stopped growing: the last reading against the one
    before it."""
    if len(held) < 2:
        return "one reading"
    if held[-1] <= held[-2]:
        return "level (ok, target level)"
    return f"+{held[-1] - held[-2]} since the reading before (still filling, or a leak)"


async def collect_garbage(pages: list[AsyncPage]) -> None:
    """A full garbage collection in every tab's renderer, so a reading counts what is alive."""
    for page in pages:
        tab = page.playwright
        session = await tab.context.new_cdp_session(tab)
        try:
            await session.send("HeapProfiler.collectGarbage")
        finally:
            await session.detach()


async def reading(browser: AsyncBrowser, pages: list[AsyncPage]) -> Memory:
    await collect_garbage(pages)
    gc.collect()
    return memory(len(browser.ids))


async def main_async(minutes: float, tabs: int, warmup: float, poll: float = 1.0) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tasks = TASKS_PAGE.replace("POLL_MS", str(round(poll * 1000)))
        Path(tmp, "tasks.html").write_text(tasks, encoding="utf-8")
        Path(tmp, "poll.json").write_text('{"changed": false}', encoding="utf-8")
        Path(tmp, "details.html").write_text(DETAILS_PAGE, encoding="utf-8")
        with serve.serve(Path(tmp)) as base:
            async with await AsyncBrowser.launch(headless=True) as browser:
                pages = [await browser.new_page() for _ in range(tabs)]
                shared = Shared()
                total = minutes * 60
                start = time.monotonic()
                loops = [TabLoop(i + 1, p, base, shared) for i, p in enumerate(pages)]
                run = asyncio.gather(*(lp.run(start + warmup + total) for lp in loops))
                await asyncio.sleep(warmup)
                actions_at_warmup = shared.actions
                samples = [(0.0, await reading(browser, pages))]
                # Four samples between warm-up and the end: growth that levels off (caches
                # filling) reads apart from growth that goes on (a leak).
                for n in range(1, SAMPLES):
                    await asyncio.sleep(start + warmup + total * n / SAMPLES - time.monotonic())
                    at = time.monotonic() - start - warmup
                    samples.append((at, await reading(browser, pages)))
                await run
                elapsed = time.monotonic() - start - warmup
                samples.append((elapsed, await reading(browser, pages)))
    print_report(
        shared,
        tabs=tabs,
        minutes=minutes,
        samples=samples,
        measured_actions=shared.actions - actions_at_warmup,
        elapsed=elapsed,
        warmup=warmup,
    )


def print_report(
    shared: Shared,
    *,
    tabs: int,
    minutes: float,
    samples: list[tuple[float, Memory]],
    measured_actions: int,
    elapsed: float,
    warmup: float,
) -> None:
    shared.settle_all()
    twice = shared.twice
    print(
        f"load: {tabs} tabs of one browser, {minutes:g} min after {warmup:g} s of warm-up "
        "(async API)"
    )
    print(
        f"  actions {shared.actions} ({measured_actions / elapsed:.1f}/s after warm-up), "
        f"observations {shared.observations}, reports {shared.reported}"
    )
    print(f"  foreign ids tried {shared.cross_tries}, replaced-document ids {shared.stale_tries}")
    print(
        f"  effects reported twice: {len(twice)}   errors: {len(shared.errors)} (target 0)"
        f"   cross-talk: {shared.cross_talk} (target 0)"
    )
    for line in shared.errors[:20]:
        print(f"    {line}")
    for name, n in list(twice.items())[:10]:
        print(f"    reported {n} times: {name}")
    print()
    end = samples[-1][1]
    print("  memory (MB) at   " + "".join(f"{t:>8.0f}s" for t, _m in samples) + "   growth")
    rows = [
        ("python RSS", [m.python_rss for _t, m in samples], TARGET_PYTHON_GROWTH),
        ("  before trim", [m.python_rss_untrimmed for _t, m in samples], TARGET_PYTHON_GROWTH),
        ("driver RSS (node)", [m.driver_rss for _t, m in samples], TARGET_GROWTH),
        (
            f"chromium RSS ({end.chromium_processes}p)",
            [m.chromium_rss for _t, m in samples],
            TARGET_GROWTH,
        ),
        ("chromium PSS", [m.chromium_pss for _t, m in samples], TARGET_GROWTH),
    ]
    for label, values, target in rows:
        figures = "".join(f"{v / 2**20:>9.1f}" for v in values)
        print(f"  {label:<17}{figures}   {growth(values[0], values[-1], target)}")
    blocks = [m.python_blocks for _t, m in samples]
    counts = "".join(f"{n / 1000:>8.0f}k" for n in blocks)
    print(
        f"  {'python blocks':<17}{counts}   {growth(blocks[0], blocks[-1], TARGET_PYTHON_GROWTH)}"
    )
    ids = [m.ids_held for _t, m in samples]
    held = "".join(f"{n:>9}" for n in ids)
    print(f"  {'ids held':<17}{held}   {level(ids)}")
    print("  (ids held: the ids that resolve, of the documents the tabs remember)")
    print("  (0 s: the end of the warm-up; growth: the end against it; each reading follows")
    print("   a full garbage collection in every tab, and Python's, and malloc_trim)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=5.0, help="after warm-up (default 5)")
    parser.add_argument("--tabs", type=int, default=8)
    parser.add_argument(
        "--warmup", type=float, default=120.0, help="seconds before the first reading (120)"
    )
    parser.add_argument(
        "--poll", type=float, default=1.0, help="seconds between a tab's polls (1; 0: none)"
    )
    args = parser.parse_args()
    if args.minutes <= 0 or not 1 <= args.tabs <= 255 or args.warmup < 0 or args.poll < 0:
        parser.error("--minutes must be above 0, --tabs 1 to 255, --warmup and --poll 0 or more")
    asyncio.run(main_async(args.minutes, args.tabs, args.warmup, args.poll))


if __name__ == "__main__":
    main()
