from __future__ import annotations

import asyncio
import time

from pagesight.agent.session import Session
from pagesight.agent.tool import ToolResult
from pagesight.agent.tools._observed import observed
from pagesight.observe.find import normalise

POLL_S = 0.2
"""Between two looks at a page that is ready but does not show the text yet."""


async def wait_for_text(session: Session, *, text: str, timeout: float = 10.0) -> ToolResult:
    """Wait until the page shows a text (a toast, a result that loads late), up to a timeout.

    Args:
        text: The text to wait for, as the page shows it (case and spacing do not matter).
        timeout: Seconds to wait at most.
    """
    if not normalise(text):
        return ToolResult.failure("invalid_arguments", "wait_for_text: give a text to wait for")
    if not 0 < timeout <= 120:
        return ToolResult.failure(
            "invalid_arguments", f"wait_for_text: timeout is 0 to 120 seconds, not {timeout}"
        )
    want = normalise(text)
    started = time.monotonic()
    deadline = started + timeout
    while True:
        # observe waits for the document to be ready first (once per document), so a page
        # still loading is read when it has settled, not polled half-built.
        left = max(deadline - time.monotonic(), 0.0)
        obs = await session.page.observe(wait=min(left, 5.0))
        seconds = round(time.monotonic() - started, 3)
        if want in normalise(obs.text()):
            return observed(session, obs, f"found {text!r} after {seconds:g} s", found=True)
        if time.monotonic() >= deadline:
            result = ToolResult.failure(
                "text_not_found", f"the page did not show {text!r} within {timeout:g} s"
            )
            session.latest = obs
            return result
        await asyncio.sleep(min(POLL_S, max(deadline - time.monotonic(), 0.0)))
