"""Pure passes over the built tree: tidy-up, element extraction with context, views, budgets.

The page-side walker already did visibility, occlusion, reachability and most compaction; what
is left here needs the whole tree (context labels, token budgets) or is cheaper in Python.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace

from pagesight.observe.elements import Changes, Element
from pagesight.observe.find import Query, Target, score
from pagesight.observe.observation import Observation
from pagesight.observe.roles import actions_for
from pagesight.observe.tree import Node
from pagesight.tokens import count_tokens

# Containers whose label tells apart identical controls inside them.
_GROUPING = frozenset(
    {
        "group",
        "listitem",
        "row",
        "article",
        "dialog",
        "alertdialog",
        "form",
        "region",
        "navigation",
        "complementary",
        "banner",
        "contentinfo",
        "search",
        "iframe",
        "figure",
    }
)


def collapse(nodes: tuple[Node, ...], parent_name: str = "") -> tuple[Node, ...]:
    """Tidy what the walker left: dissolve unnamed list items and groups that wrap a single
    node (``list > listitem > link`` → ``list > link``) and drop text that only repeats a name
    already on the tree (a visible label or legend beside the control or group it names).
    """
    out: list[Node] = []
    for i, node in enumerate(nodes):
        if node.is_text and _repeats_name(
            node, nodes[i + 1] if i + 1 < len(nodes) else None, parent_name
        ):
            continue
        children = collapse(node.children, node.name if node.id is None else "")
        wrapper = node.role in ("listitem", "group") and node.id is None and not node.name
        if wrapper and len(children) == 1:  # a group of one says nothing its member does not
            out.append(children[0])
            continue
        out.append(replace(node, children=children) if children != node.children else node)
    return tuple(out)


def _bare(text: str) -> str:
    return text.strip().rstrip(":\uff1a*").strip().casefold()


def _repeats_name(text: Node, following: Node | None, parent_name: str) -> bool:
    bare = _bare(text.name)
    if not bare:
        return False
    if parent_name and bare == _bare(parent_name):
        return True
    return following is not None and following.id is not None and bare == _bare(following.name)


# Controls whose name is the text they show: in a table row, their text is the cell's text.
_SHOWS_ITS_NAME = frozenset(
    {"link", "button", "clickable", "cell", "gridcell", "columnheader", "rowheader"}
)
_HEADER_CELLS = frozenset({"rowheader", "columnheader"})
_DATA_CELLS = frozenset({"cell", "gridcell"})


def _label(node: Node) -> str | None:
    """A container's label: its name, else its first heading or line of text (for a table
    row, its header cell's text, else its first cell's)."""
    if node.name:
        return node.name
    if node.role == "row":
        return _row_label(node)
    for child in node.children:
        if child.role == "heading" or child.is_text:
            return child.name[:80]
        if child.role == "paragraph":  # prose that starts with text: that text
            first = child.children[0] if child.children else None
            return first.name[:80] if first is not None and first.is_text else None
        if child.id is not None:
            return None
    return None


def _row_label(row: Node) -> str | None:
    """A table row is known by its header cell (a ``th`` among its ``td``s, ``scope=row``),
    else by the text of its first cell that shows any: a link's or button's text counts (a
    CRM's name cell is a link to the person), a cell that starts with another control does
    not (every row's "Select" box says the same), nor a name guessed from markup."""
    cells = row.children
    headers = [c for c in cells if c.role in _HEADER_CELLS]
    if headers and any(c.role in _DATA_CELLS for c in cells):  # not the header row itself
        cells = (*headers, *cells)
    return next((text[:80] for cell in cells if (text := _shown_text(cell))), None)


def _shown_text(node: Node) -> str | None:
    """The text ``node`` starts with: its own, a control's shown name, else its first child's
    that shows anything; "" when it starts with a control that shows none (a checkbox, a
    field), ``None`` when it shows nothing at all."""
    if node.is_text:
        return node.name.strip() or None
    if node.id is not None:
        return node.name.strip() if node.role in _SHOWS_ITS_NAME and not node.name_hint else ""
    return next((text for child in node.children if (text := _shown_text(child)) is not None), None)


def elements(nodes: tuple[Node, ...]) -> tuple[Element, ...]:
    """Every actionable node as an Element, in document order, with its context label."""
    out: list[Element] = []
    heading: list[str | None] = [None]

    def visit(node: Node, group: str | None) -> None:
        if node.role == "heading" and node.name:
            heading[0] = node.name[:80]
        if node.id is not None:
            out.append(
                Element(
                    id=node.id,
                    role=node.role,
                    name=node.name,
                    value=node.value,
                    states=frozenset(node.states),
                    actions=actions_for(node.role, node.states, upload=node.upload, drag=node.drag),
                    offscreen=node.offscreen,
                    scroll_container=node.scroll_container,
                    hidden_in_container=node.hidden_in_container,
                    frame=node.frame,
                    bounds=node.bounds,
                    options=node.options,
                    href=node.href,
                    context=group or heading[0],
                    error=node.error,
                    markup=node.markup,
                    name_hint=node.name_hint,
                    placeholder=node.placeholder,
                    hinted_states=frozenset(node.hinted_states),
                    looks=node.looks,
                )
            )
        inner = group
        if node.role in _GROUPING:
            inner = _label(node) or group
        for child in node.children:
            visit(child, inner)

    for node in nodes:
        visit(node, None)
    return tuple(out)


def _is_prose(node: Node) -> bool:
    """Text, or a heading that holds nothing actionable: what a budget may cut."""
    return node.is_text or (node.role == "heading" and not any(n.id for n in node.walk()))


def _map_text(nodes: tuple[Node, ...], fn: Callable[[Node], Node | None]) -> tuple[Node, ...]:
    """Rewrite text nodes (``None`` drops one); containers left empty by it are dropped too."""
    out: list[Node] = []
    for node in nodes:
        if _is_prose(node):
            new = fn(node)
            if new is not None:
                out.append(new)
            continue
        children = _map_text(node.children, fn)
        if node.children and not children and node.id is None and not node.name:
            continue
        out.append(replace(node, children=children) if children != node.children else node)
    return tuple(out)


def shorten_text(nodes: tuple[Node, ...], limit: int) -> tuple[tuple[Node, ...], int]:
    """Cut every text longer than ``limit`` characters; returns the tree and how many were cut."""
    cut = 0

    def fn(node: Node) -> Node:
        nonlocal cut
        if not node.is_text or len(node.name) <= limit:
            return node
        cut += 1
        return replace(node, name=node.name[: limit - 1].rstrip() + "…")

    return _map_text(nodes, fn), cut


def drop_text(nodes: tuple[Node, ...], doomed: set[int]) -> tuple[Node, ...]:
    """Drop the text nodes whose ``id()`` is in ``doomed``."""
    return _map_text(nodes, lambda n: None if id(n) in doomed else n)


def least_useful_text(nodes: tuple[Node, ...]) -> list[Node]:
    """Prose ordered from least to most useful: repeated text, then the longest text, then
    headings from the deepest level up."""
    seen: set[str] = set()
    repeats: list[Node] = []
    rest: list[Node] = []
    headings: list[Node] = []
    for node in _all(nodes):
        if node.is_text:
            (repeats if node.name in seen else rest).append(node)
            seen.add(node.name)
        elif _is_prose(node):
            headings.append(node)
    rest.sort(key=lambda n: -len(n.name))
    headings.sort(key=lambda n: -(n.level or 2))
    return repeats + rest + headings


# --- focus -------------------------------------------------------------------------------------


def focused(obs: Observation, query: str) -> Observation:
    """The part of the page relevant to ``query``, with its headings and groups, and a note
    saying so."""
    tree = focus(obs.tree, query)
    note = f"focused on {query!r}: only the relevant part is shown"
    return replace(obs, tree=tree, elements=elements(tree), notes=(*obs.notes, note))


def focus(nodes: tuple[Node, ...], query: str, *, keep: int = 30) -> tuple[Node, ...]:
    """Keep the nodes most relevant to ``query``, with the groups and headings around them.

    Ranked as ``find`` ranks elements (one scoring for both), over every node: text and
    headings as well as what can be acted on.
    """
    q = Query.parse(query)
    scored = sorted(
        ((score(q, Target.of(n)), i, n) for i, n in enumerate(_all(nodes))),
        key=lambda t: (-t[0], t[1]),
    )
    best = scored[0][0] if scored else 0.0
    # Only the clear matches: a node scoring under half the best one is noise for this query.
    wanted = {id(n) for s, _, n in scored[:keep] if s > 0 and s >= best / 2}
    return _prune(nodes, wanted)


def _all(nodes: tuple[Node, ...]) -> Iterator[Node]:
    for node in nodes:
        yield from node.walk()


def _prune(nodes: tuple[Node, ...], wanted: set[int]) -> tuple[Node, ...]:
    out: list[Node] = []
    last_heading: Node | None = None
    for node in nodes:
        if node.role == "heading":
            last_heading = node
        if id(node) in wanted:
            if (
                last_heading is not None
                and last_heading is not node
                and id(last_heading) not in wanted
            ):
                out.append(last_heading)
                wanted.add(id(last_heading))
            out.append(node)
            continue
        children = _prune(node.children, wanted)
        if children:
            if (
                last_heading is not None
                and id(last_heading) not in wanted
                and last_heading is not node
            ):
                out.append(last_heading)
                wanted.add(id(last_heading))
            out.append(replace(node, children=children))
    return tuple(out)


def _shown(el: Element) -> tuple[object, ...]:
    return (
        el.role,
        el.name,
        el.name_hint,
        el.value,
        el.placeholder,
        el.states,
        el.options,
        el.error,
    )


def changes_since(obs: Observation, previous: Observation) -> Observation:
    """``obs`` with what changed since ``previous`` (``page.observe(since=)``, the agent's
    next step, an MCP reply). Ids are per document: when the two share none (and both have
    some), ``obs`` is another document and there is nothing to compare."""
    shared = {e.id for e in previous.elements} & {e.id for e in obs.elements}
    same = bool(shared) or not (previous.elements and obs.elements)
    return replace(obs, changes=diff(previous.elements, obs.elements, same_document=same))


def reads_on(mode: str, read_as: str | None) -> bool:
    """Whether a change of a page read as ``mode`` can be shown to a model that has the page
    read as ``read_as`` (``None``: it has none): both read from the DOM, the same way. A
    screen reading's ids are not the DOM's, and a model shown a picture has no outline to
    read a change on."""
    return read_as is not None and mode != "vision" and mode == read_as


def smaller_than_page(delta: str, whole: str, *, shown: int = 0) -> bool:
    """Whether showing ``delta`` (what changed) costs a model less than ``whole`` (the page),
    counting ``shown``: the tokens of the changes already shown on top of the same whole page,
    which the model reads this one on top of too. With :func:`reads_on`, the one rule for a
    change or the whole page, for the LLM planner's context and the MCP server's replies."""
    return shown + count_tokens(delta) < count_tokens(whole)


def diff(
    before: tuple[Element, ...], after: tuple[Element, ...], *, same_document: bool
) -> Changes:
    """The elements added, removed and changed between two observations of one page."""
    if not same_document:
        return Changes(new_document=True)
    old = {el.id: el for el in before}
    new = {el.id: el for el in after}
    return Changes(
        added=tuple(el for el in after if el.id not in old),
        removed=tuple(el for el in before if el.id not in new),
        changed=tuple(
            (old[el.id], el) for el in after if el.id in old and _shown(old[el.id]) != _shown(el)
        ),
    )
