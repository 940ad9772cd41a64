"""Secrets: values typed into the page that no record, report or result may hold.

A tool argument says ``{{NAME}}``; :meth:`Secrets.fill` puts the value in at the moment the
page is acted on (:meth:`Secrets.fill_step`, for a tool's page step), and :meth:`Secrets.mask`
turns every value back into ``{{NAME}}`` in what comes back (an Effect's text, an outline
showing the field's value), so only the placeholder is ever kept or written.
:func:`hide_secrets` does the same for a screenshot: the boxes of the fields (and named
elements) that show a secret are painted over before it is saved or sent.

A secret may be scoped to origins (``NAME@https://bank.example`` as its key, several
separated by commas; patterns as ``allowed_origins`` takes them): it is then filled in only
for a page whose origin — the origin of the frame holding the field, or of the URL navigated
to — is one of them, and anywhere else :class:`~pagesight.errors.SecretNotAllowedHere` is
raised before anything is typed.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, quote_plus

from PIL import ImageDraw

from pagesight.errors import InvalidOption, SecretNotAllowedHere
from pagesight.guard.origins import OriginPolicy, origin_of
from pagesight.vision.images import decode_png, encode_png
from pagesight.vision.marks import CssBox

if TYPE_CHECKING:
    from pagesight.agent.tool import PageStep
    from pagesight.browser.page import AsyncPage
    from pagesight.observe.elements import Element
    from pagesight.observe.observation import Observation
    from pagesight.vision.screen import Capture

_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


class Secrets:
    """Named secret values (``{"PASSWORD": "…"}``); a key ``NAME@ORIGIN[,ORIGIN…]``
    (``"PASSWORD@https://bank.example"``) scopes the secret ``NAME`` to those origins."""

    def __init__(self, values: Mapping[str, str] | None = None) -> None:
        values, self._scopes = _scoped(values or {})
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
            for shown in _cases(value)
            for form in (
                shown,
                repr(shown)[1:-1],
                json.dumps(shown, ensure_ascii=False)[1:-1],
                json.dumps(shown)[1:-1],  # é as \u00e9
                *_in_urls(shown),
            )
        }
        # Any case: a page may show a value in capitals (CSS text-transform, which OCR reads
        # off the screen and innerText returns, or its own toUpperCase). The regex's
        # IGNORECASE folds letter by letter; the forms in capitals and small letters above
        # add what full case mapping writes with other letters ("ß" in capitals is "SS").
        self._forms = [
            (re.compile(re.escape(form), re.IGNORECASE), "{{" + name + "}}")
            for form, name in sorted(forms, key=lambda fn: (-len(fn[0]), fn))
        ]
        # A text the page shows is cut to a length with "…" (a name, a value, an attribute):
        # one cut inside a secret ends on its first letters, which are masked as well.
        self._forms += [
            (re.compile(f"(?:{'|'.join(heads)})\u2026", re.IGNORECASE), "{{" + name + "}}\u2026")
            for name, value in self._values.items()
            if (heads := [re.escape(value[:n]) for n in range(len(value) - 1, 2, -1)])
        ]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(sorted(self._values))

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(self._values.values())

    @property
    def shown_as(self) -> tuple[str, ...]:
        """Every text a page may show a secret as, to be found in any case: each value as it
        is, in capitals and in small letters (what a screenshot must hide: see
        :func:`hide_secrets`)."""
        return tuple(dict.fromkeys(shown for v in self._values.values() for shown in _cases(v)))

    def scope(self, name: str) -> tuple[str, ...] | None:
        """The origins the secret ``name`` is scoped to (``None``: any)."""
        policy = self._scopes.get(name)
        return None if policy is None else tuple(p.text for p in policy.allowed or ())

    def named_in(self, value: Any) -> set[str]:
        """The names of ``{{NAME}}`` placeholders in ``value`` (strings, lists, dicts)."""
        if isinstance(value, str):
            return set(_PLACEHOLDER.findall(value))
        if isinstance(value, list | tuple):
            return set().union(*(self.named_in(v) for v in value))
        if isinstance(value, dict):
            return set().union(*(self.named_in(v) for v in value.values()))
        return set()

    def fill_for(self, value: Any, *, at: str | None, where: str = "the page") -> Any:
        """:meth:`fill`, once every secret ``value`` names may be typed at the URL ``at``
        (the frame holding the field, or the URL navigated to; ``None``: no known place, as
        for a key sent to whatever has focus). A secret scoped to other origins raises
        :class:`~pagesight.errors.SecretNotAllowedHere` (``where`` says what is at ``at``),
        and nothing is filled."""
        for name in sorted(self.named_in(value)):
            policy = self._scopes.get(name)
            if policy is None or (at is not None and policy.allows_origin(at)):
                continue
            allowed = tuple(p.text for p in policy.allowed or ())
            origin = origin_of(at) if at is not None else "no known origin"
            raise SecretNotAllowedHere(
                f"the secret {{{{{name}}}}} may be typed only on {', '.join(allowed)}, and "
                f"{where} is on {origin}; nothing was typed. Type it on a page of "
                f"{'that origin' if len(allowed) == 1 else 'those origins'}, or give the "
                f"secret for {origin} too",
                name=name,
                origin=origin,
                allowed=allowed,
            )
        return self.fill(value)

    async def fill_step(self, step: PageStep, page: AsyncPage) -> dict[str, Any]:
        """``step``'s arguments with its secrets filled in, each checked against where it
        goes on ``page``: the origin of the frame holding the element, or of the URL navigated
        to (a secret scoped elsewhere raises SecretNotAllowedHere, and nothing is typed)."""
        if not self.named_in(step.args):
            return step.args
        if step.action == "navigate":
            url = self.fill(step.args.get("url", ""))
            return dict(self.fill_for(step.args, at=url, where="the URL navigated to"))
        if step.ref is None:  # a key to whatever has focus: no one frame it goes to
            return dict(self.fill_for(step.args, at=None, where="a key sent to the focus"))
        # The element's own document, not the tab's URL: a field in a frame of another origin
        # is that origin's. Its id is tied to that document, so the origin cannot change under
        # it before the action runs (a frame that navigates makes the id stale).
        at = await page.frame_url(step.ref)
        return dict(self.fill_for(step.args, at=at, where=f"the element [{step.ref}]"))

    def fill(self, value: Any) -> Any:
        """``value`` (a string, or lists and dicts of them) with each ``{{NAME}}`` replaced by
        its secret, wherever it is to go (see :meth:`fill_for`, which checks the secret's
        origins); an unknown name raises ``InvalidOption`` naming those there are."""
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
        as ``{{NAME}}`` — in any case, and where it is quoted with escapes (``repr``, JSON)."""
        if isinstance(value, str):
            for form, placeholder in self._forms:
                value = form.sub(placeholder, value)
            return value
        if isinstance(value, list | tuple):
            return [self.mask(v) for v in value]
        if isinstance(value, dict):
            return {self.mask(k): self.mask(v) for k, v in value.items()}
        return value

    def shown_in(self, text: str) -> bool:
        """Whether ``text`` shows any secret value (in any case)."""
        folded = text.casefold()
        return any(secret.casefold() in folded for secret in self._values.values())


