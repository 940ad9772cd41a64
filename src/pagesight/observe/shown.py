"""Whether a page shows a text, or a control holds a value: the rules behind ``expect "…"``,
``expect X to be "…"`` and ``wait for "…"``, for the steps planner and the ``act`` tool
alike, and the texts most like it when it does not."""

from __future__ import annotations

import json
from collections.abc import Sequence

from pagesight.observe import find as finding
from pagesight.observe.observation import Observation
from pagesight.observe.tree import Node


def texts(obs: Observation) -> list[str]:
    """Every text the page shows: each node's name and value."""
    out: list[str] = []

    def walk(nodes: Sequence[Node]) -> None:
        for node in nodes:
            out.extend(t for t in (node.name, node.value) if t)
            walk(node.children)

    walk(obs.tree)
    return out


def shows(obs: Observation, want: str) -> bool:
    """Whether ``want`` is among the page's texts (case and spacing do not matter)."""
    return finding.normalise(want) in finding.normalise("\n".join(texts(obs)))


def has_value(seen: str | None, want: str) -> bool:
    """Whether a control's value ``seen`` is ``want`` (case and spacing do not matter)."""
    return finding.normalise(seen or "") == finding.normalise(want)


def closest_texts(obs: Observation, want: str) -> str:
    """The texts of the page most like ``want``, with find's scores."""
    q = finding.Query.parse(want) if finding.normalise(want) else None
    scored: list[tuple[float, str]] = []
    seen: set[str] = set()

    def walk(nodes: Sequence[Node]) -> None:
        for node in nodes:
            if q is not None and node.name and node.name not in seen:
                seen.add(node.name)
                points = finding.score(q, finding.Target.of(node))
                if points > 0:
                    scored.append((points, node.name))
            walk(node.children)

    walk(obs.tree)
    scored.sort(key=lambda s: -s[0])
    if not scored:
        return f"nothing like it on {obs.url}"
    return "; ".join(f"{quoted(t)} (score {p:g})" for p, t in scored[:3])


def quoted(text: str) -> str:
    """``text`` in double quotes, cut to 80 characters."""
    return json.dumps(text if len(text) <= 80 else text[:79] + "…", ensure_ascii=False)
