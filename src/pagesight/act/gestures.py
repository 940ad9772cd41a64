"""Pointer gestures beyond a plain click, and files: press and hold, double and right
clicks, drags, and uploads.

All of them are trusted input through Playwright's mouse (CDP ``Input.dispatchMouseEvent``).
In Chromium a drag with the mouse also drives HTML5 drag and drop (``dragstart``,
``dragover``, ``drop``), so one gesture serves pointer-driven widgets and ``draggable`` ones.
"""

from __future__ import annotations

import asyncio
import mimetypes
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from playwright.async_api import ElementHandle, Mouse
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page as PlaywrightPage

from pagesight.act.args import Args
from pagesight.act.effect import Moved
from pagesight.act.resolve import helper
from pagesight.cdp import CdpSession
from pagesight.errors import ActionError, InvalidOption

CHOOSER_WAIT_S = 2.0
"""How long a click may take to open a file chooser before the upload is given up."""
DRAG_STEPS = 12
"""Pointer moves between press and release: sortable lists and sliders follow the moves."""
DRAG_START_PX = 6.0
"""The first move, before the rest: libraries start a drag only past a few pixels."""


async def click(mouse: Mouse, x: float, y: float, args: Args) -> None:
    """A click at (x, y): ``count`` clicks in a row, with ``button``, or one press held for
    ``hold`` seconds (down, wait, up on the same point)."""
    if args.hold is None:
        await mouse.click(x, y, button=args.button, click_count=args.count)
        return
    await mouse.move(x, y)
    await mouse.down(button=args.button)
    await asyncio.sleep(args.hold)  # the hold is the gesture itself
    await mouse.up(button=args.button)


async def upload(
    page: PlaywrightPage,
    session: CdpSession,
    handle: ElementHandle,
    facts: dict[str, Any],
    files: tuple[Path, ...],
    *,
    element_id: int,
    ms: float,
) -> None:
    """Set ``files`` on the file input itself, or click what opens one and set them on the
    file chooser that opens (a styled button calling ``input.click()``)."""
    paths = [str(f) for f in files]
    chooser_facts = facts.get("files")
    if chooser_facts and chooser_facts["direct"]:
        await _set_files(session, handle, paths, ms)
        return
    await _choose(page, session, facts["point"], paths, element_id=element_id)


async def _choose(
    page: PlaywrightPage,
    session: CdpSession,
    point: dict[str, Any],
    paths: list[str],
    *,
    element_id: int,
) -> None:
    """Click, catch the file chooser the click opens (``Page.fileChooserOpened``), and select
    the files in it as the dialog would."""
    opened: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()

    def on_open(event: dict[str, Any]) -> None:
        if not opened.done():
            opened.set_result(event)

    session.on("Page.fileChooserOpened", on_open)
    try:
        await session.send("Page.enable")
        await session.send("Page.setInterceptFileChooserDialog", {"enabled": True})
        await page.mouse.click(point["vx"], point["vy"])
        try:
            chooser = await asyncio.wait_for(opened, CHOOSER_WAIT_S)
        except TimeoutError as exc:
            raise ActionError(
                "unsupported_action",
                f"[{element_id}] was clicked but opened no file chooser within "
                f"{CHOOSER_WAIT_S:g} s; upload to the file input or the control that opens it",
                element_id=element_id,
                actions=("click", "hover"),
            ) from exc
        if len(paths) > 1 and chooser["mode"] != "selectMultiple":
            raise InvalidOption(
                "files", f"the file chooser of [{element_id}] takes one file, not {len(paths)}"
            )
        files = {"files": paths, "backendNodeId": chooser["backendNodeId"]}
        await session.send("DOM.setFileInputFiles", files)
    finally:
        session.off("Page.fileChooserOpened", on_open)
        await session.send("Page.setInterceptFileChooserDialog", {"enabled": False})


