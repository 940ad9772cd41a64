"""The facts the confirm rules judge an element by, read from the live page.

:mod:`pagesight.guard.risk` says which actions need a person from what is known of their
target: its names, whether it submits its form, the fields of that form and the button Enter
in one of them presses. This reads them off the element itself (by
:meth:`AsyncPage.risk_facts <pagesight.browser.page.AsyncPage.risk_facts>`, through the
page's own resolver), or off the element a click at a point of the viewport lands on.
"""

from __future__ import annotations

from typing import Any

from playwright.async_api import ElementHandle, Frame

from pagesight.errors import ProtocolError
from pagesight.guard.risk import ElementFacts, Field

_FACTS = """(el) => {
  const squash = (s) => (s || "").replace(/\\s+/g, " ").trim();
  const labels = (f) => [...(f.labels || [])].map((l) => squash(l.innerText));
  const fieldOf = (f) => ({
    type: (f.getAttribute("type") || f.tagName).toLowerCase(),
    words: [f.name, f.id, f.getAttribute("autocomplete"), f.getAttribute("placeholder"),
            f.getAttribute("aria-label"), ...labels(f)].map(squash).filter(Boolean),
  });
  const tag = el.tagName.toLowerCase();
  const type = (el.getAttribute("type") || "").toLowerCase();
  const form = el.form || el.closest("form");
  const isField = ["input", "textarea", "select"].includes(tag);
  const submits = !!form && ((tag === "button" && (type === "" || type === "submit")) ||
    (tag === "input" && (type === "submit" || type === "image")));
  const fields = form ? [...form.elements].filter((f) => f.tagName !== "BUTTON") : [];
  const isSubmit = (b) => (b.tagName === "BUTTON" && ["", "submit"].includes(b.type)) ||
    (b.tagName === "INPUT" && ["submit", "image"].includes(b.type));
  const button = form ? [...form.elements].find(isSubmit) : null;
  return {
    names: [el.getAttribute("aria-label"), el.innerText, isField ? "" : el.value,
            el.getAttribute("title"), el.getAttribute("alt")].map(squash).filter(Boolean),
    submits,
    field: isField ? fieldOf(el) : null,
    form_fields: fields.map(fieldOf),
    default_button: button ? [button.getAttribute("aria-label"), button.innerText, button.value,
                              button.getAttribute("title"), button.getAttribute("alt")]
                             .map(squash).filter(Boolean) : [],
  };
}"""

_AT_POINT = """([x, y]) => {
  const el = document.elementFromPoint(x, y);
  if (!el) return null;
  if (el.tagName === "IFRAME" || el.tagName === "FRAME") {
    const r = el.getBoundingClientRect(), st = getComputedStyle(el);
    return { frame: el, x: x - r.left - el.clientLeft - parseFloat(st.paddingLeft),
             y: y - r.top - el.clientTop - parseFloat(st.paddingTop) };
  }
  return { element: el.closest(`a[href], button, input, select, textarea, summary, label,
    [role=button], [role=link], [role=menuitem], [role=menuitemcheckbox], [role=option],
    [role=tab], [role=switch], [role=checkbox], [onclick]`) || el };
}"""

_FRAMES_DEEP = 8
"""Frames in frames a point is followed through, each hit-tested in its own document."""


async def facts_of(handle: ElementHandle) -> ElementFacts:
    """The facts of the element ``handle``; Playwright's errors as they come."""
    return _facts(await handle.evaluate(_FACTS))


async def facts_at(frame: Frame, x: float, y: float) -> ElementFacts | None:
    """The facts of the element a click at ``(x, y)`` (CSS px of ``frame``'s viewport) lands
    on — through frames, of any origin — or ``None`` over nothing; Playwright's errors as
    they come, and :class:`~pagesight.errors.ProtocolError` for a frame that cannot be
    followed (the click lands in it all the same: not "over nothing")."""
    at = (x, y)
    for _ in range(_FRAMES_DEEP):
        hit = await frame.evaluate_handle(_AT_POINT, list(at))
        inner_frame = await hit.get_property("frame")
        inner = inner_frame.as_element()
        if inner is None:
            element = (await hit.get_property("element")).as_element()
            return await facts_of(element) if element is not None else None
        content = await inner.content_frame()
        if content is None:
            raise ProtocolError("the frame under the point shows no document to read")
        inner_x = float(await (await hit.get_property("x")).json_value())
        inner_y = float(await (await hit.get_property("y")).json_value())
        frame, at = content, (inner_x, inner_y)
    raise ProtocolError(f"the point lies in frames nested over {_FRAMES_DEEP} deep")


def _facts(raw: dict[str, Any]) -> ElementFacts:
    return ElementFacts(
        names=tuple(raw["names"]),
        submits=bool(raw["submits"]),
        field=_field(raw["field"]) if raw["field"] else None,
        form_fields=tuple(_field(f) for f in raw["form_fields"]),
        default_button=tuple(raw["default_button"]),
    )


def _field(raw: dict[str, Any]) -> Field:
    return Field(type=str(raw["type"]), words=tuple(str(w) for w in raw["words"]))
