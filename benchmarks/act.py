"""Benchmark actions: click to reported effect, beside the fixed-wait habit, and delta tokens.

    .venv/bin/python benchmarks/act.py [--runs N] [--only polling]

In one run, on generated pages served over HTTP on 127.0.0.1:

* the median time from a click to its reported Effect (``page.act``) for an in-page change, a
  navigation and a click that does nothing, beside what agents do today on the same pages —
  click, sleep 1.2 s, read the page again (``page.observe``) — and whether each reported the
  truth (the Effect's kinds against what the page did);
* the tokens of a delta observation (``observe(since=previous)``) against a full one after one
  list item of a 200-element page changes;
* for the gestures — an upload through a styled label over a hidden file input, a drag of a
  pointer-driven slider thumb, a press and hold on a hold-to-confirm button — the median time
  to the reported Effect beside the same habit (the gesture through Playwright, sleep 1.2 s,
  observe), and whether the Effect's kind and details told the truth (the page's own state
  read afterwards). A hold cannot report before the hold ends: its floor is the hold itself;
* open + observe + click (a new tab, its first observation, a click that adds a note) on a
  page that polls its server every 200 ms and writes each answer into the page, beside the
  same page quiet, run in turns: the ratio of the medians, and whether the observation and
  the Effect said ready and reported the note. ``--only polling`` runs only this case.

A measurement: it prints figures and ratios against the targets and exits 0 whatever they say.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import serve
from pagesight import Browser, Observation, Page

FIXED_WAIT_S = 1.2
TARGET_IN_PAGE_MS = 150.0
TARGET_NO_OP_MS = 600.0
TARGET_DELTA_SHARE = 0.20
TARGET_POLLING_RATIO = 1.5

ACT_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>Inbox</title></head>
<body><h1>Inbox</h1>
<nav><a href="target.html">Archive</a></nav>
<button id="add" type="button">Add note</button>
<button id="idle" type="button">Does nothing</button>
<ul id="notes"></ul>
<script>
  let n = 0;
  document.getElementById("add").addEventListener("click", () => {
    const li = document.createElement("li");
    li.textContent = "Note " + (++n);
    document.getElementById("notes").append(li);
  });
</script></body></html>
"""
TARGET_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>Archive</title></head>
<body><h1>Archive</h1><p>Nothing archived yet.</p><a href="act.html">Back to inbox</a></body></html>
"""


HOLD_S = 0.6
GESTURE_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>Gestures</title>
<style>
  .track { position: relative; width: 300px; height: 8px; background: #ccc; margin: 24px; }
  .thumb { position: absolute; top: -8px; width: 24px; height: 24px; margin-left: -12px;
           border-radius: 50%; background: #36c; }
  .btn { display: inline-block; padding: 6px 12px; border: 1px solid #357; cursor: pointer; }
</style></head>
<body><h1>Gestures</h1>
<label for="file" class="btn">Upload file</label><input type="file" id="file" hidden>
<p id="uploaded">No file</p>
<div class="track" id="track"><div class="thumb" id="thumb" role="slider" tabindex="0"
  aria-label="Level" aria-valuenow="0" style="left: 0%"></div></div>
<button type="button" id="hold">Hold to confirm</button><p id="held">Not confirmed</p>
<script>
  document.getElementById("file").addEventListener("change", (e) => {
    document.getElementById("uploaded").textContent = "Uploaded " + e.target.files[0].name;
  });
  const thumb = document.getElementById("thumb"), track = document.getElementById("track");
  thumb.addEventListener("pointerdown", (e) => {
    thumb.setPointerCapture(e.pointerId);
    const move = (ev) => {
      const r = track.getBoundingClientRect();
      const v = Math.round(Math.min(Math.max((ev.clientX - r.left) / r.width, 0), 1) * 100);
      thumb.style.left = v + "%";
      thumb.setAttribute("aria-valuenow", String(v));
    };
    thumb.addEventListener("pointermove", move);
    thumb.addEventListener("pointerup", () => thumb.removeEventListener("pointermove", move));
  });
  let down = null;
  const hold = document.getElementById("hold");
  hold.addEventListener("pointerdown", () => { down = performance.now(); });
  hold.addEventListener("pointerup", () => {
    const held = performance.now() - down;
    document.getElementById("held").textContent = held >= HOLD_MS ? "Confirmed" : "Too short";
  });
  const HOLD_MS = HOLD_MS_VALUE;
</script></body></html>
""".replace("HOLD_MS_VALUE", str(int(HOLD_S * 1000 * 0.8)))


