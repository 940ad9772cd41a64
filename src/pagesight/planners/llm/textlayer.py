"""The cascade's first layer: answer a read-only goal from the page's text, with no browser.

For a goal that only asks ("what is the refund window?"), a browser is the dearest way to
the answer: most such answers are in the text of the page the URL serves. So before a browser
starts, :func:`run_text_layer`:

1. skips the layer at once when the goal changes something (:func:`~pagesight.agent.intent.
   changes_something`: a goal to type, click, save or buy never stops here);
2. fetches the URL with httpx (redirects followed, a timeout; http(s) only);
3. extracts the main text with trafilatura (navigation, footer and other boilerplate gone;
   when it finds little or none, all the page's text instead);
4. asks the model, the text inside the untrusted-content markers, to call one tool,
   ``answer_from_text(answered, answer)``, whose arguments pydantic checks;
5. when the model says the text answers the goal, writes the run's folder (``summary.json``
   with ``layer: "text"``, one ``run.jsonl`` line, ``report.html``, ``steps.txt``) and returns
   a :class:`~pagesight.agent.state.TextLayerResult` whose ``run`` is a
   :class:`~pagesight.agent.state.RunResult` ended ``done``.

Anything else — the goal changes something, the fetch fails (an error status, a refused
connection, a timeout, a non-HTML answer), the model says no or answers off the schema —
writes nothing and returns a :class:`TextLayerResult` with no ``run``: the browser run takes
the goal from the start, and is given the result (``agent.run(url, goal, text_layer=…)``) so
that what asking the model cost is counted in its summary.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from dataclasses import dataclass
from email.message import Message as MimeHeader
from pathlib import Path
from typing import Any, Literal

import httpx
import pydantic

from pagesight.agent.decision import Done
from pagesight.agent.intent import changes_something
from pagesight.agent.secrets import Secrets
from pagesight.agent.state import RunResult, StepRecord, TextLayerResult
from pagesight.agent.untrusted import RULE, untrusted
from pagesight.errors import InvalidOption
from pagesight.messages import Message, ModelReply, ToolSpec, Usage
from pagesight.models.model import Model
from pagesight.runs.folder import default_folder
from pagesight.runs.record import RunRecorder

USER_AGENT = (
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Safari/537.36 pagesight/0.1"
)
"""Sent with the fetch: a browser's, as many sites serve their real page only to one, with
pagesight named at the end."""

MAX_CHARS = 24_000
"""The most characters of extracted text the model is sent (about 6,000 tokens); a longer
text is cut, and the model told so."""

MAX_BYTES = 8_000_000
"""The most bytes of a page read; past it the rest is left unread (what came still parses)."""

MIN_MAIN_CHARS = 250
"""A main text shorter than this is not trusted to be the page's content: all its text is
sent instead (a short page costs little either way)."""

_HTML_TYPES = ("text/html", "application/xhtml+xml")

Extractor = Literal["trafilatura", "all_text"]
"""How the text was got: trafilatura's main-text extraction, or (when that found little or
nothing) all the text of the page, boilerplate included."""


class _Verdict(pydantic.BaseModel):
    """Call this once: does the page's text answer the user's goal?"""

    model_config = pydantic.ConfigDict(extra="forbid")

    answered: bool = pydantic.Field(
        description="true only when the text itself answers the goal; false otherwise"
    )
    answer: str | None = pydantic.Field(
        description="the answer, short, from the text and in the goal's language; "
        "null when answered is false"
    )


ANSWER_TOOL = ToolSpec(
    name="answer_from_text",
    description=(
        "Say whether the page's text answers the user's goal, and give the answer. "
        "Call it exactly once."
    ),
    input_schema=_Verdict.model_json_schema(),
)
"""The one tool the model is offered: its arguments are the typed reply."""

SYSTEM = "\n".join(
    [
        "You answer a user's question from the text of one web page; you have no browser.",
        "Call answer_from_text exactly once. answered=true, with the answer, only when the",
        "text itself answers the goal: quote or paraphrase it, in the goal's language; no",
        "outside knowledge, no guess. answered=false when the text does not hold the answer,",
        "or when the goal asks for anything beyond reading this page (clicking, typing,",
        "buying, signing in, going to another page): you cannot act.",
        RULE,
    ]
)


@dataclass(frozen=True, kw_only=True)
class PageText:
    """A page's text as the text layer read it."""

    url: str
    """The URL the text came from (after redirects)."""
    title: str | None
    text: str
    extractor: Extractor
    truncated: bool
    """Whether the text was cut at ``max_chars``."""


