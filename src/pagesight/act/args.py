"""An action's arguments: the options ``page.act`` and a batch's steps take, checked once, before
anything touches the page, into :class:`Args`, which the gestures and the performing read."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypedDict, Unpack

from pagesight.errors import InvalidOption

Button = Literal["left", "right", "middle"]
_BUTTONS = ("left", "right", "middle")
MAX_HOLD_S = 10.0
"""The longest press-and-hold: hold-to-confirm buttons want a second or three."""
MAX_COUNT = 3
"""Clicks in a row: a double or a triple click (a word, a paragraph)."""
MAX_DRAG_PX = 10_000
Direction = Literal["up", "down", "left", "right"]
SCROLL_DIRECTIONS: dict[str, tuple[str, int]] = {
    "up": ("y", -1),
    "down": ("y", 1),
    "left": ("x", -1),
    "right": ("x", 1),
}
"""Each way to scroll: the axis it moves along and the sign of the move (the page's own
scroll and what scrolls under a point of a screenshot alike)."""
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
# F1-F12 only: Playwright's keyboard (the US layout) has no F13-F24, and would fail on them
# after the page had been touched.
_CODE_KEY = re.compile(r"F([1-9]|1[0-2])|Key[A-Z]|Digit[0-9]|Numpad[0-9]")


class ActOptions(TypedDict, total=False):
    """The options of an action, the one list of them: ``AsyncPage.act`` and the sync
    ``Page.act`` take them as keywords (``**options: Unpack[ActOptions]``), a batch's steps as
    a dict, and :func:`check_args` makes them :class:`Args`, with the defaults it gives the
    ones left out. What each does is told with the actions, in ``AsyncPage.act``'s docstring."""

    text: str | None
    append: bool
    key: str | None
    values: str | Sequence[str] | None
    direction: str | None
    pixels: int | None
    files: str | Path | Sequence[str | Path] | None
    hold: float | None
    count: int
    button: str
    to: int | None
    by: Sequence[float] | None
    keys: bool | None


@dataclass(frozen=True, kw_only=True)
class Args:
    """An action's arguments, checked once before anything touches the page."""

    text: str | None = None
    append: bool = False
    key: str | None = None
    values: tuple[str, ...] = ()
    direction: Direction | None = None
    pixels: int | None = None
    files: tuple[Path, ...] = ()
    hold: float | None = None
    count: int = 1
    button: Button = "left"
    to: int | None = None
    by: tuple[float, float] | None = None
    keys: bool | None = None


