"""Run the page-side walker in every frame and stitch the results into one raw tree.

Two ways in, one walker:

* ``cdp`` — our own DevTools sessions: ``Runtime.evaluate`` in the page; cross-origin frames in
  the same process through their execution contexts; out-of-process iframes through their own
  targets; closed shadow roots that the early hooks missed through ``DOM.getDocument(pierce)``
  and ``DOM.resolveNode``.
* ``evaluate`` — Playwright's ``frame.evaluate`` only, for browsers without CDP; the same shape,
  minus what only CDP reaches (closed shadow roots the hooks did not see).

Same-origin iframes never need a second call: the walker steps into them directly.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from functools import cache
from importlib import resources
from typing import Any, Protocol

from pagesight.cdp import CdpSession, translate
from pagesight.errors import ProtocolError, first_line

Raw = dict[str, Any]

WALKER = "globalThis[Symbol.for('pagesight.walker')]"
"""The walker's API in a document, once it is installed there."""


@cache
def script(name: str) -> str:
    """A bundled page script's source (``walker.js`` and its parts, ``hooks.js``)."""
    return resources.files("pagesight.observe").joinpath(name).read_text(encoding="utf-8")


@cache
def _walker_expression() -> str:
    # The walker is an expression that installs itself once per document and returns its API;
    # sending it whole each time keeps an observation to one round trip. Its parts —
    # naming hints (hints.js), markup (selectors.js), roles and names (names.js), the lists
    # the walk builds (items.js), states (states.js), boxes and what a person can see
    # (sight.js) — install themselves first, in the same expression.
    parts = (
        script(name).strip().rstrip(";")
        for name in (
            "hints.js",
            "selectors.js",
            "names.js",
            "items.js",
            "states.js",
            "sight.js",
            "walker.js",
        )
    )
    return f"({', '.join(parts)})"


class Channel(Protocol):
    """A way to run the walker in one frame."""

    async def walk(self, options: dict[str, Any]) -> Raw: ...

    async def child(self, frame_key: int) -> Channel | None:
        """The channel of the cross-origin iframe left as placeholder ``frame_key``."""
        ...

    async def resolve(self, document: str, local_id: int) -> int | None:
        """The backend node id of element ``local_id`` of walker document ``document``; 0 where
        only a page script runs (no CDP), ``None`` if the element or its document is gone."""
        ...


def element_expression(document: str, local_id: int) -> str:
    """A JS expression yielding element ``local_id`` of walker document ``document``, or null."""
    # The same channel may now show a newer document (a reload): its walker has another token,
    # and an old id must never resolve to whatever carries the same local id there.
    token = json.dumps(document)
    return f"({WALKER} && {WALKER}.docToken === {token} ? {WALKER}.elementById({local_id}) : null)"


class CdpChannel:
    def __init__(self, session: CdpSession, context_id: int | None = None) -> None:
        self._session = session
        self._context_id = context_id

    async def _evaluate(self, expression: str, *, by_value: bool) -> dict[str, Any]:
        params: dict[str, Any] = {"expression": expression, "returnByValue": by_value}
        if self._context_id is not None:
            params["contextId"] = self._context_id
        reply = await self._session.send("Runtime.evaluate", params)
        if "exceptionDetails" in reply:
            details = reply["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text") or ""
            raise ProtocolError(f"the page walker failed: {first_line(text)}")
        result: dict[str, Any] = reply["result"]
        return result

    async def walk(self, options: dict[str, Any]) -> Raw:
        value = await self._walk(options)
        # Once per document: a full pierced DOM fetch is too dear to repeat on every walk.
        if not value["early"] and value["doc"] not in self._session.scanned_documents:
            self._session.scanned_documents.add(value["doc"])
            found = await register_closed_roots(self._session)
            if found:
                value = await self._walk(options)
        return value

    async def _walk(self, options: dict[str, Any]) -> Raw:
        # The walker's source is sent only to a document that does not have it yet. The result
        # travels as one JSON string: CDP converts a deep object tree into protocol values far
        # more slowly than it copies a string (about 100 ms on a 5,000-element page).
        opts = json.dumps(options)
        probe = f"{WALKER} ? {WALKER}.observeJSON({opts}) : null"
        install = f"({_walker_expression()}).observeJSON({opts})"
        for expression in (probe, install):
            text = (await self._evaluate(expression, by_value=True)).get("value")
            if text is not None:
                value: Raw = json.loads(text)
                return value
        raise ProtocolError("the page walker could not be installed in the document")

    async def _describe(self, expression: str) -> dict[str, Any] | None:
        """CDP's description of the element an expression yields (``None`` for null)."""
        object_id = (await self._evaluate(expression, by_value=False)).get("objectId")
        if object_id is None:
            return None
        try:
            reply = await self._session.send("DOM.describeNode", {"objectId": object_id})
        finally:
            await self._session.send("Runtime.releaseObject", {"objectId": object_id})
        node: dict[str, Any] = reply["node"]
        return node

    async def resolve(self, document: str, local_id: int) -> int | None:
        node = await self._describe(element_expression(document, local_id))
        return None if node is None else int(node["backendNodeId"])

    async def child(self, frame_key: int) -> Channel | None:
        node = await self._describe(f"{WALKER}.frameElement({frame_key})")
        if node is None:
            return None
        frame_id = node.get("frameId")
        if frame_id is None:
            return None
        context = await self._session.frame_context(frame_id)
        if context is not None:
            return CdpChannel(self._session, context)
        oopif = await self._session.target_session(frame_id)
        return CdpChannel(oopif) if oopif is not None else None


