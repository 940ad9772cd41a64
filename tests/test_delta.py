"""observe(since=previous): only what changed, so a model reads a small delta."""

from __future__ import annotations

import json

from conftest import StaticServer
from pagesight import Browser, Page
from support import one


def _list_page(page: Page, items: int = 200) -> None:
    rows = "".join(
        f"<li><span>Task {i}: review the quarterly report</span> "
        f"<button>Done {i}</button> <a href='/t/{i}'>Open {i}</a></li>"
        for i in range(items)
    )
    page.playwright.set_content(f"<h1>Tasks</h1><ul>{rows}</ul>")


def test_a_delta_lists_added_removed_and_changed_elements(page: Page) -> None:
    _list_page(page)
    full = page.observe()
    assert len(full.elements) >= 400
    page.playwright.evaluate(
        """() => {
          const items = document.querySelectorAll('li');
          items[3].querySelector('button').textContent = 'Undo 3';   // changed
          items[5].remove();                                        // removed
          const li = document.createElement('li');
          li.innerHTML = "<button>Done new</button>";
          document.querySelector('ul').append(li);                  // added
        }"""
    )
    delta = page.observe(since=full)
    assert delta.changes is not None and not delta.changes.new_document
    assert [e.name for e in delta.changes.added] == ["Done new"]
    assert sorted(e.name for e in delta.changes.removed) == ["Done 5", "Open 5"]
    ((before, after),) = delta.changes.changed
    assert (before.name, after.name, before.id) == ("Done 3", "Undo 3", after.id)
    lines = delta.text().splitlines()
    assert lines[1] == "changes: 1 added, 2 removed, 1 changed"
    # The four share their heading: said once, above them, as the outline says it.
    assert lines[2] == 'in "Tasks":' and delta.text().count("Tasks") == 1
    assert any(line.startswith("  + [") and 'button "Done new"' in line for line in lines)
    assert any(line.startswith("  ~ [") and '(was button "Done 3")' in line for line in lines)
    # A small change on a 200-item page is a small read.
    assert delta.tokens < 0.2 * full.tokens
    # The delta still holds the whole page, so the next delta builds on it.
    assert len(delta.elements) == len(full.elements) - 1
    assert json.loads(delta.to_json())["changes"]["added"][0]["name"] == "Done new"
    unchanged = page.observe(since=delta)
    assert unchanged.text().splitlines()[1] == "changes: 0 added, 0 removed, 0 changed"


def test_a_new_document_is_shown_whole(browser: Browser, server: StaticServer) -> None:
    page = browser.open(server.url("cards.html"))
    before = page.observe()
    page.playwright.goto(server.url("form.html"))
    after = page.observe(since=before)
    assert after.changes is not None and after.changes.new_document
    one(after, "Send message", "button")
    assert 'button "Send message"' in after.text()
    page.close()


def test_a_page_that_offered_nothing_to_act_on_then_something_is_still_that_page(
    page: Page,
) -> None:
    # Ids are per document, so two readings sharing none are two documents, unless one of
    # them had no element at all: a list still loading is the same page once it fills in.
    page.playwright.set_content("<h1>Tasks</h1><p>Loading…</p>")
    empty = page.observe()
    assert empty.elements == ()
    page.playwright.evaluate(
        """() => document.querySelector('p').outerHTML =
             "<ul><li><button>Done 1</button></li><li><button>Done 2</button></li></ul>\""""
    )
    filled = page.observe(since=empty)
    assert filled.changes is not None and not filled.changes.new_document
    assert [e.name for e in filled.changes.added] == ["Done 1", "Done 2"]
    assert filled.text().splitlines()[1] == "changes: 2 added, 0 removed, 0 changed"
    # And back: every element gone is a change of this page too, not another document.
    page.playwright.evaluate("() => document.querySelector('ul').remove()")
    emptied = page.observe(since=filled)
    assert emptied.changes is not None and not emptied.changes.new_document
    assert sorted(e.name for e in emptied.changes.removed) == ["Done 1", "Done 2"]
