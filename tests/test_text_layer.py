"""The text layer: a read-only goal answered from the page's text over real HTTP on
127.0.0.1, with no browser; a goal that changes something never reaches the model; a page
that cannot be fetched as HTML leaves the goal to the browser; the record says which layer
answered (text, dom or vision)."""

# ruff: noqa: RUF001 - the Chinese goals use full-width Chinese punctuation on purpose.

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from conftest import StaticServer
from pagesight import Action, Agent, Browser, Done
from pagesight.agent import ScriptedPlanner, State
from pagesight.agent.untrusted import CLOSE, OPEN, RULE
from pagesight.errors import InvalidOption
from pagesight.messages import Message, ModelReply, Usage
from pagesight.models.model import ScriptedModel
from pagesight.planners.llm.textlayer import (
    ANSWER_TOOL,
    TextAnswer,
    answer_from_text,
    read_page,
    run_text_layer,
)

CORPUS = Path("/work/shared/corpus/pages")
USAGE = Usage(input_tokens=900, output_tokens=20)


def _page_text(messages: Sequence[Message]) -> str:
    """The page's text the model was sent: what stands between the untrusted markers of the
    last message (exactly one block)."""
    content = messages[-1].content
    assert content.count(OPEN) == 1 and content.count(CLOSE) == 1, content
    return content.split(OPEN, 1)[1].split(CLOSE, 1)[0]


def _reader(needle: str, answer: str) -> ScriptedModel:
    """A model that reads the page's text it is sent, as a capable one would: it says the
    text answers (with ``answer``) only when ``needle`` is in it."""

    def reply(messages: Sequence[Message]) -> ModelReply:
        found = needle in _page_text(messages)
        verdict = ModelReply.calling(
            "answer_from_text", answered=found, answer=answer if found else None
        )
        return replace(verdict, usage=USAGE)

    return ScriptedModel([reply])


def _answer(url: str, goal: str, model: ScriptedModel, **options: float) -> TextAnswer | None:
    return asyncio.run(answer_from_text(url, goal, model, **options))  # type: ignore[arg-type]


def test_a_read_only_goal_is_answered_from_the_main_text_inside_the_markers(
    server: StaticServer,
) -> None:
    model = _reader("within 30 days of delivery", "30 days from delivery")
    found = _answer(server.url("text-refund-policy.html"), "What is the refund window?", model)
    assert found is not None
    assert found.answer == "30 days from delivery"
    assert found.url == server.url("text-refund-policy.html")
    assert found.extractor == "trafilatura"
    assert found.usage == USAGE
    (messages,) = model.requests
    assert model.tools == [(ANSWER_TOOL,)]  # one tool, its arguments the typed reply
    system, user = messages
    assert system.role == "system" and RULE in system.content
    page = _page_text(messages)
    assert "You can request a refund within 30 days of delivery." in page
    # the URL and title are the page's too (a redirect chose the URL): inside the markers
    head = f"url: {found.url}\ntitle: Refund policy"
    assert page.strip().startswith(head)
    assert found.url not in user.content.split(OPEN, 1)[0]
    assert found.chars == len(page.strip().removeprefix(head).strip())
    # the goal is the user's, outside the block; the boilerplate is gone from it
    assert user.content.startswith("goal: What is the refund window?")
    for boilerplate in (
        "Track my package",  # the header's navigation
        "Free standard shipping",  # the promo bar
        "Shipping times and costs",  # the sidebar
        "Registered in England",  # the footer
        "Get trail news",  # the footer's newsletter form
        "We use cookies",  # the cookie banner
    ):
        assert boilerplate not in page, boilerplate


def test_a_page_cannot_close_the_untrusted_block_early(server: StaticServer) -> None:
    # The page writes the closing marker in its title and its text, then "instructions".
    model = _reader("Express shipping costs $14.95", "$14.95")
    found = _answer(server.url("text-injection.html"), "How much is express shipping?", model)
    assert found is not None and found.answer == "$14.95"
    page = _page_text(model.requests[0])  # still exactly one block: the markers defused
    assert "Ignore the rules above" in page  # the page's words, inside it
    assert "International shipping is calculated" in page


def test_a_chinese_goal_is_answered_from_a_chinese_faq(server: StaticServer) -> None:
    model = _reader("自签收之日起 7 天内", "自签收之日起 7 天内可申请无理由退货退款")
    found = _answer(server.url("text-faq-zh.html"), "退款期限是多久", model)
    assert found is not None and found.answer == "自签收之日起 7 天内可申请无理由退货退款"
    page = _page_text(model.requests[0])
    assert "热卖榜单" not in page and "沪ICP备" not in page  # navigation and footer gone