_STASH = "Symbol.for('pagesight.upload')"
_HAND_OVER = f"""(el) => {{
  try {{ window.top[{_STASH}] = el; return true; }} catch (e) {{ return false; }}
}}"""
_TAKE = f"(() => {{ const el = globalThis[{_STASH}]; delete globalThis[{_STASH}]; return el; }})()"


async def _set_files(
    session: CdpSession, handle: ElementHandle, paths: list[str], ms: float
) -> None:
    """Chromium's own file selection (``DOM.setFileInputFiles``), so the page's input and
    change handlers get trusted events, as from the file dialog. Playwright's own way, over a
    DevTools connection, sets the files from a script (untrusted events): it is kept for an
    input in a cross-origin frame, which the top page's session cannot hand over."""
    handed = await handle.evaluate(_HAND_OVER)
    if not handed:
        await handle.set_input_files(paths, timeout=ms)
        return
    taken = await session.send("Runtime.evaluate", {"expression": _TAKE})
    object_id = taken["result"]["objectId"]
    try:
        await session.send("DOM.setFileInputFiles", {"files": paths, "objectId": object_id})
    finally:
        await session.send("Runtime.releaseObject", {"objectId": object_id})


def unaccepted(files: tuple[Path, ...], accept: str) -> tuple[str, ...]:
    """What to say of each file that is of no type the input's ``accept`` names (``.pdf``,
    ``image/*``, ``application/pdf``): Chromium sets it all the same, but its own chooser would
    not offer it, and the page may refuse it. A file whose type cannot be told is not named."""
    wanted = [t.strip().lower() for t in accept.split(",") if t.strip()]
    if not wanted:
        return ()
    said = []
    for path in files:
        kind = (mimetypes.guess_type(path.name)[0] or "").lower()
        if not kind and any(not t.startswith(".") for t in wanted):
            continue  # a MIME type is asked for, and this file's is unknown
        if not any(_accepts(t, path, kind) for t in wanted):
            said.append(
                f"{path.name} is of no type the file input accepts ({accept}); "
                "the page may refuse it"
            )
    return tuple(said)


def _accepts(wanted: str, path: Path, kind: str) -> bool:
    if wanted.startswith("."):
        return path.name.lower().endswith(wanted)
    if wanted.endswith("/*"):
        return kind.startswith(wanted[:-1])
    return kind == wanted


async def press_move_release(
    mouse: Mouse, start: tuple[float, float], end: tuple[float, float]
) -> None:
    """A drag's pointer input: press at ``start``, move to ``end`` in steps, release."""
    (x0, y0), (x1, y1) = start, end
    await mouse.move(x0, y0)
    await mouse.down()
    dx, dy = x1 - x0, y1 - y0
    length = max((dx * dx + dy * dy) ** 0.5, 1.0)
    await mouse.move(x0 + dx / length * DRAG_START_PX, y0 + dy / length * DRAG_START_PX)
    await mouse.move(x1, y1, steps=DRAG_STEPS)
    await mouse.move(x1, y1)  # one more over the target: a drop zone's last dragover
    await mouse.up()


async def drag(
    page: PlaywrightPage,
    handle: ElementHandle,
    start: tuple[float, float],
    end: tuple[float, float],
) -> Callable[[], Awaitable[Moved]]:
    """Press at ``start``, move to ``end`` in steps, release; returns what measures, once the
    page has settled, what moved."""
    before = await handle.evaluate(helper("where"))
    await press_move_release(page.mouse, start, end)

    async def moved() -> Moved:
        try:
            after = await handle.evaluate(helper("where"))
        except PlaywrightError:  # the page replaced the element along with its context
            after = None
        return Moved(
            box_before=tuple(before["box"]),
            box_after=tuple(after["box"]) if after else None,
            holder_before=before["parent"],
            holder_after=after["parent"] if after else "",
            order_before=tuple(before["order"]),
            order_after=tuple(after["order"]) if after else (),
            value_before=before["value"],
            value_after=after["value"] if after else None,
        )

    return moved
