"""The ``pagesight`` command: the parser of every subcommand, and :func:`main`, which parses,
calls the subcommand and prints. Exit 2 for bad input, 1 for a runtime failure, each with one
line on stderr and no traceback; anything not a pagesight error is a bug in pagesight, and
keeps its traceback for the report. SIGTERM is taken as Ctrl-C while a command runs (the
browser closed, the records kept), and exits as a shell reports a process it ended: 143,
where Ctrl-C exits 130. The servers (``mcp``, ``demo serve``) take either as their way to stop.

Each subcommand lives in a module of its own (observe and find, run, demo, mcp); what they
share in :mod:`pagesight.cli.options`."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Sequence

from pagesight.cli.demo import add_demo_options, run_demo
from pagesight.cli.eval import add_eval_options, run_eval_command
from pagesight.cli.mcp import add_mcp_options, run_mcp
from pagesight.cli.observe import add_find_options, add_observe_options, run_find, run_observe
from pagesight.cli.options import Parser
from pagesight.cli.run import add_run_options, run
from pagesight.errors import InvalidOption, PagesightError


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="pagesight", description="Let AI agents see and act on web pages.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    add_observe_options(commands)
    add_find_options(commands)
    add_run_options(commands)
    add_demo_options(commands)
    add_mcp_options(commands)
    add_eval_options(commands)
    return parser


EXIT_INTERRUPTED = 130
"""Ctrl-C (SIGINT): 128 + 2, as a shell reports a process it ended."""
EXIT_TERMINATED = 143
"""SIGTERM: 128 + 15."""


_POSITIONAL = {"query": "QUERY", "url": "URL", "suite": "SUITE"}
"""Options named by the error, shown as the command line spells them."""


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # A terminated CLI still closes its browser and removes its profile, as on Ctrl-C; the
    # handler is the process's, so a program calling main() gets its own back afterwards.
    # Python lets only the main thread set a handler: main() run from a worker thread (a
    # test runner, a server) goes without, rather than failing with a ValueError.
    in_main = threading.current_thread() is threading.main_thread()
    terminated = False

    def terminate(signum: int, frame: object) -> None:
        # Raised where Ctrl-C raises it: the same way out, closing what was opened.
        nonlocal terminated
        terminated = True
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, terminate) if in_main else None
    try:
        code = _command(args)
        if isinstance(code, str):
            print(code)
            code = 0
        # A command that takes the interruption as its own ending (eval's files of the runs
        # that ended) says 130 for both: SIGTERM's is 143.
        return EXIT_TERMINATED if terminated and code == EXIT_INTERRUPTED else code
    except InvalidOption as exc:
        flag = _POSITIONAL.get(exc.option, f"--{exc.option.replace('_', '-')}")
        print(f"pagesight: {flag}: {exc}", file=sys.stderr)
        return exc.exit_code
    except PagesightError as exc:
        print(f"pagesight: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        if terminated:
            print("pagesight: terminated (SIGTERM)", file=sys.stderr)
            return EXIT_TERMINATED
        print("pagesight: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        if previous is not None:  # None: a handler not set from Python, which we cannot restore
            signal.signal(signal.SIGTERM, previous)


def _command(args: argparse.Namespace) -> int | str:
    """Run the command: its exit code, or (``observe``, ``find``) the text to print."""
    if args.command == "run":
        return run(args)
    if args.command == "demo":
        return run_demo(args)
    if args.command == "mcp":
        return run_mcp(args)
    if args.command == "eval":
        return run_eval_command(args)
    return run_find(args) if args.command == "find" else run_observe(args)
