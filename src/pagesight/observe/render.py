"""Render the parts of an observation as text or JSON-ready dicts: its header, its tree as an
outline, its elements as a legend or a flat list, its changes as a delta, and the cut to a number
of characters. :class:`~pagesight.observe.observation.Observation` puts them together; they work
on nodes, elements and changes only, so the observation imports them and not the other way.

Outline: one node a line, two spaces of indent per level; ``[id]`` only on what can be acted on;
a name in quotes (``~"name"`` when it is a hint guessed from markup), a value after ``: ``, an
empty field's ``placeholder="…"``, states in brackets. Text lines are the text itself (quoted
only where it could be mistaken for structure).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from pagesight.observe.elements import Changes, Element
from pagesight.observe.tree import Node

_BARE_WORD = re.compile(r"[a-z]+")
_NO_SPACE_BEFORE = frozenset(".,;:!?)]}\u3001\u3002\uff0c\uff1a\uff1b\uff01\uff1f")


def header(title: str, url: str, ready: bool) -> str:
    """The first line of every text: the page's title, its address, and whether it is ready."""
    quoted = json.dumps(title, ensure_ascii=False)
    return f"page {quoted} {url} {'ready' if ready else 'loading'}"


def tree_lines(tree: Iterable[Node], include: frozenset[str]) -> list[str]:
    """The whole tree, one node a line, indented by depth."""
    lines: list[str] = []
    for node in tree:
        _node_lines(node, 0, lines, include)
    return lines


def change_lines(changes: Changes, include: frozenset[str]) -> list[str]:
    """A delta: ``+`` added, ``-`` removed, ``~`` changed (with what it was), each element with
    its context said once, as the outline says it: the elements of one group or heading
    under an ``in "…":`` line, indented (``  + [14] textbox "Name"``); one alone in its
    context with ``in "…"`` after it."""
    counts = (len(changes.added), len(changes.removed), len(changes.changed))
    lines = ["changes: {} added, {} removed, {} changed".format(*counts)]
    entries = [(el.context, f"+ {_element_line(el, include)}", "") for el in changes.added]
    entries += [(el.context, f"- {_element_line(el, include)}", "") for el in changes.removed]
    for before, after in changes.changed:
        was = _element_line(before, frozenset()).split(" ", 1)[1]  # without the id
        entries.append((after.context, f"~ {_element_line(after, include)}", f" (was {was})"))
    groups: dict[str | None, list[tuple[str, str]]] = {}
    for context, line, was in entries:
        groups.setdefault(context or None, []).append((line, was))
    for context, members in groups.items():  # in the order each context first comes
        if context is None:
            lines.extend(line + was for line, was in members)
        elif len(members) == 1:
            line, was = members[0]
            lines.append(f"{line} in {_quote(context)}{was}")
        else:
            lines.append(f"in {_quote(context)}:")
            lines.extend(f"  {line}{was}" for line, was in members)
    return lines


def legend_lines(elements: Iterable[Element], include: frozenset[str]) -> list[str]:
    """One line per element: the key to a set-of-marks screenshot or a compact tool answer."""
    lines: list[str] = []
    for el in elements:
        where = f" in {_quote(el.context)}" if el.context else ""
        lines.append(f"{_element_line(el, include)}{where}")
    return lines


def interactive_lines(elements: Iterable[Element], include: frozenset[str]) -> list[str]:
    """The elements alone, under a ``#`` line each time their context changes."""
    lines: list[str] = []
    context: str | None = None
    for el in elements:
        if el.context != context and el.context:
            lines.append(f"# {el.context}")
        context = el.context
        lines.append(_element_line(el, include))
    return lines


def _element_line(el: Element, include: frozenset[str]) -> str:
    return _line(
        id=el.id,
        role=el.role,
        name=el.name,
        value=el.value,
        states=_states(el.states, el.hidden_in_container, el.error),
        options=el.options,
        extras=_extras(el.bounds, el.href, include),
        name_hint=el.name_hint,
        placeholder=el.placeholder,
    )


def _node_lines(node: Node, depth: int, lines: list[str], include: frozenset[str]) -> None:
    pad = "  " * depth
    if node.is_text and node.id is None:  # text read off a screen has an id: it can be clicked
        lines.append(pad + _text(node.name))
        return
    row = _compact_row(node)
    if row is not None:
        lines.append(f"{pad}row: {row}")
        return
    if node.role == "paragraph":  # prose with inline controls reads as one line
        line = ""
        for child in node.children:
            part = child.name if child.is_text else _inline(child)  # mid-line: no ambiguity
            glue = "" if not line or (child.is_text and part[0] in _NO_SPACE_BEFORE) else " "
            line += glue + part
        lines.append(pad + line)
        return
    role = f"h{node.level}" if node.role == "heading" and node.level else node.role
    value = node.value
    if node.range and value is not None:
        value = f"{value} (range {node.range[0]}-{node.range[1]})"
    lines.append(
        pad
        + _line(
            id=node.id,
            role=role,
            name=node.name,
            value=value,
            states=_states(node.states, _marked_offscreen(node), node.error),
            options=node.options,
            extras=_extras(node.bounds, node.href, include),
            name_hint=node.name_hint,
            placeholder=node.placeholder,
        )
    )
    for child in node.children:
        _node_lines(child, depth + 1, lines, include)