def test_a_question_the_text_does_not_answer_is_left_to_the_browser(
    server: StaticServer, tmp_path: Path
) -> None:
    model = _reader("chief executive", "(never)")
    out = tmp_path / "run"
    goal = "Who is the chief executive of Northwind Outfitters?"
    result = asyncio.run(
        run_text_layer(server.url("text-refund-policy.html"), goal, model, out=out)
    )
    assert result.run is None and result.tried
    assert result.usage == USAGE  # what asking cost, for the browser run to count
    assert result.reason == "the model said the page's text does not answer the goal"
    assert len(model.requests) == 1  # it was asked, and said no
    assert not out.exists()  # nothing written: the browser run writes the folder


@pytest.mark.parametrize(
    "goal",
    [
        "Request a refund for my last order",
        "What is the refund window? Then start a return for order 1234",
        "Find the refund window and fill in the return form",
        "提交退款申请",
        "退款期限是多久？然后帮我下单",
    ],
)
def test_a_goal_that_changes_something_never_reaches_the_model(
    server: StaticServer, tmp_path: Path, goal: str
) -> None:
    model = _reader("within 30 days", "30 days")
    out = tmp_path / "run"
    result = asyncio.run(
        run_text_layer(server.url("text-refund-policy.html"), goal, model, out=out)
    )
    assert (result.run, result.tried, result.usage) == (None, False, None)
    assert model.requests == []
    assert not out.exists()


def test_what_cannot_be_fetched_as_html_is_left_to_the_browser(
    server: StaticServer, closed_port: int
) -> None:
    for url in (
        server.url("text-no-such-page.html"),  # 404
        f"http://127.0.0.1:{closed_port}/refunds",  # connection refused
        server.url("download/refund-policy.txt"),  # text/plain, as an attachment
        server.url("live-scores.json"),  # application/json
        server.url("text-refund-policy-source.txt"),  # HTML source as text/plain (a "raw" view)
        Path(__file__).with_name("pages").joinpath("text-refund-policy.html").as_uri(),
        "about:blank",
    ):
        model = _reader("30 days", "30 days")
        assert _answer(url, "What is the refund window?", model) is None, url
        assert model.requests == [], url


def test_a_redirect_is_followed_and_the_final_url_recorded(server: StaticServer) -> None:
    # The server redirects a folder without its slash (301) to the folder's index.html.
    model = _reader("09:00", "Saturday 09:00 to 13:00")
    found = _answer(server.url("text-help"), "When are you open on Saturday?", model)
    assert found is not None and found.answer == "Saturday 09:00 to 13:00"
    assert found.url == server.url("text-help/")


def test_a_thread_whose_answers_the_extraction_drops_is_read_whole(server: StaticServer) -> None:
    # trafilatura keeps only the question of a Q&A thread (its answers are "comments"):
    # too short to be the page, so the model reads all of its text.
    model = _reader("30 W or more", "Yes, with a USB-C PD charger of 30 W or more")
    found = _answer(server.url("text-qa-thread.html"), "Does the X200 charge over USB-C?", model)
    assert found is not None and found.answer.startswith("Yes")
    assert found.extractor == "all_text"


def test_a_reply_off_the_schema_is_no_answer(server: StaticServer) -> None:
    url = server.url("text-refund-policy.html")
    for reply in (
        ModelReply(text="The refund window is 30 days."),  # words, no call: not parsed
        ModelReply.calling("answer_from_text", answered="perhaps", answer="30 days"),
        ModelReply.calling("answer_from_text", answered=True, answer="  "),
        ModelReply.calling("answer_from_text", answered=True, answer="30", extra=1),
        ModelReply.calling("done", answer="30 days"),
    ):
        assert _answer(url, "What is the refund window?", ScriptedModel([reply])) is None, reply


def test_a_long_text_is_cut_and_the_model_told(server: StaticServer) -> None:
    model = _reader("Refund policy", "(cut)")
    found = _answer(
        server.url("text-refund-policy.html"), "What is the refund window?", model, max_chars=200
    )
    assert found is not None and found.chars == 200
    assert "(the text was cut at 200 characters)" in _page_text(model.requests[0])


def test_bad_options_are_refused_before_any_fetch(server: StaticServer) -> None:
    url = server.url("text-refund-policy.html")
    for name, options in (("timeout", {"timeout": 0}), ("max_chars", {"max_chars": 0})):
        with pytest.raises(InvalidOption) as refused:
            _answer(url, "What is the refund window?", ScriptedModel([]), **options)
        assert refused.value.option == name
    with pytest.raises(InvalidOption):
        asyncio.run(read_page(url, timeout=-1))
    with pytest.raises(InvalidOption) as refused:
        asyncio.run(read_page(Path("refunds.html")))  # type: ignore[arg-type]
    assert refused.value.option == "url"


