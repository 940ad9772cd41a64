// What a person can see: boxes and where they meet, what is painted over an element, and the
// page's visible and reachable areas. Sent with the walker (capture.py joins the page scripts
// into one expression) and installed once per document under Symbol.for("pagesight.sight");
// the walker takes its functions from there.
(() => {
  const KEY = Symbol.for("pagesight.sight");
  if (globalThis[KEY]) return globalThis[KEY];
  const ELEMENT = 1;

  // --- geometry -----------------------------------------------------------------------------
  function inter(a, b) {
    const x = Math.max(a.x, b.x), y = Math.max(a.y, b.y);
    const r = Math.min(a.x + a.w, b.x + b.w), bt = Math.min(a.y + a.h, b.y + b.h);
    return { x, y, w: Math.max(0, r - x), h: Math.max(0, bt - y) };
  }
  function meets(a, b) {
    return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
  }
  function contains(outer, inner) {
    return outer.x <= inner.x + 0.5 && outer.y <= inner.y + 0.5 &&
      outer.x + outer.w >= inner.x + inner.w - 0.5 && outer.y + outer.h >= inner.y + inner.h - 0.5;
  }

  // --- occlusion -------------------------------------------------------------------------------
  // Only a solid colour is certainly opaque; an image or gradient may be see-through.
  function opaqueBackground(el) {
    const st = el.ownerDocument.defaultView.getComputedStyle(el);
    const m = /rgba?\(([^)]+)\)/.exec(st.backgroundColor);
    if (!m) return false;
    const parts = m[1].split(/[,\s/]+/).filter(Boolean);
    return parts.length < 4 || parseFloat(parts[3]) >= 1;
  }
  function fullyOpaque(el) {
    for (let e = el; e && e.nodeType === ELEMENT; e = e.parentElement || (e.getRootNode() && e.getRootNode().host)) {
      if (parseFloat(e.ownerDocument.defaultView.getComputedStyle(e).opacity) < 1) return false;
    }
    return true;
  }
  // What hit-testing says about the visible part ``vis`` of an element: "covered" when opaque
  // boxes that are not the element (nor inside it, nor around it) are painted above all of
  // it; "scrolled" when those boxes are fixed or sticky bars short of the whole viewport (a
  // site header, a sticky table head, over content scrolling brings back); otherwise "none".
  function coverOf(el, vis, state) {
    if (vis.w < 1 || vis.h < 1) return "none";
    const root = el.getRootNode();
    const hitter = root.elementFromPoint ? root : el.ownerDocument;
    const hit = hitter.elementFromPoint(vis.x + vis.w / 2, vis.y + vis.h / 2);
    if (!hit || hit === el || el.contains(hit) || hit.contains(el)) return "none";
    let covers = [opaqueCoverAt(hit, el, vis)];
    if (!covers[0]) {
      // Several boxes together (a dialog over part, its backdrop over the rest): every sampled
      // point must land on an opaque box above the element.
      covers = [];
      for (const x of [vis.x + 1, vis.x + vis.w / 2, vis.x + vis.w - 1]) {
        for (const y of [vis.y + 1, vis.y + vis.h / 2, vis.y + vis.h - 1]) {
          const h = hitter.elementFromPoint(x, y);
          if (!h || h === el || el.contains(h) || h.contains(el)) return "none";
          const cover = opaqueCoverAt(h, el, { x, y, w: 0, h: 0 });
          if (!cover) return "none";
          covers.push(cover);
        }
      }
    }
    const view = el.ownerDocument.defaultView;
    const bar = (c) => {
      const r = c.getBoundingClientRect();
      const spansView = r.width >= view.innerWidth - 1 && r.height >= view.innerHeight - 1;
      return !spansView && pinned(c);
    };
    return covers.every(bar) ? "scrolled" : "covered";
  }
  // Is this box (or a box it moves with) fixed or sticky, so it stays while the page scrolls?
  function pinned(el) {
    for (let e = el; e && e.nodeType === ELEMENT; e = e.parentElement) {
      const pos = e.ownerDocument.defaultView.getComputedStyle(e).position;
      if (pos === "fixed" || pos === "sticky") return true;
    }
    return false;
  }
  // The opaque box at or above ``hit`` (but not around the element) that spans ``area``.
  function opaqueCoverAt(hit, el, area) {
    for (let c = hit; c && c.nodeType === ELEMENT && !c.contains(el); c = c.parentElement) {
      const r = c.getBoundingClientRect();
      if (!contains({ x: r.left, y: r.top, w: r.width, h: r.height }, area)) continue;
      if (opaqueBackground(c) && fullyOpaque(c)) return c;
    }
    return null;
  }

  // The page itself: visible now = the viewport; reachable = the document's scrollable area
  // (content before the scroll origin cannot be scrolled to). Where <html> keeps its
  // overflow hidden and <body> scrolls instead, the body's scroll area is the page's.
  function pageState(doc, viewport) {
    const view = doc.defaultView;
    const html = doc.documentElement, body = doc.body;
    const hst = view.getComputedStyle(html), bst = body ? view.getComputedStyle(body) : hst;
    const rtl = hst.direction === "rtl";
    const scrolls = (o) => o === "auto" || o === "scroll";
    const bodyScrolls = body && hst.overflowY !== "visible" && scrolls(bst.overflowY) && body.scrollHeight > body.clientHeight + 1;
    if (bodyScrolls) {
      const r = body.getBoundingClientRect();
      const reach = { x: r.left - body.scrollLeft, y: r.top + body.clientTop - body.scrollTop, w: body.scrollWidth, h: body.scrollHeight };
      return { clip: viewport, reach, scroller: null, view: viewport };
    }
    const se = doc.scrollingElement || html;
    const lockedY = hst.overflowY === "hidden" || hst.overflowY === "clip" || (bst.overflowY === "hidden" && hst.overflowY === "visible");
    const lockedX = hst.overflowX === "hidden" || hst.overflowX === "clip" || (bst.overflowX === "hidden" && hst.overflowX === "visible");
    const width = lockedX ? viewport.w : Math.max(se.scrollWidth, viewport.w);
    // Right-to-left pages overflow to the left; scrollLeft runs from 0 down to negative.
    const x = lockedX ? 0 : rtl ? viewport.w - se.scrollLeft - width : -se.scrollLeft;
    const reach = {
      x, y: lockedY ? 0 : -se.scrollTop, w: width,
      h: lockedY ? viewport.h : Math.max(se.scrollHeight, viewport.h),
    };
    return { clip: viewport, reach, scroller: null, view: viewport };
  }

  const api = { inter, meets, contains, coverOf, pageState };
  Object.defineProperty(globalThis, KEY, { value: api, enumerable: false });
  return api;
})();
