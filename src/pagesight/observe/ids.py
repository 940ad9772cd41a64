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
    """The session's ids, by the document that owns them. A tab forgets the ids of a document
    it has not walked for a long while (:meth:`forget`), so a session that runs for days holds
    ids for the documents its tabs still show, not for every one they ever showed."""

    def __init__(self) -> None:
        self._next = 1
        self._ids: dict[str, dict[int, int]] = {}  # document -> local id -> element id
        self._refs: dict[int, ElementRef] = {}

    def id_of(self, document: str, local_id: int) -> int:
        ids = self._ids.setdefault(document, {})
        found = ids.get(local_id)
        if found is None:
            found = ids[local_id] = self.fresh()
            self._refs[found] = ElementRef(document, local_id)
        return found

    def fresh(self) -> int:
        """An id never given out before, owned by no document (a reading of the screen)."""
        found = self._next
        self._next += 1
        return found

    def locate(self, element_id: int) -> ElementRef | None:
        """The document and local id behind an element id, if this session gave it out and
        has not forgotten its document."""
        return self._refs.get(element_id)

    def forget(self, document: str) -> None:
        """Drop the ids of ``document``: they no longer resolve, and are never given again."""
        for element_id in self._ids.pop(document, {}).values():
            del self._refs[element_id]

    def given(self, element_id: int) -> bool:
        """Whether this session gave ``element_id`` out (resolving still, or forgotten)."""
        return 0 < element_id < self._next

    def __len__(self) -> int:
        """How many ids resolve."""
        return len(self._refs)


class TabIds:
    """The ids of one tab's documents, given out by the session's :class:`IdRegistry`. When
    the tab closes (:meth:`close`) every document it walked is forgotten — also one whose walk
    ends after the close (a tab that closes mid-walk): that reading still gets ids never given
    before, but the registry keeps none of them, as nothing could ever resolve them."""

    def __init__(self, registry: IdRegistry) -> None:
        self._registry = registry
        self._documents: set[str] = set()
        self.closed = False

    def id_of(self, document: str, local_id: int) -> int:
        if self.closed:
            return self._registry.fresh()
        self._documents.add(document)
        return self._registry.id_of(document, local_id)

    def forget(self, document: str) -> None:
        """Drop the ids of ``document`` (see :meth:`IdRegistry.forget`)."""
        self._documents.discard(document)
        self._registry.forget(document)

    def close(self) -> None:
        """The tab closed: forget the ids of every document it walked, now and later."""
        self.closed = True
        for document in self._documents:
            self._registry.forget(document)
        self._documents.clear()


@dataclass(frozen=True)
class ElementLocation:
    """An element id resolved in the live page."""

    element_id: int
    document: str
    """The token of the walker document that owns the element."""
    backend_node_id: int | None
    """Chromium's backend node id (stable for the node's life); ``None`` without CDP."""
