"""The ``pagesight`` command: parse, call the public API, print. Exit 2 for bad input, 1 for a
runtime failure, each with one line on stderr and no traceback; anything not a pagesight error
is a bug in pagesight, and keeps its traceback for the report."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from pagesight.cli.mcp import add_mcp_options, run_mcp
from pagesight.cli.run import add_run_options, check_out, run, run_agent
from pagesight.errors import InvalidOption, PagesightError, RuntimeFailure

if TYPE_CHECKING:  # the CLI imports the browser only once its arguments are checked
    from pagesight import Page


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # prog is "pagesight" for the command, "pagesight mcp" for a subcommand.
        self.exit(2, f"pagesight: {message} (see {self.prog} --help)\n")


def _include(value: str) -> frozenset[str]:
    # Only split here; the API checks the names (one place says what is allowed).
    return frozenset(v.strip() for v in value.split(",") if v.strip())


def _viewport(value: str) -> tuple[int, int]:
    width, sep, height = value.lower().partition("x")
    if not (sep and width.strip().isdigit() and height.strip().isdigit()):
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT such as 1280x800, not {value!r}")
    from pagesight.browser.viewport import check_viewport

    try:
        return check_viewport((int(width), int(height)))
    except InvalidOption as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="pagesight", description="Let AI agents see and act on web pages.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
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
    find = commands.add_parser("find", help="find the elements that best match a query")
    find.add_argument("url", help="an http(s) URL or a path to a local HTML file")
    find.add_argument("query", help='what to look for: "the Save button", "搜索框"')
    find.add_argument("--top", type=int, default=5, help="how many matches to show (default 5)")
    find.add_argument("--format", choices=("text", "json"), default="text")
    find.add_argument("--lang", choices=("en", "zh"), default="en", help="labels of the text")
    find.add_argument("--mode", choices=("cdp", "evaluate"), default="cdp")
    _browser_options(find)
    add_run_options(commands, _viewport)
    _demo_options(commands)
    add_mcp_options(commands)
    return parser


def _browser_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("--cdp-url", default=None, help="attach to a running Chromium instead")
    command.add_argument(
        "--viewport",
        type=_viewport,
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


def _observe(args: argparse.Namespace) -> str:
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
    return path


def _find(args: argparse.Namespace) -> str:
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


class _ServeParser(_Parser):
    def error(self, message: str) -> NoReturn:
        self.exit(2, f"pagesight: {message} (see pagesight demo serve --help)\n")


def _demo_options(commands: argparse._SubParsersAction[_Parser]) -> None:
    demo = commands.add_parser(
        "demo",
        help="run the demo task on the bundled app, Orbit CRM (or `demo serve` the app alone)",
    )
    demo.add_argument("--headed", action="store_true", help="show the browser window")
    demo.add_argument(
        "--out", metavar="DIR", default=None, help="the run's folder (runs/<UTC time>)"
    )
    actions = demo.add_subparsers(
        dest="demo_command", metavar="COMMAND", required=False, parser_class=_ServeParser
    )
    serve = actions.add_parser("serve", help="serve Orbit CRM on 127.0.0.1 until Ctrl-C")
    serve.add_argument(
        "--port", type=int, default=0, help="the port on 127.0.0.1 (default: a free one)"
    )
    serve.add_argument(
        "--db",
        default=None,
        metavar="PATH",
        help="the SQLite file to keep its state in, created and seeded when new "
        "(default: a fresh one in a temporary folder, removed on exit)",
    )
    serve.add_argument(
        "--design",
        default="default",
        metavar="NAME",
        help="the markup: default, or redesign (other ids, classes, field order and wrappers, "
        "the same labels: replay a recorded run on it to see its steps heal)",
    )


def _demo(args: argparse.Namespace) -> int:
    """``pagesight demo``: the demo task (``demo_task``); ``pagesight demo serve``: Orbit CRM
    until Ctrl-C or SIGTERM, then exit 0. A port in use, a --db path that cannot be a
    database or an unknown --design is bad input: one line, exit 2."""
    from pagesight.demo import OrbitApp

    if args.demo_command is None:
        return _demo_task(args)

    try:
        app = OrbitApp.start(db=args.db, port=args.port, design=args.design)
    except InvalidOption as exc:
        print(f"pagesight: --{exc.option}: {exc}", file=sys.stderr)
        return exc.exit_code
    except PagesightError as exc:
        print(f"pagesight: {exc}", file=sys.stderr)
        return exc.exit_code
    try:
        with app:  # closed however we leave: the port freed, a temporary database removed
            print(f"Orbit CRM on {app.url} (database {app.db_path}); Ctrl-C stops it", flush=True)
            app.wait()  # returns only if the server stops by itself
    except KeyboardInterrupt:  # Ctrl-C, or SIGTERM through _interrupt: the normal way to stop
        return 0
    return 0


def _demo_task(args: argparse.Namespace) -> int:
    """The demo: Orbit CRM started on a fresh database, the bundled steps run on it (find
    Alice Chen, make her a Senior Software Engineer in New York, save, check both), then what
    the database really holds; exit 0 only when both were saved."""
    from pagesight.demo import DEMO_STEPS, OrbitApp
    from pagesight.planners import StepsPlanner

    check_out(args.out)
    planner = StepsPlanner.from_file(DEMO_STEPS)
    with OrbitApp.start() as app:
        print(f"Orbit CRM on {app.url}; the task: {DEMO_STEPS}", flush=True)
        result = run_agent(
            app.url,
            planner,
            {},
            max_steps=max(15, 2 * len(planner.steps) + 1),
            out=args.out,
            headed=args.headed,
        )
        rows = app.query("SELECT job_title, location FROM contacts WHERE name = 'Alice Chen'")
    saved = rows == [{"job_title": "Senior Software Engineer", "location": "New York"}]
    print(f"saved in the database: {rows[0] if rows else 'no Alice Chen'}")
    return 0 if result.reached and saved else 3


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


_POSITIONAL = {"query": "QUERY", "url": "URL"}
"""Options named by the error, shown as the command line spells them."""


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # A terminated CLI still closes its browser and removes its profile, as on Ctrl-C; the
    # handler is the process's, so a program calling main() gets its own back afterwards.
    # Python lets only the main thread set a handler: main() run from a worker thread (a
    # test runner, a server) goes without, rather than failing with a ValueError.
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _interrupt) if in_main else None
    try:
        if args.command == "run":
            return run(args)
        if args.command == "demo":
            return _demo(args)
        if args.command == "mcp":
            return run_mcp(args)
        output = _find(args) if args.command == "find" else _observe(args)
    except InvalidOption as exc:
        flag = _POSITIONAL.get(exc.option, f"--{exc.option.replace('_', '-')}")
        print(f"pagesight: {flag}: {exc}", file=sys.stderr)
        return exc.exit_code
    except PagesightError as exc:
        print(f"pagesight: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("pagesight: interrupted", file=sys.stderr)
        return 130
    finally:
        if previous is not None:  # None: a handler not set from Python, which we cannot restore
            signal.signal(signal.SIGTERM, previous)
    print(output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
