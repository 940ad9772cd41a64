"""``pagesight demo``: the demo task on the bundled app, Orbit CRM, run as ``pagesight run``
runs its steps; and ``pagesight demo serve``, the app alone until Ctrl-C."""

from __future__ import annotations

import argparse
import sys
from typing import Any, NoReturn

from pagesight.cli.options import Parser, check_headed, check_out
from pagesight.cli.run import run_agent
from pagesight.errors import InvalidOption, PagesightError


class _ServeParser(Parser):
    def error(self, message: str) -> NoReturn:
        self.exit(2, f"pagesight: {message} (see pagesight demo serve --help)\n")


def add_demo_options(commands: argparse._SubParsersAction[Any]) -> None:
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


def run_demo(args: argparse.Namespace) -> int:
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
    except KeyboardInterrupt:  # Ctrl-C, or SIGTERM (main() raises it): the normal way to stop
        return 0
    return 0


def _demo_task(args: argparse.Namespace) -> int:
    """The demo: Orbit CRM started on a fresh database, the bundled steps run on it (find
    Alice Chen, make her a Senior Software Engineer in New York, save, check both), then what
    the database really holds; exit 0 only when both were saved."""
    from pagesight.demo import DEMO_STEPS, OrbitApp
    from pagesight.planners import StepsPlanner

    check_out(args.out)
    check_headed(args.headed)
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
