"""Text a person cannot read stays out of the outline (tests/pages/unseen-text.html).

The classic hiding places for instructions meant only for a model: a 1-px font, ink the
colour of the paper, a clip that leaves nothing, a box painted over the line. One page load,
one observation; each case is a line of that page. (Hidden, zero-size and off-screen text:
test_visibility.py.)"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from conftest import StaticServer
from pagesight import Browser

GONE = {
    "tiny font": "Tiny font text",
    "2 px font": "Two pixel text",
    "zero font": "Zero font text",
    "scaled to a tiny font by a transform": "Scaled tiny text",
    "white on white": "White on white text",
    "near white on white": "Near white text",
    "near black on a near black box": "Dark on dark text",
    "transparent ink": "Transparent colour text",
    "ink at 2% alpha": "Faint alpha text",
    "clip-path inset 50%": "Clip path inset text",
    "clip-path circle(0)": "Clip path circle text",
    "clip-path polygon of one point": "Clip path polygon text",
    "text-indent out of an overflow:hidden box": "Text indent text",
    "pushed out of an overflow:hidden box by padding": "Pushed out text",
    "a short line under an opaque box (the block's centre is not covered)": "Covered line text",
    "opacity 0.1 inside opacity 0.3": "Faded element text",
    "opacity 0.04 over a gradient (any backdrop)": "Faded on gradient text",
    "white written as oklch()": "Oklch white text",
    "white written as color(srgb ...)": "Srgb white text",
    "text-indent off the page with nothing clipping": "Unclipped indent text",
    "SVG text filled white on white": "SVG white text",
    "a 1-px span beside a field, as its guessed name": "Tiny label text",
    "1-px bare text beside a field, as its guessed name": "Tiny bare label text",
    "near black on a near black box, below the fold": "Low dark on dark text",
}

KEPT = {
    "10 px font": "Small print text.",
    "light grey ink": "Light grey text.",
    "white ink on a background image (cannot tell)": "Text on image.",
    "white ink on a gradient (cannot tell)": "Text on gradient.",
    "transparent ink showing a gradient (background-clip: text)": "Gradient clip text.",
    "white ink with a dark shadow": "Shadowed text.",
    "white ink over a picture behind it, on a white page": "Hero text over a picture.",
    "light ink on a dark box": "Light on dark text.",
    "a box's other text beside an unseen span": "Dark box label.",
    "text at half opacity": "Half faded text.",
    "white ink blended by difference (drawn black)": "Blended text.",
    "SVG text filled white on a dark shape": "SVG text on a dark shape.",
    "a dark box's text below the fold": "Low dark box label.",
    "white ink over a picture, below the fold": "Low hero text over a picture.",
    "white ink over a picture, in the viewport": "Top hero text over a picture.",
}


@pytest.fixture(scope="module")
def outline(browser: Browser, server: StaticServer) -> Iterator[str]:
    page = browser.open(server.url("unseen-text.html"))
    yield page.observe().text()
    page.close()


@pytest.mark.parametrize("case", GONE)
def test_unreadable_text_is_out(outline: str, case: str) -> None:
    assert GONE[case] not in outline, f"{case}: should be out of\n{outline}"


@pytest.mark.parametrize("case", KEPT)
def test_readable_text_stays(outline: str, case: str) -> None:
    assert KEPT[case] in outline, f"{case}: should be in\n{outline}"
