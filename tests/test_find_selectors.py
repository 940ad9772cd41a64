"""Selectors: for every element of every fixture page, its selector path run through
``querySelectorAll`` step by step in its own frame matches exactly one element each time, and
the last is exactly that element (``document.querySelector`` agrees). Iframes open their
document, other hosts their shadow root (closed ones through pagesight's hooks)."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import PAGES, StaticServer
from pagesight import Browser, Element, Observation
from pagesight.observe.tree import Node

# Pages that hang or break the walker on purpose would only fail.
SKIP = {
    "edge-busy.html",
    "breaks-walker.html",  # breaks the walker on purpose
}
ALL_PAGES = sorted(p.name for p in PAGES.glob("*.html") if p.name not in SKIP)
# A plain article (nothing but text), and canvas apps whose canvas has no name to guess.
NOTHING_TO_ACT_ON = {
    "act-xy-late.html",  # its button comes late, on purpose (an action must wait for it)
    "article-plain.html",
    "canvas-fallback.html",
    "ready-pages.html",  # a catalogue to read, loaded page by page
    "save-status.html",  # a status line for expect to read
    "secret-shown-frame.html",  # framed text only (secret-shown.html holds it)
    "text-injection.html",  # an article whose text tries to end the untrusted-content block
    "unseen-text.html",  # text only, some of it unseen on purpose
    "inject-frame.html",  # framed text only (inject-shop.html holds it)
    "net-frame.html",  # framed text only (net-requests.html holds it)
    "vision-wide-rtl.html",
}

# Runs in the frame a walker document lives in: each item is [local id, steps], the steps
# being the selectors from that document down. Answers null for a match, else what went wrong.
CHECK = """items => {
  const api = globalThis[Symbol.for('pagesight.walker')];
  const inside = (el) => {
    if (el.localName === 'iframe' || el.localName === 'frame') return el.contentDocument;
    const hooks = el.ownerDocument.defaultView[Symbol.for('pagesight.hooks')];
    return el.shadowRoot || (hooks && hooks.closedRoots.get(el)) || null;
  };
  return items.map(([local, steps]) => {
    const want = api.elementById(local);
    if (!want) return 'the element is gone';
    let root = document, el = null;
    for (const [i, step] of steps.entries()) {
      if (i > 0 && !(root = inside(el))) return `step ${i}: nothing to enter at ${steps[i - 1]}`;
      let all;
      try { all = root.querySelectorAll(step); } catch (e) { return `step ${i}: ${e.message}`; }
      if (all.length !== 1) return `step ${i} ${step} matches ${all.length} elements`;
      el = all[0];
    }
    if (el !== want) return 'it matches another element';
    if (root.querySelector(steps[steps.length - 1]) !== want) return 'querySelector disagrees';
    return null;
  });
}"""


def _hosts_by_document(browser: Browser, obs: Observation) -> dict[str, tuple[str, ...]]:
    """The path to each walker document: () for the top one; for a cross-origin frame (walked
    by a walker of its own), the path of its iframe element."""
    ids = browser._browser.ids  # the session's registry: element id -> (document, local id)

    def document(node: Node) -> str:
        ref = ids.locate(node.id) if node.id is not None else None
        assert ref is not None
        return ref.document

    hosts: dict[str, tuple[str, ...]] = {}

    def visit(nodes: tuple[Node, ...], path: tuple[str, ...]) -> None:
        for node in nodes:
            inner = path
            if node.id is not None:
                hosts.setdefault(document(node), path)
                inside = {document(n) for n in node.walk() if n.id is not None and n is not node}
                if node.role == "iframe" and node.markup and inside - {document(node)}:
                    inner = node.markup.path
            visit(node.children, inner)

    visit(obs.tree, ())
    return hosts


def _check_page(browser: Browser, page: Any, obs: Observation) -> list[str]:
    ids = browser._browser.ids
    hosts = _hosts_by_document(browser, obs)
    by_document: dict[str, list[tuple[Element, list[Any]]]] = {}
    problems: list[str] = []
    for el in obs.elements:
        if el.markup is None:
            problems.append(f"[{el.id}] {el.role} {el.name!r}: no selector")
            continue
        ref = ids.locate(el.id)
        assert ref is not None
        prefix = hosts[ref.document]
        if el.markup.path[: len(prefix)] != prefix:
            problems.append(f"[{el.id}] {el.markup.path} does not start at its frame {prefix}")
            continue
        steps = list(el.markup.path[len(prefix) :])
        by_document.setdefault(ref.document, []).append((el, [ref.local_id, steps]))
    frames = {
        frame.evaluate("() => globalThis[Symbol.for('pagesight.walker')]?.docToken ?? null"): frame
        for frame in page.playwright.frames
    }
    for document, items in by_document.items():
        answers = frames[document].evaluate(CHECK, [item for _, item in items])
        for (el, (_, steps)), answer in zip(items, answers, strict=True):
            if answer is not None:
                problems.append(f"[{el.id}] {el.role} {el.name!r} {steps}: {answer}")
    return problems


@pytest.mark.parametrize("name", ALL_PAGES)
def test_every_selector_matches_exactly_its_element(
    browser: Browser, server: StaticServer, other_origin: StaticServer, name: str
) -> None:
    page = browser.open(server.url(f"{name}?other={other_origin.origin}"))
    try:
        # The pages are whole at load, but for one that renders 800 ms after it: waited for up
        # to 10 s, a bound for a loaded machine (a page ready sooner returns sooner).
        obs = page.observe(include={"selector"}, wait=10.0 if name == "ready-late.html" else 0)
        problems = _check_page(browser, page, obs)
    finally:
        page.close()
    # Every page offers something to act on, but for those made to offer nothing to the DOM.
    assert obs.elements or name in NOTHING_TO_ACT_ON, obs.text()
    assert not problems, "\n".join(problems)


def test_selectors_prefer_ids_then_stable_attributes_then_positions(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("find-selectors.html"))
    obs = page.observe(include={"selector"}, wait=0)
    page.close()

    def path(name: str, nth: int = 0) -> tuple[str, ...]:
        found = [e for e in obs.elements if e.name == name]
        markup = found[nth].markup
        assert markup is not None
        return markup.path

    assert path("Colon id") == ("#a\\:b\\.c",)
    assert path("Digit id") == ("#\\31 st",)
    assert path("Space id") == ("#with\\ space",)
    assert path("Duplicate id one")[0].endswith("button:nth-of-type(3)")  # #dup is not unique
    assert path("Quoted name") == ('input[name="say \\"hi\\""]',)
    assert path("Backslash name") == ('input[name="back\\\\slash"]',)
    assert path("Line break") == ('button[aria-label="Line\\a break"]',)
    assert path("Checkout") == ('button[data-testid="checkout"]',)
    assert path("User id") == ('input[name="id"]',)
    assert path("Go") == ("#login > button",)  # an id'd ancestor anchors the chain
    assert path("Item", 2) == ("body > ul > li:nth-of-type(3) > a",)
    # Closed root, then open root, then the element: one selector per host.
    assert path("Deep id", 3) == (
        "body > outer-box:nth-of-type(2)",
        ":host > div > inner-box:nth-of-type(2)",
        "#deep",
    )
    # A same-origin frame inside a closed shadow root: host, frame, then the element.
    assert path("Coupon code 优惠码", 1) == (
        "body > outer-box:nth-of-type(2)",
        ":host > iframe",
        "#coupon",
    )


def test_quirks_mode_ids_that_differ_only_in_case_are_not_trusted(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("find-quirks.html"))
    assert page.playwright.evaluate("document.compatMode") == "BackCompat"
    obs = page.observe(include={"selector"}, wait=0)
    paths = {e.name: e.markup.path for e in obs.elements if e.markup}
    page.close()
    assert paths["Cancel"] == ("#Cancel",)
    assert not paths["Upper"][0].startswith("#")  # #Save matches both buttons here
    assert paths["Row link"] == ('a[name="Row"]',)


def test_selectors_only_when_asked(browser: Browser, server: StaticServer) -> None:
    page = browser.open(server.url("find-en-shop.html"))
    assert page.wait_ready(timeout=10)  # both readings of one settled page, or "ready" may differ
    plain = page.observe(wait=0)
    asked = page.observe(include={"selector"}, wait=0)
    page.close()
    # Tag and attributes always come (find scores on them); the selector path only when asked.
    assert all(e.markup is not None and not e.markup.path for e in plain.elements)
    assert all(e.markup is not None and e.markup.path for e in asked.elements)
    assert plain.find("search products")[0].element.name == "Search products"
    assert plain.find("search products")[0].selector is None
    assert [e.id for e in plain.elements] == [e.id for e in asked.elements]
    assert plain.text() == asked.text()  # the outline is the same either way
    search = next(e for e in asked.to_dict()["elements"] if e["name"] == "Search products")
    assert search["selector"] == ['input[name="q"]']
    assert search["tag"] == "input"
    assert search["attributes"]["placeholder"] == "Search products"
    assert "selector" not in plain.to_dict()["elements"][0]
