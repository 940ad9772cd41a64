"""Element ids resolve to live nodes, in the frame that owns them, until the node is gone."""

from __future__ import annotations

from typing import Any

import pytest

import pagesight.browser.tab
from conftest import StaticServer
from pagesight import Browser, PageCrashed, StaleElement
from support import one


@pytest.mark.parametrize("mode", ["cdp", "evaluate"])
def test_ids_resolve_to_backend_nodes_in_every_frame(
    browser: Browser, server: StaticServer, other_origin: StaticServer, mode: Any
) -> None:
    page = browser.open(server.url(f"iframes.html?other={other_origin.origin}"))
    obs = page.observe(mode=mode)
    for name in ("Place order", "Inner same-origin button", "Cross origin button"):
        where = page.locate(one(obs, name, "button").id)
        if mode == "cdp":
            assert isinstance(where.backend_node_id, int) and where.backend_node_id > 0
        else:
            assert where.backend_node_id is None
    top = page.locate(one(obs, "Place order").id)
    cross = page.locate(one(obs, "Cross origin button").id)
    assert top.document != cross.document  # the out-of-process frame has its own walker
    page.close()


def test_a_removed_element_is_stale_and_its_id_never_returns(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("cards.html"))
    before = page.observe()
    edits = [e for e in before.elements if e.name == "Edit"]
    # Re-render: the first card's button is replaced by a new node with the same text.
    page.playwright.evaluate(
        """() => { const b = document.querySelector('button');
                   const copy = b.cloneNode(true); b.replaceWith(copy); }"""
    )
    after = page.observe()
    new_edits = [e for e in after.elements if e.name == "Edit"]
    assert [e.id for e in new_edits[1:]] == [e.id for e in edits[1:]]  # kept nodes keep ids
    assert new_edits[0].id not in {e.id for e in before.elements}  # a new node, a new id
    with pytest.raises(StaleElement, match="removed"):
        page.locate(edits[0].id)
    with pytest.raises(StaleElement, match="no element"):
        page.locate(10**6)
    page.playwright.reload()
    reloaded = page.observe()
    assert not {e.id for e in reloaded.elements} & {e.id for e in after.elements}
    with pytest.raises(StaleElement):
        page.locate(new_edits[1].id)
    page.close()


def test_a_tab_forgets_the_ids_of_documents_it_left_long_ago_and_keeps_its_own(
    browser: Browser, server: StaticServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session that browses for days keeps the ids of the documents its tabs still show,
    not of every document they ever showed; a tab left idle keeps its ids however much the
    others browse, and a closed tab's are dropped."""
    monkeypatch.setattr(pagesight.browser.tab, "DOCUMENTS_KEPT", 2)
    ids = browser._browser.ids  # the session's registry: element id -> (document, local id)
    idle = browser.open(server.url("cards.html"))
    idle_edit = next(e for e in idle.observe().elements if e.name == "Edit").id
    busy = browser.open(server.url("cards.html"))
    first = busy.observe()
    sizes = []
    for _ in range(6):
        busy.playwright.reload()
        latest = busy.observe()
        sizes.append(len(ids))
    assert ids.locate(first.elements[0].id) is None  # forgotten, not merely stale
    with pytest.raises(StaleElement, match="no element"):
        busy.locate(first.elements[0].id)
    # Acting on it says what became of it: not "never shown", but left a while ago.
    with pytest.raises(StaleElement, match="on a page this tab left a while ago"):
        busy.act(first.elements[0].id, "click")
    assert ids.locate(latest.elements[0].id) is not None
    assert len(set(sizes)) == 1, sizes  # six more documents, no more ids kept
    assert idle.locate(idle_edit).backend_node_id  # the idle tab's ids still resolve
    idle.act(idle_edit, "click")
    idle.close()
    assert ids.locate(idle_edit) is None
    with pytest.raises(PageCrashed, match="the page closed"):  # not "observe again"
        idle.locate(idle_edit)
    busy.close()
    assert ids.locate(latest.elements[0].id) is None


def test_a_page_with_more_documents_than_a_tab_keeps_keeps_those_it_shows(
    browser: Browser,
    server: StaticServer,
    other_origin: StaticServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A page whose frames outnumber the documents a tab keeps (here one, against two: the
    page and its out-of-process frame) still resolves every id of its latest reading, and
    its ids are dropped with the tab."""
    monkeypatch.setattr(pagesight.browser.tab, "DOCUMENTS_KEPT", 1)
    ids = browser._browser.ids
    page = browser.open(server.url(f"iframes.html?other={other_origin.origin}"))
    obs = page.observe()
    shown = [one(obs, name, "button").id for name in ("Place order", "Cross origin button")]
    for element_id in shown:
        assert page.locate(element_id).backend_node_id
    # The frame shows new documents (an advert that rotates): the page, shown by every
    # reading, keeps its ids; the frame's old documents are forgotten.
    sizes = []
    for _ in range(3):
        page.playwright.evaluate(
            """() => new Promise(loaded => {
                 const frame = document.getElementById('payment-frame');
                 frame.onload = loaded;
                 frame.src = frame.src;
               })"""
        )
        latest = page.observe()
        sizes.append(len(ids))
    assert one(latest, "Place order", "button").id == shown[0]
    assert page.locate(shown[0]).backend_node_id
    assert ids.locate(shown[1]) is None  # the frame's first document is forgotten
    assert len(set(sizes)) == 1, sizes
    shown.append(one(latest, "Cross origin button", "button").id)
    page.close()
    assert [ids.locate(element_id) for element_id in shown] == [None, None, None]
