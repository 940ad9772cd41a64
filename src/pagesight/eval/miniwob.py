"""MiniWoB++ served on 127.0.0.1: the task pages of the ``miniwob`` package from PyPI
(``pip install 'pagesight[miniwob]'``), each started as a fixed episode from its URL.

``/miniwob/click-button.html?seed=3`` is MiniWoB's own page with one script added at its end
(:data:`EPISODE_JS`): once the page has loaded it seeds the random numbers as the MiniWoB++
gym and BrowserGym do (``Math.seedrandom(3)``), sets the episode's time limit and starts the
episode (``core.startEpisodeReal()``), so the page opens on the task rather than on MiniWoB's
START cover, the same task for the same seed every time. Without ``seed`` the page is served
as MiniWoB ships it.

The time limit is ``max_time`` milliseconds (default :data:`EPISODE_MAX_TIME_MS`, 1,000 s, as
BrowserGym sets it; MiniWoB's own 10 s was made for reinforcement-learning agents acting in
milliseconds, and would fail a model that is slow but right). The outcome is MiniWoB's own:
``WOB_RAW_REWARD_GLOBAL`` (1 for success, ≤ 0 for failure, partial credit in a few tasks) and
``WOB_REWARD_GLOBAL`` (the same, discounted by the time taken), read on the final page.

The package is found without being imported (importing it would import gymnasium and
selenium, which pagesight never uses): only its ``html`` folder is read.
"""

from __future__ import annotations

import importlib.util
import socket
import threading
from pathlib import Path
from types import TracebackType

import uvicorn
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from pagesight.errors import RuntimeFailure, SetupError
from pagesight.threaded_server import start_in_thread

PACKAGE = "miniwob"
INSTALL = "pip install 'pagesight[miniwob]'"
HOST = "127.0.0.1"
START_TIMEOUT_S = 10.0
EPISODE_MAX_TIME_MS = 1_000_000
EPISODE_PATH = "/pagesight/episode.js"

EPISODE_JS = f"""\
// Added by pagesight: with ?seed=N in the URL, start episode N as soon as the page has
// loaded (after the page's own onload, which shows MiniWoB's START cover), as the MiniWoB++
// gym does: seed, time limit, core.startEpisodeReal().
(function () {{
  var params = new URLSearchParams(window.location.search);
  var seed = params.get('seed');
  if (seed === null) return;
  window.addEventListener('load', function () {{
    Math.seedrandom(/^-?[0-9]+$/.test(seed) ? Number(seed) : seed);
    core.EPISODE_MAX_TIME = Number(params.get('max_time') || {EPISODE_MAX_TIME_MS});
    core.startEpisodeReal();
  }});
}})();
"""

REWARD_CHECK = (
    "({ok: WOB_DONE_GLOBAL && WOB_RAW_REWARD_GLOBAL >= 1, done: WOB_DONE_GLOBAL, "
    "raw_reward: WOB_RAW_REWARD_GLOBAL, reward: WOB_REWARD_GLOBAL, reason: WOB_REWARD_REASON})"
)
"""The ``page_script`` check of every MiniWoB task: the episode ended with raw reward 1 (the
MiniWoB++ gym's binary reward; BrowserGym counts any raw reward above 0, which differs only
where a task gives partial credit), the rewards reported either way."""


def html_folder() -> Path:
    """The ``miniwob`` package's ``html`` folder; SetupError (exit 2) naming the install
    command when the package is not installed."""
    try:
        spec = importlib.util.find_spec(PACKAGE)  # a top-level name: found, not imported
    except (ImportError, ValueError):
        spec = None
    locations = list(spec.submodule_search_locations or ()) if spec is not None else []
    for location in locations:
        html = Path(location) / "html"
        if (html / "core" / "core.js").is_file():
            return html
    raise SetupError(f"MiniWoB++ needs the miniwob package: {INSTALL}")


def installed() -> bool:
    try:
        html_folder()
    except SetupError:
        return False
    return True


def create_app(html: Path) -> Starlette:
    """MiniWoB's ``html`` folder as files, its task pages with :data:`EPISODE_JS` added."""

    async def task_page(request: Request) -> Response:
        name = request.path_params["name"]
        path = html / "miniwob" / f"{name}.html"
        if "/" in name or name.startswith(".") or not path.is_file():
            raise HTTPException(404, f"no MiniWoB task {name!r}")
        page = path.read_text(encoding="utf-8")
        tag = f'<script src="{EPISODE_PATH}"></script>\n'
        at = page.rfind("</body>")
        page = page[:at] + tag + page[at:] if at >= 0 else page + tag
        return HTMLResponse(page, headers={"Cache-Control": "no-store"})

    async def episode(request: Request) -> Response:
        return Response(EPISODE_JS, media_type="text/javascript")

    return Starlette(
        routes=[
            Route("/miniwob/{name}.html", task_page),
            Route(EPISODE_PATH, episode),
            Mount("/", StaticFiles(directory=html)),
        ]
    )


class MiniWobServer:
    """MiniWoB++ on 127.0.0.1 (a free port) in a background thread; :meth:`close` stops it."""

    def __init__(
        self, server: uvicorn.Server, thread: threading.Thread, sock: socket.socket
    ) -> None:
        self._server = server
        self._thread = thread
        self._socket = sock
        self.port: int = sock.getsockname()[1]
        self.url = f"http://{HOST}:{self.port}"

    @classmethod
    def start(cls) -> MiniWobServer:
        html = html_folder()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            sock.bind((HOST, 0))
            sock.listen(128)
        except OSError:
            sock.close()
            raise
        config = uvicorn.Config(
            create_app(html),
            log_config=None,
            access_log=False,
            lifespan="off",
            ws="none",
            timeout_graceful_shutdown=2,
        )
        server, thread, started = start_in_thread(
            config, sock, name="miniwob", timeout=START_TIMEOUT_S
        )
        running = cls(server, thread, sock)
        if not started:
            running.close()
            raise RuntimeFailure(
                f"MiniWoB++ did not start on {running.url} within {START_TIMEOUT_S:.0f} s"
            )
        return running

    def close(self) -> None:
        self._server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(timeout=10)
        self._socket.close()

    def __enter__(self) -> MiniWobServer:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
