"""``pagesight observe --mode vision --screenshot FILE --marks``: the screen side of the CLI."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest
from PIL import Image

from conftest import StaticServer
from pagesight import Browser
from pagesight.cli import main


def _run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def test_vision_mode_with_a_marked_screenshot(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    shot = tmp_path / "canvas.png"
    code, out, err = _run(
        "observe",
        server.url("canvas-app.html"),
        "--mode",
        "vision",
        "--screenshot",
        str(shot),
        "--marks",
        "--cdp-url",
        browser.cdp_url,
    )
    assert (code, err) == (0, ""), err
    assert "保存" in out and "取消" in out
    with Image.open(shot) as image:
        assert image.format == "PNG" and image.size[0] >= 800
    assert not list(tmp_path.glob("*.part"))  # written whole, then renamed into place


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--marks",), "--marks"),
        (("--screenshot", "/no/such/folder/x.png"), "--screenshot"),
        (("--mode", "pixels"), "--mode"),
    ],
)
def test_bad_screenshot_options_exit_2_before_a_browser_starts(
    server: StaticServer, args: tuple[str, ...], says: str
) -> None:
    with pytest.raises(SystemExit) if args[0] == "--mode" else contextlib.nullcontext():
        code, out, err = _run("observe", server.url("form.html"), *args)
        assert code == 2 and out == ""
        assert err.count("\n") == 1 and says in err, err
