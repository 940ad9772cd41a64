"""Element ids resolve to live nodes, in the frame that owns them, until the node is gone."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import StaticServer
from pagesight import Browser, StaleElement
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
