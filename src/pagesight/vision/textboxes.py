"""Where the text is on screen: the box of every visible line of text, read from the page.

Set-of-marks badges must never cover text, and sit beside their element's first line; both
need the lines themselves, which only the page's layout knows. One small script, run when
the screenshot is taken, measures each text node's line boxes (``Range.getClientRects``)
where they are in view and not clipped away, plus the boxes of text fields and selects
(their text is not in text nodes), and which text belongs to a link wrapping over lines.
Same-origin iframes and open shadow roots are included.
"""

from __future__ import annotations

from typing import Any

from pagesight.vision.marks import CssBox

TEXT_BOXES_SCRIPT = """() => {
  const out = [];
  const FIELDS = new Set(["input", "textarea", "select"]);
  const NO_TEXT = new Set(["hidden", "checkbox", "radio"]);  // inputs that show no text
  const SKIP = new Set(["script", "style", "template", "noscript", "head"]);
  const filter = { acceptNode: (n) => n.nodeType === 1 && SKIP.has(n.localName)
    ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT };
  // view: the part of the top viewport this document shows, in its own coordinates.
  function walk(doc, root, dx, dy, view) {
    const win = doc.defaultView;
    const clips = new Map();  // element -> the rectangle it is visible in, or null (hidden)
    function clipOf(el) {
      if (!el) return view;
      if (clips.has(el)) return clips.get(el);
      const up = el.parentElement || (el.parentNode && el.parentNode.host) || null;
      let clip = clipOf(up);
      const st = win.getComputedStyle(el);
      if (!clip || st.visibility === "hidden" || st.opacity === "0" || st.display === "none") {
        clip = null;
      } else if (st.overflowX !== "visible" || st.overflowY !== "visible") {
        const r = el.getBoundingClientRect();
        clip = [Math.max(clip[0], r.left), Math.max(clip[1], r.top),
                Math.min(clip[2], r.right), Math.min(clip[3], r.bottom)];
      }
      clips.set(el, clip);
      return clip;
    }
    // The inline element a text is in that wraps over several lines (a link in running
    // text), or null: its box spans whole lines, neighbours' words included, so the marks
    // must be told which text in it is its own.
    const wraps = new Map();
    function wrappingOf(el) {
      if (!el) return null;
      if (wraps.has(el)) return wraps.get(el);
      let found = null;
      if (win.getComputedStyle(el).display === "inline") {
        const r = el.getBoundingClientRect();
        found = el.getClientRects().length > 1
          ? [r.left + dx, r.top + dy, r.width, r.height] : wrappingOf(el.parentElement);
      }
      wraps.set(el, found);
      return found;
    }
    function add(r, clip, owner) {
      const left = Math.max(r.left, clip[0]), top = Math.max(r.top, clip[1]);
      const right = Math.min(r.right, clip[2]), bottom = Math.min(r.bottom, clip[3]);
      if (right - left >= 1 && bottom - top >= 1) {
        const box = [left + dx, top + dy, right - left, bottom - top];
        out.push(owner ? box.concat(owner) : box);
      }
    }
    const range = doc.createRange();
    const shows = NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT;
    const walker = doc.createTreeWalker(root, shows, filter);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.nodeType === 3) {
        if (!/\\S/.test(node.data)) continue;
        range.selectNodeContents(node);
        // Out of view first (cheap, and most of a long page): styles only for what is in it.
        const rects = [...range.getClientRects()].filter((r) =>
          r.right > view[0] && r.left < view[2] && r.bottom > view[1] && r.top < view[3]);
        if (!rects.length) continue;
        const clip = clipOf(node.parentElement);
        if (clip) for (const r of rects) add(r, clip, wrappingOf(node.parentElement));
        continue;
      }
      if (node.shadowRoot) walk(doc, node.shadowRoot, dx, dy, clipOf(node) || [0, 0, 0, 0]);
      const tag = node.localName;
      if (FIELDS.has(tag) && !(tag === "input" && NO_TEXT.has(node.type))) {
        const clip = clipOf(node);
        if (clip) add(node.getBoundingClientRect(), clip);
      } else if (tag === "iframe") {
        let inner = null;
        try { inner = node.contentDocument; } catch (e) { inner = null; }  // cross-origin
        const clip = clipOf(node);
        if (inner && inner.documentElement && clip) {
          const r = node.getBoundingClientRect();
          const ox = r.left + node.clientLeft, oy = r.top + node.clientTop;
          const inView = [Math.max(clip[0], r.left) - ox, Math.max(clip[1], r.top) - oy,
                          Math.min(clip[2], r.right) - ox, Math.min(clip[3], r.bottom) - oy];
          walk(inner, inner.documentElement, dx + ox, dy + oy, inView);
        }
      }
    }
  }
  walk(document, document.documentElement, 0, 0, [0, 0, innerWidth, innerHeight]);
  return out;
}"""
"""Evaluated in the top frame: a list of [x, y, width, height] in CSS px of the viewport,
followed, for text in an inline element that wraps, by that element's box."""


