"""Effect: what the browser saw change after an action, and how it is worked out.

The effect is read off two observations of the page (right before the action and once the page
has settled after it) plus the events seen in between (dialogs, downloads, new tabs). ``no_op``
means nothing was seen to change — not that the server did nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pagesight.guard.origins import Refused
from pagesight.observe.elements import Changes, Element
from pagesight.observe.observation import Observation
from pagesight.observe.tree import Bounds, Node

EffectKind = Literal[
    "navigation",
    "new_tab",
    "dom_change",
    "value_change",
    "focus_change",
    "form_invalid",
    "download",
    "dialog",
    "screen_change",
    "refused",
    "no_op",
]
# States that are a control's value rather than its shape: toggling them is a value change.
VALUE_STATES = frozenset({"checked", "mixed", "selected"})
_MAX_TEXTS = 5
_MAX_TEXT_CHARS = 80
_MAX_LINES = 8
"""Element lines in an effect's summary; the full delta is in ``observation.changes``."""
_MAX_REORDERED = 4
"""Elements named in the line that says the page's elements are in another order."""


@dataclass(frozen=True, kw_only=True)
class NewTab:
    """A tab the action opened; ``browser.page(id)`` returns it."""

    id: int
    url: str


@dataclass(frozen=True, kw_only=True)
class Download:
    """A file the action downloaded, saved under the session's downloads folder."""

    filename: str
    path: Path | None
    """``None`` when the download failed (``error`` says why)."""
    url: str
    error: str | None = None


@dataclass(frozen=True, kw_only=True)
class Dialog:
    """A JavaScript dialog the action raised, and how pagesight answered it."""

    type: str
    """``alert``, ``confirm``, ``prompt`` or ``beforeunload``."""
    message: str
    accepted: bool


@dataclass(frozen=True, kw_only=True)
class Moved:
    """What a drag moved: the dragged element before it and once the page settled."""

    box_before: Bounds
    """x, y, width, height in CSS pixels of the element's own frame's viewport."""
    box_after: Bounds | None
    """``None`` when the element is gone (the page replaced it while handling the drop)."""
    holder_before: str
    """What held the element: its markup and, where the page names it, what a person calls it
    (``<ul class="deals"> "Won"``: its aria-label, else the heading leading its column);
    ``holder_after`` differs when it moved into another list or column."""
    holder_after: str
    order_before: tuple[str, ...] = ()
    """The texts of the element and its siblings, in order (lists of up to 12 items)."""
    order_after: tuple[str, ...] = ()
    value_before: str | None = None
    """A slider's value (the dragged thumb's, or the slider around it)."""
    value_after: str | None = None

    @property
    def reordered(self) -> bool:
        """The same items in another order (a sibling's text changing is no move)."""
        before, after = self.order_before, self.order_after
        return before != after and sorted(before) == sorted(after)

    @property
    def changed(self) -> bool:
        return (
            self.box_after != self.box_before
            or self.holder_after != self.holder_before
            or self.reordered
            or self.value_after != self.value_before
        )

    def text(self) -> str:
        if self.box_after is None:
            return "moved: the dragged element was replaced by the page"
        if not self.changed:
            return f"moved: nothing; the dragged element stayed at {_box(self.box_before)}"
        parts = [f"box {_box(self.box_before)} -> {_box(self.box_after)}"]
        if self.reordered or self.holder_after != self.holder_before:
            parts.append(f"order {', '.join(self.order_before)} -> {', '.join(self.order_after)}")
        if self.holder_after != self.holder_before:
            parts.append(f"from {self.holder_before} into {self.holder_after}")
        if self.value_after != self.value_before:
            parts.append(f"value {self.value_before} -> {self.value_after}")
        return "moved: " + "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "box_before": list(self.box_before),
            "box_after": list(self.box_after) if self.box_after is not None else None,
            "holder_before": self.holder_before,
            "holder_after": self.holder_after,
            "order_before": list(self.order_before),
            "order_after": list(self.order_after),
            "value_before": self.value_before,
            "value_after": self.value_after,
        }