async def register_closed_roots(session: CdpSession) -> int:
    """Hand every closed shadow root in the target to the walker; returns how many were found.

    Needed only where pagesight attached after the document was created (its hooks record
    closed roots as the page attaches them).
    """
    document = await session.send("DOM.getDocument", {"depth": -1, "pierce": True})
    roots = [n for n in _shadow_roots(document["root"]) if n.get("shadowRootType") == "closed"]
    register = f"function () {{ ({_walker_expression()}).registerShadowRoot(this); }}"
    for root in roots:
        resolved = await session.send("DOM.resolveNode", {"backendNodeId": root["backendNodeId"]})
        object_id = resolved["object"]["objectId"]
        await session.send(
            "Runtime.callFunctionOn",
            {"objectId": object_id, "functionDeclaration": register, "silent": True},
        )
        await session.send("Runtime.releaseObject", {"objectId": object_id})
    return len(roots)


def _shadow_roots(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for root in node.get("shadowRoots", ()):
        yield root
        yield from _shadow_roots(root)
    for child in node.get("children", ()):
        yield from _shadow_roots(child)
    if "contentDocument" in node:
        yield from _shadow_roots(node["contentDocument"])


class EvaluateChannel:
    """Playwright's ``frame.evaluate``: no CDP needed."""

    def __init__(self, frame: Any) -> None:
        self._frame = frame

    async def walk(self, options: dict[str, Any]) -> Raw:
        # As over CDP: the walker's source goes only to a document that lacks it.
        probe = f"options => {WALKER} ? {WALKER}.observeJSON(options) : null"
        install = f"options => ({_walker_expression()}).observeJSON(options)"
        with translate():
            text: str | None = await self._frame.evaluate(probe, options)
            if text is None:
                text = await self._frame.evaluate(install, options)
        if text is None:
            raise ProtocolError("the page walker could not be installed in the document")
        value: Raw = json.loads(text)
        return value

    async def resolve(self, document: str, local_id: int) -> int | None:
        with translate():
            alive: bool = await self._frame.evaluate(
                f"() => Boolean({element_expression(document, local_id)})"
            )
        return 0 if alive else None

    async def child(self, frame_key: int) -> Channel | None:
        with translate():
            handle = await self._frame.evaluate_handle(
                f"key => {WALKER}.frameElement(key)", frame_key
            )
            try:
                element = handle.as_element()
                frame = await element.content_frame() if element is not None else None
            finally:
                await handle.dispose()
        return EvaluateChannel(frame) if frame is not None else None


async def capture(
    channel: Channel,
    options: dict[str, Any],
    walked: Callable[[str, Channel], None] | None = None,
) -> Raw:
    """Walk the frame behind ``channel`` and, recursively, its cross-origin iframes.

    ``walked``, if given, is told the token and channel of every walked document, so an
    element id can later be resolved in the document that owns it.
    """
    raw = await channel.walk(options)
    if walked is not None:
        walked(raw["doc"], channel)
    if raw["frames"]:
        # Frames are walked concurrently: each costs a few round trips, mostly waiting.
        placeholders = list(_placeholders(raw["tree"]))
        subs = await asyncio.gather(
            *(_walk_frame(channel, p, options, walked) for p in placeholders)
        )
        raw["loaded"] = raw["loaded"] and all(sub["loaded"] for sub in subs if sub is not None)
        raw["iv"] = raw.get("iv", 0) + sum(sub.get("iv", 0) for sub in subs if sub is not None)
    return raw


async def _walk_frame(
    parent: Channel,
    placeholder: dict[str, Any],
    options: dict[str, Any],
    walked: Callable[[str, Channel], None] | None,
) -> Raw | None:
    child = await parent.child(placeholder["fk"])
    if child is None:
        return None
    sub = await capture(child, options, walked)
    _shift(sub["tree"], placeholder["co"], offscreen=bool(placeholder.get("o")))
    placeholder["c"] = sub["tree"]
    placeholder["fu"] = sub["url"]
    placeholder["doc"] = sub["doc"]
    return sub


def _placeholders(items: list[Any]) -> Iterator[dict[str, Any]]:
    for item in items:
        if isinstance(item, dict):
            if "fk" in item:
                yield item
            yield from _placeholders(item.get("c", []))


def _shift(items: list[Any], offset: list[float], *, offscreen: bool) -> None:
    """Move a child frame's bounds into top-level viewport coordinates."""
    for item in items:
        if isinstance(item, dict):
            box = item.get("b")
            if box:
                item["b"] = [round(box[0] + offset[0]), round(box[1] + offset[1]), box[2], box[3]]
            if offscreen and "b" in item:
                item["o"] = 1
            _shift(item.get("c", []), offset, offscreen=offscreen)
