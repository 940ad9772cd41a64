"""Stage the benchmark pages in a temp dir and serve them over HTTP on 127.0.0.1."""

from __future__ import annotations

import functools
import http.server
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bigpage

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "pages"
CORPUS = Path(os.environ.get("PAGESIGHT_CORPUS", str(ROOT.parent / "shared" / "corpus" / "pages")))

FIXTURE, REAL, BIG = "fixture", "corpus", "5k"


@dataclass(frozen=True)
class PageSpec:
    name: str
    group: str  # FIXTURE, REAL or BIG
    path: str  # URL path on the server, starting with "/"


# Fixtures that exist to break things: a page that hangs its renderer on purpose would hang
# every client attached to the browser, peers included.
NOT_MEASURED = frozenset({"edge-busy.html"})


def stage(directory: Path) -> list[PageSpec]:
    """Link fixtures and corpus pages into `directory`, write the generated page there."""
    pages: list[PageSpec] = []
    if FIXTURES.is_dir():
        # Link the whole folder: fixtures may load sibling files (frames, styles).
        (directory / "fixtures").symlink_to(FIXTURES, target_is_directory=True)
        for f in sorted(FIXTURES.glob("*.html")):
            if f.name not in NOT_MEASURED:
                pages.append(PageSpec(f.stem, FIXTURE, f"/fixtures/{f.name}"))
    if CORPUS.is_dir():
        (directory / "corpus").mkdir()
        for f in sorted(CORPUS.glob("*.html")):
            (directory / "corpus" / f.name).symlink_to(f)
            pages.append(PageSpec(f.stem, REAL, f"/corpus/{f.name}"))
    (directory / "gen").mkdir()
    (directory / "gen" / "bigpage.html").write_text(bigpage.generate(), encoding="utf-8")
    pages.append(PageSpec("bigpage-5000", BIG, "/gen/bigpage.html"))
    return pages


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()


@contextmanager
def serve(directory: Path) -> Iterator[str]:
    """Serve `directory` on an ephemeral 127.0.0.1 port; yields the base URL."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="bench-http", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
