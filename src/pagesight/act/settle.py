"""Waiting after an action exactly as long as the page needs.

After an action the page has settled once, together: the DOM has not changed for a short
window (inline-style churn, which is how animations run, does not count), no request the
action started is in flight, and no short timer the action set (a ``setTimeout`` of up to a
second set within a moment of the input, or by such a timer; counted by the init script) is
pending. A navigation the action started is followed to its new document, which is then
waited for like any page (see readiness).

The requests an action started are the ones that began within a moment of it (from the input
until shortly after it was sent), whatever their endpoint — a click that asks the very
endpoint the page polls is waited for too — and, after that moment, any request that is not
the page's background traffic (polling, beacons, long-lived connections; see readiness): a
debounced search's fetch, a render's second request. A later request to a polled endpoint at
the poll's own beat is taken for the poll. A document that never became ready (its traffic
never settles, or the caller did not wait) is reported not ready, and its network activity
is not held against it.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

from playwright.async_api import Page as PlaywrightPage

from pagesight.observe.readiness import NetworkWatch, ask, wait_ready

SETTLE_MS = 50
"""Quiet needed after an action: long enough for a handler's promise chain and the next frame
to land, short enough that a click on a page that does nothing reports so at once."""
POLL_S = 0.025
ACTION_MOMENT_S = 0.25
"""A request that starts this soon after the input was sent is the action's, whatever endpoint
it asks: the page's request event reaches us a little after the page sent it."""
_PROBE = """() => {
  const w = globalThis[Symbol.for("pagesight.walker")];
  const h = globalThis[Symbol.for("pagesight.hooks")];
  const state = h && h.settling ? h.settling() : null;
  return {doc: w ? w.docToken : null, latched: Boolean(h && h.ready), state};
}"""


@dataclass(frozen=True)
class Settled:
    new_document: bool
    ready: bool


async def document_token(page: PlaywrightPage) -> str | None:
    """The walker token of the page's current document (``None`` before the first walk)."""
    probe = await _probe(page, 5.0)
    return None if probe is None else probe["doc"]


async def settle(
    page: PlaywrightPage,
    network: NetworkWatch,
    *,
    since: float,
    done: float,
    document: str | None,
    timeout: float,
) -> Settled:
    """Wait until the page settles after an action that began at ``since`` and ended at
    ``done`` (monotonic times) on the document whose walker token is ``document``; at most
    ``timeout`` seconds."""
    await network.started()
    deadline = since + timeout
    while True:
        now = time.monotonic()
        probe = await _probe(page, max(deadline - now, 0.5))
        if probe is not None and probe["doc"] != document:
            # Another document: the action navigated. Wait for it as for any page.
            ready = await wait_ready(
                page,
                network,
                max(deadline - time.monotonic(), 0.0),
                once_per_document=True,
                answer_within=5.0,
            )
            return Settled(new_document=True, ready=ready)
        left = _time_left(probe, network, since, done, now) if probe is not None else POLL_S
        if left <= 0:
            return Settled(new_document=False, ready=bool(probe and probe["latched"]))
        if now >= deadline:
            return Settled(new_document=False, ready=False)
        # Settling is a condition over time: look again once it could first hold.
        await asyncio.sleep(min(left, POLL_S))


def _time_left(
    probe: dict[str, Any], network: NetworkWatch, since: float, done: float, now: float
) -> float:
    """Seconds until the page could count as settled (0: it has), judging by this probe."""
    if network.navigations:
        return POLL_S  # a link's page is on its way; the old document is still showing
    quiet_ms = (now - done) * 1000
    state = probe["state"]
    if state is not None:
        quiet_ms = min(quiet_ms, state["quietMs"])
        if state["inputTimers"]:
            return POLL_S  # a timer the action set (a debounce, a delayed render) is pending
    moment = done + ACTION_MOMENT_S
    if quiet_ms >= (now - done) * 1000 and now < moment:
        # Nothing has changed since the input yet: before calling it no effect, give what
        # the action started a moment to show (a download or a request reaches us a little
        # after the page began it, later on a busy machine).
        return moment - now
    if network.busy_since(since, until=moment):
        return POLL_S  # a request the action started is in flight
    if probe["latched"]:
        # A page that settled once is quiet on the network, but for its background traffic;
        # one that never did is judged on its DOM alone.
        activity = network.last_activity(since=since, until=moment)
        quiet_ms = min(quiet_ms, (now - max(activity, done)) * 1000)
    return max(SETTLE_MS - quiet_ms, 0.0) / 1000


async def _probe(page: PlaywrightPage, answer_within: float) -> dict[str, Any] | None:
    state: dict[str, Any] | None = await ask(page, _PROBE, answer_within)
    return state