@dataclass(frozen=True, kw_only=True)
class TextAnswer:
    """The page's text answered the goal."""

    answer: str
    url: str
    """The URL the text came from (after redirects)."""
    chars: int
    """Characters of the text the model was sent."""
    tokens: int
    """Tokens of the messages the model was sent (cl100k, as observations are counted)."""
    extractor: Extractor
    usage: Usage | None
    """What the model reported the call cost."""
    reply: ModelReply
    fetch_seconds: float
    """Fetching and extracting."""
    ask_seconds: float
    """The model's answer."""


async def read_page(
    url: str, *, timeout: float = 10.0, max_chars: int = MAX_CHARS
) -> PageText | None:
    """The main text of the page at ``url``, or ``None`` when it cannot be had without a
    browser: not http(s), an error status, a failed connection or a timeout, not HTML, or no
    text at all."""
    _check_options(timeout, max_chars)
    if not isinstance(url, str):
        raise InvalidOption("url", f"url must be an http(s) URL string, not {url!r}")
    if not url.lower().startswith(("http://", "https://")):
        return None
    try:
        fetched = await _fetch(url, timeout)
    except (httpx.HTTPError, httpx.InvalidURL):
        return None  # the browser will try, and say what went wrong if it fails too
    if fetched is None:
        return None
    final_url, html = fetched
    # trafilatura takes a few hundred milliseconds on a long page: off the event loop.
    title, text, extractor = await asyncio.to_thread(_extract, html, final_url)
    if not text.strip():
        return None
    truncated = len(text) > max_chars
    return PageText(
        url=final_url,
        title=title,
        text=text[:max_chars],
        extractor=extractor,
        truncated=truncated,
    )


@dataclass(frozen=True, kw_only=True)
class _Attempt:
    found: TextAnswer | None
    tried: bool
    usage: Usage | None
    reason: str


async def answer_from_text(
    url: str, goal: str, model: Model, *, timeout: float = 10.0, max_chars: int = MAX_CHARS
) -> TextAnswer | None:
    """The answer to ``goal`` from the text of the page at ``url``, when the model says the
    text holds it; else ``None`` (at once, with no fetch, when the goal changes something)."""
    return (await _attempt(url, goal, model, timeout=timeout, max_chars=max_chars)).found


async def _attempt(
    url: str, goal: str, model: Model, *, timeout: float, max_chars: int
) -> _Attempt:
    _check_options(timeout, max_chars)
    if not isinstance(goal, str) or changes_something(goal):
        return _Attempt(found=None, tried=False, usage=None, reason="the goal changes something")
    clock = time.monotonic()
    page = await read_page(url, timeout=timeout, max_chars=max_chars)
    fetch_s = time.monotonic() - clock
    if page is None:
        reason = "the page could not be read as HTML without a browser"
        return _Attempt(found=None, tried=True, usage=None, reason=reason)
    messages = prompt(goal, page)
    clock = time.monotonic()
    reply = await model.complete(messages, (ANSWER_TOOL,))
    ask_s = time.monotonic() - clock
    answer = _answer(reply)
    if answer is None:
        reason = "the model said the page's text does not answer the goal"
        return _Attempt(found=None, tried=True, usage=reply.usage, reason=reason)
    found = TextAnswer(
        answer=answer,
        url=page.url,
        chars=len(page.text),
        tokens=sum(m.tokens for m in messages),
        extractor=page.extractor,
        usage=reply.usage,
        reply=reply,
        fetch_seconds=fetch_s,
        ask_seconds=ask_s,
    )
    return _Attempt(found=found, tried=True, usage=reply.usage, reason="")


async def run_text_layer(
    url: str,
    goal: str,
    model: Model,
    *,
    out: str | Path | None = None,
    timeout: float = 10.0,
    max_chars: int = MAX_CHARS,
    secrets: Mapping[str, str] | None = None,
) -> TextLayerResult:
    """Try the text layer before a browser: when the page's text answers ``goal``, write the
    run's folder (``out``, default ``runs/<UTC timestamp>/``) and return it as ``run`` (stop
    reason ``done``, ``layer`` ``"text"``); else no ``run``, nothing written, and the
    model's usage to hand to the browser run (``agent.run(url, goal, text_layer=…)``)."""
    started = time.monotonic()
    attempt = await _attempt(url, goal, model, timeout=timeout, max_chars=max_chars)
    found = attempt.found
    if found is None:
        return TextLayerResult(
            run=None, tried=attempt.tried, usage=attempt.usage, reason=attempt.reason
        )
    recorder = RunRecorder(out if out is not None else default_folder(), mask=Secrets(secrets).mask)
    recorder.start()
    try:
        step = StepRecord(
            number=1,
            url=found.url,
            mode="text",
            tokens=found.tokens,
            decision=Done(
                answer=found.answer,
                label="answered from the page's text, with no browser",
                raw={
                    "layer": "text",
                    "url": found.url,
                    "chars": found.chars,
                    "extractor": found.extractor,
                    "reply": found.reply.to_dict(),
                },
                usage=found.usage,
            ),
            calls=(),
            observe_seconds=found.fetch_seconds,
            decide_seconds=found.ask_seconds,
            act_seconds=0.0,
        )
        recorder.step(step.to_dict())
        result = RunResult(
            goal=goal,
            stop_reason="done",
            message="the page's text answers the goal",
            answer=found.answer,
            steps=(step,),
            final_url=found.url,
            rounds=1,  # the model's one answer
            tokens=found.tokens,
            seconds=time.monotonic() - started,
            folder=recorder.folder,
            usage=found.usage,
            layer="text",
            layers_tried=("text",),
        )
    except BaseException as exc:
        recorder.failed(exc)
        raise
    recorder.finish(result.summary())
    return TextLayerResult(run=result, tried=True, usage=found.usage, reason="")


