"""A registry ToolResult as MCP content: what the model reads, and nothing twice.

Text first (the tool's own text: an effect, an outline, matches); after an action, the page
after it: the whole outline when it is another document (or the model has no page to read a
change on), else only what changed since the page the model last had (the rule the agent's
context keeps: a change is shown when it is the same document read from the DOM and smaller
than the page), and nothing when the effect already named every change (a typed value). A
screenshot comes as an image. No structured content: it would repeat the text, and every
token returned is the model's to pay.
"""

from __future__ import annotations

import base64
from dataclasses import replace

from mcp_types import CallToolResult, ContentBlock, ImageContent, TextContent

from pagesight.agent.context import DELTA, FULL
from pagesight.agent.loop import _since as since  # the loop's delta of an action's page
from pagesight.agent.tool import ToolResult
from pagesight.observe.observation import Observation
from pagesight.observe.tokens import count_tokens


def content(result: ToolResult, *, before: Observation | None) -> CallToolResult:
    """``result`` for the client; ``before``: the session's latest page before the call."""
    blocks: list[ContentBlock] = [TextContent(text=result.text)]
    page = page_after(result, before=before)
    if page is not None:
        blocks.append(TextContent(text=page))
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
    if before is None or after.mode == "vision" or before.mode != after.mode:
        return f"{FULL}\n{whole}"
    changed = since(after, before)
    if changed.changes is None or changed.changes.new_document:
        return f"{FULL}\n{whole}"
    if _told(changed, result):
        return None
    delta = changed.text()
    if count_tokens(delta) >= count_tokens(whole):
        return f"{FULL}\n{whole}"
    return f"{DELTA}\n{delta}"


def _told(changed: Observation, result: ToolResult) -> bool:
    """Whether the effect already said all that changed: only values moved, each one the
    effect names (a typed field, a chosen option), so the delta would repeat it."""
    changes, effect = changed.changes, result.effect
    if changes is None or effect is None or changes.added or changes.removed:
        return False
    named = {after.id for _, after in effect.values}
    return bool(changes.changed) and all(after.id in named for _, after in changes.changed)


def failure(reason: str, message: str) -> CallToolResult:
    """A tool error the server itself found (no browser, an internal fault)."""
    return CallToolResult(
        content=[TextContent(text=ToolResult.failure(reason, message).text)], is_error=True
    )
