"""Benchmark find: the median time of one query over an observation of about 2,000 elements,
printed beside the time to observe the same page.

    .venv/bin/python benchmarks/find.py [--elements N] [--repeat N]

The page is bigpage.py's generator, sized so the observation holds about 2,000 elements that
can be acted on, served over HTTP on 127.0.0.1. Queries mix exact names, partial words, role
words, CJK text and misses. A measurement: it exits 0 whatever the target says.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import bigpage
import serve
import subject

TARGET_MS = 5.0
# About 30% of bigpage's DOM elements can be acted on; this many make ~2,000 of them.
DOM_ELEMENTS = 6800
QUERIES = [
    "Read more",
    "search",
    "submit button",
    "go",
    "weather report",
    "menu",
    "skip to content",
    "checkbox",
    "museum ticket",
    "histo",
    "support link",
    "textarea",
    "Search field",
    "搜索框",
    "保存按钮",
    "검색 버튼",
    "送信",
    "ＳＥＡＲＣＨ",  # noqa: RUF001 (typed full-width, on purpose)
    "nothing matches this",
    "calendar event update",
]


def _ms(fn: Callable[[], object], repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return times


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--elements", type=int, default=DOM_ELEMENTS, help="DOM elements of the page")
    p.add_argument("--repeat", type=int, default=7, help="timed runs per measurement")
    args = p.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="pagesight-find-") as tmp:
        (Path(tmp) / "big.html").write_text(bigpage.generate(args.elements), encoding="utf-8")
        with serve.serve(Path(tmp)) as base, subject.launch() as launched:
            if launched.browser is None:
                print(f"pagesight unavailable: {launched.why_not}")
                return 0
            page = launched.browser.open(f"{base}/big.html")
            page.observe()  # warm up: the walker installed, the document ready
            # Interleaved, so that whatever else the machine does weighs on both alike.
            plain: list[float] = []
            selectors: list[float] = []
            observed: list[Any] = []
            for _ in range(args.repeat):
                plain += _ms(page.observe, 1)
                selectors += _ms(lambda: observed.append(page.observe(include={"selector"})), 1)
            obs = observed[-1]
            # The first query on an observation also normalises every element, once.
            (first_ms,) = _ms(partial(obs.find, QUERIES[0]), 1)
            per_query = [statistics.median(_ms(partial(obs.find, q), args.repeat)) for q in QUERIES]

    n = len(obs.elements)
    median = statistics.median(per_query)
    print(f"page: bigpage.generate({args.elements}): {n} elements in the observation")
    print(f"observe, plain                    median {statistics.median(plain):8.1f} ms")
    print(f"observe, include={{'selector'}}     median {statistics.median(selectors):8.1f} ms")
    print(f"find, first query (+ index)       {first_ms:15.1f} ms")
    print(
        f"find, per query ({len(QUERIES)} queries)      median {median:8.2f} ms   "
        f"max {max(per_query):.2f} ms   target < {TARGET_MS:g} ms: "
        f"{'PASS' if median < TARGET_MS else 'FAIL'}"
    )
    print(
        f"observe with / without selectors  "
        f"{statistics.median(selectors) / statistics.median(plain):.2f}x"
    )
    print(
        f"find / observe                    {median / statistics.median(plain):.3f}x "
        "(a query costs this share of one observation)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
