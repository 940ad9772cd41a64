"""Recall of pagesight's elements against the ground truth of ground_truth.js.

Each ground-truth element is matched to at most one reported element, and each
reported element to at most one ground-truth element: first by bounds (IoU >= 0.5,
best overlap wins), then, for those left, by equal normalised name.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

GROUND_TRUTH_JS = (Path(__file__).resolve().parent / "ground_truth.js").read_text(encoding="utf-8")
IOU_MIN = 0.5
CELL = 256.0  # px, grid cell of the spatial index

Bounds = tuple[float, float, float, float]  # x, y, width, height


@dataclass(frozen=True)
class Item:
    kind: str
    name: str
    bounds: Bounds | None


@dataclass
class Recall:
    total: int = 0
    by_bounds: int = 0
    by_name: int = 0
    misses: list[Item] = field(default_factory=list)

    @property
    def matched(self) -> int:
        return self.by_bounds + self.by_name

    @property
    def value(self) -> float | None:
        return self.matched / self.total if self.total else None

    def as_json(self, max_misses: int = 50) -> dict[str, Any]:
        return {
            "total": self.total,
            "matched": self.matched,
            "by_bounds": self.by_bounds,
            "by_name": self.by_name,
            "recall": self.value,
            "misses": [{"kind": m.kind, "name": m.name} for m in self.misses[:max_misses]],
        }


def truth_items(raw: Iterable[dict[str, Any]]) -> list[Item]:
    return [
        Item(
            str(r["kind"]),
            str(r["name"]),
            (float(r["x"]), float(r["y"]), float(r["width"]), float(r["height"])),
        )
        for r in raw
    ]


def norm(name: str) -> str:
    return re.sub(r"\s+", " ", name).strip().casefold()[:60]


def iou(a: Bounds, b: Bounds) -> float:
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    w = min(ax + aw, bx + bw) - max(ax, bx)
    h = min(ay + ah, by + bh) - max(ay, by)
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    return inter / (aw * ah + bw * bh - inter)


def _cells(b: Bounds) -> Iterable[tuple[int, int]]:
    x, y, w, h = b
    for cx in range(int(x // CELL), int((x + w) // CELL) + 1):
        for cy in range(int(y // CELL), int((y + h) // CELL) + 1):
            yield cx, cy


def compute(truth: Sequence[Item], reported: Sequence[Item]) -> Recall:
    result = Recall(total=len(truth))
    grid: dict[tuple[int, int], list[int]] = defaultdict(list)
    for j, r in enumerate(reported):
        if r.bounds and r.bounds[2] > 0 and r.bounds[3] > 0:
            for cell in _cells(r.bounds):
                grid[cell].append(j)

    # All candidate pairs above the threshold, best overlap first (greedy assignment).
    pairs: list[tuple[float, int, int]] = []
    for i, t in enumerate(truth):
        if not t.bounds:
            continue
        seen: set[int] = set()
        for cell in _cells(t.bounds):
            for j in grid.get(cell, ()):
                if j in seen:
                    continue
                seen.add(j)
                bounds = reported[j].bounds
                assert bounds is not None
                score = iou(t.bounds, bounds)
                if score >= IOU_MIN:
                    pairs.append((score, i, j))
    pairs.sort(reverse=True)
    truth_done: set[int] = set()
    used: set[int] = set()
    for _, i, j in pairs:
        if i not in truth_done and j not in used:
            truth_done.add(i)
            used.add(j)
    result.by_bounds = len(truth_done)

    by_name: dict[str, list[int]] = defaultdict(list)
    for j, r in enumerate(reported):
        if j not in used and norm(r.name):
            by_name[norm(r.name)].append(j)
    for i, t in enumerate(truth):
        if i in truth_done:
            continue
        free = by_name.get(norm(t.name)) if norm(t.name) else None
        if free:
            free.pop()
            result.by_name += 1
        else:
            result.misses.append(t)
    return result
