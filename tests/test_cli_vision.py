"""``pagesight observe --mode vision --screenshot FILE --marks``: the screen side of the CLI."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from conftest import StaticServer
from pagesight import Browser
from pagesight.cli import main
from pagesight.vision.marks import KIND_COLOURS, Kind
from pagesight.vision.marks import Rect as Box


def _run(*args: str) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of ``pagesight ARGS``, as the shell would see them (a usage
    error leaves argparse by ``SystemExit``)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    return code, out.getvalue(), err.getvalue()


# The mark colour of each role the canvas app's vision reading gives (README: links blue,
# buttons green, inputs orange, selects purple, others grey).
ROLE_KINDS: dict[str, Kind] = {"link": "link", "button": "button", "text": "other"}
DIGITS = ImageFont.load_default(size=12)


def _badges(marked: Image.Image, plain: Image.Image) -> list[tuple[tuple[int, int, int], Box]]:
    """(colour, box) of each solid block of a mark colour, at least 10 px each way, that the
    marks added to the picture (a page's own blue button is not one)."""
    m, p = marked.convert("RGB"), plain.convert("RGB")
    width, height = m.size
    colours = set(KIND_COLOURS.values())
    blocks: list[tuple[tuple[int, int, int], Box]] = []
    for y in range(height - 10):
        for x in range(width - 10):
            c = m.getpixel((x, y))
            if c not in colours or c == p.getpixel((x, y)):
                continue
            if any(b[0] <= x < b[2] and b[1] <= y < b[3] for _, b in blocks):
                continue
            # A badge's top-left corner: its colour runs at least 10 px right and down.
            if all(m.getpixel((x + i, y)) == c for i in range(10)) and all(
                m.getpixel((x, y + i)) == c for i in range(10)
            ):
                right, bottom = x, y
                while right < width and m.getpixel((right, y)) == c:
                    right += 1
                while bottom < height and m.getpixel((x, bottom)) == c:
                    bottom += 1
                blocks.append((c, (x, y, right, bottom)))
    return blocks


def _ink(image: Image.Image, cut: float) -> frozenset[tuple[int, int]]:
    """The pixels of a grey (``L``) image brighter than ``cut``, moved to start at (0, 0)."""
    levels = image.tobytes()  # one byte a pixel
    points = [(i % image.width, i // image.width) for i, v in enumerate(levels) if v > cut]
    if not points:
        return frozenset()
    left, top = min(x for x, _ in points), min(y for _, y in points)
    return frozenset((x - left, y - top) for x, y in points)


def _read_badge(image: Image.Image, colour: tuple[int, int, int], box: Box) -> int:
    """The number 0-99 whose white digits best match those on the badge."""
    grey = Image.new("RGB", (1, 1), colour).convert("L").getpixel((0, 0))
    assert isinstance(grey, int)
    drawn = _ink(image.convert("L").crop(box), (grey + 255) / 2)

    def likeness(number: int) -> float:
        glyph = Image.new("L", (40, 30), 0)
        ImageDraw.Draw(glyph).text((20, 15), str(number), fill=255, font=DIGITS, anchor="mm")
        ink = _ink(glyph, 127)
        return len(ink & drawn) / max(1, len(ink | drawn))

    return max(range(100), key=likeness)


def test_marks_draw_a_numbered_badge_for_each_element_printed(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    shots = {"plain": tmp_path / "plain.png", "marked": tmp_path / "marked.png"}
    outputs = {}
    for name, shot in shots.items():
        marks = ("--marks",) if name == "marked" else ()
        code, out, err = _run(
            "observe", server.url("canvas-app.html"), "--mode", "vision", "--format", "legend",
            "--screenshot", str(shot), *marks, "--cdp-url", browser.cdp_url,
        )  # fmt: skip
        assert (code, err) == (0, ""), err
        outputs[name] = out
    assert outputs["plain"] == outputs["marked"]  # the same screen read both times
    assert 'button "保存"' in outputs["marked"] and 'button "取消"' in outputs["marked"]
    printed = {
        int(m[1]): ROLE_KINDS[m[2]]
        for m in re.finditer(r"^\[(\d+)\] (\w+) ", outputs["marked"], re.MULTILINE)
    }
    assert len(printed) >= 6 and "button" in printed.values(), outputs["marked"]
    with Image.open(shots["marked"]) as marked, Image.open(shots["plain"]) as plain:
        assert marked.size == plain.size
        # One badge per element printed, its colour the element's kind, its number its id.
        drawn = {_read_badge(marked, colour, box): colour for colour, box in _badges(marked, plain)}
        assert drawn == {i: KIND_COLOURS[kind] for i, kind in printed.items()}, drawn
    assert not list(tmp_path.glob("*.part"))  # written whole, then renamed into place


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--marks",), "--marks"),
        (("--screenshot", "/no/such/folder/x.png"), "--screenshot"),
        (("--mode", "pixels", "--screenshot", "{tmp}/x.png"), "--mode"),
        (("--max-tokens", "-3", "--screenshot", "{tmp}/x.png", "--marks"), "--max-tokens"),
    ],
)
def test_bad_screenshot_options_exit_2_before_a_browser_starts(
    server: StaticServer, tmp_path: Path, args: tuple[str, ...], says: str
) -> None:
    # An address nobody answers: a browser that started would fail on it, saying so instead.
    filled = [a.format(tmp=tmp_path) for a in args]
    code, out, err = _run(
        "observe", server.url("form.html"), *filled, "--cdp-url", "http://127.0.0.1:9"
    )
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith("pagesight: ") and says in err, err
    assert list(tmp_path.iterdir()) == []  # no screenshot, not even half of one
