"""Benchmark the vision side: reading a screenshot beside observing the DOM of the same page.

    .venv/bin/python benchmarks/vision.py [--runs N]

On tests/pages/canvas-app.html (a canvas-only app) served over HTTP on 127.0.0.1, in a
1280x800 viewport, in one run:

* the median time of a vision observation (``page.observe(mode="vision")``: screenshot, OCR,
  elements) beside the DOM observation of the same page (``mode="cdp"``, which finds only the
  bare canvas there), and of its parts: taking the screenshot and ``read_screen`` (Tesseract
  OCR, grouping, button boxes) on it;
* the same at device scale factor 2 (a 2560x1600 screenshot);
* the share of the fixture's labels that OCR read correctly: the exact text, at the place the
  app painted it (``window.appLayout``);
* a dense screen, tests/pages/vision-dense-table.html (an admin grid: 355 text lines in the
  1280x800 viewport): the vision observation and ``read_screen``, beside the floor of one plain
  ``tesseract`` run on the same screenshot (same languages, its own layout analysis), the same
  ``read_screen`` with Tesseract in one process (``processes=1``), and the pixel work alone
  (text line boxes and a button box search for every line), each in wall and in CPU time
  (this process and its Tesseracts: what a busy machine does not blur); and the share of its
  cells and buttons read exactly at their place;
* the set-of-marks layout of 1,000 marks among their text boxes (``layout_marks``), with room
  beside every link and with none (every badge searching for the nearest free spot).

A measurement: it prints figures and exits 0 whatever they are.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import serve
from pagesight import Browser
from pagesight.vision import Mark, TesseractOcr, VisionItem, layout_marks, read_screen
from pagesight.vision.boxes import enclosing_box, pixels_of
from pagesight.vision.images import decode_png
from pagesight.vision.marks import CssBox, with_first_lines
from pagesight.vision.textlines import text_boxes

PAGES = Path(__file__).resolve().parent.parent / "tests" / "pages"
VIEWPORT = {"width": 1280, "height": 800}
APP_READY = "window.appState && window.appState.ready"
# Every cell, heading and button of the dense table in view: its text and CSS box.
DENSE_LAYOUT = """() => [...document.querySelectorAll("h1, button, th, td")].map((el) => {
  const r = el.getBoundingClientRect();
  return {name: el.textContent.trim(), box: [r.left, r.top, r.width, r.height]};
}).filter((c) => c.box[1] >= 0 && c.box[1] + c.box[3] <= innerHeight)"""
T = TypeVar("T")


def timed(runs: int, call: Callable[[], T]) -> tuple[float, T]:
    """The median wall time of ``runs`` calls in milliseconds, and the last result."""
    times: list[float] = []
    result: T | None = None
    for _ in range(runs):
        start = time.perf_counter()
        result = call()
        times.append((time.perf_counter() - start) * 1000)
    assert result is not None
    return statistics.median(times), result


def cpu_seconds() -> float:
    """CPU time of this process and of the children it has waited for (Tesseract)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def timed_cpu(runs: int, call: Callable[[], T]) -> tuple[float, float, T]:
    """Median wall and CPU ms of ``runs`` calls, and the last result. On a busy machine the
    wall time is the other processes' as much as ours; the CPU time is ours alone."""
    walls: list[float] = []
    cpus: list[float] = []
    result: T | None = None
    for _ in range(runs):
        wall, cpu = time.perf_counter(), cpu_seconds()
        result = call()
        walls.append((time.perf_counter() - wall) * 1000)
        cpus.append((cpu_seconds() - cpu) * 1000)
    assert result is not None
    return statistics.median(walls), statistics.median(cpus), result


def accuracy(items: list[VisionItem], layout: list[dict[str, Any]]) -> tuple[int, list[str]]:
    """Labels read exactly with their centre inside the box the app painted; the misses."""
    missed: list[str] = []
    for control in layout:
        x, y, w, h = control["box"]
        if not any(
            item.name == control["name"]
            and x <= item.bounds[0] + item.bounds[2] / 2 <= x + w
            and y <= item.bounds[1] + item.bounds[3] / 2 <= y + h
            for item in items
        ):
            missed.append(control["name"])
    return len(layout) - len(missed), missed


def measure(pw_page: Any, ocr: TesseractOcr, runs: int, scale: float) -> dict[str, Any]:
    pw_page.wait_for_function(APP_READY)
    shot_ms, png = timed(runs, pw_page.screenshot)
    read_ms, items = timed(runs, lambda: read_screen(png, ocr=ocr, scale=scale))
    read, missed = accuracy(items, pw_page.evaluate("window.appLayout"))
    return {"shot_ms": shot_ms, "read_ms": read_ms, "read": read, "missed": missed}


def raw_tesseract(png: bytes, languages: str) -> bytes:
    """The floor: one ``tesseract`` run on the screenshot as it is (its own layout analysis)."""
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
    command = ["tesseract", "stdin", "stdout", "-l", languages, "tsv"]
    return subprocess.run(command, input=png, capture_output=True, env=env, check=True).stdout


def pixel_work(png: bytes) -> int:
    """What pagesight does to the pixels itself: line boxes, and a box search on each line."""
    image = decode_png(png)
    lines = text_boxes(image)
    pixels = pixels_of(image)
    return sum(enclosing_box(pixels, line) is not None for line in lines) + len(lines)


