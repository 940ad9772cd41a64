"""What lies beyond a screenshot, and scrolling at a point of it.

A screenshot shows only the viewport. A vision observation says where the page, or a large
scroll container on screen (a canvas inside a scrolling panel), continues past it, so that a
model knows to scroll; ``scroll_at`` scrolls whatever scrolls under a point, as a person's
wheel would, but by a known amount.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pagesight.act.resolve import act_script

MIN_SHARE = 0.05
"""A scroll container smaller than this share of the viewport is not worth a note."""
MAX_AREAS = 3
_MIN_PX = 2  # less than this past the edge is rounding, not more content

# Scroll containers found under a grid of points over the viewport: what a person could see
# scrolls, without visiting every element of a large page.
EXTENT_SCRIPT = """(minShare) => {
  const doc = document, view = window;
  const page = doc.scrollingElement || doc.documentElement;
  const style = (e) => view.getComputedStyle(e);
  // Right to left, a box starts at its right edge: scrollLeft is 0 there and goes negative,
  // and what is past the screen lies to the left.
  const rest = (e, dir) => {
    const past = e.scrollWidth - e.clientWidth - Math.abs(e.scrollLeft);
    const back = Math.abs(e.scrollLeft);
    const rtl = dir === "rtl";
    return { below: e.scrollHeight - e.clientHeight - e.scrollTop, above: e.scrollTop,
             right: rtl ? back : past, left: rtl ? past : back };
  };
  const overflow = (e, axis) => style(e)[axis === "y" ? "overflowY" : "overflowX"];
  // The page takes its direction from the body (Chromium propagates it to the viewport).
  const pageRest = rest(page, style(doc.body || page).direction);
  // The viewport's overflow is the root's, or the body's when the root's is visible: hidden
  // (or clip) there, the page never scrolls.
  const root = doc.documentElement;
  const shut = (axis) => {
    const own = overflow(root, axis);
    const used = own === "visible" && doc.body ? overflow(doc.body, axis) : own;
    return used === "hidden" || used === "clip";
  };
  for (const axis of ["y", "x"]) {
    if (shut(axis)) {
      if (axis === "y") { pageRest.below = 0; pageRest.above = 0; }
      else { pageRest.right = 0; pageRest.left = 0; }
    }
  }
  const areas = [], seen = new Set();
  const W = view.innerWidth, H = view.innerHeight;
  for (let i = 0; i < 5; i++) {
    for (let j = 0; j < 5; j++) {
      let e = doc.elementFromPoint(W * (i + 0.5) / 5, H * (j + 0.5) / 5);
      for (; e && e !== doc.body && e !== page; e = e.parentElement) {
        if (seen.has(e)) break;
        seen.add(e);
        const st = style(e);
        const y = /(auto|scroll)/.test(st.overflowY) && e.scrollHeight > e.clientHeight + 1;
        const x = /(auto|scroll)/.test(st.overflowX) && e.scrollWidth > e.clientWidth + 1;
        if (!x && !y) continue;
        const r = e.getBoundingClientRect();
        const left = Math.max(0, r.left), top = Math.max(0, r.top);
        const right = Math.min(W, r.right), bottom = Math.min(H, r.bottom);
        if (right <= left || bottom <= top) continue;
        if ((right - left) * (bottom - top) < minShare * W * H) continue;
        const more = rest(e, st.direction);
        if (!y) { more.below = 0; more.above = 0; }
        if (!x) { more.right = 0; more.left = 0; }
        areas.push({ box: [left, top, right - left, bottom - top], rest: more });
      }
    }
  }
  return { page: pageRest, areas };
}"""

# The scroll container under a point that can scroll along the axis, else the page, scrolled
# by act.js's own rule (a screen of it, or ``pixels``).
SCROLL_AT_SCRIPT = f"""(req) => {{
  const helpers = ({act_script()});
  const view = window;
  let box = null;
  for (let e = document.elementFromPoint(req.x, req.y); e; e = e.parentElement) {{
    if (e === document.body || e === document.documentElement) break;
    const st = view.getComputedStyle(e);
    const overflow = req.axis === "x" ? st.overflowX : st.overflowY;
    const room = req.axis === "x" ? e.scrollWidth > e.clientWidth : e.scrollHeight > e.clientHeight;
    if (room && /(auto|scroll)/.test(overflow)) {{ box = e; break; }}
  }}
  return helpers.scroll(box, req);
}}"""


def extent_notes(extent: Mapping[str, Any]) -> tuple[str, ...]:
    """Notes for a model on where the page and large scroll areas continue past the screen
    ("the page continues below: 900 px more; scroll down"), from ``EXTENT_SCRIPT``'s answer."""
    notes = []
    more, ways = _more(extent["page"])
    if more:
        notes.append(f"the page continues {more}; scroll {ways}")
    areas = sorted(extent["areas"], key=lambda a: -a["box"][2] * a["box"][3])
    for area in areas[:MAX_AREAS]:
        more, ways = _more(area["rest"])
        if more:
            x, y, w, h = (round(v) for v in area["box"])
            notes.append(
                f"the scrollable area at {x},{y} {w}x{h} continues {more}; "
                f"scroll {ways} on an element read inside it"
            )
    return tuple(notes)


_WAYS = {"below": "down", "above": "up", "right": "right", "left": "left"}


def _more(rest: Mapping[str, float]) -> tuple[str, str]:
    """ "below: 900 px more, above: 300 px more" and "down or up", for the sides with more."""
    sides = [side for side in _WAYS if rest[side] >= _MIN_PX]
    more = ", ".join(f"{side}: {round(rest[side])} px more" for side in sides)
    return more, " or ".join(_WAYS[side] for side in sides)
