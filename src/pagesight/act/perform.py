"""Checking an action against the live element, then performing it with trusted input.

Clicks, holds, drags, hovers and keys go through Playwright's mouse and keyboard (CDP
``Input.*``: trusted events, as from a person); text goes in through ``Input.insertText``
(trusted ``beforeinput`` and ``input`` events), or key by key when the field listens for keys,
so framework listeners see what they would see from a person. Files go in through the file
input (``DOM.setFileInputFiles``) or the file chooser a click opens.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from playwright.async_api import ElementHandle
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page as PlaywrightPage

from pagesight.act import gestures
from pagesight.act.args import SCROLL_DIRECTIONS, Args
from pagesight.act.dates import DATE_TYPES, FORMATS, control_value
from pagesight.act.effect import Moved
from pagesight.act.resolve import act_script, helper
from pagesight.cdp import CdpSession
from pagesight.errors import ActionError, InvalidOption, StaleElement
from pagesight.observe.elements import Element

ActionName = Literal[
    "click", "hover", "input", "input_submit", "press_key", "select", "scroll", "upload", "drag"
]
ACTIONS: tuple[ActionName, ...] = (
    "click",
    "hover",
    "input",
    "input_submit",
    "press_key",
    "select",
    "scroll",
    "upload",
    "drag",
)
POINTER_ACTIONS = frozenset({"click", "hover", "upload", "drag"})
"""Actions that put the pointer on the element: it is hit-tested again right before."""
_CHOOSER_OPENERS = frozenset({"button", "link", "clickable", "a", "label"})
"""What a click may open a file chooser from, when no file input is known beside it."""
_LINE_BREAK = re.compile(r"\r\n?|\n")
POPUP_WAIT_S = 2.0
_HAS_FOCUS = """(el) => {
  const active = el.getRootNode().activeElement || el.ownerDocument.activeElement;
  return el === active || el.contains(active);
}"""


@dataclass(frozen=True, kw_only=True)
class Performed:
    """What an action did that two observations of the page do not show by themselves."""

    scrolled: tuple[int, int] | None = None
    files: tuple[Path, ...] = ()
    moved: Callable[[], Awaitable[Moved]] | None = None
    """For a drag: what moved, to be measured once the page has settled."""
    errors: tuple[str, ...] = ()
    """What is wrong though the action ran (a file of a type the input does not accept)."""


def refusal(
    facts: dict[str, Any], action: str, args: Args, element_id: int, element: Element | None
) -> ActionError | None:
    """Why the element cannot take the action now, if it cannot."""
    what = describe(element_id, element)
    applicable = element.actions if element is not None else ()
    if not facts["connected"]:
        return StaleElement(f"{what} is gone; observe again", element_id=element_id)
    if not facts["visible"]:
        return ActionError(
            "not_visible",
            f"{what} is not visible now (hidden, collapsed or of zero size); observe again",
            element_id=element_id,
        )
    if action in ("input", "input_submit") and not facts["editable"]:
        return ActionError(
            "not_editable",
            f"{what} does not take text" + _listing(applicable),
            element_id=element_id,
            actions=applicable,
        )
    unsupported = action not in ACTIONS
    if action == "upload":  # a file input, or what opens one: its chooser takes the files
        role = element.role if element is not None else facts["role"] or facts["tag"]
        unsupported = facts["files"] is None and role not in _CHOOSER_OPENERS
    if action == "select":
        unsupported = facts["tag"] != "select" and facts["role"] not in ("combobox", "listbox")
    if action == "scroll" and args.direction is not None:
        unsupported = not facts["scrollable"]
    if unsupported:
        hint = " (it does not scroll; scroll the page with element_id=None)"
        hint = hint if action == "scroll" else ""
        return ActionError(
            "unsupported_action",
            f"{what} cannot take {action!r}{hint}" + _listing(applicable),
            element_id=element_id,
            actions=applicable,
        )
    if facts["disabled"] and action not in ("hover", "scroll"):
        return ActionError("disabled", f"{what} is disabled", element_id=element_id)
    if facts["readonly"] and action in ("input", "input_submit"):
        return ActionError("readonly", f"{what} is read-only", element_id=element_id)
    if action != "scroll" and facts["point"] is None:
        if facts["cover"] is None:
            return ActionError(
                "not_visible", f"{what} is out of reach (clipped away)", element_id=element_id
            )
        return ActionError(
            "covered",
            f"{what} is covered by {facts['cover']}; close or dismiss that first",
            element_id=element_id,
        )
    several = action == "select" and len(args.values) > 1
    if several and facts["tag"] == "select" and not facts["multiple"]:
        raise InvalidOption("values", f"{what} takes one option, not {len(args.values)}")
    chooser = facts.get("files")
    if action == "upload" and len(args.files) > 1 and chooser and not chooser["multiple"]:
        raise InvalidOption(
            "files", f"{what} takes one file (its input is not multiple), not {len(args.files)}"
        )
    return None


def drop_refusal(
    facts: dict[str, Any], args: Args, target_id: int, target: Element | None
) -> ActionError | None:
    """Why a drag cannot drop on ``target_id`` now: it is checked as the dragged element is
    (there, visible, not covered), and must be in view with it."""
    what = "the drop target " + describe(target_id, target)
    if not facts["connected"]:
        return StaleElement(f"{what} is gone; observe again", element_id=target_id)
    if facts["visible"] and facts["point"] is None and facts["cover"] is None:
        return ActionError(
            "not_visible",
            f"{what} is not in view together with the dragged element; drag by=(dx, dy) "
            "in steps, or scroll so both show",
            element_id=target_id,
        )
    problem = refusal(facts, "hover", args, target_id, target)
    if problem is None:
        return None
    return ActionError(problem.reason, f"{what}: {problem}", element_id=target_id)


def describe(element_id: int, element: Element | None) -> str:
    """``[7] button ~"search"``, as the outline writes it (``element [7]`` when unknown)."""
    if element is None:
        return f"element [{element_id}]"
    name = f" {element.quoted_name}" if element.name else ""
    return f"[{element_id}] {element.role}{name}"


def _listing(actions: tuple[str, ...]) -> str:
    return f"; it accepts: {', '.join(actions)}" if actions else ""


async def perform(
    page: PlaywrightPage,
    *,
    handle: ElementHandle | None,
    facts: dict[str, Any],
    action: str,
    args: Args,
    timeout: float,
    element_id: int | None,
    session: CdpSession | None = None,
) -> Performed:
    """Do the action. Pointer actions go to the point of ``facts`` (see
    :mod:`pagesight.act.pointer`); a drag to ``facts["drop"]``, the drop target's point."""
    ms = timeout * 1000
    point = facts.get("point") if facts else None
    if action in ("click", "hover"):
        # The mouse goes straight to the point just hit-tested, in top-level coordinates.
        assert point is not None and point["top"]
        if action == "click":
            await gestures.click(page.mouse, point["vx"], point["vy"], args)
        else:
            await page.mouse.move(point["vx"], point["vy"])
    elif action in ("input", "input_submit"):
        assert handle is not None and args.text is not None and element_id is not None
        errors = await _input(page, handle, facts, args, element_id=element_id, ms=ms)
        if action == "input_submit":
            await page.keyboard.press("Enter")
        return Performed(errors=errors)
    elif action == "press_key":
        assert args.key is not None
        if handle is not None:
            await handle.focus()
            if not await handle.evaluate(_HAS_FOCUS):
                raise ActionError(
                    "unsupported_action",
                    f"[{element_id}] cannot take focus, so keys sent to it would land elsewhere; "
                    "press_key with element_id=None sends them to the page",
                    element_id=element_id,
                    actions=("click", "hover"),
                )
        await page.keyboard.press(args.key)
    elif action == "select":
        assert handle is not None and element_id is not None
        if facts["tag"] == "select":
            await _select_native(handle, args.values, facts, element_id, ms)
        else:
            await _select_aria(
                page, handle=handle, facts=facts, wanted=args.values, element_id=element_id, ms=ms
            )
    elif action == "scroll":
        return Performed(scrolled=await _scroll(page, handle, args))
    elif action == "upload":
        assert handle is not None and element_id is not None and point is not None
        assert session is not None
        await gestures.upload(
            page, session, handle, facts, args.files, element_id=element_id, ms=ms
        )
        accept = facts["files"]["accept"] if facts.get("files") else ""
        return Performed(files=args.files, errors=gestures.unaccepted(args.files, accept))
    elif action == "drag":
        assert handle is not None and point is not None and point["top"]
        start = (point["vx"], point["vy"])
        if args.by is not None:
            end = (start[0] + args.by[0], start[1] + args.by[1])
        else:
            drop = facts["drop"]
            end = (drop["vx"], drop["vy"])
        return Performed(moved=await gestures.drag(page, handle, start, end))
    return Performed()


