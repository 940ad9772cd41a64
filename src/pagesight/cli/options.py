"""What more than one command shares: the parser class (its one-line errors), ``--viewport``'s
type, ``--secret`` (``run`` and ``mcp``), ``--confirm`` and ``--confirm-rules`` with the
terminal's confirmer, the origin lists (``--allowed-origins``, ``--blocked-origins``), the
check of an ``--out`` folder (``run`` and ``demo``), of the page to open (a local file that
is not there), and of ``--headed`` (a window needs a display).

Each is checked before a browser starts; the browser and the guard are imported inside the
functions that need them, so that ``pagesight --help`` stays fast."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn
from urllib.parse import urlsplit
from urllib.request import url2pathname

from pagesight.errors import InvalidOption

if TYPE_CHECKING:
    from pagesight.guard.risk import Risk, RiskRules


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # prog is "pagesight" for the command, "pagesight mcp" for a subcommand.
        self.exit(2, f"pagesight: {message} (see {self.prog} --help)\n")


def parse_viewport(value: str) -> tuple[int, int]:
    """``--viewport WxH`` (``observe``, ``find``, ``run``): the size, checked as the API
    checks it."""
    width, sep, height = value.lower().partition("x")
    if not (sep and width.strip().isdigit() and height.strip().isdigit()):
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT such as 1280x800, not {value!r}")
    from pagesight.browser.viewport import check_viewport

    try:
        return check_viewport((int(width), int(height)))
    except InvalidOption as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def secret_option(value: str) -> tuple[str, str]:
    """``--secret NAME=VALUE``, ``NAME@ORIGIN[,ORIGIN…]=VALUE``, or ``NAME=`` (the value from
    ``PAGESIGHT_SECRET_NAME``): the key (name and scope) and the value."""
    key, sep, secret = value.partition("=")
    if not sep or not key.partition("@")[0].strip():
        # Never echo it: a value given without its NAME= is still a secret.
        raise argparse.ArgumentTypeError("expected NAME=VALUE (what was given is not shown)")
    return key.strip(), secret


def checked_secrets(given: list[tuple[str, str]]) -> dict[str, str]:
    """The ``--secret`` options and the ``PAGESIGHT_SECRET_<NAME>`` variables, a bad name or
    scope refused (as ``--secret``) before a browser starts."""
    from pagesight.agent.secrets import Secrets, gathered

    secrets = gathered(given, os.environ)
    try:
        Secrets(secrets)
    except InvalidOption as exc:
        raise InvalidOption("secret", str(exc)) from exc
    return secrets


SECRET_HELP = (
    "a value {{NAME}} stands for, typed into the page but never shown or written: "
    "NAME=VALUE; NAME@ORIGIN[,ORIGIN]=VALUE to type it only on those origins (another is "
    "refused); NAME= (or NAME@ORIGIN=) to read it from the environment variable "
    "PAGESIGHT_SECRET_NAME, out of the process list. Every PAGESIGHT_SECRET_<NAME> set is "
    "a secret too"
)


def add_tools_option(command: argparse.ArgumentParser) -> None:
    """``--tools PROFILE`` (``run`` and ``mcp``): which tools the model is shown up front."""
    from pagesight.agent.profiles import DEFAULT_PROFILE, PROFILES

    command.add_argument(
        "--tools",
        choices=PROFILES,
        default=DEFAULT_PROFILE,
        metavar="PROFILE",
        help="the tools the model is shown up front: core (default: act, observe, find, and "
        "use_tool, which reaches every other tool by name), vision (core with the screenshot "
        "and coordinate tools) or full (every tool one for one, as Playwright MCP names them)",
    )


def add_confirm_options(command: argparse.ArgumentParser) -> None:
    """``--confirm`` and ``--confirm-rules`` (``run`` and ``mcp``)."""
    from pagesight.guard.risk import MODES

    command.add_argument(
        "--confirm",
        choices=MODES,
        default="risky",
        help="which actions need a person's yes first: risky (default: deleting, paying, "
        "sending, ordering, submitting a password or card, accepting a confirm() dialog), "
        "all, or never",
    )
    command.add_argument(
        "--confirm-rules",
        metavar="FILE",
        default=None,
        help='a JSON file of words to add to the risk rules: {"control_words": ["archive"], '
        '"field_words": ["routing number"]}',
    )


def confirm_rules(path: str | None) -> RiskRules:
    from pagesight.guard.risk import RiskRules

    return RiskRules() if path is None else RiskRules.load(path)


def terminal_confirmer(mask: Callable[[str], str] = str) -> Callable[[Risk], bool] | None:
    """Asks on the terminal when there is a person at it (stdin a TTY); ``None`` otherwise
    (a pipe, a CI job), so that a risky step ends the run with ``needs_person``. ``mask``
    writes the run's secrets ``{{NAME}}`` in the question (it may quote the page)."""
    if not sys.stdin.isatty():
        return None

    def ask(risk: Risk) -> bool:
        try:
            answer = input(f"{mask(risk.question())} [y/N] ")
        except EOFError:  # the terminal went: no one said yes
            return False
        return answer.strip().lower() in ("y", "yes")

    return ask


def origin_list(option: str, value: str | None) -> tuple[str, ...] | None:
    """An origin list option (``--allowed-origins``, ``--blocked-origins``) as given,
    separated by ``;`` or ``,`` (the origin guard checks each pattern); ``run`` and ``mcp``."""
    if value is None:
        return None
    origins = tuple(o.strip() for o in value.replace(";", ",").split(",") if o.strip())
    if not origins:
        raise InvalidOption(option, "give at least one origin, e.g. https://example.com")
    return origins


def check_out(value: str | None) -> None:
    """Refuse an ``--out`` that cannot be a folder before a browser starts, rather than fail
    with the recorder's FileExistsError once the run has begun."""
    if value is None:
        return
    path = Path(value).expanduser()
    if path.exists() and not path.is_dir():
        raise InvalidOption("out", f"{value!r} is a file, not a folder for the run's records")
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise InvalidOption("out", f"{value!r} is inside a file ({parent}), not a folder")
            return


def check_page(url: str, *, launching: bool) -> None:
    """Refuse a page that cannot be opened before a browser starts: a scheme pagesight does
    not open, a path to no file, and — for the Chromium we launch, on this machine — a
    ``file://`` URL of no file (an attached browser may run elsewhere, with files of its own).
    """
    from pagesight.act.navigation import normalise_url

    target = normalise_url(url)  # UnsupportedURL: not a URL, nor an existing file
    parts = urlsplit(target)
    if launching and parts.scheme == "file" and parts.netloc in ("", "localhost"):
        path = Path(url2pathname(parts.path))
        if not path.exists():
            raise InvalidOption("url", f"no file at {str(path)!r} ({url})")


def check_headed(headed: bool) -> None:
    """Refuse ``--headed`` where no window can show, before Chromium starts and fails to
    find a display in words of its own (after its profile and a driver were set up)."""
    if headed and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        raise InvalidOption(
            "headed",
            "shows the browser's window, and there is no display here (neither DISPLAY nor "
            "WAYLAND_DISPLAY is set); leave it out, or run under xvfb-run",
        )
