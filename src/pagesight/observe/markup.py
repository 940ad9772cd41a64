"""What the markup says about an element: tag, key attributes, shown text, unique selector.

The walker always sends the tag, attributes and text (find scores on them); the selector path
only when asked (``observe(include={"selector"})``, and always for ``page.find``), because a
selector for every element is not free.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, kw_only=True, slots=True)
class Markup:
    tag: str
    attributes: tuple[tuple[str, str], ...] = ()
    """Key attributes as written: id, name, type, placeholder, aria-label, title, alt,
    data-testid and role, where present."""
    text: str = ""
    """The element's shown text, where it differs from its accessible name."""
    path: tuple[str, ...] = ()
    """CSS selectors from the top document down: one for each iframe or shadow host to pass
    (an iframe opens its document, any other host its shadow root, open or closed), then one
    for the element itself. Each matches exactly one element in the root it is run in. Empty
    when selectors were not asked for."""

    def attribute(self, name: str) -> str | None:
        return next((v for k, v in self.attributes if k == name), None)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"tag": self.tag, "attributes": dict(self.attributes)}
        if self.text:
            out["text"] = self.text
        out["selector"] = list(self.path)
        return out


def from_raw(item: dict[str, Any], hosts: tuple[str, ...]) -> Markup | None:
    """The markup of a raw walker node (``None`` if it was not asked for); ``hosts`` is the path
    to the document its walker ran in (the iframes between it and the top document)."""
    tag = item.get("tg")
    if tag is None:
        return None
    return Markup(
        tag=tag,
        attributes=tuple(item.get("at", {}).items()),
        text=item.get("tx", ""),
        path=(*hosts, *item["sel"]) if "sel" in item else (),
    )