def mask_exception(exc: BaseException, secrets: Secrets) -> None:
    """Write every secret in ``exc`` — its message, its notes, the errors it was raised from
    — as ``{{NAME}}``, in place, so that it can be raised on as it is (type and traceback
    kept)."""
    seen: set[int] = set()
    pending = [exc]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        current.args = tuple(secrets.mask(a) if isinstance(a, str) else a for a in current.args)
        notes = getattr(current, "__notes__", None)
        if isinstance(notes, list):
            notes[:] = [secrets.mask(n) if isinstance(n, str) else n for n in notes]
        if isinstance(current, OSError):
            # Not in its args, yet in its one-line message ("[Errno 2] No such file or
            # directory: 'key-….txt'"): the path a secret was used in.
            for name in ("filename", "filename2"):
                path = getattr(current, name)
                if isinstance(path, str):
                    setattr(current, name, secrets.mask(path))
                elif isinstance(path, bytes):
                    setattr(current, name, os.fsencode(secrets.mask(os.fsdecode(path))))
        # What an error keeps beside its message (a PagesightError's advice) is read too.
        kept = getattr(current, "__dict__", {})
        for name, value in list(kept.items()):
            if isinstance(value, str) and (masked := secrets.mask(value)) != value:
                kept[name] = masked  # the instance's own: no property of its class is run
        pending.extend(e for e in (current.__cause__, current.__context__) if e is not None)


