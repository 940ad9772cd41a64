"""Benchmark the origin guard: what pausing every request costs, beside pausing documents only
and beside no guard at all.

    .venv/bin/python benchmarks/guard.py [--loads N] [--images N]

In one run, on a page served over HTTP on 127.0.0.1 that loads ``--images`` images and as many
``fetch`` calls (all to its own, allowed, origin) and one refused image, three browsers in
turn: no ``allowed_origins``; ``allowed_origins`` with the guard pausing documents alone (as
pagesight did before issue 14); and the guard as it is (every request paused, each document
answered by the guard with its connect-src policy). Each loads the page ``--loads`` times
(``navigate``, then until every request has answered); the median of each and the ratios.

A measurement: it prints figures and exits 0 whatever they say.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pagesight.browser.browser as browser_module
from pagesight import Browser
from pagesight.guard.interception import RequestGuard

_GIF = bytes.fromhex(
    "47494638396101000100800000000000ffffff21f90401000000002c000000000100010000020144003b"
)


class _Site(BaseHTTPRequestHandler):
    images = 40

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        if self.path.startswith("/page"):
            n = self.images
            imgs = "".join(f'<img src="/i/{i}.gif" alt="">' for i in range(n))
            body = (
                "<!DOCTYPE html><title>Many requests</title><h1>Gallery</h1>"
                f"{imgs}<img src='http://localhost:1/refused.gif' alt=''>"
                "<script>window.done = Promise.all(["
                f"...Array.from({{length: {n}}}, (_, i) => fetch('/f/' + i).then(r => r.text())),"
                "new Promise(r => addEventListener('load', r))]).then(() => true);</script>"
            ).encode()
            kind = "text/html; charset=utf-8"
        elif self.path.startswith("/i/"):
            body, kind = _GIF, "image/gif"
        else:
            body, kind = b"{}", "application/json"
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@contextmanager
def _documents_only() -> Iterator[None]:
    """The guard as it was: only documents paused (the browser module's guard swapped)."""
    names = vars(browser_module)
    original = names["RequestGuard"]
    names["RequestGuard"] = functools.partial(RequestGuard, documents_only=True)
    try:
        yield
    finally:
        names["RequestGuard"] = original


def _median_load(origin: str, loads: int, allowed: list[str] | None) -> float:
    with Browser.launch(allowed_origins=allowed) as browser:
        page = browser.open("about:blank")
        times = []
        for i in range(loads + 1):
            start = time.perf_counter()
            page.navigate(f"{origin}/page?{i}")
            page.playwright.evaluate("window.done")
            if i:  # the first load warms the browser up
                times.append(time.perf_counter() - start)
        return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, default=15)
    parser.add_argument("--images", type=int, default=40)
    args = parser.parse_args()
    _Site.images = args.images
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Site)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{httpd.server_address[1]}"
    requests = 2 * args.images + 3
    print(f"a page of {requests} requests, loaded {args.loads} times in each browser")
    none = _median_load(origin, args.loads, None)
    with _documents_only():
        documents = _median_load(origin, args.loads, [origin])
    every = _median_load(origin, args.loads, [origin])
    print(f"{'guard':<32}{'median load':>14}{'vs none':>10}{'vs documents':>14}")
    for name, value in (
        ("none", none),
        ("documents only (before)", documents),
        ("every request (now)", every),
    ):
        print(f"{name:<32}{value * 1000:>11.0f} ms{value / none:>9.2f}x{value / documents:>13.2f}x")
    per_request = (every - documents) / requests * 1000
    print(f"cost of pausing every request: {per_request:.2f} ms per request")
    httpd.shutdown()


if __name__ == "__main__":
    main()