POLL_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>Live scores</title></head>
<body><h1>Live scores</h1>
<p id="score">waiting for the score</p><p id="updates">0 updates</p>
<button id="add" type="button">Add note</button>
<ul id="notes"></ul>
<script>
  let updates = 0, n = 0;
  // ?poll=1: ask the server every 200 ms, for ever, and write each answer into the page.
  if (new URLSearchParams(location.search).get("poll")) {
    setInterval(async () => {
      const r = await (await fetch("score.json?since=" + updates)).json();
      document.getElementById("score").textContent = `Home ${r.home} : ${r.away} Away`;
      document.getElementById("updates").textContent = `${++updates} updates`;
    }, 200);
  }
  document.getElementById("add").addEventListener("click", () => {
    const li = document.createElement("li");
    li.textContent = "Note " + (++n);
    document.getElementById("notes").append(li);
  });
</script></body></html>
"""


def list_page(items: int = 100) -> str:
    """A 200-element page: 100 items, each a link and a button; one button renames its item."""
    rows = "\n".join(
        f'<li><a href="#item-{i}">Item {i}</a> '
        f'<button type="button" data-i="{i}">Rename {i}</button></li>'
        for i in range(1, items + 1)
    )
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>Items</title></head>
<body><h1>Items</h1><ul>{rows}</ul>
<script>
  document.addEventListener("click", (e) => {{
    const i = e.target.dataset && e.target.dataset.i;
    if (i) e.target.previousElementSibling.textContent = "Item " + i + " (renamed)";
  }});
</script></body></html>
"""


def stage(directory: Path) -> None:
    (directory / "act.html").write_text(ACT_PAGE, encoding="utf-8")
    (directory / "target.html").write_text(TARGET_PAGE, encoding="utf-8")
    (directory / "list.html").write_text(list_page(), encoding="utf-8")
    (directory / "gestures.html").write_text(GESTURE_PAGE, encoding="utf-8")
    (directory / "poll.html").write_text(POLL_PAGE, encoding="utf-8")
    (directory / "score.json").write_text('{"home": 2, "away": 1}', encoding="utf-8")
    (directory / "upload.txt").write_text("pagesight upload\n", encoding="utf-8")


def element_id(obs: Observation, name: str) -> int:
    return next(el.id for el in obs.elements if el.name == name)


def measure_effects(page: Page, base: str, runs: int) -> dict[str, list[tuple[float, bool]]]:
    """(milliseconds to the reported effect, whether its kinds tell the truth) per case."""
    cases: dict[str, tuple[str, Callable[[Any], bool]]] = {
        "in-page change": ("Add note", lambda e: "dom_change" in e.kinds),
        "navigation": ("Archive", lambda e: "navigation" in e.kinds),
        "no-op": ("Does nothing", lambda e: e.kinds == ("no_op",)),
    }
    out: dict[str, list[tuple[float, bool]]] = {case: [] for case in cases}
    for _ in range(runs):
        for case, (name, truthful) in cases.items():
            page.navigate(f"{base}/act.html")
            target = element_id(page.observe(), name)
            start = time.perf_counter()
            effect = page.act(target, "click")
            out[case].append(((time.perf_counter() - start) * 1000, truthful(effect)))
    return out


def measure_fixed_wait(page: Page, base: str, runs: int) -> dict[str, list[float]]:
    """Today's habit: click through Playwright, sleep 1.2 s, read the whole page again."""
    selectors = {"in-page change": "#add", "navigation": "a", "no-op": "#idle"}
    out: dict[str, list[float]] = {case: [] for case in selectors}
    for _ in range(runs):
        for case, selector in selectors.items():
            page.navigate(f"{base}/act.html")
            page.observe()
            start = time.perf_counter()
            page.playwright.click(selector)
            time.sleep(FIXED_WAIT_S)  # the habit being measured
            page.observe(wait=0)
            out[case].append((time.perf_counter() - start) * 1000)
    return out


