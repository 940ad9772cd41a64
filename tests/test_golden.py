"""Golden outlines: what a model reads for each fixture page, reviewed as plain text.

Rewrite them after an intended change with ``PAGESIGHT_UPDATE_GOLDEN=1 make test`` and review
the diff like code.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from conftest import StaticServer
from pagesight import Browser

GOLDEN = Path(__file__).parent / "golden"
PAGES = [
    "cards.html",
    "cjk.html",
    "clickables.html",
    "edge-controls.html",
    "edge-cover.html",
    "edge-modal.html",
    "edge-names.html",
    "edge-scroll.html",
    "form.html",
    "hidden.html",
    "iframes.html",
    "modal.html",
    "overlay.html",
    "scroll.html",
    "shadow.html",
]


def _stable(text: str, origins: dict[str, str]) -> str:
    """Ids renumbered from 1 in order of appearance, and the servers' ports named, so the
    outline does not depend on test order or on which ports were free."""
    for origin, name in origins.items():
        text = text.replace(origin, name)
    seen: dict[str, int] = {}

    def renumber(match: re.Match[str]) -> str:
        return f"[{seen.setdefault(match.group(1), len(seen) + 1)}]"

    return re.sub(r"\[(\d+)\]", renumber, text)


@pytest.mark.parametrize("name", PAGES)
@pytest.mark.parametrize("view", ["full", "interactive"])
def test_outline_matches_golden(
    browser: Browser, server: StaticServer, server2: StaticServer, name: str, view: str
) -> None:
    page = browser.open(server.url(f"{name}?other={server2.origin}"))
    obs = page.observe(view="interactive" if view == "interactive" else "full")
    page.close()
    actual = _stable(
        obs.text() + "\n", {server.origin: "http://SERVER", server2.origin: "http://SERVER2"}
    )
    path = GOLDEN / f"{name.removesuffix('.html')}.{view}.txt"
    if os.environ.get("PAGESIGHT_UPDATE_GOLDEN") == "1":
        path.write_text(actual, encoding="utf-8")
    assert path.exists(), f"no golden file {path.name}; run with PAGESIGHT_UPDATE_GOLDEN=1"
    assert actual == path.read_text(encoding="utf-8")
