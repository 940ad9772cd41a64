"""Benchmark pagesight's observe against Playwright's aria snapshot, raw CDP and agent-browser.

    .venv/bin/python benchmarks/observe.py [--repeat N] [--only NAME] [--group corpus]
                                           [--json FILE] [--verbose]

Pages: the fixtures in tests/pages, the saved real pages of shared/corpus/pages and a
generated 5,000-element page, all served over HTTP on 127.0.0.1.  For each page:
pagesight observe (full and interactive), Playwright `aria_snapshot()`, the raw CDP
capture (DOMSnapshot + full AX tree), recall against ground_truth.js, how many
controls have no name or only a hint name, and agent-browser `snapshot -i` when it
can run here.  It is a measurement: exits 0
whatever the targets say.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import agentbrowser
import peers
import recall
import report
import serve
import subject
import tokens


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--repeat", type=int, default=7, help="timed runs per measurement (default 7)")
    p.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="NAME",
        help="only pages whose name contains NAME (repeatable, or comma-separated)",
    )
    p.add_argument(
        "--group",
        action="append",
        default=[],
        choices=(serve.FIXTURE, serve.REAL, serve.BIG),
        help="only this group of pages: fixture, corpus or 5k (repeatable)",
    )
    p.add_argument("--json", type=Path, metavar="FILE", help="write all raw figures to FILE")
    p.add_argument("--verbose", action="store_true", help="list the first recall misses per page")
    p.add_argument(
        "--mode",
        default="cdp",
        choices=("cdp", "evaluate"),
        help="pagesight observe mode (default cdp)",
    )
    p.add_argument("--no-agent-browser", action="store_true", help="skip agent-browser")
    p.add_argument(
        "--no-install",
        action="store_true",
        help="do not npm-install agent-browser into benchmarks/node_modules",
    )
    args = p.parse_args(argv)
    if args.repeat < 1:
        p.error("--repeat must be at least 1")
    return args


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _err(step: str, exc: BaseException) -> str:
    first = str(exc).strip().splitlines()[0][:160] if str(exc).strip() else ""
    return f"{step}: {type(exc).__name__}: {first}"


@dataclass
class Bench:
    """What every page's measurement needs."""

    args: argparse.Namespace
    base: str  # URL of the page server
    launched: subject.Launched
    peer_browser: peers.PeerBrowser


def measure_page(bench: Bench, spec: serve.PageSpec, tag: str) -> report.PageResult:
    url = bench.base + spec.path
    result = report.PageResult(spec, url)
    repeat = bench.args.repeat

    def progress(step: str) -> None:
        log(f"{tag} {spec.name}: {step}")

    opened = subject.Opened(url)
    if bench.launched.browser is not None:
        try:
            progress("pagesight open")
            opened = subject.measure_pagesight(
                bench.launched, url, repeat, bench.args.mode, progress
            )
            result.ps = opened.figures
        except Exception as exc:  # noqa: BLE001 (one broken page must not end the run)
            result.errors.append(_err("pagesight", exc))
    try:
        progress("reference side: connect")
        with bench.peer_browser.page_for(opened.url, opened.viewport) as (page, same):
            result.peer = peers.measure(page, repeat, progress)
            result.peer.same_page = same
    except Exception as exc:  # noqa: BLE001
        result.errors.append(_err("reference", exc))
    finally:
        try:
            opened.close()
        except Exception as exc:  # noqa: BLE001
            result.errors.append(_err("pagesight close", exc))
    if result.ps and result.peer:
        result.recall_full = recall.compute(result.peer.truth, result.ps.full_items)
        result.recall_interactive = recall.compute(result.peer.truth, result.ps.interactive_items)
    return result


def measure_agent_browser(
    result: report.PageResult, ab: agentbrowser.AgentBrowser, repeat: int, tag: str
) -> None:
    log(f"{tag} {result.spec.name}: agent-browser snapshot -i")
    try:
        text, full, ms = ab.snapshots(result.url, min(repeat, 3))
        result.ab = report.AgentBrowserFigures(tokens.count(text), tokens.count(full), ms)
    except agentbrowser.AgentBrowserError as exc:
        result.errors.append(str(exc)[:200])


def chromium_version(cdp_url: str) -> str:
    try:
        with urllib.request.urlopen(cdp_url + "/json/version", timeout=5) as resp:
            return str(json.load(resp).get("Browser", "?"))
    except OSError:
        return "?"


def run(args: argparse.Namespace) -> tuple[list[report.PageResult], dict[str, Any]]:
    results: list[report.PageResult] = []
    with tempfile.TemporaryDirectory(prefix="pagesight-bench-") as tmp:
        pages = serve.stage(Path(tmp))
        if args.group:
            pages = [p for p in pages if p.group in args.group]
        if args.only:
            names = [n for arg in args.only for n in arg.split(",") if n]
            pages = [p for p in pages if any(n in p.name for n in names)]
            if not pages:
                log(f"no page matches --only {' '.join(args.only)}")
        log(f"{len(pages)} pages; repeat {args.repeat}; launching the browser")
        with serve.serve(Path(tmp)) as base, subject.launch() as launched:
            ab: agentbrowser.AgentBrowser | None = None
            ab_why = "skipped (--no-agent-browser)" if args.no_agent_browser else ""
            if not args.no_agent_browser:
                binary, ab_why = agentbrowser.find(allow_install=not args.no_install)
                if binary:
                    ab = agentbrowser.AgentBrowser(binary, launched.cdp_url)
            meta = {
                "repeat": args.repeat,
                "mode": args.mode,
                "chromium": chromium_version(launched.cdp_url),
                "pagesight": launched.why_not or "measured",
                "agent_browser": ab_why or f"agent-browser@{agentbrowser.VERSION} over CDP",
            }
            bench = Bench(args, base, launched, peers.PeerBrowser(launched.cdp_url))
            try:
                for i, spec in enumerate(pages, 1):
                    results.append(measure_page(bench, spec, f"[{i}/{len(pages)}]"))
            finally:
                bench.peer_browser.close()
            # Last, so that its daemon (attached to the browser) is not around while
            # pagesight and the aria snapshot are timed.
            if ab is not None:
                try:
                    for i, result in enumerate(results, 1):
                        measure_agent_browser(result, ab, args.repeat, f"[{i}/{len(results)}]")
                finally:
                    ab.close()
    if ab is not None and all(r.ab is None for r in results) and results:
        ab_why = "every agent-browser run failed: " + next(
            (e for r in results for e in r.errors if e.startswith("agent-browser")), "?"
        )
    meta["ab_why"] = ab_why
    return results, meta


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    results, meta = run(args)
    report.print_table(results, sys.stdout, args.verbose)
    why_not = "" if meta["pagesight"] == "measured" else meta["pagesight"]
    summary = report.print_summary(results, sys.stdout, why_not, meta["ab_why"])
    if args.json:
        data = {"meta": meta, "summary": summary, "pages": [r.as_json() for r in results]}
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
        log(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