def prompt(goal: str, page: PageText) -> tuple[Message, ...]:
    """The messages the model is sent: the task and the rule, then the goal and the page's
    text (its URL and title too) inside the untrusted-content markers."""
    # The URL is the page's too: after redirects the server chose it, query string and all.
    head = f"url: {page.url}\ntitle: {page.title}" if page.title else f"url: {page.url}"
    body = f"{head}\n\n{page.text}"
    if page.truncated:
        body += f"\n\n(the text was cut at {len(page.text):,} characters)"
    user = f"goal: {goal}\n\nthe page's text:\n{untrusted(body)}"
    return (Message(role="system", content=SYSTEM), Message(role="user", content=user))


def _check_options(timeout: float, max_chars: int) -> None:
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0:
        raise InvalidOption("timeout", f"timeout must be a positive number, not {timeout!r}")
    if isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < 1:
        raise InvalidOption("max_chars", f"max_chars must be a positive int, not {max_chars!r}")


async def _fetch(url: str, timeout: float) -> tuple[str, str | bytes] | None:
    """The final URL and the HTML there (text when the server named its charset, else bytes
    for trafilatura to decode by the page's own ``<meta charset>``), or ``None`` when the
    answer is an error status or not HTML."""
    headers = {
        "User-Agent": USER_AGENT,
        "Accept": "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1",
    }
    async with (
        httpx.AsyncClient(
            follow_redirects=True, timeout=timeout, headers=headers, max_redirects=10
        ) as client,
        client.stream("GET", url) as response,
    ):
        if not response.is_success:
            return None
        kind, charset = _content_type(response.headers.get("content-type", ""))
        if kind and kind not in _HTML_TYPES:
            return None  # a PDF, an image, JSON: left unread
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            chunks.append(chunk)
            size += len(chunk)
            if size >= MAX_BYTES:
                break
        # With no Content-Type at all, trafilatura tells: it finds no text in what is not HTML.
        data = b"".join(chunks)
        final = str(response.url)
    if charset:
        try:
            return final, data.decode(charset, errors="replace")
        except LookupError:  # a charset Python does not know: let trafilatura guess
            pass
    return final, data


def _content_type(value: str) -> tuple[str, str | None]:
    header = MimeHeader()
    header["content-type"] = value
    kind = header.get_content_type() if value else ""
    charset = header.get_param("charset")
    return kind, charset if isinstance(charset, str) else None


def _extract(html: str | bytes, url: str) -> tuple[str | None, str, Extractor]:
    """The title and main text (trafilatura); all the page's text instead when the main
    text is missing or too short to hold much (the answers of a Q&A thread, which
    trafilatura drops as comments, leaving the question)."""
    import trafilatura

    doc = trafilatura.bare_extraction(
        html,
        url=url,
        with_metadata=True,
        include_comments=False,  # a news page's comments are long and rarely the answer
        include_tables=True,
        favor_recall=True,
    )
    title = _attr(doc, "title")
    main = (_attr(doc, "text") or "").strip()
    if len(main) >= MIN_MAIN_CHARS:
        return title, main, "trafilatura"
    everything = trafilatura.html2txt(html).strip()
    if len(everything) > len(main):
        return title, everything, "all_text"
    return title, main, "trafilatura"


def _attr(doc: Any, name: str) -> str | None:
    value = getattr(doc, name, None) if doc is not None else None
    return value if isinstance(value, str) and value else None


def _answer(reply: ModelReply) -> str | None:
    """The answer, when the model called ``answer_from_text`` with arguments that fit it
    and said the text answers; ``None`` for a no, no call, or arguments off the schema."""
    call = next((c for c in reply.tool_calls if c.name == ANSWER_TOOL.name), None)
    if call is None:
        return None
    try:
        verdict = _Verdict.model_validate(call.arguments)
    except pydantic.ValidationError:
        return None
    if not verdict.answered or verdict.answer is None or not verdict.answer.strip():
        return None
    return verdict.answer.strip()
