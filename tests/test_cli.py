"""The ``pagesight observe`` command: its output formats and options, and how it fails.

Runs that only check the output call :func:`pagesight.cli.main` in-process, attached to the
session browser with ``--cdp-url`` (no Chromium start per test). The default path (launching
Chromium) runs once and the failures run as real subprocesses, so "no traceback" is proven on
a real stderr; a local file and ``--viewport`` launch a Chromium in-process, and the refusals
that come before any browser (but one) run in-process.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from cli_support import run_cli
from conftest import PAGES, StaticServer
from pagesight import Browser
from pagesight.cli import main

REPO = Path(__file__).resolve().parent.parent
FORM_TITLE = "Contact us · Helio Support"
# An outline line of an element: "[12] button ..." after any indent.
ELEMENT_LINE = re.compile(r"^\s*\[(\d+)\] [a-z]")
BOUNDS = re.compile(r" @-?\d+,-?\d+ \d+x\d+$")


def _start(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "pagesight", *args],
        cwd=REPO,
        env={**os.environ, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        encoding="utf-8",
    )


def _finish(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    try:
        out, err = proc.communicate(timeout=90)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"pagesight did not finish: {proc.args!r}\n{err}")
    return proc.returncode, out, err


def _run_main(*args: str) -> str:
    """Run ``pagesight ARGS`` in-process; its stdout (it must exit 0 with nothing on stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    assert (code, err.getvalue()) == (0, ""), f"exit {code}: {err.getvalue()}"
    assert out.getvalue().endswith("\n")
    return out.getvalue()


Cli = Callable[..., str]


@pytest.fixture(scope="module")
def cli(browser: Browser) -> Cli:
    """``cli(URL, *options)``: ``pagesight observe URL OPTIONS --cdp-url <session browser>``.

    Memoised: the pages are static, and each run starts a Playwright driver (about a second).
    """
    seen: dict[tuple[str, ...], str] = {}

    def run(*args: str) -> str:
        if args not in seen:
            seen[args] = _run_main("observe", *args, "--cdp-url", browser.cdp_url)
        return seen[args]

    return run


def _page_targets(cdp_url: str) -> list[dict[str, Any]]:
    with urllib.request.urlopen(f"{cdp_url}/json/list", timeout=5) as reply:
        targets: list[dict[str, Any]] = json.load(reply)
    return [t for t in targets if t.get("type") == "page"]


# --- the default path: launch Chromium, print the outline ---------------------------------


def test_observe_url_prints_the_outline(server: StaticServer, short_tmp: Path) -> None:
    url = server.url("form.html")
    # A temporary folder of its own: what the command (and its Chromium) made there goes
    # with it, so a day of runs leaves nothing behind.
    code, out, err = _finish(_start("observe", url, env={"TMPDIR": str(short_tmp)}))
    assert (code, err) == (0, "")
    assert sorted(p.name for p in short_tmp.iterdir()) == []
    lines = out.rstrip("\n").split("\n")
    assert lines[0] == f'page "{FORM_TITLE}" {url} ready'
    assert any(re.fullmatch(r'\s*\[\d+\] textbox "Full name"', line) for line in lines), out
    assert any(re.fullmatch(r'\s*\[\d+\] button "Send message"', line) for line in lines), out
    assert "Contact us" in out  # the heading, a plain node
    ids = [int(m.group(1)) for line in lines if (m := ELEMENT_LINE.match(line))]
    assert len(ids) == 12 and len(set(ids)) == 12, out


def test_observe_local_file_path(monkeypatch: pytest.MonkeyPatch) -> None:
    # A relative path, as a user types it in the repository. In-process (its own Chromium
    # all the same): the subprocess above already proves the default path as a process.
    monkeypatch.chdir(REPO)
    done = run_cli(monkeypatch, "observe", "tests/pages/form.html")
    code, out, err = done.returncode, done.stdout, done.stderr
    assert (code, err) == (0, "")
    header = out.split("\n", 1)[0]
    assert header == f'page "{FORM_TITLE}" {(PAGES / "form.html").as_uri()} ready'
    assert '] textbox "Full name"' in out


def test_viewport_sizes_the_page_and_the_screenshot(
    server: StaticServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shot = tmp_path / "page.png"
    url = server.url("viewport.html")
    # In-process: --viewport sizes the Chromium the command launches, which it still does.
    done = run_cli(monkeypatch, "observe", url, "--viewport", "900x600", "--screenshot", str(shot))
    code, out, err = done.returncode, done.stdout, done.stderr
    assert (code, err) == (0, ""), err
    assert "Page size: 900x600" in out  # the page's own innerWidth x innerHeight
    with Image.open(shot) as image:
        assert image.size == (900, 600)


# --- formats and options (in-process, on the session browser) -----------------------------


def test_format_json(cli: Cli, server: StaticServer) -> None:
    url = server.url("form.html")
    data = json.loads(cli(url, "--format", "json"))
    assert {"url", "title", "ready", "mode", "tokens", "elements", "tree"} <= data.keys()
    assert data["url"] == url
    assert data["title"] == FORM_TITLE
    assert data["ready"] is True
    assert data["mode"] == "cdp"
    assert isinstance(data["tokens"], int) and data["tokens"] > 0
    assert data["tree"]["role"] == "page" and data["tree"]["children"]
    by_name = {el["name"]: el for el in data["elements"]}
    assert by_name["Full name"]["role"] == "textbox"
    assert by_name["Country"]["value"] == "France"
    assert by_name["Country"]["options"] == ["Canada", "France", "Japan"]
    assert isinstance(by_name["Send message"]["id"], int)


def test_mode_evaluate_gives_the_same_elements(cli: Cli, server: StaticServer) -> None:
    url = server.url("form.html")
    cdp = json.loads(cli(url, "--format", "json"))
    evaluate = json.loads(cli(url, "--format", "json", "--mode", "evaluate"))
    assert cdp["mode"] == "cdp"
    assert evaluate["mode"] == "evaluate"

    def shape(data: dict[str, Any]) -> list[tuple[str, str, str | None]]:
        return [(el["role"], el["name"], el.get("value")) for el in data["elements"]]

    assert shape(evaluate) == shape(cdp)


def test_format_legend_is_one_line_per_element_with_its_context(
    cli: Cli, server: StaticServer
) -> None:
    out = cli(server.url("cards.html"), "--format", "legend")
    header, *lines = out.rstrip("\n").split("\n")
    assert header.startswith('page "Team members · Workspace admin" ')
    names = ["Alice Chen", "Bob Martin", "Carla Diaz", "Dev Patel", "Emma Schulz"]
    assert len(lines) == len(names), out
    for line, name in zip(lines, names, strict=True):
        assert re.fullmatch(rf'\[\d+\] button "Edit" in "{name}"', line), line


def test_view_interactive_has_no_text_lines(cli: Cli, server: StaticServer) -> None:
    url = server.url("cards.html")
    full = cli(url)
    interactive = cli(url, "--view", "interactive")
    team = "Platform · Admin"  # a plain text line of the page
    assert team in full  # so its absence below means something
    assert team not in interactive
    header, *lines = interactive.rstrip("\n").split("\n")
    assert header == full.split("\n", 1)[0]
    assert sum(1 for line in lines if ELEMENT_LINE.match(line)) == 5
    for line in lines:
        assert ELEMENT_LINE.match(line) or line.startswith("# "), line
    assert "# Alice Chen" in lines


def test_include_bounds(cli: Cli, server: StaticServer) -> None:
    url = server.url("form.html")
    plain = [ln for ln in cli(url).split("\n") if ELEMENT_LINE.match(ln)]
    bounded = [ln for ln in cli(url, "--include", "bounds").split("\n") if ELEMENT_LINE.match(ln)]
    assert len(bounded) == len(plain) == 12
    for before, after in zip(plain, bounded, strict=True):
        assert not BOUNDS.search(before), before
        match = BOUNDS.search(after)
        assert match, after
        assert after[: match.start()] == before  # the same line, coordinates appended
    width = re.search(r"(\d+)x(\d+)$", bounded[0])
    assert width and int(width.group(1)) > 0 and int(width.group(2)) > 0


@pytest.mark.parametrize("limit", [200, 400])
def test_max_chars_cuts_with_a_note(cli: Cli, server: StaticServer, limit: int) -> None:
    url = server.url("form.html")
    full = cli(url).rstrip("\n")
    assert len(full) > limit  # the page is long enough to be cut
    cut = cli(url, "--max-chars", str(limit)).rstrip("\n")
    assert len(cut) <= limit, cut
    *kept, note = cut.split("\n")
    assert note.startswith("… truncated"), cut
    assert kept and kept[0] == full.split("\n", 1)[0]  # the header survives
    assert full.startswith("\n".join(kept) + "\n")  # cut at a line boundary


def test_cdp_url_leaves_no_tab_behind(browser: Browser, server: StaticServer) -> None:
    before = _page_targets(browser.cdp_url)
    url = server.url("form.html")
    out = _run_main("observe", url, "--cdp-url", browser.cdp_url)
    assert out.startswith(f'page "{FORM_TITLE}" {url} ready\n')
    assert '] textbox "Full name"' in out
    after = _page_targets(browser.cdp_url)
    assert sorted(t["id"] for t in after) == sorted(t["id"] for t in before)
    # The attached browser is still there and usable.
    page = browser.open(server.url("cards.html"))
    try:
        assert len(page.observe().elements) == 5
    finally:
        page.close()


# --- bad input: exit 2, one line on stderr, no traceback ----------------------------------

BAD_INPUT = [
    "unreachable URL",
    "unsupported scheme",
    "nonexistent file",
    "nothing at --cdp-url",
    "unknown --include",
    "--max-chars 0",
    "no Chromium",
    "--viewport 1280",
    "--viewport 50x800",
    "--viewport with --cdp-url",
]
Run = tuple[subprocess.Popen[str], tuple[str, ...]]
# Refused before any browser starts, by argparse or the options' own checks: run in-process
# (one more such, "unknown --include", runs as a real subprocess).
IN_PROCESS = ("--max-chars 0", "--viewport 1280", "--viewport 50x800", "--viewport with --cdp-url")


def _bad_args(case: str, form: str, dead_cdp: str) -> tuple[str, ...]:
    return {
        "unknown --include": ("observe", form, "--include", "bounds,nonsense"),
        "--max-chars 0": ("observe", form, "--max-chars", "0"),
        "--viewport 1280": ("observe", form, "--viewport", "1280"),
        "--viewport 50x800": ("observe", form, "--viewport", "50x800"),
        "--viewport with --cdp-url": (
            "observe", form, "--viewport", "900x600", "--cdp-url", dead_cdp
        ),
    }[case]  # fmt: skip


NAMED = {
    "unknown --include": ("--include", "nonsense"),
    "--max-chars 0": ("--max-chars",),
    "--viewport 1280": ("--viewport", "WIDTHxHEIGHT", "'1280'"),
    "--viewport 50x800": ("--viewport", "50x800"),
    "--viewport with --cdp-url": ("--viewport", "attached"),
}


@pytest.fixture(scope="module")
def bad_runs(server: StaticServer, closed_port: int) -> Iterator[dict[str, Run]]:
    """Every bad-input run done as a subprocess and what its message must name, all started
    at once (most would otherwise start a Chromium in turn)."""
    form = server.url("form.html")
    dead_url = f"http://127.0.0.1:{closed_port}/"
    dead_cdp = f"http://127.0.0.1:{closed_port}"
    runs: dict[str, Run] = {
        "unreachable URL": (_start("observe", dead_url), (dead_url,)),
        "unsupported scheme": (_start("observe", "ftp://127.0.0.1/form.html"), ("'ftp'",)),
        "nonexistent file": (
            _start("observe", "tests/pages/no-such-page.html"),
            ("no-such-page.html",),
        ),
        "nothing at --cdp-url": (
            _start("observe", form, "--cdp-url", dead_cdp),
            (dead_cdp, "no browser answers"),
        ),
        "unknown --include": (
            _start(*_bad_args("unknown --include", form, dead_cdp)),
            NAMED["unknown --include"],
        ),
        "no Chromium": (
            _start("observe", form, env={"PAGESIGHT_CHROMIUM": "/nonexistent"}),
            ("PAGESIGHT_CHROMIUM",),
        ),
    }
    assert sorted([*runs, *IN_PROCESS]) == sorted(BAD_INPUT)
    yield runs
    for proc, _ in runs.values():
        if proc.poll() is None:
            proc.kill()
        # Its pipes closed whether or not a test read them: the tests of this module are
        # shared among pytest-xdist's workers, and each starts every run.
        proc.communicate()


@pytest.mark.parametrize("case", BAD_INPUT)
def test_bad_input_exits_2_with_one_line(
    bad_runs: dict[str, Run],
    server: StaticServer,
    closed_port: int,
    monkeypatch: pytest.MonkeyPatch,
    case: str,
) -> None:
    if case in IN_PROCESS:
        args = _bad_args(case, server.url("form.html"), f"http://127.0.0.1:{closed_port}")
        done = run_cli(monkeypatch, *args)
        code, out, err, names = done.returncode, done.stdout, done.stderr, NAMED[case]
    else:
        proc, names = bad_runs[case]
        code, out, err = _finish(proc)
    assert "Traceback" not in err
    assert code == 2, err
    assert out == ""
    assert err.endswith("\n")
    lines = err.rstrip("\n").split("\n")
    assert len(lines) == 1, err
    assert lines[0].startswith("pagesight: "), err
    for name in names:
        assert name in lines[0], err
