"""Shared pytest fixtures: static servers for tests/pages/ and a pagesight browser.

Origins used by the fixture pages:

* ``server``       -> http://127.0.0.1:PORT_A   (the page under test)
* ``server2``      -> http://127.0.0.1:PORT_B   (same site, cross origin: same renderer process)
* ``other_origin`` -> http://localhost:PORT_C   (cross site: an out-of-process iframe in Chromium)

All three serve the same folder, tests/pages/. Ports are ephemeral, so a page that embeds
another origin cannot hard-code it. Convention: the page reads the origin from its query
string, ``?other=<origin>``, and builds the iframe src in a small inline script (see
iframes.html). A test therefore opens, for example::

    page = browser.open(server.url(f"iframes.html?other={other_origin.origin}"))

Query strings (and fragments) are ignored when the servers map a URL to a file.

Two paths are answered by code rather than from the folder (for the action tests):

* ``/download/<name>`` -> a small text file (``DOWNLOAD_BODY``) sent with
  ``Content-Disposition: attachment; filename="<name>"``
* ``/slow?ms=N``       -> ``{"slept_ms": N}`` (JSON), sent after N milliseconds (at most 10 s);
  with ``&headers=first`` the headers go at once and only the body after N ms (a server
  streaming a large answer)

``closed_port`` is a 127.0.0.1 port where nothing answers: a connection to it is refused at
once. The suite runs in parallel (pytest-xdist), so every port is bound by whoever uses it and
held for as long as it is needed — never looked up free, released, then bound again.
"""

from __future__ import annotations

import json
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

if TYPE_CHECKING:
    # The library is being written alongside these tests; until it exists this import is
    # untyped. "unused-ignore" keeps mypy --strict quiet once it does exist.
    from pagesight import Browser  # type: ignore[import-not-found, unused-ignore]

PAGES = Path(__file__).parent / "pages"
DOWNLOAD_BODY = b"pagesight download test\n"


class _QuietHandler(SimpleHTTPRequestHandler):
    """Serves PAGES with no request logging and no caching.

    SimpleHTTPRequestHandler already drops ``?query`` and ``#fragment`` when it maps the path
    to a file, so ``iframes.html?other=...`` serves ``iframes.html``.
    """

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        if url.path.startswith("/download/"):
            name = unquote(url.path.removeprefix("/download/")).replace('"', "") or "file.txt"
            disposition = f'attachment; filename="{name}"'
            self._reply(DOWNLOAD_BODY, "text/plain; charset=utf-8", disposition)
        elif url.path == "/slow":
            query = parse_qs(url.query)
            ms = min(int(query.get("ms", ["0"])[0]), 10_000)
            body = json.dumps({"slept_ms": ms}).encode()
            if query.get("headers") == ["first"]:
                self._reply(body, "application/json", delay_body=ms / 1000)
            else:
                time.sleep(ms / 1000)
                self._reply(body, "application/json")
        else:
            super().do_GET()

    def _reply(
        self,
        body: bytes,
        content_type: str,
        disposition: str | None = None,
        *,
        delay_body: float = 0.0,
    ) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        if disposition:
            self.send_header("Content-Disposition", disposition)
        self.end_headers()
        if delay_body:
            self.wfile.flush()
            time.sleep(delay_body)
        self.wfile.write(body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(
        self, request: socket.socket | tuple[bytes, socket.socket], client_address: Any
    ) -> None:
        # The browser routinely drops connections (navigation, page close); don't print those.
        pass


class StaticServer:
    """A static HTTP server for tests/pages/, bound to 127.0.0.1 on an ephemeral port.

    ``host`` is only the host name put into URLs: "localhost" still reaches 127.0.0.1 but is a
    different *site* for Chromium than "127.0.0.1".
    """

    def __init__(self, host: str = "127.0.0.1", directory: Path = PAGES) -> None:
        handler = partial(_QuietHandler, directory=str(directory))
        self._httpd = _Server(("127.0.0.1", 0), handler)
        self.host = host
        self.port: int = self._httpd.server_address[1]
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"pagesight-test-server-{self.port}",
            daemon=True,
        )
        self._thread.start()

    @property
    def origin(self) -> str:
        """``http://HOST:PORT`` with no trailing slash."""
        return f"http://{self.host}:{self.port}"

    def url(self, path: str = "") -> str:
        """``url("form.html")`` -> ``http://HOST:PORT/form.html`` (query strings allowed)."""
        return f"{self.origin}/{path.lstrip('/')}"

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __repr__(self) -> str:
        return f"StaticServer({self.origin!r})"


@pytest.fixture(scope="session")
def server() -> Iterator[StaticServer]:
    """The main origin: http://127.0.0.1:PORT serving tests/pages/."""
    srv = StaticServer("127.0.0.1")
    yield srv
    srv.close()


@pytest.fixture(scope="session")
def server2() -> Iterator[StaticServer]:
    """Same site as ``server`` but a different origin (another port on 127.0.0.1)."""
    srv = StaticServer("127.0.0.1")
    yield srv
    srv.close()


@pytest.fixture(scope="session")
def other_origin() -> Iterator[StaticServer]:
    """A cross-site origin: http://localhost:PORT (bound to 127.0.0.1), same folder.

    An iframe from here inside a ``server`` page is an out-of-process iframe (OOPIF).
    """
    srv = StaticServer("localhost")
    yield srv
    srv.close()


@pytest.fixture(scope="session")
def closed_port() -> Iterator[int]:
    """A 127.0.0.1 port that refuses connections: bound by this socket for the whole session
    but never listening, so no other test or process can take it meanwhile."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        yield port


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """An empty folder of the test's own in the system's temporary folder, for a command's
    ``TMPDIR``: ``tmp_path`` is too long a path for that (Chromium's socket there would have
    an address longer than a socket's may be, and Chromium would not start)."""
    folder = Path(tempfile.mkdtemp(prefix="ps-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """One headless pagesight browser for the whole session."""
    from pagesight import Browser

    with Browser.launch(headless=True) as b:
        yield b


@pytest.fixture
def page(browser: Browser) -> Iterator[Any]:
    """A fresh tab on about:blank, closed after the test. Navigate with ``page.playwright.goto``
    or open a URL directly with ``browser.open(url)`` instead."""
    p: Any = browser.open("about:blank")
    yield p
    close = getattr(p, "close", None)
    if close is None:  # the pagesight page may not wrap close(); close the Playwright page
        close = p.playwright.close
    close()