def _text(page: Page, element: str) -> str:
    return str(page.playwright.evaluate(f"document.getElementById({element!r}).textContent"))


def measure_gestures(
    page: Page, base: str, upload: Path, runs: int
) -> dict[str, list[tuple[float, bool]]]:
    """(milliseconds to the reported effect, whether kind and details told the truth)."""
    out: dict[str, list[tuple[float, bool]]] = {"upload": [], "drag": [], "hold": []}
    for _ in range(runs):
        for case, samples in out.items():
            page.navigate(f"{base}/gestures.html")
            obs = page.observe()
            start = time.perf_counter()
            if case == "upload":
                effect = page.act(element_id(obs, "Upload file"), "upload", files=upload)
                truthful = (
                    "value_change" in effect.kinds
                    and effect.files == (upload,)
                    and _text(page, "uploaded") == f"Uploaded {upload.name}"
                )
            elif case == "drag":
                effect = page.act(element_id(obs, "Level"), "drag", by=(150, 0))
                moved = effect.moved
                truthful = (
                    "dom_change" in effect.kinds
                    and moved is not None
                    and moved.value_after == "50"
                    and page.playwright.evaluate(
                        "document.getElementById('thumb').getAttribute('aria-valuenow')"
                    )
                    == "50"
                )
            else:
                effect = page.act(element_id(obs, "Hold to confirm"), "click", hold=HOLD_S)
                truthful = "dom_change" in effect.kinds and "Confirmed" in effect.texts_added
            samples.append(((time.perf_counter() - start) * 1000, truthful))
    return out


def measure_gestures_fixed_wait(
    page: Page, base: str, upload: Path, runs: int
) -> dict[str, list[float]]:
    """The same gestures through Playwright, then sleep 1.2 s and observe."""
    out: dict[str, list[float]] = {"upload": [], "drag": [], "hold": []}
    for _ in range(runs):
        for case, samples in out.items():
            page.navigate(f"{base}/gestures.html")
            page.observe()
            pw = page.playwright
            start = time.perf_counter()
            if case == "upload":
                pw.set_input_files("#file", str(upload))
            elif case == "drag":
                box = pw.locator("#thumb").bounding_box()
                assert box is not None
                x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
                pw.mouse.move(x, y)
                pw.mouse.down()
                pw.mouse.move(x + 150, y, steps=12)
                pw.mouse.up()
            else:
                pw.hover("#hold")
                pw.mouse.down()
                time.sleep(HOLD_S)  # the hold itself
                pw.mouse.up()
            time.sleep(FIXED_WAIT_S)  # the habit being measured
            page.observe(wait=0)
            samples.append((time.perf_counter() - start) * 1000)
    return out


def measure_polling(browser: Browser, base: str, runs: int) -> dict[str, list[tuple[float, bool]]]:
    """(milliseconds for open + observe + click, whether both said ready and the click's
    note was reported) on the same page quiet and polling every 200 ms, in turns."""
    urls = {"quiet": f"{base}/poll.html", "polling 200 ms": f"{base}/poll.html?poll=1"}
    out: dict[str, list[tuple[float, bool]]] = {case: [] for case in urls}
    for _ in range(runs):
        for case, url in urls.items():
            start = time.perf_counter()
            page = browser.open(url)
            obs = page.observe()
            effect = page.act(element_id(obs, "Add note"), "click")
            ms = (time.perf_counter() - start) * 1000
            truthful = obs.ready and effect.ready and "Note 1" in effect.texts_added
            out[case].append((ms, truthful))
            page.close()
    return out


def report_polling(polling: dict[str, list[tuple[float, bool]]], runs: int) -> None:
    print(f"open + observe + click, median of {runs} runs, the same page quiet and polling")
    print(f"{'case':<16} {'pagesight':>10} {'truthful':>9}")
    medians = {}
    for case, samples in polling.items():
        medians[case] = statistics.median(s[0] for s in samples)
        right = sum(s[1] for s in samples)
        print(f"{case:<16} {medians[case]:>8.0f}ms {right:>5}/{len(samples)}")
    ratio = medians["polling 200 ms"] / medians["quiet"]
    print(
        f"  polling page within {TARGET_POLLING_RATIO:g}x of the quiet one: {ratio:.2f}x",
        _verdict(ratio <= TARGET_POLLING_RATIO),
    )


