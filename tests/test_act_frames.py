"""Actions on elements inside iframes: same-origin, and cross-site (out of process)."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import StaticServer
from pagesight import Element, Observation


def _in_frame(obs: Observation, frame_title: str, role: str, name: str) -> Element:
    """The element ``name`` inside the iframe titled ``frame_title``."""
    found = [
        el
        for el in obs.elements
        if el.role == role and el.name == name and el.context == frame_title
    ]
    assert len(found) == 1, obs.text()
    return found[0]


@pytest.mark.parametrize("frame", ["Same-origin counter", "Cross-site counter"])
def test_click_and_type_inside_a_frame(
    browser: Any, server: StaticServer, other_origin: StaticServer, frame: str
) -> None:
    page = browser.open(server.url(f"act-frames.html?other={other_origin.origin}"))
    try:
        obs = page.observe()
        count = _in_frame(obs, frame, "button", "Count")
        eff = page.act(count.id, "click")
        assert "dom_change" in eff.kinds, eff.text()
        assert "Count: 1" in eff.texts_added
        label = _in_frame(eff.observation, frame, "textbox", "Label")
        eff = page.act(label.id, "input", text="hello")
        assert eff.kinds == ("value_change",), eff.text()
        assert eff.values[0][1].value == "hello"
        # The other frame's counter was not touched.
        other = next(
            f
            for f in page.playwright.frames
            if f.url.endswith("act-frame-inner.html")
            and (frame.startswith("Same") != ("localhost" in f.url))
        )
        assert other.evaluate("document.getElementById('shown').textContent") == "Count: 1"
    finally:
        page.close()
