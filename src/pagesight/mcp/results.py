"""A registry ToolResult as MCP content: what the model reads, and nothing twice.

One text block, inside one pair of untrusted-content markers, as the LLM planner answers a
tool call (:mod:`pagesight.planners.llm.reply`, one rule for both): the tool's own text (an
effect, an outline, matches); after an action, the page after it: the whole outline when it
is another document (or the model has no page to read a change on), else only what changed
since the page the model last had (:func:`~pagesight.observe.passes.reads_on` and
:func:`~pagesight.observe.passes.smaller_than_page`: a change is shown when it is the same
document read from the DOM the same way and smaller than the page), less what the effect
already said (a typed value, focus moving to the control acted on), and nothing when that is
all that changed. The effect leaves out what the page part after it shows (its element lists
and ``url:`` line). A screenshot comes as an image. No structured content: it would repeat the
text, and every token returned is the model's to pay.
"""

from __future__ import annotations

import base64
from dataclasses import replace

from mcp_types import CallToolResult, ContentBlock, ImageContent, TextContent

from pagesight.agent.secrets import Secrets
from pagesight.agent.tool import ToolResult
from pagesight.agent.untrusted import untrusted
from pagesight.observe.observation import Observation
from pagesight.observe.passes import changes_since, reads_on
from pagesight.planners.llm.reply import Told, block, changed_part, whole_page


def content(result: ToolResult, *, before: Observation | None) -> CallToolResult:
    """``result`` for the client; ``before``: the session's latest page before the call."""
    # Page text inside the untrusted-content markers, as every planner sends it: the client's
    # model reads it like ours does, and the server's instructions say what the markers mean.
    blocks: list[ContentBlock] = [
        TextContent(text=block(result.text, page_after(result, before=before)))
    ]
    if result.image is not None:
        data = base64.b64encode(result.image).decode("ascii")
        blocks.append(ImageContent(data=data, mime_type="image/png"))
    return CallToolResult(content=blocks, is_error=result.is_error)


def page_after(result: ToolResult, *, before: Observation | None) -> str | None:
    """The page part after an action, as the model needs it (its ``page now:`` or ``what
    changed`` line, then the page or what changed); ``None`` for a tool that did not act (a
    snapshot's or a find's text already is the page), or when the effect said all that
    changed."""
    after = result.observation if result.effect is not None else None
    if after is None:
        return None
    page = replace(after, changes=None).text()
    if before is None or not reads_on(after.mode, before.mode):
        return whole_page(page)
    changed = changes_since(after, before)
    if changed.changes is None or changed.changes.new_document:
        return whole_page(page)
    return changed_part(changed.text(), changed, Told.by([result.value]), page)


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