ENV_PREFIX = "PAGESIGHT_SECRET_"
"""``PAGESIGHT_SECRET_<NAME>``: the environment variable a secret ``NAME`` is read from."""


def gathered(given: Sequence[tuple[str, str]], environ: Mapping[str, str]) -> dict[str, str]:
    """The secrets of a command: each ``--secret KEY=VALUE`` (a KEY ``NAME@ORIGIN,…`` scoped;
    an empty VALUE read from ``PAGESIGHT_SECRET_<NAME>``, so it stays out of the process
    list), and every other ``PAGESIGHT_SECRET_<NAME>`` set (any origin)."""
    out: dict[str, str] = {}
    named: set[str] = set()
    for key, typed in given:
        name = key.partition("@")[0].strip()
        value = typed or environ.get(ENV_PREFIX + name, "")
        if not value:
            raise InvalidOption(
                "secret",
                f"{name}= takes its value from the environment variable "
                f"{ENV_PREFIX}{name}, which is not set; set it, or give {name}=VALUE",
            )
        out[key] = value
        named.add(name)
    for variable, value in environ.items():
        name = variable.removeprefix(ENV_PREFIX)
        if variable.startswith(ENV_PREFIX) and name and value and name not in named:
            out[name] = value
    return out


def _scoped(given: Mapping[str, str]) -> tuple[dict[str, str], dict[str, OriginPolicy]]:
    """The values by plain name, and the origin policy of each name given as
    ``NAME@ORIGIN[,ORIGIN…]``."""
    if not isinstance(given, Mapping):
        raise InvalidOption(
            "secrets", f"secrets is a dict of names to values, not {type(given).__name__}"
        )
    values: dict[str, str] = {}
    scopes: dict[str, OriginPolicy] = {}
    for key, value in given.items():
        if not isinstance(key, str):
            raise InvalidOption("secrets", f"a secret's name is a word like PASSWORD, not {key!r}")
        name, at, origins = key.partition("@")
        name = name.strip()
        if name in values:
            raise InvalidOption("secrets", f"the secret {name} is given twice; give it once")
        values[name] = value
        if not at:
            continue
        patterns = [o.strip() for o in origins.split(",") if o.strip()]
        if not patterns:
            raise InvalidOption(
                "secrets", f"{key!r}: name the origins after the @, e.g. {name}@https://example.com"
            )
        try:
            scopes[name] = OriginPolicy.of(patterns)
        except InvalidOption as exc:
            raise InvalidOption("secrets", f"the secret {name}'s scope: {exc}") from exc
    return values, scopes


def hide_secrets(
    capture: Capture,
    obs: Observation | None,
    secrets: Secrets,
    *,
    marked: tuple[Element, ...] = (),
) -> bytes:
    """The PNG of ``capture`` (the page ``obs`` was read from), ``marked`` elements marked,
    with every place that shows a secret painted black: where the page's text or a field
    showed one, in any case, when the capture was taken (``page.capture(hide=secrets.shown_as)``
    finds them: a key the page echoes in a paragraph), and every element of ``obs`` naming one
    or holding one as its value. The one step every screenshot saved or sent goes through
    (the screenshot tool and MCP's image, the run's records and their set-of-marks, a
    planner's view). Blocking (PIL): run it in a thread."""
    png = capture.marked(marked) if marked else capture.shot.png
    if not secrets.values:
        return png
    boxes = tuple(
        el.bounds
        for el in (obs.elements if obs is not None else ())
        if el.bounds is not None
        and (secrets.shown_in(el.name) or (el.value is not None and secrets.shown_in(el.value)))
    )
    return black_out(png, (*capture.hidden, *boxes), scale=capture.shot.scale)


def _cases(value: str) -> tuple[str, ...]:
    """``value``, in capitals and in small letters, as a page's ``toUpperCase`` or CSS
    ``text-transform`` writes it."""
    return tuple(dict.fromkeys((value, value.upper(), value.lower())))


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


def black_out(png: bytes, boxes: Sequence[CssBox], *, scale: float) -> bytes:
    """``png`` with each box (CSS px; ``scale`` is the device pixel ratio) painted black."""
    if not boxes:
        return png
    image = decode_png(png)
    draw = ImageDraw.Draw(image)
    for x, y, w, h in boxes:
        draw.rectangle((x * scale, y * scale, (x + w) * scale, (y + h) * scale), fill=(0, 0, 0))
    return encode_png(image)