def _box(b: Bounds) -> str:
    return f"{b[0]},{b[1]} {b[2]}x{b[3]}"


@dataclass(frozen=True, kw_only=True)
class ScreenChange:
    """The region of the screen that changed and how much of the screen that is: what an
    action on a page read off the screen changed (found by
    :func:`pagesight.vision.diff_screens`)."""

    bounds: tuple[int, int, int, int]
    """x, y, width, height in CSS pixels: the smallest box holding every changed pixel."""
    share: float
    """Changed pixels as a share of all pixels (0 to 1)."""
    pixels: int
    """Changed pixels, in screenshot pixels."""


@dataclass(frozen=True, kw_only=True)
class Effect:
    """What an action did, as far as the browser could see. Each event is reported once."""

    action: str
    element_id: int | None
    kinds: tuple[EffectKind, ...]
    url_before: str
    url_after: str
    ready: bool
    """Whether the page settled (or, after a navigation, the new document became ready)."""
    elapsed: float
    """Seconds from the start of the action to this report."""
    observation: Observation
    """The page after the action; ``observation.changes`` is the delta from before it."""
    new_tabs: tuple[NewTab, ...] = ()
    downloads: tuple[Download, ...] = ()
    dialogs: tuple[Dialog, ...] = ()
    changes: Changes | None = None
    """Elements added, removed and changed; ``None`` when a new document loaded."""
    texts_added: tuple[str, ...] = ()
    texts_removed: tuple[str, ...] = ()
    values: tuple[tuple[Element, Element], ...] = ()
    """Elements whose value (or checked/selected state) changed: (before, after)."""
    focused: Element | None = None
    """The element focus moved to, when that is not the element acted on."""
    scrolled: tuple[int, int] | None = None
    """How far a scroll action moved (x, y) in CSS pixels."""
    screen: ScreenChange | None = None
    """What changed on the screenshot (actions on vision elements): the changed region's box
    in CSS pixels and the share of pixels that changed."""
    invalid: tuple[Element, ...] = ()
    """With ``form_invalid``: the fields the browser's own validation stopped the submit on,
    each with its message in ``error``; the form was not sent."""
    restyled: tuple[str, ...] = ()
    """Which element near the one clicked (itself, an ancestor up to its card, a child) now
    looks different, and how: ``<div class="method">: border-color rgb(…) -> rgb(…)``."""
    files: tuple[Path, ...] = ()
    """The files an ``upload`` set on the file input."""
    moved: Moved | None = None
    """What a ``drag`` moved."""
    reordered: tuple[int, ...] = ()
    """When the page holds the same elements in another order (a table sorted by a column
    header's click): the ids of those elements, in their new order, from the first moved."""
    errors: tuple[str, ...] = field(default=())
    """What went wrong after the action ran (a failed download, an uploaded file of a type its
    input does not accept); empty when all is well."""
    refused: tuple[Refused, ...] = ()
    """Documents the browser's origin policy (``allowed_origins``) kept from loading: a
    navigation of this tab (it stayed on its page), a tab the action opened (closed), an
    iframe (left empty)."""

    @property
    def ok(self) -> bool:
        """The action ran, nothing it started failed, and no navigation it caused was
        refused."""
        return not self.errors and not self.refused_navigation

    @property
    def refused_navigation(self) -> Refused | None:
        """The first navigation (of this tab, or a new tab) the origin policy refused."""
        return next((r for r in self.refused if r.top_level), None)

    @property
    def navigated(self) -> bool:
        return "navigation" in self.kinds

    def text(self) -> str:
        """A few lines for a model: what kinds of change, and the gist of each."""
        what = f"{self.action} [{self.element_id}]" if self.element_id is not None else self.action
        head = f"{what} -> {', '.join(self.kinds)}"
        if not self.ready:
            head += " (page not settled)"
        lines = [head]
        if self.navigated:
            how = "new document" if self.changes is None else "same document"
            lines.append(f"  url: {self.url_before} -> {self.url_after} ({how})")
        lines.extend(f"  new tab {t.id}: {t.url}" for t in self.new_tabs)
        for d in self.downloads:
            lines.append(f"  download: {d.filename} -> {d.path or d.error}")
        lines.extend(
            f"  dialog {d.type} {json.dumps(d.message, ensure_ascii=False)}: "
            + ("accepted" if d.accepted else "dismissed")
            for d in self.dialogs
        )
        if self.scrolled is not None:
            lines.append(f"  scrolled by {self.scrolled[0]}, {self.scrolled[1]}")
        if self.files:
            lines.append(f"  files: {', '.join(f.name for f in self.files)}")
        if self.moved is not None:
            lines.append(f"  {self.moved.text()}")
        if self.screen is not None:
            x, y, w, h = self.screen.bounds
            lines.append(f"  screen: {self.screen.share:.1%} changed, around {x},{y} {w}x{h}")
        if self.changes is not None and "dom_change" in self.kinds:
            c = self.changes
            reshaped = [b for a, b in c.changed if _shape(a) != _shape(b)]
            if c.added or c.removed or reshaped:  # not when only a look or a text changed
                lines.append(
                    f"  elements: {len(c.added)} added, {len(c.removed)} removed, "
                    f"{len(reshaped)} changed"
                )
            shown = [("+", el) for el in c.added] + [("-", el) for el in c.removed]
            shown += [("~", el) for el in reshaped]
            lines.extend(f"  {sign} {_brief(el)}" for sign, el in shown[:_MAX_LINES])
            if len(shown) > _MAX_LINES:
                # No pointer to where the rest is: a model reads the page after the action
                # (the agent's, an MCP client's), a program has ``changes``.
                lines.append(f"  … {len(shown) - _MAX_LINES} more")
        for before, after in self.values:
            lines.append(
                f"  value [{after.id}] {after.role} {after.quoted_name}: {_value(before)}"
                f" -> {_value(after)}"
            )
        lines.extend(f"  + text {_q(t)}" for t in self.texts_added)
        lines.extend(f"  - text {_q(t)}" for t in self.texts_removed)
        if self.focused is not None:
            lines.append(
                f"  focus: [{self.focused.id}] {self.focused.role} {self.focused.quoted_name}"
            )
        if "form_invalid" in self.kinds:
            lines.append("  form not sent: the browser's validation stopped it")
            lines.extend(
                f"  invalid [{el.id}] {el.role} {el.quoted_name}: {_q(el.error or '')}"
                for el in self.invalid
            )
        if self.reordered:
            now = {el.id: el for el in self.observation.elements}
            order = ", ".join(_brief(now[i]) for i in self.reordered[:_MAX_REORDERED])
            more = ", …" if len(self.reordered) > _MAX_REORDERED else ""
            lines.append(f"  reordered: now {order}{more}")
        lines.extend(f"  look: {r}" for r in self.restyled)
        lines.extend(f"  refused: {r.text()}" for r in self.refused)
        lines.extend(f"  error: {e}" for e in self.errors)
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        include = self.observation.include
        return {
            "action": self.action,
            "element_id": self.element_id,
            "ok": self.ok,
            "kinds": list(self.kinds),
            "url_before": self.url_before,
            "url_after": self.url_after,
            "ready": self.ready,
            "elapsed": round(self.elapsed, 4),
            "new_tabs": [{"id": t.id, "url": t.url} for t in self.new_tabs],
            "downloads": [
                {
                    "filename": d.filename,
                    "path": str(d.path) if d.path else None,
                    "url": d.url,
                    "error": d.error,
                }
                for d in self.downloads
            ],
            "dialogs": [
                {"type": d.type, "message": d.message, "accepted": d.accepted} for d in self.dialogs
            ],
            "changes": self.changes.to_dict(include) if self.changes is not None else None,
            "texts_added": list(self.texts_added),
            "texts_removed": list(self.texts_removed),
            "values": [
                {"before": a.to_dict(include), "after": b.to_dict(include)} for a, b in self.values
            ],
            "focused": self.focused.to_dict(include) if self.focused is not None else None,
            "invalid": [el.to_dict(include) for el in self.invalid],
            "restyled": list(self.restyled),
            "scrolled": list(self.scrolled) if self.scrolled is not None else None,
            "screen": (
                {"bounds": list(self.screen.bounds), "share": self.screen.share}
                if self.screen is not None
                else None
            ),
            "files": [str(f) for f in self.files],
            "moved": self.moved.to_dict() if self.moved is not None else None,
            "reordered": list(self.reordered),
            "errors": list(self.errors),
            "refused": [r.to_dict() for r in self.refused],
        }