async def _input(
    page: PlaywrightPage,
    handle: ElementHandle,
    facts: dict[str, Any],
    args: Args,
    *,
    element_id: int,
    ms: float,
) -> tuple[str, ...]:
    """Text into a field: a date or time in the control's own format; key by key when the
    field (or an element around it) listens for keys, or ``keys=True``; else inserted.
    Returns what is wrong with the value though the field kept it."""
    assert args.text is not None
    kind = facts["type"]
    if kind in DATE_TYPES:
        return await _input_date(
            handle, args.text, kind=kind, lang=facts["lang"], element_id=element_id, ms=ms
        )
    by_key = args.keys if args.keys is not None else facts["keys"]
    if args.append:
        await handle.evaluate(helper("caretToEnd"))
    elif by_key:
        await handle.fill("", force=True, timeout=ms)  # focus, select all, Delete; then type
    if by_key:
        # In a one-line field a line break goes in as a space, as inserted text does: typed,
        # it would be Enter, and Enter submits the form.
        text = _LINE_BREAK.sub(" ", args.text) if facts["tag"] == "input" else args.text
        await page.keyboard.type(text)  # trusted keydown, keypress, input, keyup
    elif args.append:
        await page.keyboard.insert_text(args.text)
    else:
        await handle.fill(args.text, force=True, timeout=ms)
    return ()


