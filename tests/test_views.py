"""Views, formats, include, budgets and focus."""

from __future__ import annotations

import json

from conftest import StaticServer
from pagesight import Browser, Observation, Page
from support import one

ARTICLE = """
<h1>Release notes</h1>
<nav><a href="/a">Home</a> <a href="/b">Pricing</a></nav>
{paragraphs}
<form><label>Email <input name=email></label><button>Subscribe</button></form>
<footer><p>Copyright notice repeated</p><p>Copyright notice repeated</p></footer>
"""


def _article(page: Page, paragraphs: int = 30) -> None:
    body = "".join(
        f"<h2>Change {i}</h2><p>{f'Long paragraph about change {i}. ' * 12}</p>"
        for i in range(paragraphs)
    )
    page.playwright.set_content(ARTICLE.format(paragraphs=body))


def _controls_read(obs: Observation) -> list[str]:
    """Each control as the text a model reads names it (``[7] button "Subscribe"``); every
    element of the observation must be there."""
    text = obs.text()
    named = [f'[{e.id}] {e.role} "{e.name}"' for e in obs.elements]
    assert all(n in text for n in named), [n for n in named if n not in text]
    return named


def test_interactive_view_lists_only_what_can_be_acted_on(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("form.html"))
    full = page.observe()
    inter = page.observe(view="interactive")
    assert [e.id for e in inter.elements] == [e.id for e in full.elements]
    body = inter.text().splitlines()[1:]
    assert body and all(line.startswith(("[", "# ")) for line in body), body
    assert inter.tokens < full.tokens
    page.close()


def test_json_carries_elements_and_the_tree(browser: Browser, server: StaticServer) -> None:
    page = browser.open(server.url("form.html"))
    obs = page.observe()
    data = json.loads(obs.to_json())
    assert {"url", "title", "ready", "mode", "tokens", "elements", "tree"} <= data.keys()
    assert data["ready"] is True and data["mode"] == "cdp"
    assert data["tokens"] == obs.tokens
    country = next(e for e in data["elements"] if e["name"] == "Country")
    assert country["value"] == "France" and country["options"] == ["Canada", "France", "Japan"]
    assert "bounds" not in country  # coordinates only on request
    assert data["tree"]["role"] == "page" and data["tree"]["children"]
    page.close()


def test_include_bounds_and_href_on_request(browser: Browser, server: StaticServer) -> None:
    page = browser.open(server.url("scroll.html"))
    plain = page.observe()
    rich = page.observe(include={"bounds", "href"})
    assert "@" not in plain.text() and "->" not in plain.text()
    link = one(rich, "Doc page 1", "link")
    assert link.bounds is not None and link.href is not None
    assert f"-> {link.href}" in rich.text()
    x, y, w, h = link.bounds
    assert f"@{x},{y} {w}x{h}" in rich.text()
    assert json.loads(rich.to_json())["elements"][0].get("bounds")
    page.close()


def test_legend_is_one_line_per_element_with_context(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("cards.html"))
    obs = page.observe()
    legend = obs.text("legend").splitlines()
    assert len(legend) == 1 + len(obs.elements)
    assert any(line.endswith('button "Edit" in "Bob Martin"') for line in legend), legend
    page.close()


def test_max_tokens_keeps_every_control_and_says_what_it_cut(page: Page) -> None:
    _article(page)
    full = page.observe()
    budget = 250
    assert full.tokens > budget * 4
    small = page.observe(max_tokens=budget)
    assert small.tokens <= budget
    # The text the model reads still holds every control, each on its own line as in full.
    assert _controls_read(small) == _controls_read(full)
    assert "cut to fit 250 tokens" in small.text().splitlines()[-1]
    # Top-level headings outlive paragraphs and deeper headings.
    assert 'h1 "Release notes"' in small.text()
    assert "Long paragraph" not in small.text()
    # A gentle budget only shortens long texts.
    medium = page.observe(max_tokens=full.tokens - 5)
    assert medium.tokens <= full.tokens - 5
    assert "shortened" in medium.text().splitlines()[-1]
    assert medium.text().count("Copyright notice repeated") == 2


def test_max_tokens_below_the_controls_alone_keeps_them_and_says_so(page: Page) -> None:
    _article(page, paragraphs=2)
    full = page.observe()
    obs = page.observe(max_tokens=5)
    assert _controls_read(obs) == _controls_read(full)
    assert len(_controls_read(obs)) == 4  # Home, Pricing, Email, Subscribe
    assert "alone exceed 5 tokens" in obs.text()


def test_max_chars_truncates_deterministically(page: Page) -> None:
    _article(page)
    first = page.observe(max_chars=500).text()
    second = page.observe(max_chars=500).text()
    assert first == second and len(first) <= 500
    assert first.splitlines()[-1].startswith("… truncated at 500 chars")


def test_focus_keeps_the_relevant_part_with_its_heading(page: Page) -> None:
    _article(page)
    obs = page.observe(focus="change 17")
    text = obs.text()
    assert 'h2 "Change 17"' in text
    assert "change 17." in text
    assert "Change 3" not in text
    assert obs.tokens < page.observe().tokens / 5


def test_a_paragraph_with_inline_controls_reads_as_one_line(page: Page) -> None:
    page.playwright.set_content(
        "<p>Read the <a href='/docs'>docs</a>, then press <button>Go</button>.</p>"
        "<ul><li><a href='/a'>Alpha</a></li><li><a href='/b'>Beta</a></li></ul>"
    )
    obs = page.observe()
    docs, go = (e.id for e in obs.elements[:2])
    assert f'Read the [{docs}] link "docs", then press [{go}] button "Go".' in obs.text()
    # A list of links is not prose: one link a line.
    assert any(line.strip().endswith('link "Alpha"') for line in obs.text().splitlines())