def _q(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _brief(el: Element) -> str:
    return f"[{el.id}] {el.role} {el.quoted_name}" + (
        f" [{', '.join(sorted(el.states))}]" if el.states else ""
    )


def _value(el: Element) -> str:
    shown = _q(el.value) if el.value is not None else "-"
    marks = sorted(el.states & VALUE_STATES)
    return shown + (f" [{', '.join(marks)}]" if marks else "")


@dataclass(frozen=True, kw_only=True)
class Seen:
    """The events seen while an action ran, beside the two observations."""

    new_tabs: tuple[NewTab, ...] = ()
    downloads: tuple[Download, ...] = ()
    dialogs: tuple[Dialog, ...] = ()
    scrolled: tuple[int, int] | None = None
    screen: ScreenChange | None = None
    validation_stopped: bool = False
    """The browser's own form validation stopped a submit (``invalid`` events fired)."""
    restyled: tuple[str, ...] = ()
    files: tuple[Path, ...] = ()
    moved: Moved | None = None
    errors: tuple[str, ...] = ()
    """What the action itself found wrong (a file of a type its input does not accept)."""
    refused: tuple[Refused, ...] = ()
    """What the origin policy refused while the action ran."""


def classify(
    *,
    action: str,
    element_id: int | None,
    before: Observation,
    after: Observation,
    changes: Changes,
    seen: Seen,
    url_before: str,
    ready: bool,
    elapsed: float,
) -> Effect:
    """Name what changed between ``before`` and ``after`` (and what ``seen`` caught)."""
    kinds: list[EffectKind] = []
    new_document = changes.new_document
    if new_document or after.url != url_before:
        kinds.append("navigation")
    if seen.new_tabs:
        kinds.append("new_tab")
    values: tuple[tuple[Element, Element], ...] = ()
    focused = None
    texts_added: tuple[str, ...] = ()
    texts_removed: tuple[str, ...] = ()
    invalid: tuple[Element, ...] = ()
    reordered: tuple[int, ...] = ()
    if not new_document:
        values = tuple((a, b) for a, b in changes.changed if _value_moved(a, b))
        reshaped = any(_shape(a) != _shape(b) for a, b in changes.changed)
        texts_added, texts_removed = _text_changes(before.tree, after.tree)
        moved_into_view = seen.scrolled is not None and seen.scrolled != (0, 0)
        dragged = seen.moved is not None and seen.moved.changed
        if changes.added or changes.removed or reshaped or texts_added or texts_removed:
            kinds.append("dom_change")
        else:
            # Nothing came or went: the same things in another order are a change all the same
            # (a drag says so in what it moved).
            reordered = () if seen.moved is not None else _reordered(before, after)
            if seen.restyled or moved_into_view or dragged or reordered:
                # What a person sees changed, though no element did: the element or its card
                # looks different, or something moved (into view, where it was dragged, or
                # into another order).
                kinds.append("dom_change")
        if values or seen.files:  # files set on a hidden input are its value all the same
            kinds.append("value_change")
        focused = _newly_focused(before, after, element_id)
        if focused is not None:
            kinds.append("focus_change")
        if seen.validation_stopped:
            kinds.append("form_invalid")
            invalid = _stopped_on(before, after)
    if seen.downloads:
        kinds.append("download")
    if seen.dialogs:
        kinds.append("dialog")
    if seen.screen is not None:
        kinds.append("screen_change")
    if any(r.top_level for r in seen.refused):
        kinds.append("refused")  # the origin policy stopped where it led: not "nothing"
    return Effect(
        action=action,
        element_id=element_id,
        kinds=tuple(kinds) or ("no_op",),
        url_before=url_before,
        url_after=after.url,
        ready=ready,
        elapsed=elapsed,
        observation=after,
        new_tabs=seen.new_tabs,
        downloads=seen.downloads,
        dialogs=seen.dialogs,
        changes=None if new_document else changes,
        texts_added=texts_added,
        texts_removed=texts_removed,
        reordered=reordered,
        values=values,
        focused=focused,
        invalid=invalid,
        restyled=seen.restyled if not new_document else (),
        scrolled=seen.scrolled,
        screen=seen.screen,
        files=seen.files,
        moved=seen.moved,
        errors=tuple(d.error for d in seen.downloads if d.error) + seen.errors,
        refused=seen.refused,
    )


def _reordered(before: Observation, after: Observation) -> tuple[int, ...]:
    """The ids of the elements from the first whose place changed, in their new order, when
    both observations hold the same elements in another order; else ()."""
    was = [el.id for el in before.elements]
    now = [el.id for el in after.elements]
    if was == now or sorted(was) != sorted(now):
        return ()
    first = next((i for i, (a, b) in enumerate(zip(was, now, strict=True)) if a != b), 0)
    return tuple(now[first:])


def _value_moved(a: Element, b: Element) -> bool:
    return a.value != b.value or (a.states & VALUE_STATES) != (b.states & VALUE_STATES)


def _shape(el: Element) -> tuple[object, ...]:
    """What an element shows besides its value and focus: a change here is a DOM change."""
    states = el.states - VALUE_STATES - {"focused"}
    return (el.role, el.name, states, el.options)


def _stopped_on(before: Observation, after: Observation) -> tuple[Element, ...]:
    """The fields an invalid event named during the action (not those of another form, still
    invalid from before)."""

    def last_events(obs: Observation) -> dict[int, int | None]:
        return {n.id: n.invalid_event for root in obs.tree for n in root.walk() if n.id is not None}

    was, now = last_events(before), last_events(after)
    return tuple(
        el
        for el in after.elements
        if el.error is not None and now.get(el.id) is not None and now[el.id] != was.get(el.id)
    )


def _newly_focused(before: Observation, after: Observation, acted: int | None) -> Element | None:
    was = next((el.id for el in before.elements if "focused" in el.states), None)
    now = next((el for el in after.elements if "focused" in el.states), None)
    if now is None or now.id in (was, acted):
        return None
    return now


def _text_changes(
    before: tuple[Node, ...], after: tuple[Node, ...]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Up to a few texts (text lines and headings) that appeared and that disappeared.

    A text is removed only when the page no longer shows it anywhere, and added only when it
    did not show it before: rows filtered away take their title and city with them, but the
    row left showing the same title still shows it, and "- text" would tell the model that it
    is gone."""
    old, new = _texts(before), _texts(after)
    shown_before, shown_after = set(old), set(new)
    added = [t for t in dict.fromkeys(new) if t not in shown_before]
    removed = [t for t in dict.fromkeys(old) if t not in shown_after]
    return _short(added), _short(removed)


def _texts(nodes: tuple[Node, ...]) -> list[str]:
    out = []
    for node in nodes:
        for n in node.walk():
            if n.id is None and n.name and (n.is_text or n.role == "heading"):
                out.append(n.name)
    return out


def _short(texts: list[str]) -> tuple[str, ...]:
    return tuple(
        t if len(t) <= _MAX_TEXT_CHARS else t[: _MAX_TEXT_CHARS - 1] + "…"
        for t in texts[:_MAX_TEXTS]
    )