def check_args(action: str, element_id: int | None, **options: Unpack[ActOptions]) -> Args:
    """Raise :class:`InvalidOption` for arguments the action cannot use; else the tidy form.
    An option left out takes its default here: ``append=False``, ``count=1``,
    ``button="left"``, ``None`` for the rest."""
    # **options takes any keyword: refuse one that is no option, as a signature would.
    for name in options:
        if name not in ActOptions.__optional_keys__:
            raise TypeError(f"act() got an unexpected keyword argument {name!r}")
    text = options.get("text")
    key = options.get("key")
    values = options.get("values")
    direction = options.get("direction")
    pixels = options.get("pixels")
    hold = options.get("hold")
    count = options.get("count", 1)
    button = options.get("button", "left")
    to = options.get("to")
    by = options.get("by")
    keys = options.get("keys")
    # An id read as text ("7") is the caller's slip, not an element that went away.
    if element_id is not None and (isinstance(element_id, bool) or not isinstance(element_id, int)):
        raise InvalidOption(
            "element_id",
            f"element_id must be an id from an observation (an int) or None, not {element_id!r}",
        )
    if action in ("input", "input_submit") and not isinstance(text, str):
        raise InvalidOption("text", f"{action} needs text=, the string to type")
    if keys is not None and (action not in ("input", "input_submit") or not isinstance(keys, bool)):
        raise InvalidOption("keys", "keys= (True or False) goes with input and input_submit")
    check_click(action, hold=hold, count=count, button=button)
    paths = _check_files(action, options.get("files"))
    shift = _check_drag(action, element_id, to=to, by=by)
    if action == "press_key":
        if not isinstance(key, str):
            raise InvalidOption("key", "press_key needs key=, such as 'Enter' or 'Control+A'")
        check_key(key)
    picked: tuple[str, ...] = ()
    if action == "select":
        picked = (values,) if isinstance(values, str) else tuple(values or ())
        if not picked or not all(isinstance(v, str) for v in picked):
            raise InvalidOption("values", "select needs values=, an option's label or value")
    if direction is not None and direction not in SCROLL_DIRECTIONS:
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
        append=options.get("append", False),
        key=key,
        values=picked,
        direction=direction,  # type: ignore[arg-type]  # checked just above
        pixels=pixels,
        files=paths,
        hold=float(hold) if hold is not None else None,
        count=count,
        button=button,  # type: ignore[arg-type]  # checked in _check_click
        to=to,
        by=shift,
        keys=keys,
    )


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def check_click(action: str, *, hold: float | None, count: int, button: str) -> None:
    defaults = (("hold", hold, None), ("count", count, 1), ("button", button, "left"))
    given = [name for name, value, default in defaults if value != default]
    if given and action != "click":
        raise InvalidOption(given[0], f"{given[0]}= goes with click, not {action}")
    if hold is not None and (not _number(hold) or not 0 < hold <= MAX_HOLD_S):
        raise InvalidOption(
            "hold", f"hold must be seconds, more than 0 and at most {MAX_HOLD_S:g}, not {hold!r}"
        )
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_COUNT:
        raise InvalidOption("count", f"count must be 1, 2 or 3 clicks, not {count!r}")
    if hold is not None and count != 1:
        raise InvalidOption("hold", "hold is one long press; it does not go with count=")
    if button not in _BUTTONS:
        raise InvalidOption("button", f"button must be left, right or middle, not {button!r}")


def _check_files(action: str, files: str | Path | Sequence[str | Path] | None) -> tuple[Path, ...]:
    """Every file to upload, made absolute; each must exist before the page is touched."""
    if files is None:
        if action == "upload":
            raise InvalidOption("files", "upload needs files=, a path or a list of paths")
        return ()
    if action != "upload":
        raise InvalidOption("files", f"files= goes with upload, not {action}")
    listed = [files] if isinstance(files, str | Path) else list(files)
    if not listed or not all(isinstance(f, str | Path) for f in listed):
        raise InvalidOption("files", f"files= takes a path or a list of paths, not {files!r}")
    paths = tuple(Path(f).expanduser().resolve() for f in listed)
    for given, path in zip(listed, paths, strict=True):
        if not path.is_file():
            raise InvalidOption(
                "files", f"no file at {given} ({path}); give the path of an existing file"
            )
    return paths


def _check_drag(
    action: str, element_id: int | None, *, to: int | None, by: Sequence[float] | None
) -> tuple[float, float] | None:
    if action != "drag":
        if to is not None or by is not None:
            raise InvalidOption("to" if to is not None else "by", "to= and by= go with drag")
        return None
    if (to is None) == (by is None):
        raise InvalidOption("to", "drag needs to= (an element id to drop on) or by=(dx, dy)")
    if to is not None:
        if isinstance(to, bool) or not isinstance(to, int):
            raise InvalidOption("to", f"to= takes an element id, not {to!r}")
        if to == element_id:
            raise InvalidOption("to", f"to= names the dragged element [{to}] itself")
        return None
    pair = tuple(by) if isinstance(by, Sequence) and not isinstance(by, str) else ()
    if len(pair) != 2 or not all(_number(v) and math.isfinite(v) for v in pair):
        raise InvalidOption("by", f"by= takes (dx, dy) in CSS pixels, not {by!r}")
    dx, dy = float(pair[0]), float(pair[1])
    if (dx, dy) == (0, 0) or max(abs(dx), abs(dy)) > MAX_DRAG_PX:
        raise InvalidOption(
            "by", f"by= must move the element, at most {MAX_DRAG_PX} px each way, not {by!r}"
        )
    return (dx, dy)


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
            f"unknown key {key!r}; use a key name such as Enter, Tab, Escape, ArrowDown, F1 to "
            "F12, a single character, or a chord such as Control+A",
        )