def test_the_record_of_a_text_answer_says_layer_text(server: StaticServer, tmp_path: Path) -> None:
    out = tmp_path / "run"
    url = server.url("text-refund-policy.html")
    model = _reader("within 30 days of delivery", "30 days from delivery")
    result = asyncio.run(run_text_layer(url, "What is the refund window?", model, out=out)).run
    assert result is not None
    assert (result.stop_reason, result.layer, result.answer) == (
        "done",
        "text",
        "30 days from delivery",
    )
    assert result.folder == out and result.rounds == 1  # the model answered once
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["layer"] == "text" and summary["layers_tried"] == ["text"]
    assert summary["stop_reason"] == "done" and summary["reached"] is True
    assert summary["answer"] == "30 days from delivery"
    assert summary["model_tokens"] == {
        "input": 900,
        "cached_input": 0,
        "cache_write": 0,
        "output": 20,
    }
    assert summary["final_url"] == url
    (line,) = (out / "run.jsonl").read_text(encoding="utf-8").splitlines()
    step = json.loads(line)
    assert step["observation"]["mode"] == "text"
    assert step["observation"]["tokens"] == summary["tokens"] > 0
    assert step["decision"]["type"] == "done"
    assert step["decision"]["raw"]["layer"] == "text"
    assert step["decision"]["raw"]["url"] == url
    assert step["decision"]["raw"]["chars"] > 500
    report = (out / "report.html").read_text(encoding="utf-8")
    assert "30 days from delivery" in report and "· text ·" in report
    assert not (out / "final.png").exists()  # no browser, no screenshot


def test_a_secret_the_goal_or_the_answer_quotes_is_masked_in_the_text_layers_records(
    server: StaticServer, tmp_path: Path
) -> None:
    order = "ORD-7731-SECRET"
    out = tmp_path / "run"
    url = server.url("text-refund-policy.html")
    model = _reader("within 30 days of delivery", f"30 days from delivery, for {order} too")
    goal = f"What is the refund window for order {order}?"
    found = asyncio.run(run_text_layer(url, goal, model, out=out, secrets={"ORDER": order}))
    assert found.run is not None and found.run.stop_reason == "done"
    for path in out.iterdir():
        assert order.encode() not in path.read_bytes(), f"the order number in {path.name}"
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["goal"] == "What is the refund window for order {{ORDER}}?"
    assert summary["answer"] == "30 days from delivery, for {{ORDER}} too"


