"""The origin policy enforced by Chromium (``allowed_origins``): every other origin refused in
every tab — typed, redirected, followed, scripted, refreshed, posted, in a new tab, in an
iframe — and nothing changed when no list is given.

Two local origins: ``server`` (http://127.0.0.1:PORT, allowed) and ``other_origin``
(http://localhost:PORT, not), plus a redirector of this module's own (allowed) that answers
``/to?url=X`` with a 302 to X.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import parse_qs, urlsplit

import pytest

from conftest import PAGES, StaticServer
from pagesight import Agent, Batch, Browser, Effect, InvalidOption, OriginNotAllowed
from pagesight.agent import Session, ToolRegistry
from pagesight.agent.results import run_step
from pagesight.agent.tool import PageStep
from pagesight.aio import AsyncBrowser
from pagesight.guard.origins import origin_of
from pagesight.planners import StepsPlanner
from support import one


class _Redirects(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    served: ClassVar[set[str]] = set()  # the /once paths answered with a page already

    def do_GET(self) -> None:
        target = parse_qs(urlsplit(self.path).query).get("url", ["/"])[0]
        if urlsplit(self.path).path == "/once" and self.path not in self.served:
            self.served.add(self.path)  # a page the first time, a redirect ever after
            # An unload listener keeps the page out of the back-forward cache: going back
            # asks the server again.
            body = (
                b"<!DOCTYPE html><title>Once</title><h1>Here once</h1>"
                b"<script>addEventListener('unload', () => {})</script>"
            )
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Cache-Control", "no-store")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        self.send_response(302)
        self.send_header("Location", target)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        # 307: the browser posts the same form again, to the target.
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        target = parse_qs(urlsplit(self.path).query).get("url", ["/"])[0]
        self.send_response(307)
        self.send_header("Location", target)
        self.send_header("Content-Length", "0")
        self.end_headers()


@pytest.fixture(scope="module")
def redirector() -> Iterator[str]:
    """``http://127.0.0.1:PORT/to?url=`` : a 302 to the URL given."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Redirects)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/to?url="
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=5)


