"""find on real pages: top-1 accuracy over the labelled query set (tests/find_queries.json),
page.find and obs.find, and observe(focus=) ranking the same way."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import StaticServer
from pagesight import Browser, Element, InvalidOption, Match, Observation, Page
from pagesight.aio import AsyncBrowser
from pagesight.observe.find import Index, Query, score


def _load(name: str) -> list[dict[str, Any]]:
    queries: list[dict[str, Any]] = json.loads(
        (Path(__file__).parent / name).read_text(encoding="utf-8")
    )["queries"]
    return queries


# The set the weights were tuned on: it checks that nothing learnt is lost, but it cannot
# say how well find does on pages and words it has not seen.
QUERIES = _load("find_queries.json")
TUNED_ACCURACY = 0.95
# The gate: new pages and phrasings written without reading the scorer, never tuned on.
HELD_OUT = _load("find_heldout.json")
# Measured when the set was written, the scorer untouched: 92.4% (121 of 131; the ten misses are
# paraphrases with no word of the name, "Search mail" on both a button and a field, a word
# shared by two names, and identical buttons told apart only by their card). The gate sits
# just under that figure: losing one more query fails. Raise it when find gets better on
# pages it was not tuned on, never by tuning on these queries.
HELD_OUT_ACCURACY = 0.92


@pytest.fixture(scope="module")
def observed(browser: Browser, server: StaticServer) -> dict[str, Observation]:
    """Each page of both query sets, observed once with selectors."""
    out: dict[str, Observation] = {}
    for name in sorted({q["page"] for q in QUERIES + HELD_OUT}):
        page = browser.open(server.url(name))
        out[name] = page.observe(include={"selector"}, wait=0)
        page.close()
    return out


def _expected(obs: Observation, expect: dict[str, str]) -> list[Element]:
    return [
        el
        for el in obs.elements
        if el.role == expect["role"]
        and el.name == expect["name"]
        and ("context" not in expect or el.context == expect["context"])
    ]


def top1_accuracy(
    observed: dict[str, Observation], queries: list[dict[str, Any]]
) -> tuple[float, list[str]]:
    """The share of queries whose first match is the labelled element, and a line per miss."""
    misses: list[str] = []
    for q in queries:
        obs = observed[q["page"]]
        (want,) = _expected(obs, q["expect"])
        got = obs.find(q["query"], top=3)
        if not got or got[0].element.id != want.id:
            ranked = "; ".join(f"{m.element.role} {m.element.name!r} {m.score:g}" for m in got)
            wanted = next((m.score for m in obs.find(q["query"], top=500) if m.element == want), 0)
            misses.append(
                f"MISS {q['page']} {q['query']!r} ({q['kind']}): wanted {want.role} "
                f"{want.name!r} (score {wanted:g}), got {ranked or 'nothing'}"
            )
    return 1 - len(misses) / len(queries), misses


def test_the_query_set_is_broad_enough() -> None:
    assert len(QUERIES) >= 80
    assert len({q["page"] for q in QUERIES}) >= 6
    kinds = Counter(q["kind"] for q in QUERIES)
    assert {"exact", "role", "placeholder", "partial", "fullwidth", "paraphrase"} <= set(kinds)
    scripts = {"Han": (0x4E00, 0x9FFF), "kana": (0x3040, 0x30FF), "Hangul": (0xAC00, 0xD7AF)}
    for script, (lo, hi) in scripts.items():
        assert any(lo <= ord(c) <= hi for q in QUERIES for c in q["query"]), script
    # Some typed full-width.
    assert any(any(0xFF01 <= ord(c) <= 0xFF5E for c in q["query"]) for q in QUERIES)


@pytest.mark.parametrize("queries", [QUERIES, HELD_OUT], ids=["tuned", "held-out"])
def test_every_label_names_exactly_one_element(
    observed: dict[str, Observation], queries: list[dict[str, Any]]
) -> None:
    bad = [
        f"{q['page']} {q['query']!r}: {len(found)} elements match {q['expect']}"
        for q in queries
        if len(found := _expected(observed[q["page"]], q["expect"])) != 1
    ]
    assert not bad, "\n".join(bad)


def test_the_held_out_set_is_new_pages_and_words_in_four_languages() -> None:
    assert len(HELD_OUT) >= 80
    pages = {q["page"] for q in HELD_OUT}
    assert len(pages) >= 3 and not pages & {q["page"] for q in QUERIES}
    scripts = {"Han": (0x4E00, 0x9FFF), "kana": (0x3040, 0x30FF), "Hangul": (0xAC00, 0xD7AF)}
    for script, (lo, hi) in scripts.items():
        assert sum(any(lo <= ord(c) <= hi for c in q["query"]) for q in HELD_OUT) >= 15, script
    assert sum(q["query"].isascii() for q in HELD_OUT) >= 15


@pytest.mark.parametrize(
    ("queries", "gate"),
    [(QUERIES, TUNED_ACCURACY), (HELD_OUT, HELD_OUT_ACCURACY)],
    ids=["tuned", "held-out"],
)
def test_top1_accuracy(
    observed: dict[str, Observation],
    capsys: pytest.CaptureFixture[str],
    queries: list[dict[str, Any]],
    gate: float,
) -> None:
    accuracy, misses = top1_accuracy(observed, queries)
    report = "\n".join([f"top-1 accuracy {accuracy:.1%} over {len(queries)} queries", *misses])
    with capsys.disabled():  # every miss is printed, pass or fail
        print("\n" + report)
    assert accuracy >= gate, report


def test_the_index_agrees_with_plain_scoring_on_every_page(
    observed: dict[str, Observation],
) -> None:
    for q in QUERIES:
        index = Index(observed[q["page"]].elements)
        parsed = Query.parse(q["query"])
        ranked = index.rank(parsed)
        plain = {i: s for i, t in enumerate(index.targets) if (s := score(parsed, t)) > 0}
        assert dict((i, s) for s, i in ranked) == plain, q["query"]


# --- the API ----------------------------------------------------------------------------------


@pytest.fixture
def shop(browser: Browser, server: StaticServer) -> Iterator[Page]:
    page = browser.open(server.url("find-en-shop.html"))
    yield page
    page.close()


def test_page_find_returns_matches_with_selectors(shop: Page) -> None:
    matches = shop.find("search box", top=2)
    assert len(matches) == 2
    best = matches[0]
    assert isinstance(best, Match)
    assert (best.element.role, best.element.name) == ("searchbox", "Search products")
    assert best.selector == 'input[name="q"]' and best.path == ()
    assert best.full_selector == 'input[name="q"]'
    assert best.score > matches[1].score
    assert best.description == (
        'searchbox "Search products" <input name="q" type="search" '
        'placeholder="Search products" aria-label="Search products">'
    )
    # The selector works in the page as it is.
    assert shop.playwright.evaluate(
        "s => document.querySelector(s).placeholder", best.selector
    ) == ("Search products")
    assert best.to_dict()["selector"] == 'input[name="q"]'


def test_obs_find_needs_no_browser_and_matches_page_find(shop: Page) -> None:
    obs = shop.observe(include={"selector"})
    from_page = shop.find("add to cart", top=5)
    from_obs = obs.find("add to cart", top=5)
    assert [(m.element.id, m.score, m.selector) for m in from_obs] == [
        (m.element.id, m.score, m.selector) for m in from_page
    ]
    # Three identical buttons: the enabled ones first, in document order, the disabled last.
    assert [m.element.context for m in from_obs[:3]] == [
        "Trail Runner 2",
        "Summit Jacket",
        "Basecamp Tent",
    ]
    assert "disabled" in from_obs[2].element.states
    assert len({m.selector for m in from_obs}) == len(from_obs)


def test_obs_find_without_selectors_still_ranks(shop: Page) -> None:
    (best,) = shop.observe().find("subscribe", top=1)
    assert best.element.name == "Subscribe"
    assert best.selector is None and best.full_selector is None


def test_frames_and_shadow_roots_come_with_their_path(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("find-mixed.html"))
    coupon, sign_out = page.find("coupon", top=1)[0], page.find("sign out", top=1)[0]
    page.close()
    assert coupon.path == ("#billing",) and coupon.selector == "#coupon"
    assert coupon.full_selector == "#billing >> #coupon"
    assert sign_out.path == ("body > main > acme-user-menu",)
    assert sign_out.selector == ":host > div > button"


@pytest.mark.parametrize(
    ("args", "option"),
    [(("",), "query"), (("   ",), "query"), (("save", 0), "top"), (("save", -2), "top")],
)
def test_bad_queries_are_refused_before_the_page_is_read(
    shop: Page, args: tuple[Any, ...], option: str
) -> None:
    with pytest.raises(InvalidOption) as caught:
        shop.find(args[0], top=args[1]) if len(args) > 1 else shop.find(args[0])
    assert caught.value.option == option


def test_async_find(browser: Browser, server: StaticServer) -> None:
    async def scenario() -> list[Match]:
        # Attached to the session's browser: launching one more would cost seconds.
        async with await AsyncBrowser.connect(browser.cdp_url) as attached:
            page = await attached.open(server.url("find-zh-portal.html"))
            try:
                return await page.find("搜索框", top=3)
            finally:
                await page.close()

    matches = asyncio.run(scenario())
    assert matches[0].element.name == "搜索你感兴趣的内容"
    assert matches[0].selector == "#kw"


# --- focus ranks the same way ---------------------------------------------------------------------


def test_focus_keeps_the_best_matches_with_their_headings(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("find-zh-portal.html"))
    obs = page.observe(focus="记住我复选框")
    page.close()
    names = [e.name for e in obs.elements]
    assert names[0] == "记住我"  # a role word is a role, not text: 输入 is not matched
    assert "请输入验证码" not in names
    assert 'h2 "账号登录"' in obs.text()  # its heading stays
    assert obs.notes and "记住我复选框" in obs.notes[0]


def test_focus_uses_attributes_too(browser: Browser, server: StaticServer) -> None:
    page = browser.open(server.url("find-en-shop.html"))
    obs = page.observe(focus="you@example.com")  # only in a placeholder
    page.close()
    assert [e.name for e in obs.elements] == ["Email"]


def test_a_link_drawn_as_a_button_is_found_as_the_button_people_call_it(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("find-drawn-buttons.html"))
    obs = page.observe()
    looks = {el.name: el.looks for el in obs.elements if el.role == "link"}
    # By its class ("button") or its box (filled, padded); a plain text link is a link.
    assert looks == {"Contacts": None, "Message help": None, "Edit": "button", "Message": "button"}
    best = page.find("the Edit button", top=10)
    assert (best[0].element.role, best[0].element.name) == ("link", "Edit"), best
    # The editor whose id holds "edit" only inside "editor" comes after every button.
    assert best[-1].element.name == "New note", best
    message = page.find("Message button", top=10)
    assert message[0].element.name == "Message", message
    assert message[-1].element.name == "Message help"  # a plain link, matched by its words only
    assert page.find("the Contacts link")[0].element.name == "Contacts"
    page.close()