def _line(
    *,
    id: int | None,
    role: str,
    name: str,
    value: str | None,
    states: list[str],
    options: tuple[str, ...],
    extras: str,
    name_hint: bool = False,
    placeholder: str | None = None,
) -> str:
    parts = [f"[{id}] {role}" if id is not None else role]
    if name:
        parts.append(("~" if name_hint else "") + _quote(name))
    text = " ".join(parts)
    if value is not None:
        text += f": {value}"
    if placeholder is not None:
        text += f" placeholder={_quote(placeholder)}"
    if options:
        text += f" options=[{', '.join(options)}]"
    if states:
        text += f" [{' '.join(states)}]"
    return text + extras


def _marked_offscreen(node: Node) -> bool:
    # Only what a scroll container hides is marked in the text: below the page's fold is the
    # common case, would cost tokens on every line, and actions scroll there by themselves.
    # Element.offscreen and the JSON say it for everything.
    return node.hidden_in_container


def _states(
    states: tuple[str, ...] | frozenset[str], offscreen: bool, error: str | None = None
) -> list[str]:
    out = sorted(states) if isinstance(states, frozenset) else list(states)
    if error is not None and "invalid" in out:  # what the browser tells a person about it
        out.remove("invalid")
        out.append(f"invalid: {_quote(error)}")
    if offscreen:
        out.append("offscreen")
    return out


def _extras(
    bounds: tuple[int, int, int, int] | None, href: str | None, include: frozenset[str]
) -> str:
    out = ""
    if "bounds" in include and bounds is not None:
        out += " @{},{} {}x{}".format(*bounds)
    if "href" in include and href:
        out += f" -> {href}"
    return out


def _compact_row(node: Node) -> str | None:
    """A table row of text and leaf controls reads best on one line: ``a | [3] link "b"``."""
    if node.role != "row" or node.id is not None or not node.children:
        return None
    cells = []
    for cell in node.children:
        if cell.is_text:
            cells.append(cell.name)
        elif cell.id is not None:  # a cell that is itself a control (a sortable header, a day)
            if cell.children:
                return None
            cells.append(_inline(cell))
        elif cell.role in ("cell", "columnheader", "rowheader") and all(
            c.is_text or (c.id is not None and not c.children) for c in cell.children
        ):
            cells.append(" ".join(c.name if c.is_text else _inline(c) for c in cell.children))
        else:
            return None
    return " | ".join(cells)


def _inline(node: Node) -> str:
    """A leaf element written inside a row line: ``[6] link "Open-source software"``."""
    return _line(
        id=node.id,
        role=node.role,
        name=node.name,
        value=node.value,
        states=_states(node.states, _marked_offscreen(node), node.error),
        options=node.options,
        extras="",
        name_hint=node.name_hint,
        placeholder=node.placeholder,
    )


def _quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _text(text: str) -> str:
    if text.startswith(("[", '"', "#", "…")) or _BARE_WORD.fullmatch(text):
        return _quote(text)
    return text


def tree_dict(tree: Iterable[Node], include: frozenset[str]) -> dict[str, Any]:
    """The tree as JSON-ready dicts, under a ``page`` root."""
    return {"role": "page", "children": [_node_dict(n, include) for n in tree]}


def _node_dict(node: Node, include: frozenset[str]) -> dict[str, Any]:
    if node.is_text and node.id is None:
        return {"text": node.name}
    out: dict[str, Any] = {"role": node.role}
    if node.id is not None:
        out["id"] = node.id
    if node.name:
        out["name"] = node.name
    if node.name_hint:
        out["name_hint"] = True
    if node.value is not None:
        out["value"] = node.value
    if node.placeholder is not None:
        out["placeholder"] = node.placeholder
    if node.level is not None:
        out["level"] = node.level
    if node.states:
        out["states"] = list(node.states)
    if node.error is not None:
        out["error"] = node.error
    if node.hinted_states:
        out["hinted_states"] = list(node.hinted_states)
    if node.looks is not None:
        out["looks"] = node.looks
    if node.offscreen:
        out["offscreen"] = True
    if node.options:
        out["options"] = list(node.options)
    if node.role == "iframe" and node.href:
        out["url"] = node.href
    if "bounds" in include and node.bounds is not None:
        out["bounds"] = list(node.bounds)
    if "href" in include and node.href:
        out["href"] = node.href
    if node.children:
        out["children"] = [_node_dict(c, include) for c in node.children]
    return out


def truncate_chars(text: str, max_chars: int) -> str:
    """Cut ``text`` at the last whole line that fits, saying how many lines were left out.

    The result never exceeds ``max_chars``; a limit too small for the note gets a bare cut.
    """
    if len(text) <= max_chars:
        return text
    lines = text.split("\n")
    room = max_chars - len(_cut_note(max_chars, len(lines))) - 1  # the note and its newline
    if room < 8:  # no room for a useful line beside the note
        return text[: max_chars - 1] + "…"
    kept: list[str] = []
    size = 0
    for line in lines:
        if size + len(line) + (1 if kept else 0) > room:
            break
        size += len(line) + (1 if kept else 0)
        kept.append(line)
    if not kept:  # the first line alone is too long: cut inside it
        kept = [lines[0][: room - 1] + "…"]
    return "\n".join([*kept, _cut_note(max_chars, len(lines) - len(kept))])


def _cut_note(max_chars: int, left: int) -> str:
    return f"… truncated at {max_chars} chars: {left} more lines"
