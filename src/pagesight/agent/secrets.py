"""Secrets: values typed into the page that no record, report or result may hold.

A tool argument says ``{{NAME}}``; :meth:`Secrets.fill` puts the value in at the moment the
page is acted on, and :meth:`Secrets.mask` turns every value back into ``{{NAME}}`` in what
comes back (an Effect's text, an outline showing the field's value), so only the placeholder
is ever kept or written. :func:`black_out` does the same for a screenshot: the boxes of the
fields that show a secret are painted over (a secret the page prints elsewhere as text is not
found on the image).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote, quote_plus

from PIL import ImageDraw

from pagesight.errors import InvalidOption
from pagesight.observe.tree import Bounds
from pagesight.vision.images import decode_png, encode_png

_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


class Secrets:
    """Named secret values (``{"PASSWORD": "…"}``)."""

    def __init__(self, values: Mapping[str, str] | None = None) -> None:
        values = dict(values or {})
        for name, value in values.items():
            if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
                raise InvalidOption(
                    "secrets", f"a secret's name is a word like PASSWORD, not {name!r}"
                )
            if not isinstance(value, str) or not value:
                raise InvalidOption("secrets", f"the secret {name} needs a non-empty string value")
        # Longest first: a value holding another is masked whole.
        self._values = dict(sorted(values.items(), key=lambda kv: -len(kv[1])))
        # Each value as a message may quote it too: an error saying `{text!r}` writes a
        # backslash doubled, JSON writes a quote as \", so `p\w"d` would survive as `p\\w\"d`.
        forms = {
            (form, name)
            for name, value in values.items()
            for form in (
                value,
                repr(value)[1:-1],
                json.dumps(value, ensure_ascii=False)[1:-1],
                json.dumps(value)[1:-1],  # é as \u00e9
                *_in_urls(value),
            )
        }
        self._forms = sorted(forms, key=lambda fn: (-len(fn[0]), fn))

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(sorted(self._values))

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(self._values.values())

    def fill(self, value: Any) -> Any:
        """``value`` (a string, or lists and dicts of them) with each ``{{NAME}}`` replaced by
        its secret; an unknown name raises ``InvalidOption`` naming those there are."""
        if isinstance(value, str):
            return _PLACEHOLDER.sub(self._value_of, value)
        if isinstance(value, list | tuple):
            return type(value)(self.fill(v) for v in value)
        if isinstance(value, dict):
            return {k: self.fill(v) for k, v in value.items()}
        return value

    def _value_of(self, match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in self._values:
            known = ", ".join(self.names) or "none were given"
            raise InvalidOption(
                "secrets", f"no secret named {name} for {{{{{name}}}}}; secrets: {known}"
            )
        return self._values[name]

    def mask(self, value: Any) -> Any:
        """``value`` (a string, or JSON-like lists and dicts) with every secret value written
        as ``{{NAME}}`` — also where it is quoted with escapes (``repr``, JSON)."""
        if isinstance(value, str):
            for form, name in self._forms:
                value = value.replace(form, "{{" + name + "}}")
            return value
        if isinstance(value, list | tuple):
            return [self.mask(v) for v in value]
        if isinstance(value, dict):
            return {self.mask(k): self.mask(v) for k, v in value.items()}
        return value

    def shown_in(self, text: str) -> bool:
        """Whether ``text`` shows any secret value."""
        return any(secret in text for secret in self._values.values())


def _in_urls(value: str) -> set[str]:
    """``value`` percent-encoded as a URL may hold it: a secret put in a query by
    ``navigate`` comes back in ``page.url`` as Chromium wrote it (a space as ``%20``), or as
    a form posts it (a space as ``+``)."""
    chromium_query = "!$&'()*+,/:;=?@[]^`{|}~"  # what Chromium leaves as it is in a query
    return {
        quote(value, safe=""),
        quote(value, safe="/"),
        quote(value, safe=chromium_query),
        quote_plus(value),
    }


def black_out(png: bytes, boxes: Sequence[Bounds], *, scale: float) -> bytes:
    """``png`` with each box (CSS px; ``scale`` is the device pixel ratio) painted black."""
    if not boxes:
        return png
    image = decode_png(png)
    draw = ImageDraw.Draw(image)
    for x, y, w, h in boxes:
        draw.rectangle((x * scale, y * scale, (x + w) * scale, (y + h) * scale), fill=(0, 0, 0))
    return encode_png(image)
