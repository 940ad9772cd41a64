// What a person can see: boxes and where they meet, what is painted over an element, the
// page's visible and reachable areas, and text no one can read there. Sent with the walker (capture.py joins the page scripts
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

  // --- text a person cannot see ------------------------------------------------------------------
  // The classic hiding places for instructions meant only for a model: a font too small to
  // read, ink the colour of the paper, a clip that leaves nothing, a box painted over it. The
  // walker asks once per element that holds text (textUnseen), never per character or word.
  const MIN_FONT = 2; // px, after transforms: at this size a glyph is a dot
  const MIN_CONTRAST = 1.1; // WCAG ratio: #f5f5f5 on white is 1.09, #eee 1.16 (still readable)
  const WHITE = [255, 255, 255, 1];
  const REPLACED = new Set(["img", "svg", "video", "canvas", "iframe", "object", "embed", "picture"]);

  const SVG_NS = "http://www.w3.org/2000/svg";
  const painted = new Map(); // colour syntax -> rgba, for colours computed styles keep as written
  let paint = null;
  function rgba(css) {
    const m = /^rgba?\(([^)]+)\)/.exec(css);
    if (m) {
      const p = m[1].split(/[,\s/]+/).filter(Boolean).map(parseFloat);
      return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
    }
    // oklch(), lab(), color(srgb ...) stay so in computed styles: let a canvas paint one pixel
    // (once per colour written; a page uses a handful).
    if (!/^(color|oklch|oklab|lab|lch|hwb)\(/.test(css)) return null; // url(), none, keywords
    let c = painted.get(css);
    if (c === undefined) {
      paint = paint || new OffscreenCanvas(1, 1).getContext("2d", { willReadFrequently: true });
      paint.clearRect(0, 0, 1, 1);
      paint.fillStyle = "rgba(0, 0, 0, 0)";
      paint.fillStyle = css;
      paint.fillRect(0, 0, 1, 1);
      const d = paint.getImageData(0, 0, 1, 1).data;
      c = [d[0], d[1], d[2], d[3] / 255];
      painted.set(css, c);
    }
    return c;
  }
  // The colour behind an element's children: its own solid background, else what is behind it;
  // null when an image, a gradient or a see-through colour makes it unknowable.
  function backdropOf(style, behind) {
    if (style.backgroundImage !== "none") return null;
    const c = rgba(style.backgroundColor);
    if (!c || c[3] === 0) return behind;
    return c[3] >= 1 ? c : null;
  }
  function luminance(c) {
    const lin = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2]);
  }
  // Ink (alpha blended onto the backdrop) that differs from the backdrop by less than a person
  // can read; a shadow or stroke outlines the glyphs whatever their fill.
  function inkLost(el, style, backdrop, alpha) {
    // SVG text is painted by its fill (and outlined by a stroke), not by its colour.
    const svg = el.namespaceURI === SVG_NS;
    const ink = rgba(svg ? style.fill : style.webkitTextFillColor || style.color);
    if (!ink) return false;
    if (svg && style.stroke !== "none") return false;
    // A blend mode paints it in another colour than its own (white by difference is black).
    if (style.mixBlendMode && style.mixBlendMode !== "normal") return false;
    const a = ink[3] * alpha;
    const seen = [0, 1, 2].map((i) => ink[i] * a + backdrop[i] * (1 - a));
    const l1 = luminance(seen), l2 = luminance(backdrop);
    if ((Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05) >= MIN_CONTRAST) return false;
    return style.textShadow === "none" && !(parseFloat(style.webkitTextStrokeWidth) > 0);
  }
  const ranges = new WeakMap(); // one Range a document, reused: making one costs more than using it
  function textBox(node) {
    const doc = node.ownerDocument;
    let range = ranges.get(doc);
    if (!range) ranges.set(doc, (range = doc.createRange()));
    range.selectNodeContents(node);
    const r = range.getBoundingClientRect();
    return { x: r.left, y: r.top, w: r.width, h: r.height };
  }
  // What is really painted behind the text, by hit-testing its centre: the box ancestry says
  // what the text sits in, but a positioned text sits over whatever is under it (a hero photo).
  // Only asked when the ancestry says the ink is lost. Null: a picture or gradient, cannot tell.
  function paintedBackdrop(el, box) {
    const doc = el.ownerDocument;
    const stack = doc.elementsFromPoint(box.x + box.w / 2, box.y + box.h / 2);
    for (const e of stack) {
      if (e !== el && el.contains(e)) continue; // above the text, not behind it
      // Inside an <svg> its shapes are the picture; the <svg> around the text is not.
      if (e.namespaceURI === SVG_NS) { if (e.contains(el)) continue; return null; }
      if (REPLACED.has(e.localName)) return null;
      const c = backdropOf(doc.defaultView.getComputedStyle(e), WHITE);
      if (c !== WHITE) return c; // a solid colour or null
    }
    return WHITE; // the canvas
  }
  function scaleOf(transform) {
    const m = /^matrix(3d)?\(([^)]+)\)/.exec(transform);
    if (!m) return 1;
    const v = m[2].split(",").map(parseFloat);
    const [a, b, c, d] = m[1] ? [v[0], v[1], v[4], v[5]] : v;
    return Math.min(Math.hypot(a, b), Math.hypot(c, d));
  }
  // Clip paths that leave nothing: inset by half or all, a zero circle or ellipse, a polygon of
  // one point.
  function clipsAll(cp) {
    if (cp === "none") return false;
    if (/^inset\((50|100)%/.test(cp) || /^(circle|ellipse)\(0(px|%)?[ )]/.test(cp)) return true;
    const poly = /^polygon\(([^)]*)\)/.exec(cp);
    return Boolean(poly) && new Set(poly[1].split(",").map((p) => p.trim())).size === 1;
  }
  // Is the text of ``el`` (``node`` its first text node) out of a person's sight? ``look`` is
  // the walker's appearance of ``el`` (null for a document's root), ``backdrop`` and ``scale``
  // what its ancestry paints behind it and the transforms' scale.
  // At 5% opacity even white on black is below MIN_CONTRAST: no backdrop makes it readable.
  const MIN_OPACITY = 0.05;
  // Elements whose text this observation left out, for the name guesses (hints.js) that read
  // the text around a field: a guess must not bring it back.
  let dropped = new WeakSet();
  function forgetDropped() { dropped = new WeakSet(); }
  function droppedText(el) { return dropped.has(el); }
  function dropText(el) { dropped.add(el); } // covered: the walker's own finding
  function textUnseen(el, style, look, node, backdrop, scale, alpha) {
    const unseen = unseenNow(el, style, look, node, backdrop, scale, alpha);
    if (unseen) dropped.add(el);
    return unseen;
  }
  function unseenNow(el, style, look, node, backdrop, scale, alpha) {
    if (parseFloat(style.fontSize) * scale <= MIN_FONT) return true;
    if (alpha <= MIN_OPACITY) return true;
    if (!look || look.noBox) return backdrop !== null && inkLost(el, style, backdrop, alpha) && lostOnPaint(el, node, style, alpha);
    // Indented out of its own clipping box (image replacement: text-indent: -9999px), or, with
    // nothing clipping it, off the page to where no scrolling goes.
    const indent = parseFloat(style.textIndent);
    if (indent < 0 && indent <= -look.box.w) {
      if (look.clips) return true;
      const t = textBox(node);
      if (t.w > 0 && !meets(t, look.state.reach)) return true;
    }
    // A box partly outside what its clipping ancestors show: is the text itself outside?
    if (!contains(look.state.reach, look.box)) {
      const t = textBox(node);
      if (t.w > 0 && !meets(t, look.state.reach)) return true;
    }
    return backdrop !== null && inkLost(el, style, backdrop, alpha) && lostOnPaint(el, node, style, alpha);
  }
  function lostOnPaint(el, node, style, alpha) {
    const box = textBox(node);
    const view = el.ownerDocument.defaultView;
    const cx = box.x + box.w / 2, cy = box.y + box.h / 2;
    // Hit-testing sees only the viewport: elsewhere, trust the ancestry unless the text is
    // lifted out of the flow (over what, we cannot tell without scrolling there).
    const onView = cx >= 0 && cy >= 0 && cx < view.innerWidth && cy < view.innerHeight;
    const painted = onView ? paintedBackdrop(el, box) : inFlow(el) ? WHITE : null;
    return painted !== null && (!onView || inkLost(el, style, painted, alpha));
  }
  // No box from the text up to the first one with a background is absolutely placed.
  function inFlow(el) {
    const view = el.ownerDocument.defaultView;
    for (let e = el; e && e.nodeType === ELEMENT; e = e.parentElement) {
      if (e.namespaceURI === SVG_NS) return false; // over shapes the ancestry does not know of
      const st = view.getComputedStyle(e);
      if (st.position === "absolute" || st.position === "fixed") return false;
      if (st.backgroundImage !== "none" || backdropOf(st, WHITE) !== WHITE) return true;
    }
    return true;
  }

  const api = { inter, meets, contains, coverOf, pageState, textUnseen, forgetDropped, droppedText, dropText, textBox, backdropOf, scaleOf, clipsAll, WHITE };
  Object.defineProperty(globalThis, KEY, { value: api, enumerable: false });
  return api;
})();
