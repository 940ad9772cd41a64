"""What ``pagesight`` imports before it answers: the MCP SDK only to serve MCP, never for the
other commands (nor for ``pagesight mcp --help``)."""

from __future__ import annotations

import subprocess
import sys

from mcp_support import server_env


def _imported(*args: str) -> tuple[set[str], str]:
    """The modules ``python -m pagesight ARGS`` imported (read from -X importtime), and its
    output."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "pagesight", *args],
        capture_output=True,
        text=True,
        env=server_env(),
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    modules = {
        line.rsplit("|", 1)[1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    return modules, done.stdout


def _mcp_sdk(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in ("mcp", "mcp_types"))


def test_the_other_commands_never_import_the_mcp_sdk() -> None:
    modules, out = _imported("observe", "--help")
    assert "--view" in out
    assert _mcp_sdk(modules) == []
    assert "pagesight.mcp.server" not in modules


def test_the_mcp_commands_help_imports_neither_the_sdk_nor_the_server() -> None:
    modules, out = _imported("mcp", "--help")
    assert "--transport" in out and "--allowed-origins" in out
    assert _mcp_sdk(modules) == []
    assert not {"pagesight.mcp.server", "pagesight.mcp.transport"} & modules