def text_boxes(raw: Any) -> list[CssBox]:
    """The script's answer as boxes (x, y, width, height in CSS px)."""
    return [(float(b[0]), float(b[1]), float(b[2]), float(b[3])) for b in raw]


def wrapping_owners(raw: Any) -> list[CssBox | None]:
    """For each of ``text_boxes(raw)``, the box of the wrapping inline element (a link over
    two lines) whose text it is, or None."""
    return [
        (float(b[4]), float(b[5]), float(b[6]), float(b[7])) if len(b) > 4 else None for b in raw
    ]


SHOWN_SCRIPT = """([needles, origin]) => {
  // Lower case letter by letter, keeping a letter whose lower case is longer (İ) as it is, so
  // that an index into the folded text is an index into the page's text.
  const fold = (s) => { let o = ""; for (const c of s) { const l = c.toLowerCase();
    o += l.length === c.length ? l : c; } return o; };
  const wanted = needles.map(fold).filter((n) => n.length > 0);
  const out = [];
  // origin: where this document's root box lies in the top viewport (a frame's; null in the
  // top document), so that boxes come back in top px.
  const own = document.documentElement.getBoundingClientRect();
  const dx = origin ? origin[0] - own.left : 0, dy = origin ? origin[1] - own.top : 0;
  const SKIP = new Set(["script", "style", "template", "noscript", "head"]);
  const filter = { acceptNode: (n) => n.nodeType === 1 && SKIP.has(n.localName)
    ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT };
  const add = (r) => {  // kept to this document's viewport
    const left = Math.max(r.left, 0), top = Math.max(r.top, 0);
    const right = Math.min(r.right, innerWidth), bottom = Math.min(r.bottom, innerHeight);
    if (right - left >= 1 && bottom - top >= 1) {
      out.push([left + dx, top + dy, right - left, bottom - top]);
    }
  };
  const holds = (s) => { const f = fold(s || ""); return wanted.some((n) => f.includes(n)); };
  // One root's text, its text nodes joined in order: a value split over elements
  // (<b>sk-</b>123) is found whole, and each find is measured as a Range over its nodes.
  function walk(root) {
    const nodes = [], starts = [];
    let text = "";
    const walker = document.createTreeWalker(
      root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, filter);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.nodeType === 3) {
        starts.push(text.length); nodes.push(node); text += node.data;
        continue;
      }
      if (node.shadowRoot) walk(node.shadowRoot);
      const tag = node.localName;
      if ((tag === "input" || tag === "textarea") && (holds(node.value) ||
          holds(node.getAttribute("placeholder")))) {
        add(node.getBoundingClientRect());
      } else if (tag === "select" && [...node.selectedOptions].some((o) => holds(o.text))) {
        add(node.getBoundingClientRect());
      }
    }
    if (!nodes.length) return;
    const folded = fold(text);
    const at = (i) => {  // the text node holding index i of the joined text
      let lo = 0, hi = starts.length - 1;
      while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (starts[mid] <= i) lo = mid;
        else hi = mid - 1; }
      return lo;
    };
    const range = document.createRange();
    for (const needle of wanted) {
      for (let i = folded.indexOf(needle); i >= 0; i = folded.indexOf(needle, i + 1)) {
        const a = at(i), b = at(i + needle.length - 1);
        range.setStart(nodes[a], i - starts[a]);
        range.setEnd(nodes[b], i + needle.length - starts[b]);
        for (const r of range.getClientRects()) add(r);
      }
    }
  }
  walk(document.documentElement);
  return out;
}"""
"""Evaluated in one frame's document with the texts to find (the run's secret values) and
where that document lies in the top viewport: the box (x, y, width, height in CSS px of the
top viewport) of each place one of them shows, in any case (``text-transform``, a page's own
``toUpperCase``): in the document's text, however split over elements, and in the fields and
selects showing it; open shadow roots included. Each frame is asked on its own, of any
origin."""


def shown_boxes(raw: Any) -> tuple[CssBox, ...]:
    """``SHOWN_SCRIPT``'s answer as boxes."""
    return tuple((float(b[0]), float(b[1]), float(b[2]), float(b[3])) for b in raw)