async def _input_date(
    handle: ElementHandle, text: str, *, kind: str, lang: str, element_id: int, ms: float
) -> tuple[str, ...]:
    takes = f"[{element_id}] {kind} takes {FORMATS[kind]}"
    try:
        value = control_value(text, kind, lang=lang)
    except ValueError as exc:
        # The reason quotes the text as read (folded to lower case): say it once, as typed.
        said = repr(" ".join(text.strip().lower().split()))
        why = str(exc)
        why = why.removeprefix(said) if why.startswith(said) else f": {why}"
        raise ActionError("not_editable", f"{takes}; {text!r}{why}", element_id=element_id) from exc
    await handle.fill(value, force=True, timeout=ms)
    now = await handle.evaluate(helper("valueNow"))
    if now != value:  # the page refused it (out of its step, a script put the old one back)
        left = repr(now) if now else "empty"
        raise ActionError(
            "not_editable",
            f"{takes}; {text!r} was set as {value!r} but the page left it {left}",
            element_id=element_id,
        )
    # Kept, but out of the field's min and max or off its step (seconds where it takes
    # minutes): the browser's own validation will stop the form, in its own words.
    unsendable = await handle.evaluate(helper("badValue"))
    if unsendable:
        return (f"[{element_id}] {kind} kept {value!r}, but a form will not send it: {unsendable}",)
    return ()


async def _select_native(
    handle: ElementHandle,
    wanted: tuple[str, ...],
    facts: dict[str, Any],
    element_id: int,
    ms: float,
) -> None:
    match = await handle.evaluate(helper("matchOptions"), list(wanted))
    if match["missing"]:
        raise _no_option(element_id, match["missing"], tuple(facts["options"]))
    await handle.select_option(value=match["values"], force=True, timeout=ms)


