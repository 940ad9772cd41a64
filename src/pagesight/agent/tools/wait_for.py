from __future__ import annotations

import asyncio
import time

from pagesight.agent.session import Session
from pagesight.agent.tool import ToolResult
from pagesight.agent.tools._observed import observed
from pagesight.observe.find import normalise

POLL_S = 0.2
"""Between two looks at a page that is ready but not yet as awaited."""
MAX_TIMEOUT_S = 120.0


async def wait_for(
    session: Session,
    *,
    text: str | None = None,
    text_gone: str | None = None,
    timeout: float = 10.0,
) -> ToolResult:
    """Wait until the page shows a text (a toast, a result that loads late), or until a text
    is gone (a spinner's "Loading…"), up to a timeout; with neither, until the page is ready
    (loaded, its network and DOM quiet). The page is read a few times a second: a text shown
    only for a moment (a toast of a tenth of a second) may come and go unseen.

    Args:
        text: The text to wait for, as the page shows it (case and spacing do not matter).
        text_gone: A text to wait to disappear from the page.
        timeout: Seconds to wait at most.
    """
    if not 0 < timeout <= MAX_TIMEOUT_S:
        return ToolResult.failure(
            "invalid_arguments",
            f"wait_for: timeout is 0 to {MAX_TIMEOUT_S:g} seconds, not {timeout}",
        )
    for name, given in (("text", text), ("text_gone", text_gone)):
        if given is not None and not normalise(given):
            return ToolResult.failure(
                "invalid_arguments", f"wait_for: {name} is empty; give a text, or leave it out"
            )
    started = time.monotonic()
    if text is None and text_gone is None:
        return await _ready(session, timeout, started)
    want = normalise(text) if text is not None else None
    gone = normalise(text_gone) if text_gone is not None else None
    deadline = started + timeout
    while True:
        # observe waits for the document to be ready first (once per document), so a page
        # still loading is read when it has settled, not polled half-built.
        left = max(deadline - time.monotonic(), 0.0)
        obs = await session.page.observe(wait=min(left, 5.0))
        shown = normalise(obs.text())
        missing = want is not None and want not in shown
        still = gone is not None and gone in shown
        seconds = round(time.monotonic() - started, 3)
        if not missing and not still:
            what = " and ".join(
                part
                for part in (
                    f"found {text!r}" if text is not None else "",
                    f"{text_gone!r} is gone" if text_gone is not None else "",
                )
                if part
            )
            return observed(session, obs, f"{what} after {seconds:g} s", found=True)
        if time.monotonic() >= deadline:
            session.latest = obs
            if missing:
                return ToolResult.failure(
                    "text_not_found", f"the page did not show {text!r} within {timeout:g} s"
                )
            return ToolResult.failure(
                "text_still_shown", f"the page still shows {text_gone!r} after {timeout:g} s"
            )
        await asyncio.sleep(min(POLL_S, max(deadline - time.monotonic(), 0.0)))


async def _ready(session: Session, timeout: float, started: float) -> ToolResult:
    ready = await session.page.wait_ready(timeout)
    seconds = round(time.monotonic() - started, 3)
    if not ready:
        return ToolResult.failure(
            "not_ready",
            f"the page was not ready within {timeout:g} s (its network or DOM kept busy); "
            "observe to read it as it is, or wait for a text it should show",
        )
    obs = await session.page.observe(wait=0.0)
    return observed(session, obs, f"the page is ready after {seconds:g} s", found=True)
