"""Per-page results, the printed table and summary, and the JSON dump."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from peers import PeerFigures
from recall import Recall
from serve import BIG, FIXTURE, REAL, PageSpec
from subject import PagesightFigures

TARGETS = {  # name: (ratio key, corpus limit, 5,000-element page limit)
    "latency vs aria": ("lat_x", 1.0, 1.5),
    "full tokens vs aria": ("full_x", 0.6, 0.6),
    "interactive tokens vs aria": ("int_x", 0.3, 0.3),
    "interactive tokens vs agent-browser": ("ab_x", 0.8, 0.8),
}
RATIO_KEYS = ("lat_x", "full_x", "int_x", "ab_x")


@dataclass
class AgentBrowserFigures:
    interactive_tokens: int = 0
    full_tokens: int = 0
    interactive_ms: list[float] = field(default_factory=list)


@dataclass
class PageResult:
    spec: PageSpec
    url: str
    ps: PagesightFigures | None = None
    peer: PeerFigures | None = None
    recall_full: Recall | None = None
    recall_interactive: Recall | None = None
    ab: AgentBrowserFigures | None = None
    errors: list[str] = field(default_factory=list)

    def ratios(self) -> dict[str, float | None]:
        ps, peer, ab = self.ps, self.peer, self.ab
        out: dict[str, float | None] = {"lat_x": None, "full_x": None, "int_x": None, "ab_x": None}
        if ps and peer and peer.aria_tokens:
            out["lat_x"] = med(ps.full_ms) / med(peer.aria_ms) if ps.full_ms else None
            out["full_x"] = ps.full_tokens / peer.aria_tokens
            out["int_x"] = ps.interactive_tokens / peer.aria_tokens
        if ps and ab and ab.interactive_tokens:
            out["ab_x"] = ps.interactive_tokens / ab.interactive_tokens
        return out

    def as_json(self) -> dict[str, Any]:
        ps, peer, ab = self.ps, self.peer, self.ab
        return {
            "name": self.spec.name,
            "group": self.spec.group,
            "url": self.url,
            "pagesight": ps
            and {
                "full_ms": ps.full_ms,
                "full_tokens": ps.full_tokens,
                "interactive_ms": ps.interactive_ms,
                "interactive_tokens": ps.interactive_tokens,
                "full_elements": len(ps.full_items),
                "interactive_elements": len(ps.interactive_items),
                "names": ps.names
                and {
                    "controls": ps.names.controls,
                    "unnamed": ps.names.unnamed,
                    "hinted": ps.names.hinted,
                },
            },
            "aria": peer
            and {"ms": peer.aria_ms, "tokens": peer.aria_tokens, "chars": peer.aria_chars},
            "cdp_raw": peer
            and {
                "ms": peer.cdp_ms,
                "bytes": peer.cdp_bytes,
                "snapshot_ms": peer.cdp_snapshot_ms,
                "axtree_ms": peer.cdp_axtree_ms,
            },
            "same_tab": peer and peer.same_page,
            "ground_truth_elements": peer and len(peer.truth),
            "recall_full": self.recall_full and self.recall_full.as_json(),
            "recall_interactive": self.recall_interactive and self.recall_interactive.as_json(),
            "agent_browser": ab
            and {
                "interactive_tokens": ab.interactive_tokens,
                "full_tokens": ab.full_tokens,
                "interactive_ms": ab.interactive_ms,
            },
            "ratios": self.ratios(),
            "errors": self.errors,
        }


def med(xs: Sequence[float]) -> float:
    return statistics.median(xs)


def _f(x: float | None, spec: str) -> str:
    return "-" if x is None else format(x, spec)


def _m(xs: Sequence[float] | None) -> float | None:
    return med(xs) if xs else None


def _n(x: int | None) -> float | None:
    return None if x is None else float(x)


def _rec(rec: Recall | None) -> float | None:
    return rec.value if rec else None


COLUMNS: list[tuple[str, int, Callable[[PageResult], str]]] = [
    ("ps ms", 7, lambda r: _f(_m(r.ps.full_ms if r.ps else None), ".1f")),
    ("ps tok", 7, lambda r: _f(_n(r.ps.full_tokens if r.ps else None), ".0f")),
    ("ps int", 6, lambda r: _f(_n(r.ps.interactive_tokens if r.ps else None), ".0f")),
    ("aria ms", 7, lambda r: _f(_m(r.peer.aria_ms if r.peer else None), ".1f")),
    ("aria tok", 8, lambda r: _f(_n(r.peer.aria_tokens if r.peer else None), ".0f")),
    ("cdp ms", 7, lambda r: _f(_m(r.peer.cdp_ms if r.peer else None), ".1f")),
    ("cdp KB", 6, lambda r: _f(r.peer.cdp_bytes / 1024 if r.peer else None, ".0f")),
    ("lat x", 5, lambda r: _f(r.ratios()["lat_x"], ".2f")),
    ("full x", 6, lambda r: _f(r.ratios()["full_x"], ".2f")),
    ("int x", 5, lambda r: _f(r.ratios()["int_x"], ".2f")),
    ("rec F", 5, lambda r: _f(_rec(r.recall_full), ".2f")),
    ("rec I", 5, lambda r: _f(_rec(r.recall_interactive), ".2f")),
    ("gt", 4, lambda r: _f(_n(len(r.peer.truth) if r.peer else None), ".0f")),
    ("ab tok", 6, lambda r: _f(_n(r.ab.interactive_tokens if r.ab else None), ".0f")),
    ("ab x", 5, lambda r: _f(r.ratios()["ab_x"], ".2f")),
]
GROUP_TITLES = {FIXTURE: "fixtures (tests/pages)", REAL: "real corpus", BIG: "generated"}


def print_table(results: Sequence[PageResult], out: TextIO, verbose: bool) -> None:
    head = f"{'page':<16}" + "".join(f" {name:>{w}}" for name, w, _ in COLUMNS)
    print(head, file=out)
    for group in (FIXTURE, REAL, BIG):
        rows = [r for r in results if r.spec.group == group]
        if not rows:
            continue
        print(f"-- {GROUP_TITLES[group]}", file=out)
        for r in rows:
            cells = "".join(f" {get(r):>{w}}" for _, w, get in COLUMNS)
            print(f"{r.spec.name[:16]:<16}{cells}", file=out)
            for err in r.errors:
                print(f"   ! {err}", file=out)
            if verbose and r.ps and r.ps.names:
                n = r.ps.names
                print(
                    f"   names: {n.unnamed} of {n.controls} controls without a name,"
                    f" {n.hinted} with only a hint",
                    file=out,
                )
            if verbose:
                for label, rec in (("full", r.recall_full), ("interactive", r.recall_interactive)):
                    if rec and rec.misses:
                        shown = "; ".join(f"{m.kind} {m.name!r}" for m in rec.misses[:5])
                        print(f"   missed ({label}, {len(rec.misses)}): {shown}", file=out)
    print(
        "ps = pagesight observe (ms: view=full; tok: full; int: interactive), aria = Playwright"
        " aria_snapshot, cdp = DOMSnapshot+AXTree raw, x = pagesight/peer, rec F/I = recall"
        " (full/interactive) of gt visible interactive elements, ab = agent-browser snapshot -i",
        file=out,
    )


def _ratio_median(results: Sequence[PageResult], key: str) -> float | None:
    vals = [v for r in results if (v := r.ratios()[key]) is not None]
    return med(vals) if vals else None


def _recall_median(results: Sequence[PageResult], interactive: bool) -> float | None:
    vals = [
        v
        for r in results
        if (v := _rec(r.recall_interactive if interactive else r.recall_full)) is not None
    ]
    return med(vals) if vals else None


def print_summary(
    results: Sequence[PageResult], out: TextIO, pagesight_why: str, ab_why: str
) -> dict[str, Any]:
    real = [r for r in results if r.spec.group == REAL]
    big = [r for r in results if r.spec.group == BIG]
    summary: dict[str, Any] = {"targets": []}
    print("\nsummary", file=out)
    peers_real = [r.peer for r in real if r.peer]
    if peers_real:
        aria_ms = med([med(p.aria_ms) for p in peers_real])
        aria_tok = med([p.aria_tokens for p in peers_real])
        cdp_ms = med([med(p.cdp_ms) for p in peers_real])
        print(
            f"  corpus ({len(peers_real)} pages) medians: aria {aria_ms:.1f} ms, "
            f"{aria_tok:.0f} tokens; raw CDP capture {cdp_ms:.1f} ms",
            file=out,
        )
        summary["corpus_reference"] = dict(aria_ms=aria_ms, aria_tokens=aria_tok, cdp_ms=cdp_ms)
    if pagesight_why:
        print(f"  pagesight: not measured: {pagesight_why}", file=out)
    if ab_why:
        print(
            f"  agent-browser: not measured: {ab_why}; its target falls back to"
            " 'interactive tokens vs aria'",
            file=out,
        )
    for label, key, rows in (("corpus median", "corpus", real), ("5,000-element page", "5k", big)):
        figures: dict[str, float | None] = {k: _ratio_median(rows, k) for k in RATIO_KEYS}
        figures["recall_full"] = _recall_median(rows, interactive=False)
        figures["recall_interactive"] = _recall_median(rows, interactive=True)
        summary[key] = figures
        shown = ", ".join(f"{k} {_f(v, '.2f')}" for k, v in figures.items())
        print(f"  {label}: {shown}", file=out)
    summary["names"] = _print_names(real, out)
    print("targets", file=out)
    for name, (key, lim_real, lim_big) in TARGETS.items():
        if key == "ab_x" and ab_why:
            continue
        for where, rows, lim in (("corpus", real, lim_real), ("5k page", big, lim_big)):
            v = _ratio_median(rows, key)
            verdict = "n/a" if v is None else ("PASS" if v <= lim else "FAIL")
            print(f"  {verdict:<4} {name} ({where}): {_f(v, '.2f')}x, target <= {lim}x", file=out)
            summary["targets"].append(
                {"target": name, "where": where, "value": v, "limit": lim, "verdict": verdict}
            )
    return summary


def _print_names(real: Sequence[PageResult], out: TextIO) -> dict[str, Any] | None:
    """The share of the corpus pages' controls without a name and with only a hint name,
    pooled over the pages (each control counts once)."""
    names = [r.ps.names for r in real if r.ps and r.ps.names]
    controls = sum(n.controls for n in names)
    if not controls:
        return None
    unnamed = sum(n.unnamed for n in names) / controls
    hinted = sum(n.hinted for n in names) / controls
    print(
        f"  corpus names ({len(names)} pages, {controls} controls): {unnamed:.1%} without a"
        f" name, {hinted:.1%} with only a hint name (guessed from markup)",
        file=out,
    )
    return {"controls": controls, "unnamed_share": unnamed, "hinted_share": hinted}