class _Cacheable(BaseHTTPRequestHandler):
    """A page with no ``Cache-Control: no-store`` (which the shared servers send): Chromium
    keeps it in the back-forward cache when the tab leaves it."""

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        body = b"<!DOCTYPE html><title>Cached partner</title><h1>Cached partner</h1>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def cacheable() -> Iterator[str]:
    """``http://localhost:PORT/`` : a page of another origin that the back-forward cache keeps."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Cacheable)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    yield f"http://localhost:{httpd.server_address[1]}/partner.html"
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=5)


@pytest.fixture(scope="module")
def guarded(server: StaticServer, redirector: str) -> Iterator[Browser]:
    """A browser that may load only ``server``'s origin and the redirector's."""
    redirects = redirector.split("/to?", maxsplit=1)[0]
    with Browser.launch(allowed_origins=[server.origin, redirects]) as b:
        yield b


@pytest.fixture
def tab(guarded: Browser) -> Iterator[Any]:
    page = guarded.open("about:blank")
    yield page
    if not page.closed:
        page.close()


def _href(page: Any) -> str:
    href: str = page.playwright.evaluate("location.href")
    return href


def _refused(effect: Effect) -> list[tuple[str, str]]:
    return [(r.kind, r.origin) for r in effect.refused]


def _links(server: StaticServer, other: StaticServer, redirector: str) -> str:
    return server.url(f"origins-links.html?other={other.origin}&redirect={redirector}")


def test_navigating_to_another_origin_raises_and_loads_nothing(
    guarded: Browser, tab: Any, server: StaticServer, other_origin: StaticServer
) -> None:
    start = server.url("form.html")
    tab.navigate(start)
    with pytest.raises(OriginNotAllowed) as caught:
        tab.navigate(other_origin.url("form.html"))
    assert caught.value.origin == other_origin.origin
    assert server.origin in str(caught.value)
    assert _href(tab) == start
    tabs = len(guarded.pages)
    with pytest.raises(OriginNotAllowed):
        guarded.open(other_origin.url("form.html"))
    assert len(guarded.pages) == tabs  # no tab left behind


def test_a_redirect_to_another_origin_is_refused(
    guarded: Browser, tab: Any, server: StaticServer, other_origin: StaticServer, redirector: str
) -> None:
    start = server.url("form.html")
    tab.navigate(start)
    # Typed: the allowed URL answers 302 to the other origin.
    with pytest.raises(OriginNotAllowed) as caught:
        tab.navigate(redirector + other_origin.url("form.html"))
    assert caught.value.origin == other_origin.origin
    assert _href(tab) == start
    tabs = len(guarded.pages)
    with pytest.raises(OriginNotAllowed):
        guarded.open(redirector + other_origin.url("form.html"))
    assert len(guarded.pages) == tabs
    # Followed: a link to the redirector.
    links = _links(server, other_origin, redirector)
    tab.navigate(links)
    effect = tab.act(one(tab.observe(), "Partner site via our redirect").id, "click")
    assert _refused(effect) == [("navigation", other_origin.origin)]
    assert f"refused: navigation to {other_origin.origin} (origin not allowed)" in effect.text()
    assert effect.kinds == ("refused",)
    assert _href(tab) == links
    # Posted: a form sent to the redirector, which answers 307 (post it again, there).
    posted = tab.act(one(tab.observe(), "Send the order via our redirect").id, "click")
    assert _refused(posted) == [("navigation", other_origin.origin)]
    assert _href(tab) == links


def test_a_link_to_another_origin_is_refused_and_the_page_stays(
    tab: Any, server: StaticServer, other_origin: StaticServer, redirector: str
) -> None:
    links = _links(server, other_origin, redirector)
    tab.navigate(links)
    effect = tab.act(one(tab.observe(), "Partner site").id, "click")
    assert _refused(effect) == [("navigation", other_origin.origin)]
    assert "navigation" not in effect.kinds
    assert effect.to_dict()["ok"] is False  # the action ran, but did not lead where it meant
    assert effect.to_dict()["refused"] == [
        {"kind": "navigation", "url": other_origin.url("form.html"), "origin": other_origin.origin}
    ]
    assert _href(tab) == links
    # The page's own links still work.
    own = tab.act(one(tab.observe(), "Our own form").id, "click")
    assert own.navigated and own.refused == ()
    assert _href(tab) == server.url("form.html")


def test_a_download_from_another_origin_is_refused(
    guarded: Browser, tab: Any, server: StaticServer, other_origin: StaticServer, redirector: str
) -> None:
    # Chromium asks for a download as it asks for a page (a document request): what comes
    # from an origin not allowed is not saved either.
    links = _links(server, other_origin, redirector)
    tab.navigate(links)
    effect = tab.act(one(tab.observe(), "Partner price list").id, "click")
    assert _refused(effect) == [("navigation", other_origin.origin)]
    assert effect.downloads == ()
    assert not (guarded.downloads / "prices.txt").exists()
    assert _href(tab) == links


@pytest.mark.parametrize("button", ["left", "middle"])
def test_a_link_opening_a_new_tab_to_another_origin_leaves_no_tab(
    *,
    guarded: Browser,
    tab: Any,
    server: StaticServer,
    other_origin: StaticServer,
    redirector: str,
    button: str,
) -> None:
    tab.navigate(_links(server, other_origin, redirector))
    tabs = len(guarded.pages)
    name = "Partner site in a new tab" if button == "left" else "Partner site"
    effect = tab.act(one(tab.observe(), name).id, "click", button=button)
    assert _refused(effect) == [("new_tab", other_origin.origin)]
    assert effect.new_tabs == ()
    assert "new tab to " + other_origin.origin in effect.text()
    assert len(guarded.pages) == tabs
    assert all(p.url != "" for p in guarded.pages)


@pytest.mark.parametrize(
    ("button", "kind"),
    [
        ("Open the partner window", "new_tab"),  # window.open
        ("Continue to the partner", "navigation"),  # location.href = …
        ("Hand over to the partner", "navigation"),  # location.replace(…)
        ("Open the partner unlinked", "new_tab"),  # window.open(…, "noopener"): no opener
        ("Open a window, then the partner in it", "new_tab"),  # about:blank, then moved
        ("Continue after a refresh", "navigation"),  # <meta http-equiv=refresh>
        ("Pay at the partner", "navigation"),  # a form posted there
    ],
)
def test_a_script_form_or_refresh_leaving_for_another_origin_is_refused(
    *,
    guarded: Browser,
    tab: Any,
    server: StaticServer,
    other_origin: StaticServer,
    button: str,
    kind: str,
) -> None:
    start = server.url(f"origins-scripts.html?other={other_origin.origin}")
    tab.navigate(start)
    tabs = len(guarded.pages)
    effect = tab.act(one(tab.observe(), button).id, "click")
    assert _refused(effect) == [(kind, other_origin.origin)]
    assert effect.new_tabs == ()
    assert len(guarded.pages) == tabs
    assert _href(tab) == start


@pytest.mark.parametrize(
    "name", ["Finish on the partner site", "Move the whole page to the partner"]
)
def test_a_frame_moving_the_whole_tab_to_another_origin_is_refused(
    tab: Any, server: StaticServer, other_origin: StaticServer, name: str
) -> None:
    start = server.url(f"origins-frame-top.html?other={other_origin.origin}")
    tab.navigate(start)
    effect = tab.act(one(tab.observe(), name).id, "click")
    assert _refused(effect) == [("navigation", other_origin.origin)]
    assert _href(tab) == start


def test_a_refusal_in_one_tab_is_not_reported_by_another(
    server: StaticServer, other_origin: StaticServer, redirector: str
) -> None:
    # Two tabs acting at once (the async API): while the first waits for a slow page, the
    # second loads a page with a refused frame and follows a refused link. Each refusal
    # belongs to the tab it was for. (Were the second tab ever slower than the first's page,
    # the first would just have nothing to report: the test cannot fail by timing.)
    async def scenario() -> tuple[Effect, Effect, Effect]:
        launch: Any = AsyncBrowser.launch
        async with await launch(allowed_origins=[server.origin]) as browser:
            first: Any = await browser.open(server.url("form.html"))
            second: Any = await browser.open(_links(server, other_origin, redirector))

            async def elsewhere() -> tuple[Effect, Effect]:
                await asyncio.sleep(0.2)  # the first tab's action has begun
                framed = await second.navigate(
                    server.url(f"origins-frames.html?other={other_origin.origin}")
                )
                await second.navigate(_links(server, other_origin, redirector))
                away = one(await second.observe(), "Partner site").id
                return framed, await second.act(away, "click")

            slow, (framed, followed) = await asyncio.gather(
                first.navigate(server.url("slow?ms=4000&headers=first")), elsewhere()
            )
            return slow, framed, followed

    slow, framed, followed = asyncio.run(scenario())
    assert _refused(framed) == [("frame", other_origin.origin)]
    assert _refused(followed) == [("navigation", other_origin.origin)]
    assert slow.refused == ()


def test_tabs_a_page_makes_itself_are_left_alone(
    guarded: Browser, tab: Any, server: StaticServer, other_origin: StaticServer
) -> None:
    tab.navigate(server.url(f"origins-scripts.html?other={other_origin.origin}"))
    receipt = tab.act(one(tab.observe(), "Open the receipt").id, "click")  # a blob: URL
    notes = tab.act(one(tab.observe(), "Open a notes window").id, "click")  # about:blank
    for effect, heading in ((receipt, "Receipt 42"), (notes, "Notes for order 42")):
        assert effect.refused == ()
        assert len(effect.new_tabs) == 1
        opened = guarded.page(effect.new_tabs[0].id)
        assert opened.playwright.evaluate("document.querySelector('h1').textContent") == heading
        opened.close()


def test_an_iframe_of_another_origin_is_refused_and_counted(
    tab: Any, server: StaticServer, other_origin: StaticServer
) -> None:
    effect = tab.navigate(server.url(f"origins-frames.html?other={other_origin.origin}"))
    assert _refused(effect) == [("frame", other_origin.origin)]
    assert f"refused: frame {other_origin.origin} (origin not allowed)" in effect.text()
    assert effect.refused_navigation is None  # the page itself loaded
    frames = tab.playwright.evaluate(
        """() => [...document.querySelectorAll('iframe')].map(f => {
            try { return f.id + ' ' + f.contentDocument.body.textContent.trim(); }
            catch (e) { return f.id + ' cross-origin'; }
        })"""
    )
    # The page's own frames loaded; the partner's holds nothing (it never left about:blank).
    assert frames[0].startswith("own ") and "Inner same-origin button" in frames[0]
    assert frames[1:] == ["inline Inline note", "data cross-origin", "partner "]


def test_a_refused_navigation_is_a_tool_error_with_the_effect_kept(
    guarded: Browser, tab: Any, server: StaticServer, other_origin: StaticServer, redirector: str
) -> None:
    session = Session(browser=guarded._browser, page=tab._page, registry=ToolRegistry.discover())
    tab.navigate(_links(server, other_origin, redirector))
    ref = one(tab.observe(), "Partner site").id
    result = guarded._loop.run(run_step(PageStep(action="click", ref=ref, args={}), session))
    assert result.error is not None and result.error.reason == "origin_not_allowed"
    assert other_origin.origin in result.error.message
    assert result.effect is not None and _refused(result.effect) == [
        ("navigation", other_origin.origin)
    ]
    assert result.text.startswith(f"error (origin_not_allowed): {other_origin.origin}")
    assert "refused: navigation to" in result.text
    away = PageStep(ref=None, action="navigate", args={"url": other_origin.url("form.html")})
    typed = guarded._loop.run(run_step(away, session))
    assert typed.error is not None and typed.error.reason == "origin_not_allowed"
    # A page that loaded with a refused iframe is no error: the page is there.
    framed = f"origins-frames.html?other={other_origin.origin}"
    step = PageStep(ref=None, action="navigate", args={"url": server.url(framed)})
    shown = guarded._loop.run(run_step(step, session))
    assert shown.error is None and shown.effect is not None
    assert _refused(shown.effect) == [("frame", other_origin.origin)]


def test_local_files_are_refused_unless_allowed(guarded: Browser, tab: Any) -> None:
    local = PAGES / "form.html"
    with pytest.raises(OriginNotAllowed, match="allow_file_access"):
        tab.navigate(str(local))
    with pytest.raises(OriginNotAllowed, match="allow_file_access"):
        guarded.open(local.as_uri())
    with pytest.raises(OriginNotAllowed, match="data: URL"):
        tab.navigate("data:text/html,<h1>Typed</h1>")
    with Browser.launch(allowed_origins=[], allow_file_access=True) as files:
        page = files.open(str(local))
        assert page.url == local.as_uri()
    # No list, but files refused (the MCP server's default without --allow-file-access).
    with Browser.launch(allow_file_access=False) as no_files:
        with pytest.raises(OriginNotAllowed, match="allow_file_access"):
            no_files.open(str(local))
        assert no_files.open("data:text/html,<h1>Typed</h1>").url.startswith("data:")


def test_with_no_list_every_origin_still_opens(
    browser: Browser, page: Any, server: StaticServer, other_origin: StaticServer, redirector: str
) -> None:
    # The session browser has no policy: the same clicks leave, as they always did.
    page.navigate(_links(server, other_origin, redirector))
    left = page.act(one(page.observe(), "Partner site via our redirect").id, "click")
    assert left.navigated and left.refused == ()
    assert _href(page) == other_origin.url("form.html")
    page.navigate(_links(server, other_origin, redirector))
    effect = page.act(one(page.observe(), "Partner site in a new tab").id, "click")
    assert len(effect.new_tabs) == 1 and effect.refused == ()
    browser.page(effect.new_tabs[0].id).close()
    framed = page.navigate(server.url(f"origins-frames.html?other={other_origin.origin}"))
    assert framed.refused == ()


def test_a_bad_pattern_is_refused_before_chromium_starts() -> None:
    with pytest.raises(InvalidOption, match=r"'https://example\.com/app'") as caught:
        Browser.launch(allowed_origins=["https://example.com/app"])
    assert caught.value.option == "allowed_origins"
    with pytest.raises(InvalidOption, match="allow_file_access"):
        Browser.launch(allow_file_access="yes")  # type: ignore[arg-type]


def test_a_policy_given_on_connect_guards_that_browser(
    server: StaticServer, other_origin: StaticServer
) -> None:
    with (
        Browser.launch() as owner,
        Browser.connect(owner.cdp_url, allowed_origins=[server.origin]) as attached,
    ):
        page = attached.open(server.url("form.html"))
        with pytest.raises(OriginNotAllowed):
            page.navigate(other_origin.url("form.html"))
        assert _href(page) == server.url("form.html")


def test_the_policy_is_readable_on_the_browser(guarded: Browser, server: StaticServer) -> None:
    policy = guarded.origins
    assert policy.restricts_network and not policy.file_access
    assert server.origin in policy.listed()


def _batch(guarded: Browser, tab: Any, actions: list[dict[str, Any]]) -> Any:
    session = Session(browser=guarded._browser, page=tab._page, registry=ToolRegistry.discover())
    return guarded._loop.run(session.registry.call("batch", {"actions": actions}, session))


def test_a_refused_navigation_in_a_batch_is_its_error_and_stops_it(
    guarded: Browser, tab: Any, server: StaticServer, other_origin: StaticServer, redirector: str
) -> None:
    links = _links(server, other_origin, redirector)
    tab.navigate(links)
    obs = tab.observe()
    away, own = one(obs, "Partner site").id, one(obs, "Our own form").id
    result = _batch(
        guarded,
        tab,
        [
            {"tool": "click", "arguments": {"ref": away}},
            {"tool": "click", "arguments": {"ref": own}},
        ],
    )
    assert result.error is not None and result.error.reason == "origin_not_allowed"
    assert other_origin.origin in result.error.message
    assert result.text.startswith(f"error (origin_not_allowed): {other_origin.origin}")
    steps = result.value["steps"]
    assert [s["status"] for s in steps] == ["done", "not_run"]  # the plan needed that page
    assert steps[0]["effect"]["refused"][0]["origin"] == other_origin.origin
    assert _href(tab) == links
    # The same batch through the library: not ok, even with the refused step the last.
    alone = tab.batch([(away, "click")])
    assert [s.status for s in alone.steps] == ["done"]
    assert alone.ok is False
    assert alone.effect is not None and _refused(alone.effect) == [
        ("navigation", other_origin.origin)
    ]


def test_a_navigation_refused_after_a_batch_step_ran_keeps_that_step(
    guarded: Browser, tab: Any, server: StaticServer, other_origin: StaticServer, redirector: str
) -> None:
    start = server.url("form.html")
    tab.navigate(start)
    name = one(tab.observe(), "Full name").id
    away = redirector + other_origin.url("form.html")
    result = _batch(
        guarded,
        tab,
        [
            {"tool": "input", "arguments": {"ref": name, "text": "Ada"}},
            {"tool": "navigate", "arguments": {"url": away}},
        ],
    )
    assert result.error is not None and result.error.reason == "origin_not_allowed"
    assert "nothing was run" not in result.error.message
    assert [s["status"] for s in result.value["steps"]] == ["done", "failed"]
    assert _href(tab) == start
    # Typed straight to the other origin: refused before any step runs.
    typed = _batch(
        guarded,
        tab,
        [
            {"tool": "input", "arguments": {"ref": name, "text": "Grace"}},
            {"tool": "navigate", "arguments": {"url": other_origin.url("form.html")}},
        ],
    )
    assert typed.error is not None and typed.error.reason == "origin_not_allowed"
    assert typed.error.message.endswith("nothing was run")
    assert tab.playwright.evaluate("document.getElementById('full-name').value") == "Ada"


def test_going_back_to_a_page_that_now_redirects_away_is_refused(
    tab: Any, server: StaticServer, other_origin: StaticServer, redirector: str
) -> None:
    # The entry is of an allowed origin, but its server now sends the tab elsewhere: the
    # refused hop is OriginNotAllowed, as for navigate, not a failure to go back.
    once = redirector.replace("/to?url=", "/once?url=") + other_origin.url("form.html")
    tab.navigate(once)
    start = server.url("form.html")
    tab.navigate(start)
    with pytest.raises(OriginNotAllowed) as caught:
        tab.back()
    assert caught.value.origin == other_origin.origin
    assert _href(tab) == start


@pytest.mark.parametrize("cached", [False, True])
def test_going_back_to_a_page_of_another_origin_is_refused(
    server: StaticServer, other_origin: StaticServer, cacheable: str, cached: bool
) -> None:
    # Only an attached browser can hold another origin in a tab's history. Going back to a
    # page the back-forward cache kept loads nothing: no request of it reaches the guard.
    start = server.url("form.html")
    foreign = cacheable if cached else other_origin.url("form.html")
    with Browser.launch() as owner:
        owner.open(foreign).navigate(start)
        with Browser.connect(owner.cdp_url, allowed_origins=[server.origin]) as attached:
            tab = next(p for p in attached.pages if p.url == start)
            with pytest.raises(OriginNotAllowed) as caught:
                tab.back()
            assert caught.value.origin == origin_of(foreign)
            assert _href(tab) == start
            session = Session(
                browser=attached._browser, page=tab._page, registry=ToolRegistry.discover()
            )
            back = PageStep(ref=None, action="back", args={})
            result = attached._loop.run(run_step(back, session))
            assert result.error is not None and result.error.reason == "origin_not_allowed"
            assert _href(tab) == start


def test_a_script_step_whose_link_the_policy_refused_fails_in_a_round_of_several(
    guarded: Browser, server: StaticServer, other_origin: StaticServer, redirector: str,
    tmp_path: Path,
) -> None:  # fmt: skip
    # The hover and the click run as one round; the click's navigation is refused (the tab
    # stays): the step fails naming the policy, rather than the script running on to done.
    script = "hover the Our own form link\nclick the Partner site link\n"
    agent = Agent(guarded, StepsPlanner.from_text(script), out=tmp_path, max_steps=4)
    try:
        result = agent.run(_links(server, other_origin, redirector))
    finally:
        if agent.page is not None:
            agent.page.close()
    assert isinstance(result.steps[0].decision, Batch)
    assert result.stop_reason == "step_failed", result.message
    assert result.message.startswith(
        "line 2: click the Partner site link: the origin policy refused where it led "
        f"(refused): {other_origin.url('form.html')} ({other_origin.origin} "
    ), result.message