async def _select_aria(
    page: PlaywrightPage,
    *,
    handle: ElementHandle,
    facts: dict[str, Any],
    wanted: tuple[str, ...],
    element_id: int,
    ms: float,
) -> None:
    """Open the combobox (a click, then ArrowDown if that shows nothing) and click each
    option in its listbox, as a person would."""
    for value in wanted:
        listbox = await _open_listbox(page, handle, facts, ms)
        if listbox is None:
            raise ActionError(
                "option_not_found",
                f"[{element_id}] opened no list of options to pick {value!r} from",
                element_id=element_id,
            )
        try:
            option = (await listbox.evaluate_handle(helper("findOption"), value)).as_element()
            if option is None:
                labels = tuple(await listbox.evaluate(helper("optionLabels")))
                if facts["role"] == "combobox":
                    await page.keyboard.press("Escape")  # leave the page as it was
                raise _no_option(element_id, [value], labels)
            await option.scroll_into_view_if_needed(timeout=ms)
            await option.click(force=True, timeout=ms)
            await option.dispose()
        finally:
            if listbox is not handle:
                await listbox.dispose()


async def _open_listbox(
    page: PlaywrightPage, handle: ElementHandle, facts: dict[str, Any], ms: float
) -> ElementHandle | None:
    listbox = await _visible_listbox(handle)
    if listbox is not None or facts["role"] != "combobox":
        return listbox
    point = facts.get("point")
    position = {"x": point["x"], "y": point["y"]} if point else None
    await handle.click(position=position, force=True, timeout=ms)  # type: ignore[arg-type]
    for opener in ("click", "ArrowDown"):
        if opener == "ArrowDown":
            await page.keyboard.press("ArrowDown")
        deadline = asyncio.get_running_loop().time() + POPUP_WAIT_S / 2
        while asyncio.get_running_loop().time() < deadline:
            listbox = await _visible_listbox(handle)
            if listbox is not None:
                return listbox
            await asyncio.sleep(0.025)  # a popup renders on the page's schedule
    return None


async def _visible_listbox(handle: ElementHandle) -> ElementHandle | None:
    found = (await handle.evaluate_handle(helper("popupOf"))).as_element()
    if found is None:
        return None
    shown = await found.evaluate("(lb) => lb.checkVisibility() && lb.getClientRects().length > 0")
    if not shown:
        await found.dispose()
        return None
    return found


def _no_option(element_id: int, missing: list[str], options: tuple[str, ...]) -> ActionError:
    listed = ", ".join(repr(o) for o in options) or "none"
    return ActionError(
        "option_not_found",
        f"[{element_id}] has no option {', '.join(map(repr, missing))}; its options: {listed}",
        element_id=element_id,
        options=options,
    )


async def _scroll(
    page: PlaywrightPage, handle: ElementHandle | None, args: Args
) -> tuple[int, int]:
    if args.direction is None:  # to the element: bring it to the middle of the view
        assert handle is not None
        moved = await handle.evaluate(
            """(el) => {
              const a = el.getBoundingClientRect();
              el.scrollIntoView({block: "center", inline: "center", behavior: "instant"});
              const b = el.getBoundingClientRect();
              return [Math.round(a.left - b.left), Math.round(a.top - b.top)];
            }"""
        )
        return (int(moved[0]), int(moved[1]))
    axis, sign = SCROLL_DIRECTIONS[args.direction]
    request = {"axis": axis, "sign": sign, "pixels": args.pixels}
    if handle is None:
        result = await page.evaluate(f"(req) => ({act_script()}).scroll(null, req)", request)
    else:
        result = await handle.evaluate(helper("scroll"), request)
    before, after = result["before"], result["after"]
    return (round(after[0] - before[0]), round(after[1] - before[1]))


async def still_connected(handle: ElementHandle) -> bool:
    """Whether the element survived a failed Playwright call (else the failure was staleness)."""
    try:
        return bool(await handle.evaluate("(el) => el.isConnected"))
    except PlaywrightError:
        return False
