"""A registry ToolResult as MCP content: what the model reads, and nothing twice.

Text first (the tool's own text: an effect, an outline, matches); after an action, the page
after it: the whole outline when it is another document (or the model has no page to read a
change on), else only what changed since the page the model last had (the LLM planner's rule,
:func:`~pagesight.observe.passes.reads_on` and
:func:`~pagesight.observe.passes.smaller_than_page`: a change is shown when it is the same
document read from the DOM the same way and smaller than the page), and nothing when the
effect already named every change (a typed value). A screenshot comes as an image. Text from
the page travels inside the untrusted-content markers (:mod:`pagesight.agent.untrusted`). No
structured content: it would repeat the text, and every token returned is the model's to pay.

When the whole page follows, the effect is cut to what the page cannot say: its element
lists (``+ [11] link …``, the page shows what is there now, the count line what went) and its
``url:`` line (the page's first line has the URL) are left out; its kinds, values, texts
and events stay.
"""

from __future__ import annotations

import base64
import re
from dataclasses import replace
from typing import Any

from mcp_types import CallToolResult, ContentBlock, ImageContent, TextContent

from pagesight.agent.secrets import Secrets
from pagesight.agent.tool import ToolResult
from pagesight.agent.untrusted import untrusted
from pagesight.observe.observation import Observation
from pagesight.observe.passes import changes_since, reads_on, smaller_than_page
from pagesight.planners.llm.context import DELTA, FULL


def content(result: ToolResult, *, before: Observation | None) -> CallToolResult:
    """``result`` for the client; ``before``: the session's latest page before the call."""
    page = page_after(result, before=before)
    text = result.text
    if page is not None and page.startswith(FULL):
        text = without_what_the_page_shows(text)
    # Page text inside the untrusted-content markers, as every planner sends it: the client's
    # model reads it like ours does, and the server's instructions say what the markers mean.
    blocks: list[ContentBlock] = [TextContent(text=untrusted(text))]
    if page is not None:
        header, _, body = page.partition("\n")
        blocks.append(TextContent(text=f"{header}\n{untrusted(body)}"))
    if result.image is not None:
        data = base64.b64encode(result.image).decode("ascii")
        blocks.append(ImageContent(data=data, mime_type="image/png"))
    return CallToolResult(content=blocks, is_error=result.is_error)


def page_after(result: ToolResult, *, before: Observation | None) -> str | None:
    """The page after an action, as the model needs it; ``None`` for a tool that did not
    act (a snapshot's or a find's text already is the page)."""
    after = result.observation if result.effect is not None else None
    if after is None:
        return None
    whole = replace(after, changes=None).text()
    if before is None or not reads_on(after.mode, before.mode):
        return f"{FULL}\n{whole}"
    changed = changes_since(after, before)
    if changed.changes is None or changed.changes.new_document:
        return f"{FULL}\n{whole}"
    if _told(changed, result):
        return None
    delta = changed.text()
    if not smaller_than_page(delta, whole):
        return f"{FULL}\n{whole}"
    return f"{DELTA}\n{delta}"


_SHOWN_BY_THE_PAGE = re.compile(
    r"^  (?:[+~-] \[\d+\] .*|… \d+ more|url: .* \((?:new|same) document\))$"
)
"""An effect's lines the whole page repeats: an element added, removed or changed (or how
many more), and the URL it went to."""


def without_what_the_page_shows(text: str) -> str:
    """``text`` (a tool's, holding one effect or a batch's several) without the lines the
    whole page after it repeats."""
    return "\n".join(line for line in text.splitlines() if not _SHOWN_BY_THE_PAGE.match(line))


def _told(changed: Observation, result: ToolResult) -> bool:
    """Whether the text already said all that changed: only values moved, each one an effect
    names (a typed field, a chosen option; each step's, for a batch or a filled form), so the
    delta would repeat it."""
    changes, effect = changed.changes, result.effect
    if changes is None or effect is None or changes.added or changes.removed:
        return False
    named = {after.id for _, after in effect.values} | _named_by_steps(result.value)
    return bool(changes.changed) and all(after.id in named for _, after in changes.changed)


def _named_by_steps(value: dict[str, Any]) -> set[int]:
    """The elements whose value change a batch's steps (each with its effect in the text)
    named."""
    named: set[int] = set()
    for step in value.get("steps", ()):
        effect = step.get("effect") or {}
        named.update(change["after"]["id"] for change in effect.get("values", ()))
    return named


def masked(result: CallToolResult, secrets: Secrets) -> CallToolResult:
    """``result`` with every secret value in its texts written ``{{NAME}}``."""
    if not secrets.values:
        return result
    blocks: list[ContentBlock] = [
        TextContent(text=secrets.mask(b.text)) if isinstance(b, TextContent) else b
        for b in result.content
    ]
    return CallToolResult(content=blocks, is_error=result.is_error)


def failure(reason: str, message: str, *, quotes_page: bool = False) -> CallToolResult:
    """A tool error the server itself found (no browser, an internal fault). With
    ``quotes_page``, inside the untrusted-content markers: an exception's message may quote
    the page (a script that makes the walker throw chooses its words)."""
    text = ToolResult.failure(reason, message).text
    return CallToolResult(
        content=[TextContent(text=untrusted(text) if quotes_page else text)], is_error=True
    )
