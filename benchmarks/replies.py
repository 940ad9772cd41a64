"""cl100k tokens of two action replies (issue 23): clicking a button that opens a form of
eight controls, and typing a name into its first field, as the MCP server and the llm
planner answer them. ``python benchmarks/replies.py [--show]`` from the repository root."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from conftest import StaticServer  # noqa: E402
from pagesight import Browser  # noqa: E402
from replies_support import PAGE, mcp_replies, planner_replies  # noqa: E402


def main() -> None:
    show = "--show" in sys.argv
    server = StaticServer("127.0.0.1")
    try:
        with Browser.launch(headless=True) as browser, tempfile.TemporaryDirectory() as tmp:
            url = server.url(PAGE)
            for label, take in (("mcp", mcp_replies), ("llm planner", planner_replies)):
                replies = take(browser, url, Path(tmp) / label.replace(" ", "-"))
                opened, typed = replies.tokens()
                print(f"{label}: open the form {opened} tokens, type a name {typed} tokens")
                if show:
                    for what, text in (
                        ("open", replies.opened),
                        ("type", replies.typed),
                        ("note", replies.noted),
                    ):
                        print(f"--- {label} {what}\n{text}\n")
    finally:
        server.close()


if __name__ == "__main__":
    main()
