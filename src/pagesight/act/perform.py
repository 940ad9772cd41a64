"""Checking an action against the live element, then performing it with trusted input.

Clicks, hovers and keys go through Playwright's mouse and keyboard (CDP ``Input.*``: trusted
events, as from a person); text goes in through ``Input.insertText`` (trusted ``beforeinput``
and ``input`` events), so framework listeners see what they would see from a person.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from playwright.async_api import ElementHandle
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page as PlaywrightPage

from pagesight.act.resolve import act_script, helper
from pagesight.errors import ActionError, InvalidOption, StaleElement
from pagesight.observe.observation import Element

ActionName = Literal["click", "hover", "input", "input_submit", "press_key", "select", "scroll"]
ACTIONS: tuple[ActionName, ...] = (
    "click",
    "hover",
    "input",
    "input_submit",
    "press_key",
    "select",
    "scroll",
)
Direction = Literal["up", "down", "left", "right"]
_DIRECTIONS: dict[str, tuple[str, int]] = {
    "up": ("y", -1),
    "down": ("y", 1),
    "left": ("x", -1),
    "right": ("x", 1),
}
_MODIFIERS = frozenset({"Alt", "Control", "ControlOrMeta", "Meta", "Shift"})
_NAMED_KEYS = frozenset(
    {
        "Backspace", "Tab", "Enter", "Escape", "Space", "Delete", "Insert", "Home", "End",
        "PageUp", "PageDown", "ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "CapsLock",
        "ContextMenu", "NumLock", "ScrollLock", "Pause", "PrintScreen", "Alt", "Control",
        "Meta", "Shift", "ControlOrMeta", "NumpadEnter", "NumpadAdd", "NumpadSubtract",
        "NumpadMultiply", "NumpadDivide", "NumpadDecimal", "Equal", "Minus", "Comma", "Period",
        "Slash", "Backslash", "Semicolon", "Quote", "Backquote", "BracketLeft", "BracketRight",
    }
)  # fmt: skip
_CODE_KEY = re.compile(r"F([1-9]|1[0-9]|2[0-4])|Key[A-Z]|Digit[0-9]|Numpad[0-9]")
POPUP_WAIT_S = 2.0
_HAS_FOCUS = """(el) => {
  const active = el.getRootNode().activeElement || el.ownerDocument.activeElement;
  return el === active || el.contains(active);
}"""


@dataclass(frozen=True, kw_only=True)
class Args:
    """An action's arguments, checked once before anything touches the page."""

    text: str | None = None
    append: bool = False
    key: str | None = None
    values: tuple[str, ...] = ()
    direction: Direction | None = None
    pixels: int | None = None


def check_args(
    action: str,
    element_id: int | None,
    *,
    text: str | None,
    append: bool,
    key: str | None,
    values: str | Sequence[str] | None,
    direction: str | None,
    pixels: int | None,
) -> Args:
    """Raise :class:`InvalidOption` for arguments the action cannot use; else the tidy form."""
    if action in ("input", "input_submit") and not isinstance(text, str):
        raise InvalidOption("text", f"{action} needs text=, the string to type")
    if action == "press_key":
        if not isinstance(key, str):
            raise InvalidOption("key", "press_key needs key=, such as 'Enter' or 'Control+A'")
        check_key(key)
    picked: tuple[str, ...] = ()
    if action == "select":
        picked = (values,) if isinstance(values, str) else tuple(values or ())
        if not picked or not all(isinstance(v, str) for v in picked):
            raise InvalidOption("values", "select needs values=, an option's label or value")
    if direction is not None and direction not in _DIRECTIONS:
        raise InvalidOption(
            "direction", f"direction must be up, down, left or right, not {direction!r}"
        )
    if pixels is not None and (isinstance(pixels, bool) or not isinstance(pixels, int)):
        raise InvalidOption("pixels", f"pixels must be a whole number, not {pixels!r}")
    if action == "scroll" and element_id is None and direction is None:
        raise InvalidOption("direction", "scrolling the page needs direction= (up, down, …)")
    if element_id is None and action not in ("scroll", "press_key"):
        raise InvalidOption("element_id", f"{action} needs an element id")
    return Args(
        text=text,
        append=append,
        key=key,
        values=picked,
        direction=direction,  # type: ignore[arg-type]  # checked just above
        pixels=pixels,
    )


def check_key(key: str) -> None:
    """``Enter``, ``a``, ``Control+A``, ``Shift+ArrowDown``: modifiers, then one key."""
    parts = key.split("+") if key != "+" else ["+"]
    if key.endswith("++"):  # "Control++": the last key is "+" itself
        parts = [*key[:-2].split("+"), "+"]
    *mods, last = parts
    bad = [m for m in mods if m not in _MODIFIERS]
    known = len(last) == 1 or last in _NAMED_KEYS or _CODE_KEY.fullmatch(last) is not None
    if bad or not known:
        raise InvalidOption(
            "key",
            f"unknown key {key!r}; use a key name such as Enter, Tab, Escape, ArrowDown, a "
            "single character, or a chord such as Control+A",
        )


def refusal(
    facts: dict[str, Any], action: str, args: Args, element_id: int, element: Element | None
) -> ActionError | None:
    """Why the element cannot take the action now, if it cannot."""
    what = _describe(element_id, element)
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
    return None


def _describe(element_id: int, element: Element | None) -> str:
    if element is None:
        return f"element [{element_id}]"
    hint = "~" if element.name_hint else ""  # as the outline writes a name guessed from markup
    name = f' {hint}"{element.name}"' if element.name else ""
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
) -> tuple[int, int] | None:
    """Do the action; returns how far it scrolled for ``scroll``. Pointer actions go to the
    point of ``facts`` (see :mod:`pagesight.act.pointer`)."""
    ms = timeout * 1000
    point = facts.get("point") if facts else None
    if action in ("click", "hover"):
        # The mouse goes straight to the point just hit-tested, in top-level coordinates.
        assert point is not None and point["top"]
        if action == "click":
            await page.mouse.click(point["vx"], point["vy"])
        else:
            await page.mouse.move(point["vx"], point["vy"])
    elif action in ("input", "input_submit"):
        assert handle is not None and args.text is not None
        if args.append:
            await handle.evaluate(helper("caretToEnd"))
            await page.keyboard.insert_text(args.text)
        else:
            await handle.fill(args.text, force=True, timeout=ms)
        if action == "input_submit":
            await page.keyboard.press("Enter")
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
        return await _scroll(page, handle, args)
    return None


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
    axis, sign = _DIRECTIONS[args.direction]
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
