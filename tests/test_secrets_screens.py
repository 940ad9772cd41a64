"""A secret the page shows as its own text — not in a field: a paragraph echoing a key,
upper-cased by CSS or by the page's script, split over two elements — is painted black on
every screenshot saved or sent: the ``screenshot`` tool's image (plain and set-of-marks) and
a run's step and final screenshots. Checked twice: the pixels where the page laid the key
out are black, and OCR (real Tesseract) reads the text beside it but not the key. A secret
whose capitals are other letters (``ß`` as ``SS``) is hidden and masked in the outline too
(``secret-shown.html``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import StaticServer
from pagesight import Agent, Browser, Page
from pagesight.agent import Session, ToolRegistry
from pagesight.agent.secrets import Secrets
from pagesight.planners import StepsPlanner
from pagesight.vision.images import decode_png
from pagesight.vision.ocr import TesseractOcr

KEY = "sk-live-4417-QUARTZ"
STREET = "Straße-81"  # the page shows it in capitals: STRASSE-81
SECRETS = {"KEY": KEY, "STREET": STREET}
PAGE = "secret-shown.html"

# The box (CSS px of the viewport) of the key where each paragraph shows it: a Range over
# the key's characters, across the paragraph's text nodes.
_KEY_BOXES = """(key) => ["plain", "caps", "shout", "split", "later", "street"].flatMap((id) => {
  const el = document.getElementById(id);
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  const nodes = [];
  let text = "";
  for (let n = walker.nextNode(); n; n = walker.nextNode()) { nodes.push([n, text.length]);
    text += n.data; }
  if (id === "street") key = "STRASSE-81";
  const at = text.toLowerCase().indexOf(key.toLowerCase());
  if (at < 0) return [];
  const place = (i) => { const [n, s] = nodes.filter(([, s]) => s <= i).pop(); return [n, i - s]; };
  const range = document.createRange();
  range.setStart(...place(at));
  range.setEnd(...place(at + key.length - 1));
  range.setEnd(range.endContainer, range.endOffset + 1);
  const r = range.getBoundingClientRect();
  return [[id, Math.ceil(r.left), Math.ceil(r.top), Math.floor(r.width), Math.floor(r.height)]];
})"""


@pytest.fixture(scope="module")
def shown(browser: Browser, server: StaticServer, other_origin: StaticServer) -> Iterator[Page]:
    page = browser.open(f"{server.url(PAGE)}?frame={other_origin.url('secret-shown-frame.html')}")
    frame = page.playwright.frame_locator("#partner").locator("#k")
    frame.wait_for()  # the partner frame has shown the key
    yield page
    page.close()


@pytest.fixture(scope="module")
def ocr() -> TesseractOcr:
    return TesseractOcr(languages="eng")


def _key_boxes(page: Page) -> dict[str, tuple[int, int, int, int]]:
    found = page.playwright.evaluate(_KEY_BOXES, KEY)
    return {f[0]: (f[1], f[2], f[3], f[4]) for f in found}


def _black(png: bytes, box: tuple[int, int, int, int]) -> float:
    """The share of the box's pixels that are black (the PNG at device pixel ratio 1)."""
    image = decode_png(png).convert("RGB")
    x, y, w, h = box
    pixels = [
        image.getpixel((i, j)) for i in range(x + 1, x + w - 1) for j in range(y + 1, y + h - 1)
    ]
    return sum(1 for p in pixels if p == (0, 0, 0)) / len(pixels)


def _read(ocr: TesseractOcr, png: bytes) -> str:
    return " ".join(w.text for w in ocr.read(png)).lower()


def _assert_hidden(
    png: bytes, boxes: dict[str, tuple[int, int, int, int]], ocr: TesseractOcr | None = None
) -> None:
    for where, box in boxes.items():
        assert _black(png, box) > 0.99, where
    if ocr is None:  # OCR once a test: it is the slow part
        return
    read = _read(ocr, png)
    assert "orbit control panel" in read, read
    assert "4417" not in read and "quartz" not in read and "sk-live" not in read, read
    assert "strasse" not in read, read


def test_the_screenshot_tool_blacks_out_a_key_the_page_shows_as_text(
    browser: Browser, shown: Page, ocr: TesseractOcr
) -> None:
    session = Session(
        browser=browser._browser,
        page=shown._page,
        registry=ToolRegistry.discover(),
        secrets=Secrets(SECRETS),
    )
    boxes = _key_boxes(shown)
    assert set(boxes) == {"plain", "caps", "shout", "split", "street"}  # no "later" yet
    partner = shown.playwright.frame_locator("#partner").locator("#k").bounding_box()
    assert partner is not None  # the key in a frame of another origin, in top px
    x, y, w, h = (round(partner[k]) for k in ("x", "y", "width", "height"))
    boxes["partner"] = (x, y, w, h)
    for marks in (False, True):
        result = browser._loop.run(session.registry.call("screenshot", {"marks": marks}, session))
        assert result.error is None and result.image is not None, result.text
        _assert_hidden(result.image, boxes, ocr if marks else None)


def test_a_runs_screenshots_black_out_a_key_the_page_shows_as_text(
    browser: Browser, server: StaticServer, tmp_path: Path, ocr: TesseractOcr
) -> None:
    steps = StepsPlanner.from_text('click the "Reveal key" button\n')
    agent = Agent(browser, steps, out=tmp_path / "run", secrets=SECRETS)
    result = agent.run(server.url(PAGE))
    assert agent.page is not None
    try:
        assert result.stop_reason == "done", result.message
        boxes = _key_boxes(agent.page)
    finally:
        agent.page.close()
    before = {k: v for k, v in boxes.items() if k != "later"}  # the key shown on the step
    _assert_hidden((tmp_path / "run" / "step-01.png").read_bytes(), before)
    _assert_hidden((tmp_path / "run" / "final.png").read_bytes(), boxes, ocr)


def test_the_outline_and_the_records_mask_a_secret_shown_in_other_letters(
    browser: Browser, shown: Page
) -> None:
    # Capitals by full case mapping write some letters as others (ß as SS): the outline a
    # model reads says {{STREET}}, as it says {{KEY}} for each way the key is shown.
    secrets = Secrets(SECRETS)
    outline = secrets.mask(shown.observe().text())
    assert "STRASSE" not in outline.upper() and "4417" not in outline, outline
    assert "SHIP TO: {{STREET}}" in outline
    assert outline.count("{{KEY}}") == 5, outline  # the partner frame's too
    assert secrets.mask(json.dumps({"seen": "STRASSE-81"})) == '{"seen": "{{STREET}}"}'