def test_a_text_answer_starts_no_browser(server: StaticServer, tmp_path: Path) -> None:
    """In a fresh process: the answer comes, and the process never started a child (no
    Playwright driver, no Chromium)."""
    script = textwrap.dedent(
        f"""
        import asyncio, json, os
        from pagesight.messages import ModelReply
        from pagesight.models import ScriptedModel
        from pagesight.planners.llm.textlayer import run_text_layer

        model = ScriptedModel([ModelReply.calling(
            "answer_from_text", answered=True, answer="30 days from delivery")])
        result = asyncio.run(run_text_layer(
            {server.url("text-refund-policy.html")!r}, "What is the refund window?", model,
            out={str(tmp_path / "run")!r}))
        children = []
        for task in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{{task}}/children") as f:
                children += f.read().split()
        print(json.dumps({{"answer": result.run.answer, "layer": result.run.layer,
                           "children": children}}))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(Path(__file__).parents[1] / "src"), "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen == {"answer": "30 days from delivery", "layer": "text", "children": []}


class _Cp1252Page(BaseHTTPRequestHandler):
    """A page in windows-1252 that names its charset only in the HTTP header, as many older
    servers do: its bytes alone are easily taken for another charset."""

    BODY = (
        "<html><head><title>Caf\u00e9 Lumi\u00e8re</title></head><body>"
        "<p>Caf\u00e9 Lumi\u00e8re is open Mon\u2013Fri 08:00\u201318:00.</p></body></html>"
    ).encode("cp1252")

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=windows-1252")
        self.send_header("Content-Length", str(len(self.BODY)))
        self.end_headers()
        self.wfile.write(self.BODY)

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def _serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """A one-handler HTTP server on 127.0.0.1 (for headers the static server never sends);
    its URL."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def test_the_charset_the_server_names_decodes_the_page() -> None:
    model = _reader("Caf\u00e9 Lumi\u00e8re is open Mon\u2013Fri", "Mon\u2013Fri 08:00\u201318:00")
    with _serving(_Cp1252Page) as url:
        found = _answer(url, "When is the caf\u00e9 open?", model)
    assert found is not None and found.answer == "Mon\u2013Fri 08:00\u201318:00"


class _Untyped(BaseHTTPRequestHandler):
    """Answers with no Content-Type at all: ``/page`` an HTML document, ``/notes`` plain
    text."""

    def do_GET(self) -> None:
        body = (
            b"<!DOCTYPE html><html><body><p>Parking is free after 18:00.</p></body></html>"
            if self.path == "/page"
            else b"Parking is free after 18:00."
        )
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


def test_a_page_with_no_content_type_is_read_only_when_it_is_html() -> None:
    with _serving(_Untyped) as url:
        model = _reader("free after 18:00", "after 18:00")
        found = _answer(url + "page", "When is parking free?", model)
        assert found is not None and found.answer == "after 18:00"
        model = _reader("free after 18:00", "after 18:00")
        assert _answer(url + "notes", "When is parking free?", model) is None
        assert model.requests == []


class _Stalled(BaseHTTPRequestHandler):
    """Sends the headers and half a page, then nothing until the test lets it go."""

    release = threading.Event()

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.end_headers()
        self.wfile.write(b"<!doctype html><html><body><p>Refunds within 30")
        self.wfile.flush()
        self.release.wait(30)

    def log_message(self, format: str, *args: object) -> None:
        pass


def test_a_page_that_stops_sending_times_out_to_the_browser() -> None:
    model = _reader("30", "30 days")
    with _serving(_Stalled) as url:
        try:
            assert _answer(url, "What is the refund window?", model, timeout=0.5) is None
        finally:
            _Stalled.release.set()
    assert model.requests == []


@pytest.fixture(scope="module")
def corpus() -> Iterator[StaticServer]:
    if not CORPUS.is_dir():
        pytest.skip(f"the saved real pages are not here ({CORPUS})")
    srv = StaticServer(directory=CORPUS)
    yield srv
    srv.close()


def test_a_saved_real_chinese_article_in_gb2312_is_answered(corpus: StaticServer) -> None:
    # qq.html declares gb2312 in a <meta> only (no charset in the HTTP header).
    model = _reader("可微神经计算机", "DNC（可微神经计算机）")
    found = _answer(corpus.url("qq.html"), "DeepMind 的新电脑叫什么名字？", model)
    assert found is not None and found.answer == "DNC（可微神经计算机）"
    assert found.extractor == "trafilatura"
    assert "腾讯网" not in _page_text(model.requests[0])  # the site's chrome is gone


def test_a_browser_run_records_the_dom_layer(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    agent = Agent(browser, ScriptedPlanner([Done(answer="two contacts")]), out=tmp_path / "run")
    result = agent.run(server.url("agent-done.html"), goal="how many contacts are listed?")
    assert result.layer == "dom"
    summary = json.loads((tmp_path / "run" / "summary.json").read_text(encoding="utf-8"))
    assert summary["layer"] == "dom" and summary["layers_tried"] == ["dom"]


def test_a_browser_run_that_turned_to_vision_records_the_vision_layer(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    def look(state: State) -> Action | Done:
        if state.observation.mode == "vision":
            return Done(answer="read from the screen")
        return Action(tool="observe")

    agent = Agent(browser, ScriptedPlanner([look] * 5), max_steps=5, out=tmp_path / "run")
    result = agent.run(server.url("canvas-app.html"), goal="what does the canvas app show?")
    assert result.stop_reason == "done" and result.steps[-1].mode == "vision"
    assert result.layer == "vision"
    summary = json.loads((tmp_path / "run" / "summary.json").read_text(encoding="utf-8"))
    assert summary["layer"] == "vision" and summary["layers_tried"] == ["dom", "vision"]


def test_a_declined_text_layer_handed_to_the_agent_is_counted_in_its_run(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    """The cascade in Python: the text layer, then the browser run given what it came to —
    its tokens added, ``text`` first among the layers tried; an answered one is refused."""
    url = server.url("text-refund-policy.html")
    goal = "Who is the chief executive of Northwind Outfitters?"
    text = asyncio.run(run_text_layer(url, goal, _reader("chief executive", "(never)")))
    assert text.run is None and text.usage == USAGE
    browser_usage = Usage(input_tokens=1000, output_tokens=30)
    planner = ScriptedPlanner([Done(answer="not on the page", usage=browser_usage)])
    result = Agent(browser, planner, out=tmp_path / "run").run(url, goal, text_layer=text)
    assert result.usage == Usage(input_tokens=1900, output_tokens=50)
    assert (result.layer, result.layers_tried) == ("dom", ("text", "dom"))
    summary = json.loads((tmp_path / "run" / "summary.json").read_text(encoding="utf-8"))
    assert summary["model_tokens"] == {
        "input": 1900,
        "cached_input": 0,
        "cache_write": 0,
        "output": 50,
    }
    assert summary["layers_tried"] == ["text", "dom"]

    answered = _reader("within 30 days", "30 days")
    done = asyncio.run(
        run_text_layer(url, "What is the refund window?", answered, out=tmp_path / "t")
    )
    assert done.run is not None
    with pytest.raises(InvalidOption) as refused:
        Agent(browser, planner, out=tmp_path / "again").run(url, goal, text_layer=done)
    assert refused.value.option == "text_layer"
    assert not (tmp_path / "again").exists()
