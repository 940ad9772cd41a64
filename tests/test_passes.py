"""The pure passes and renderers, on hand-built trees."""

from __future__ import annotations

from pagesight import Observation
from pagesight.observe import passes
from pagesight.observe.budget import fit_tokens
from pagesight.observe.ids import IdRegistry
from pagesight.observe.render import truncate_chars
from pagesight.observe.tree import Node
from pagesight.tokens import count_tokens


def _obs(*nodes: Node) -> Observation:
    return Observation(
        url="http://127.0.0.1/",
        title="T",
        ready=True,
        mode="cdp",
        tree=nodes,
        elements=passes.elements(nodes),
    )


def text(s: str) -> Node:
    return Node(role="text", name=s)


def test_ids_are_stable_per_document_and_never_reused() -> None:
    ids = IdRegistry()
    a1, a2 = ids.id_of("docA", 1), ids.id_of("docA", 2)
    assert ids.id_of("docA", 1) == a1
    b1 = ids.id_of("docB", 1)  # a new document: the same local id is a new element
    assert len({a1, a2, b1}) == 3
    ref = ids.locate(b1)
    assert ref is not None and ref.document == "docB" and ref.local_id == 1
    assert ids.locate(999) is None


def test_repeated_text_is_least_useful_then_long_text_then_deep_headings() -> None:
    nodes = (
        Node(role="heading", name="Top", level=1),
        text("short"),
        text("a much longer paragraph of text"),
        Node(role="heading", name="Deep", level=4),
        text("short"),
    )
    order = [n.name for n in passes.least_useful_text(nodes)]
    assert order == ["short", "a much longer paragraph of text", "short", "Deep", "Top"]


def test_text_repeating_a_controls_or_groups_name_is_dropped() -> None:
    tree = passes.collapse(
        (
            Node(
                role="group",
                name="Contact by",
                children=(text("Contact by"), Node(role="radio", name="Email", id=1)),
            ),
            text("Notes:"),
            Node(role="textbox", name="Notes", id=2),
            text("Notes"),  # not followed by its control: kept
        )
    )
    assert tree[0].children == (Node(role="radio", name="Email", id=1),)
    assert [n.name for n in tree[1:]] == ["Notes", "Notes"]
    assert tree[1].id == 2


def test_single_item_lists_are_collapsed() -> None:
    link = Node(role="link", name="Home", id=1)
    (lst,) = passes.collapse(
        (Node(role="list", children=(Node(role="listitem", children=(link,)),)),)
    )
    assert lst.children == (link,)


def test_outline_quotes_text_that_looks_like_structure() -> None:
    obs = _obs(text("main"), text("[1] not an id"), text("plain words"))
    lines = obs.text().splitlines()[1:]
    assert lines == ['"main"', '"[1] not an id"', "plain words"]


def test_table_rows_of_text_render_on_one_line() -> None:
    row = Node(
        role="row",
        children=(
            Node(role="cell", children=(text("Alice"),)),
            Node(role="cell", children=(text("Admin"),)),
        ),
    )
    assert "row: Alice | Admin" in _obs(Node(role="table", children=(row,))).text()


def test_context_is_the_nearest_group_label_else_heading() -> None:
    obs = _obs(
        Node(role="heading", name="Team", level=2),
        Node(role="button", name="Invite", id=1),
        Node(role="group", children=(text("Alice"), Node(role="button", name="Edit", id=2))),
    )
    assert [e.context for e in obs.elements] == ["Team", "Alice"]


def test_fit_tokens_never_drops_an_element() -> None:
    nodes = (
        *(text(f"paragraph {i} " * 30) for i in range(20)),
        Node(role="button", name="Go", id=1),
    )
    obs = fit_tokens(_obs(*nodes), 60)
    assert obs.tokens <= 60
    assert [e.name for e in obs.elements] == ["Go"]
    assert '[1] button "Go"' in obs.text()


def test_truncate_chars_cuts_at_a_line_and_says_how_much() -> None:
    text_in = "\n".join(f"line {i}" for i in range(100))
    out = truncate_chars(text_in, 120)
    assert len(out) <= 120 and out.endswith("more lines")
    assert all(line.startswith("line") for line in out.splitlines()[:-1])
    assert truncate_chars("short", 120) == "short"


def test_a_change_is_shown_only_on_a_dom_reading_of_the_same_kind_and_when_cheaper() -> None:
    # The one rule the LLM planner and the MCP replies share (a change, or the whole page).
    assert passes.reads_on("cdp", "cdp") and passes.reads_on("evaluate", "evaluate")
    assert not passes.reads_on("cdp", None)  # the model has no page to read it on
    assert not passes.reads_on("vision", "vision")  # a picture has no outline to change
    assert not passes.reads_on("cdp", "vision") and not passes.reads_on("vision", "cdp")
    assert not passes.reads_on("evaluate", "cdp")  # another walker: another outline
    page = "page x\n" + "\n".join(f'[{i}] button "Item {i}"' for i in range(40))
    small = 'page x\nchanges: 0 added, 0 removed, 1 changed\n~ [3] button "Done"'
    assert passes.smaller_than_page(small, page)
    assert not passes.smaller_than_page(page, page)  # as big as the page: the page
    # The changes already shown on top of the same page count too.
    room = count_tokens(page) - count_tokens(small)
    assert passes.smaller_than_page(small, page, shown=room - 1)
    assert not passes.smaller_than_page(small, page, shown=room)
