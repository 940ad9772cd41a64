"""Element ids: small integers, stable while an element lives, never reused in a session.

The page-side walker keeps a WeakMap from element to a local id for the life of its document,
and every document has a random token. This registry maps (token, local id) to a session-wide
integer handed out in order of first sight, so a new document never inherits an old id and a
model's "click 12" cannot land on a different control.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ElementRef:
    """Where an element id points: the walker document and its local id there."""

    document: str
    local_id: int


class IdRegistry:
    def __init__(self) -> None:
        self._next = 1
        self._ids: dict[tuple[str, int], int] = {}
        self._refs: dict[int, ElementRef] = {}

    def id_of(self, document: str, local_id: int) -> int:
        key = (document, local_id)
        found = self._ids.get(key)
        if found is None:
            found = self._next
            self._next += 1
            self._ids[key] = found
            self._refs[found] = ElementRef(document, local_id)
        return found

    def locate(self, element_id: int) -> ElementRef | None:
        """The document and local id behind an element id, if this session ever gave it out."""
        return self._refs.get(element_id)


@dataclass(frozen=True)
class ElementLocation:
    """An element id resolved in the live page."""

    element_id: int
    document: str
    """The token of the walker document that owns the element."""
    backend_node_id: int | None
    """Chromium's backend node id (stable for the node's life); ``None`` without CDP."""