def measure_dense(page: Any, ocr: TesseractOcr, runs: int) -> dict[str, Any]:
    """The dense table: vision observation, read_screen and what they are made of."""
    png = page.playwright.screenshot()
    one = TesseractOcr(languages=ocr.languages, processes=1)
    figures: dict[str, Any] = {}
    figures["observe_ms"], _ = timed(runs, lambda: page.observe(mode="vision"))
    figures["read_ms"], figures["read_cpu"], items = timed_cpu(
        runs, lambda: read_screen(png, ocr=ocr)
    )
    figures["one_ms"], figures["one_cpu"], _ = timed_cpu(runs, lambda: read_screen(png, ocr=one))
    figures["raw_ms"], figures["raw_cpu"], _ = timed_cpu(
        runs, lambda: raw_tesseract(png, ocr.languages)
    )
    figures["pixels_ms"], figures["pixels_cpu"], _ = timed_cpu(runs, lambda: pixel_work(png))
    layout = page.playwright.evaluate(DENSE_LAYOUT)
    figures["read"], figures["missed"] = accuracy(items, layout)
    figures["labels"] = len(layout)
    figures["lines"] = len(text_boxes(decode_png(png)))
    return figures


def dense_links(pitch: float) -> tuple[list[Mark], list[CssBox]]:
    """1,000 links 36x15 CSS px in rows 16 px apart, ``pitch`` px between column starts."""
    texts: list[CssBox] = []
    marks: list[Mark] = []
    columns = 1000 // 50
    for col in range(columns):
        for row in range(50):
            box = (24.0 + col * pitch, row * 16.0, 36.0, 15.0)
            texts.append(box)
            marks.append(Mark(id=1000 + len(marks), kind="link", bounds=box))
    return with_first_lines(marks, texts), texts


def layout_ms(runs: int) -> dict[str, float]:
    """Median ms of laying out 1,000 marks: with room beside each, and crowded."""
    figures = {}
    for name, pitch in (("room", 100.0), ("crowded", 64.0)):
        marks, texts = dense_links(pitch)
        size = (round(24 + 20 * pitch), 800)

        def lay_out(
            m: list[Mark] = marks, t: list[CssBox] = texts, s: tuple[int, int] = size
        ) -> object:
            return layout_marks(m, scale=1, size=s, texts=t)

        figures[name], _ = timed(runs, lay_out)
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7, help="timed runs per figure (default 7)")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    ocr = TesseractOcr()
    with serve.serve(PAGES) as base, Browser.launch(headless=True) as browser:
        url = f"{base}/canvas-app.html"
        page = browser.open(url)
        page.playwright.set_viewport_size(VIEWPORT)
        one = measure(page.playwright, ocr, args.runs, 1.0)
        observe_ms, obs = timed(args.runs, lambda: page.observe(mode="cdp"))
        vision_ms, seen = timed(args.runs, lambda: page.observe(mode="vision"))
        labels = len(page.playwright.evaluate("window.appLayout"))
        page.close()
        page = browser.open(f"{base}/vision-dense-table.html")
        page.playwright.set_viewport_size(VIEWPORT)
        dense = measure_dense(page, ocr, args.runs)
        page.close()
        context = browser.playwright.new_context(device_scale_factor=2, viewport=VIEWPORT)
        try:
            hidpi = context.new_page()
            hidpi.goto(url)
            two = measure(hidpi, ocr, args.runs, 2.0)
        finally:
            context.close()

    layout = layout_ms(args.runs)
    print(f"canvas-app.html, {VIEWPORT['width']}x{VIEWPORT['height']} CSS px, {args.runs} runs")
    print(f"  DOM observation (cdp):          {observe_ms:7.1f} ms  ({len(obs.elements)} element)")
    print(
        f"  vision observation:             {vision_ms:7.1f} ms  ({len(seen.elements)} elements,"
        f" {vision_ms / observe_ms:.0f}x the DOM observation)"
    )
    for name, figures in (("scale 1, 1280x800 px", one), ("scale 2, 2560x1600 px", two)):
        print(f"  {name}:")
        print(f"    screenshot:                   {figures['shot_ms']:7.1f} ms")
        print(
            f"    read_screen:                  {figures['read_ms']:7.1f} ms"
            f"  ({figures['read_ms'] / observe_ms:.1f}x the DOM observation)"
        )
        missed = f"; missed {figures['missed']}" if figures["missed"] else ""
        print(
            f"    labels read correctly:        {figures['read']}/{labels}"
            f" = {figures['read'] / labels:.0%}{missed}"
        )
    raw, raw_cpu = dense["raw_ms"], dense["raw_cpu"]
    print(
        f"vision-dense-table.html, {VIEWPORT['width']}x{VIEWPORT['height']} CSS px,"
        f" {dense['lines']} text lines, Tesseract on {ocr.processes} CPU(s)"
    )
    print(f"  one plain tesseract run (floor):  {raw:7.1f} ms, CPU {raw_cpu:7.1f} ms")
    print(f"  vision observation:               {dense['observe_ms']:7.1f} ms")
    for name, key in (
        ("read_screen:", "read"),
        ("read_screen, one Tesseract:", "one"),
        ("of which pixel work (numpy):", "pixels"),
    ):
        wall, cpu = dense[f"{key}_ms"], dense[f"{key}_cpu"]
        print(
            f"  {name:32} {wall:7.1f} ms, CPU {cpu:7.1f} ms"
            f"  ({wall / raw:.2f}x the floor; CPU {cpu / raw_cpu:.2f}x)"
        )
    print(
        f"  cells and buttons read correctly: {dense['read']}/{dense['labels']}"
        f" = {dense['read'] / dense['labels']:.0%}"
    )
    print(
        f"  set-of-marks layout, 1,000 marks: {layout['room']:7.1f} ms with room beside each link,"
        f" {layout['crowded']:.1f} ms with none"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
