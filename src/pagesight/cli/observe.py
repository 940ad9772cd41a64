"""``pagesight observe`` (a page as a compact semantic tree) and ``pagesight find`` (the
elements that best match a query): their options and what they print. Bad options fail before
a browser starts; the browser is imported only once they are checked."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pagesight.cli.options import check_page, parse_viewport
from pagesight.errors import InvalidOption, RuntimeFailure

if TYPE_CHECKING:  # the CLI imports the browser only once its arguments are checked
    from pagesight import Page


def add_observe_options(commands: argparse._SubParsersAction[Any]) -> None:
    observe = commands.add_parser("observe", help="print a page as a compact semantic tree")
    observe.add_argument("url", help="an http(s) URL or a path to a local HTML file")
    observe.add_argument("--format", choices=("outline", "json", "legend"), default="outline")
    observe.add_argument("--view", choices=("full", "interactive"), default="full")
    observe.add_argument("--include", type=_include, default=frozenset(), help="bounds,href")
    observe.add_argument("--max-chars", type=int, default=None)
    observe.add_argument("--max-tokens", type=int, default=None)
    observe.add_argument("--focus", default=None, help="keep the part relevant to this query")
    observe.add_argument(
        "--mode",
        choices=("auto", "cdp", "evaluate", "vision"),
        default="auto",
        help="auto (the DOM, or the screenshot when the DOM offers nothing), cdp, evaluate "
        "or vision (OCR of the screenshot)",
    )
    observe.add_argument("--screenshot", metavar="FILE", default=None, help="also save a PNG")
    observe.add_argument(
        "--marks", action="store_true", help="draw each element's box and id on the screenshot"
    )
    _browser_options(observe)


def add_find_options(commands: argparse._SubParsersAction[Any]) -> None:
    find = commands.add_parser("find", help="find the elements that best match a query")
    find.add_argument("url", help="an http(s) URL or a path to a local HTML file")
    find.add_argument("query", help='what to look for: "the Save button", "搜索框"')
    find.add_argument("--top", type=int, default=5, help="how many matches to show (default 5)")
    find.add_argument("--format", choices=("text", "json"), default="text")
    find.add_argument("--lang", choices=("en", "zh"), default="en", help="labels of the text")
    find.add_argument("--mode", choices=("cdp", "evaluate"), default="cdp")
    _browser_options(find)


def _include(value: str) -> frozenset[str]:
    # Only split here; the API checks the names (one place says what is allowed).
    return frozenset(v.strip() for v in value.split(",") if v.strip())


def _browser_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("--cdp-url", default=None, help="attach to a running Chromium instead")
    command.add_argument(
        "--viewport",
        type=parse_viewport,
        default=None,
        metavar="WxH",
        help="the page size in CSS pixels of the Chromium launched (default 1280x800)",
    )
    command.add_argument(
        "--timeout",
        type=float,
        default=30.0,
        help="seconds to wait for the page to load and answer",
    )


@contextmanager
def _opened(args: argparse.Namespace) -> Iterator[Page]:
    """The page at ``args.url`` in a launched Chromium, or in the one at ``--cdp-url`` (whose
    tab is closed afterwards, leaving that browser as we found it)."""
    from pagesight import Browser
    from pagesight.browser.viewport import DEFAULT_VIEWPORT

    attached = args.cdp_url is not None  # an empty --cdp-url is a bad URL, not "launch one"
    if attached and args.viewport:
        raise InvalidOption(
            "viewport", "sizes the Chromium pagesight launches; an attached one keeps its windows"
        )
    if attached:
        browser = Browser.connect(args.cdp_url)
    else:
        browser = Browser.launch(viewport=args.viewport or DEFAULT_VIEWPORT)
    with browser:
        page = browser.open(args.url, timeout=args.timeout)
        try:
            yield page
        finally:
            if attached:
                page.close()


def run_observe(args: argparse.Namespace) -> str:
    from pagesight.observe.observation import check_options

    check_options(  # before a browser starts: bad options fail fast
        view=args.view,
        include=args.include,
        mode=args.mode,
        max_tokens=args.max_tokens,
        max_chars=args.max_chars,
        timeout=args.timeout,
    )
    shot = _screenshot_path(args.screenshot, marks=args.marks)
    check_page(args.url, launching=args.cdp_url is None)

    with _opened(args) as page:
        obs = page.observe(
            timeout=args.timeout,
            view=args.view,
            include=args.include,
            max_chars=args.max_chars,
            max_tokens=args.max_tokens,
            focus=args.focus,
            mode=args.mode,
        )
        if shot is not None:
            _save(page.screenshot(marks=args.marks, observation=obs), shot)
    if args.format == "json":
        return obs.to_json(indent=2)
    return obs.text(args.format)


def _save(png: bytes, shot: Path) -> None:
    """Write the screenshot whole or not at all, never half of one."""
    partial = shot.with_name(shot.name + ".part")
    try:
        partial.write_bytes(png)
        partial.replace(shot)
    except OSError as exc:  # a full disk, a folder of that name, no permission
        partial.unlink(missing_ok=True)
        raise RuntimeFailure(
            f"could not write the screenshot to {shot}: {exc.strerror or exc}"
        ) from exc


def _screenshot_path(value: str | None, *, marks: bool) -> Path | None:
    if value is None:
        if marks:
            raise InvalidOption("marks", "--marks draws on a screenshot: give --screenshot FILE")
        return None
    path = Path(value).expanduser()
    if not path.parent.is_dir():
        raise InvalidOption("screenshot", f"no folder {str(path.parent)!r} to save {path.name}")
    if path.is_dir():
        raise InvalidOption("screenshot", f"{value!r} is a folder; give the PNG file's name")
    # Written to before a browser starts, as the screenshot will be (its ".part" file, then
    # renamed): a folder we may not write to is the path's fault, found in a moment, not
    # after the page was loaded and read. Permissions alone would not tell: root may write
    # where the mode bits say no, and nobody may write on a read-only file system.
    probe = path.with_name(path.name + ".part")
    try:
        probe.touch(exist_ok=False)
    except FileExistsError:
        pass  # left by a run that was killed: the save writes over it
    except OSError as exc:
        raise InvalidOption(
            "screenshot", f"cannot write {str(probe)!r}: {exc.strerror or exc}"
        ) from exc
    else:
        probe.unlink()
    return path


def run_find(args: argparse.Namespace) -> str:
    from pagesight.observe.find import check_query
    from pagesight.observe.observation import check_options
    from pagesight.observe.tooltext import find_element

    check_query(args.query, args.top)  # before a browser starts: bad input fails fast
    check_options(
        view="full",
        include=(),
        mode=args.mode,
        max_tokens=None,
        max_chars=None,
        timeout=args.timeout,
    )
    check_page(args.url, launching=args.cdp_url is None)

    with _opened(args) as page:
        obs = page.observe(include={"selector"}, timeout=args.timeout, mode=args.mode)
    if args.format == "text":
        return find_element(obs, args.query, top=args.top, lang=args.lang)
    every = obs.find(args.query, top=max(len(obs.elements), 1))
    data = {
        "query": args.query,
        "url": obs.url,
        "total": len(every),
        "matches": [m.to_dict() for m in every[: args.top]],
    }
    return json.dumps(data, ensure_ascii=False, indent=2)
