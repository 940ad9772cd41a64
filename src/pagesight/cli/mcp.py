"""``pagesight mcp``: its options, checked before anything starts, and the serving.

Bad input (a port out of range, a folder that cannot be made, an address that cannot be
bound, a --cdp-url that is no DevTools URL) is one line on stderr and exit 2, before any
transport or browser starts.
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import math
import socket
import sys
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pagesight.cli.options import (
    SECRET_HELP,
    add_confirm_options,
    add_tools_option,
    check_headed,
    checked_secrets,
    confirm_rules,
    origin_list,
    secret_option,
)
from pagesight.errors import InvalidOption

TRANSPORTS = ("stdio", "http")


def add_mcp_options(commands: argparse._SubParsersAction[Any]) -> None:
    mcp = commands.add_parser(
        "mcp", help="serve the browser tools to an MCP client (Claude, Cursor, VS Code, …)"
    )
    mcp.add_argument("--transport", choices=TRANSPORTS, default="stdio")
    mcp.add_argument("--host", default="127.0.0.1", help="http: the address to listen on")
    mcp.add_argument(
        "--port", type=int, default=8931, help="http: the port (default 8931; 0: a free one)"
    )
    mcp.add_argument(
        "--session-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="http: a session with no request for this long ends, and its browser is closed "
        "(default 1800)",
    )
    mcp.add_argument("--headed", action="store_true", help="show the browser window")
    mcp.add_argument("--cdp-url", default=None, help="attach to a running Chromium instead")
    mcp.add_argument(
        "--allowed-origins",
        default=None,
        metavar="LIST",
        help="origins the pages may be loaded from, separated by ; or , "
        "(http://127.0.0.1:*, https://*.example.com); any other is refused",
    )
    mcp.add_argument(
        "--blocked-origins",
        default=None,
        metavar="LIST",
        help="origins refused whatever else is allowed, separated by ; or ,",
    )
    mcp.add_argument(
        "--allow-file-access", action="store_true", help="allow file:// pages (refused otherwise)"
    )
    mcp.add_argument(
        "--output-dir",
        default=None,
        metavar="DIR",
        help="where downloads and named screenshots are saved (default: a new temporary folder, "
        "removed on exit if nothing was saved in it)",
    )
    mcp.add_argument(
        "--upload-dir",
        default=None,
        metavar="DIR",
        help="the folder files may be uploaded from (default: the output dir)",
    )
    add_tools_option(mcp)
    mcp.add_argument(
        "--secret",
        type=secret_option,
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help=SECRET_HELP + "; the model types it as {{NAME}}",
    )
    add_confirm_options(mcp)  # the user is asked by elicitation, where the client can


def run_mcp(args: argparse.Namespace) -> int:
    """Check the options, then serve until the client goes (stdio) or SIGTERM / Ctrl-C."""
    from pagesight.agent.confirm import ConfirmPolicy
    from pagesight.agent.secrets import Secrets
    from pagesight.mcp.browsers import BrowserOptions, check_guard_options
    from pagesight.mcp.server import PagesightMCP
    from pagesight.mcp.transport import IDLE_TIMEOUT, bind, serve_http, serve_stdio

    if not 0 <= args.port <= 65535:
        raise InvalidOption("port", f"expected a port from 0 to 65535, not {args.port}")
    idle = IDLE_TIMEOUT if args.session_timeout is None else args.session_timeout
    if not (math.isfinite(idle) and idle > 0):
        raise InvalidOption("session_timeout", f"expected seconds above 0, not {idle:g}")
    if args.cdp_url is not None:
        parts = urlsplit(args.cdp_url)
        if parts.scheme not in ("http", "https", "ws", "wss") or not parts.netloc:
            raise InvalidOption(
                "cdp_url",
                f"expected a DevTools URL such as http://127.0.0.1:9222, not {args.cdp_url!r}",
            )
    if args.cdp_url is not None and args.headed:
        raise InvalidOption(
            "headed", "shows the Chromium pagesight launches; an attached one keeps its own windows"
        )
    check_headed(args.headed)
    options = BrowserOptions(
        output_dir=_output_dir(args.output_dir),
        output_dir_made=args.output_dir is None,
        upload_dir=_upload_dir(args.upload_dir),
        headed=args.headed,
        cdp_url=args.cdp_url,
        allowed_origins=origin_list("allowed_origins", args.allowed_origins),
        allow_file_access=args.allow_file_access,
        blocked_origins=origin_list("blocked_origins", args.blocked_origins),
        secrets=Secrets(checked_secrets(args.secret)),
    )
    check_guard_options(options)
    confirm = ConfirmPolicy(mode=args.confirm, rules=confirm_rules(args.confirm_rules))
    sock = None
    if args.transport == "http":
        try:
            sock = bind(args.host, args.port)
        except OSError as exc:
            # A name that resolves to nothing, or an address this machine does not have, is
            # the host's fault; anything else (in use, a privileged port) the port's.
            bad_host = isinstance(exc, socket.gaierror) or exc.errno == errno.EADDRNOTAVAIL
            raise InvalidOption(
                "host" if bad_host else "port",
                f"cannot listen on {args.host}:{args.port} ({exc.strerror or exc})",
            ) from exc
    print(f"pagesight mcp: output dir {options.output_dir}", file=sys.stderr, flush=True)
    server = PagesightMCP(options, tools=args.tools, confirm=confirm)
    if sock is None:
        asyncio.run(serve_stdio(server))
    else:
        with sock:
            asyncio.run(serve_http(server, sock, args.host, idle_timeout=idle))
    return 0


def _upload_dir(value: str | None) -> Path | None:
    if value is None:
        return None
    folder = Path(value).expanduser()
    if not folder.is_dir():
        raise InvalidOption("upload_dir", f"{folder} is not a folder")
    return folder


def _output_dir(value: str | None) -> Path:
    if value is None:
        return Path(tempfile.mkdtemp(prefix="pagesight-mcp-"))
    folder = Path(value).expanduser().resolve()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InvalidOption(
            "output_dir", f"cannot make the folder {folder} ({exc.strerror or exc})"
        ) from exc
    return folder
