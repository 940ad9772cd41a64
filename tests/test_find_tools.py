"""The model-facing tool texts (find_element, page_perceive) and ``pagesight find``."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli_support import run_cli
from conftest import StaticServer
from pagesight import Browser, InvalidOption, Observation
from pagesight.cli import main
from pagesight.observe.tooltext import find_element, page_perceive

REPO = Path(__file__).resolve().parent.parent


# What "搜索框" (search box) matches on find-zh-portal.html, counted from the page: the two
# fields whose placeholder says 搜索 (search), then every other field a box (框) can name by
# its role: the user name, password, captcha and comment fields and the city select. Not the
# links, buttons or the checkbox.
SEARCH_BOX_MATCHES = (
    "搜索你感兴趣的内容",
    "站内搜索",
    "用户名",
    "密码",
    "请输入验证码",
    "写下你的评论…",
    "所在城市",
)


@pytest.fixture(scope="module")
def portal(browser: Browser, server: StaticServer) -> Observation:
    page = browser.open(server.url("find-zh-portal.html"))
    obs = page.observe(include={"selector"}, wait=0)
    page.close()
    return obs


@pytest.fixture(scope="module")
def many(browser: Browser) -> Observation:
    """A page of 400 buttons: more than 6,000 characters of entries."""
    page = browser.open("about:blank")
    page.playwright.set_content(
        "".join(f"<button id='b{i}' title='Action {i}'>Action {i}</button>" for i in range(400))
    )
    obs = page.observe(include={"selector"}, wait=0)
    page.close()
    return obs


# --- find_element ------------------------------------------------------------------------------


def test_find_element_shows_the_best_match_then_the_runners_up(portal: Observation) -> None:
    text = find_element(portal, "搜索框", top=3)
    head, best, second, third = text.split("\n")
    assert head == f'query: "搜索框"   matches: {len(SEARCH_BOX_MATCHES)}'
    assert re.fullmatch(
        r'best   \[\d+\] #kw\s+textbox "搜索你感兴趣的内容" <input id="kw" name="wd" type="text" '
        r'placeholder="搜索你感兴趣的内容">\s+score 12',
        best,
    ), best
    assert second.startswith("2      [") and third.startswith("3      [")
    assert second.endswith("score 12") and "站内搜索" in second  # a tie, in document order
    # Columns line up, so a model (or a person) reads them as a table.
    assert best.index("score") == second.index("score") == third.index("score")


def test_find_element_counts_every_match_and_lists_them(portal: Observation) -> None:
    lines = find_element(portal, "搜索框", top=20).split("\n")
    assert lines[0] == f'query: "搜索框"   matches: {len(SEARCH_BOX_MATCHES)}'
    listed = [re.findall(r'\w+ "([^"]+)" <', line)[0] for line in lines[1:]]  # role "name" <tag
    assert sorted(listed) == sorted(SEARCH_BOX_MATCHES)


def test_find_element_in_chinese(portal: Observation) -> None:
    head, best, *_ = find_element(portal, "登录按钮", lang="zh").split("\n")
    assert head.startswith('查询: "登录按钮"   匹配: ')
    assert best.startswith("最佳") and "立即登录" in best and "得分" in best


def test_find_element_when_nothing_matches(portal: Observation) -> None:
    assert find_element(portal, "zzzz") == (
        'query: "zzzz"   matches: 0\n'
        "no element matches; try other words, or page_perceive to list them all"
    )


def test_find_element_shows_frame_and_shadow_paths(browser: Browser, server: StaticServer) -> None:
    page = browser.open(server.url("find-mixed.html"))
    obs = page.observe(include={"selector"}, wait=0)
    page.close()
    assert "#billing >> #coupon" in find_element(obs, "coupon", top=1)
    assert "body > main > acme-feedback >> " in find_element(obs, "send feedback", top=1)


# --- page_perceive ------------------------------------------------------------------------------


def test_page_perceive_lists_every_element_with_its_selector(portal: Observation) -> None:
    head, *lines = page_perceive(portal).split("\n")
    assert head == f"interactive elements: {len(portal.elements)}"
    assert len(lines) == len(portal.elements)
    for line, el in zip(lines, portal.elements, strict=True):
        assert el.markup is not None
        assert line.startswith(f"[{el.id}] ")
        assert line.endswith(f"selector: {' >> '.join(el.markup.path)}")
    kw = next(line for line in lines if "#kw" in line)
    assert 'input/textbox "搜索你感兴趣的内容"' in kw and 'name="wd"' in kw
    assert page_perceive(portal, lang="zh").split("\n")[0] == (
        f"可交互元素: {len(portal.elements)}"
    )


@pytest.mark.parametrize("limit", [6000, 700])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_page_perceive_is_cut_with_a_pointer_to_find_element(
    many: Observation, limit: int, lang: str
) -> None:
    text = page_perceive(many, max_chars=limit, lang=lang)  # type: ignore[arg-type]
    assert len(text) <= limit
    lines = text.split("\n")
    listed = sum(1 for line in lines if line.startswith("["))
    left_out = len(many.elements) - listed
    assert left_out > 0
    assert "find_element" in lines[-1] and str(left_out) in lines[-1]
    if lang == "en":
        assert (
            lines[-1] == f"… {left_out} more elements left out; use find_element(query) to find one"
        )
    if limit == 6000:
        assert len(text) > 5800  # cut near the limit, not long before


def test_page_perceive_default_is_6000_characters(many: Observation) -> None:
    assert page_perceive(many) == page_perceive(many, max_chars=6000)


def test_tool_texts_refuse_an_unknown_language(portal: Observation) -> None:
    with pytest.raises(InvalidOption):
        find_element(portal, "登录", lang="fr")  # type: ignore[arg-type]
    with pytest.raises(InvalidOption):
        page_perceive(portal, lang="de")  # type: ignore[arg-type]


# --- pagesight find ----------------------------------------------------------------------------


def _run_main(*args: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    assert (code, err.getvalue()) == (0, ""), f"exit {code}: {err.getvalue()}"
    return out.getvalue()


def test_cli_find_prints_the_find_element_text(
    browser: Browser, server: StaticServer, portal: Observation
) -> None:
    out = _run_main("find", server.url("find-zh-portal.html"), "搜索框", "--top", "2",
                    "--cdp-url", browser.cdp_url)  # fmt: skip
    lines = out.rstrip("\n").split("\n")
    assert lines[0] == f'query: "搜索框"   matches: {len(SEARCH_BOX_MATCHES)}'
    assert len(lines) == 3 and lines[1].startswith("best   [") and "#kw" in lines[1]


def test_cli_find_json(browser: Browser, server: StaticServer) -> None:
    url = server.url("find-en-shop.html")
    out = _run_main("find", url, "subscribe", "--format", "json", "--cdp-url", browser.cdp_url)
    data = json.loads(out)
    assert data["query"] == "subscribe" and data["url"] == url and data["total"] >= 1
    best = data["matches"][0]
    assert (best["role"], best["name"]) == ("button", "Subscribe")
    assert best["selector"] and best["path"] == [] and best["score"] > 0
    assert set(best) == {"id", "role", "name", "score", "selector", "path", "description"}


def _start(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "pagesight", *args],
        cwd=REPO,
        env=os.environ.copy(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        encoding="utf-8",
    )


FAILURES = {
    "empty query": (2, "QUERY"),
    "--top 0": (2, "--top"),
    "--format xml": (2, "--format"),
    "unreachable URL": (2, "127.0.0.1"),
    "a page too busy to answer": (1, "did not answer within 3 s"),
}


# Refused by argparse or the query's check before any browser starts: run in-process (as
# "empty query", refused the same way, runs as a real subprocess).
IN_PROCESS = {
    "--top 0": ("save", "--top", "0"),
    "--format xml": ("save", "--format", "xml"),
}


@pytest.fixture(scope="module")
def failing_runs(
    server: StaticServer, closed_port: int
) -> Iterator[dict[str, subprocess.Popen[str]]]:
    """Every failing run done as a subprocess, started at once (two of them start a
    Chromium)."""
    page = server.url("find-en-shop.html")
    dead = f"http://127.0.0.1:{closed_port}/"
    runs = {
        "empty query": _start("find", page, "  "),
        "unreachable URL": _start("find", dead, "save"),
        "a page too busy to answer": _start(
            "find", server.url("edge-busy.html"), "save", "--timeout", "3"
        ),
    }
    assert sorted([*runs, *IN_PROCESS]) == sorted(FAILURES)
    yield runs
    for proc in runs.values():
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


@pytest.mark.parametrize("case", list(FAILURES))
def test_cli_find_fails_with_one_line_and_the_right_exit_code(
    failing_runs: dict[str, subprocess.Popen[str]],
    server: StaticServer,
    monkeypatch: pytest.MonkeyPatch,
    case: str,
) -> None:
    code, name = FAILURES[case]
    if case in IN_PROCESS:
        done = run_cli(monkeypatch, "find", server.url("find-en-shop.html"), *IN_PROCESS[case])
        returncode, out, err = done.returncode, done.stdout, done.stderr
    else:
        out, err = failing_runs[case].communicate(timeout=90)
        returncode = failing_runs[case].returncode
    assert "Traceback" not in err
    assert returncode == code, err
    assert out == ""
    lines = err.rstrip("\n").split("\n")
    assert len(lines) == 1 and lines[0].startswith("pagesight: "), err
    assert name in lines[0], err