def measure_delta(page: Page, base: str) -> tuple[int, int, int]:
    """Tokens of the full observation, of the delta after one item changes, and elements."""
    page.navigate(f"{base}/list.html")
    full = page.observe()
    page.act(element_id(full, "Rename 100"), "click")
    delta = page.observe(since=full)
    return full.tokens, delta.tokens, len(full.elements)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="runs per case (default 15)")
    parser.add_argument(
        "--only", choices=["polling"], help="run only this case (polling: open, observe, click)"
    )
    args = parser.parse_args(argv)
    if args.runs < 1:
        print("act.py: --runs must be at least 1", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="pagesight-bench-act-") as tmp:
        stage(Path(tmp))
        with serve.serve(Path(tmp)) as base, Browser.launch() as browser:
            print(f"measuring {args.runs} runs per case …", file=sys.stderr)
            polling = measure_polling(browser, base, args.runs)
            if args.only == "polling":
                report_polling(polling, args.runs)
                return 0
            page = browser.new_page()
            ours = measure_effects(page, base, args.runs)
            fixed = measure_fixed_wait(page, base, max(3, args.runs // 3))
            full_tokens, delta_tokens, elements = measure_delta(page, base)
            upload = Path(tmp) / "upload.txt"
            gestures = measure_gestures(page, base, upload, args.runs)
            gestures_fixed = measure_gestures_fixed_wait(page, base, upload, max(3, args.runs // 3))
    print(f"click -> reported effect, median of {args.runs} runs (fixed wait: click, sleep 1.2 s,")
    print("observe again)")
    print(f"{'case':<16} {'pagesight':>10} {'fixed wait':>11} {'ratio':>7} {'truthful':>9}")
    for case, samples in ours.items():
        ms = statistics.median(s[0] for s in samples)
        base_ms = statistics.median(fixed[case])
        right = sum(s[1] for s in samples)
        print(
            f"{case:<16} {ms:>8.0f}ms {base_ms:>9.0f}ms {ms / base_ms:>6.2f}x "
            f"{right:>5}/{len(samples)}"
        )
    print()
    print(f"gesture -> reported effect, median of {args.runs} runs (fixed wait: the gesture")
    print(f"through Playwright, sleep 1.2 s, observe again; a hold lasts {HOLD_S * 1000:.0f} ms)")
    print(f"{'case':<16} {'pagesight':>10} {'fixed wait':>11} {'ratio':>7} {'truthful':>9}")
    for case, samples in gestures.items():
        ms = statistics.median(s[0] for s in samples)
        base_ms = statistics.median(gestures_fixed[case])
        right = sum(s[1] for s in samples)
        print(
            f"{case:<16} {ms:>8.0f}ms {base_ms:>9.0f}ms {ms / base_ms:>6.2f}x "
            f"{right:>5}/{len(samples)}"
        )
    hold_ms = statistics.median(s[0] for s in gestures["hold"])
    print(f"hold beyond the hold itself: {hold_ms - HOLD_S * 1000:.0f} ms")
    in_page = statistics.median(s[0] for s in ours["in-page change"])
    no_op = statistics.median(s[0] for s in ours["no-op"])
    share = delta_tokens / full_tokens
    print()
    print(
        f"delta after one item changes on a {elements}-element page: {delta_tokens} tokens vs "
        f"{full_tokens} full = {share:.1%}"
    )
    print()
    print("targets")
    print(
        f"  in-page click to effect < {TARGET_IN_PAGE_MS:.0f} ms: {in_page:.0f} ms",
        _verdict(in_page < TARGET_IN_PAGE_MS),
    )
    print(
        f"  no-op click reported < {TARGET_NO_OP_MS:.0f} ms: {no_op:.0f} ms",
        _verdict(no_op < TARGET_NO_OP_MS),
    )
    print(
        f"  delta < {TARGET_DELTA_SHARE:.0%} of full tokens: {share:.1%}",
        _verdict(share < TARGET_DELTA_SHARE),
    )
    print()
    report_polling(polling, args.runs)
    return 0


def _verdict(met: bool) -> str:
    return "met" if met else "MISSED"


if __name__ == "__main__":
    raise SystemExit(main())
