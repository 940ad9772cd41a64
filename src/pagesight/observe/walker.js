// The page-side walk. Evaluated once per document; it installs an object under
// Symbol.for("pagesight.walker") whose observe() returns a compact tree of what a person could
// see or reach. Visibility, clipping, scroll reachability, occlusion, names, live values and
// wrapper compaction are all decided here, where the data lives, so only the result crosses
// the wire.
//
// Node encoding (kept terse because it is serialised on every observation):
//   string                       a run of text
//   {r, n, v, s, i, c, ...}      role, name, value, states, local id (if actionable), children
//   extra keys: b bounds [x,y,w,h] (top-level viewport CSS px), o offscreen, sc local id of the
//   scroll container, opts option labels, lv heading level, h href, fk frame key (cross-origin
//   iframe placeholder), fu frame url.
(() => {
  const KEY = Symbol.for("pagesight.walker");
  if (globalThis[KEY]) return globalThis[KEY];
  // The hooks are normally installed before the page's scripts; when pagesight attached later,
  // an empty set stands in (and CDP fills closedRoots in, see capture.py).
  const HOOKS = Symbol.for("pagesight.hooks");
  function hooksOf(win) {
    if (!win[HOOKS]) {
      Object.defineProperty(win, HOOKS, {
        value: { clickTargets: new WeakSet(), closedRoots: new WeakMap(), installedEarly: false },
        enumerable: false,
      });
    }
    return win[HOOKS];
  }
  const hooks = hooksOf(globalThis);

  const ELEMENT = 1;
  const TEXT = 3;
  const BREAK = 0; // marks a block boundary between text runs; removed before returning
  const SKIP = new Set([
    "script", "style", "noscript", "template", "head", "meta", "link", "title", "base",
    "datalist", "param", "source", "track", "col", "colgroup", "br", "wbr", "hr",
  ]);
  const INLINE_DISPLAY = new Set(["inline", "inline-block", "inline-flex", "inline-grid", "contents", "ruby"]);
  const LANDMARK = {
    nav: "navigation", main: "main", aside: "complementary", form: "form", dialog: "dialog",
    ul: "list", ol: "list", menu: "list", li: "listitem", table: "table", tr: "row",
    td: "cell", th: "columnheader", fieldset: "group", details: "group", figure: "figure",
    search: "search", article: "article", blockquote: "blockquote", dl: "list",
  };
  const INTERACTIVE_ROLES = new Set([
    "button", "link", "checkbox", "radio", "tab", "menuitem", "menuitemcheckbox",
    "menuitemradio", "option", "switch", "combobox", "textbox", "searchbox", "slider",
    "spinbutton", "treeitem", "listbox", "gridcell", "scrollbar",
  ]);
  // Roles whose name comes from their content (so their text is folded into the name).
  const NAME_FROM_CONTENT = new Set([
    "button", "link", "checkbox", "radio", "tab", "menuitem", "menuitemcheckbox",
    "menuitemradio", "option", "switch", "treeitem", "heading", "cell", "columnheader",
    "rowheader", "gridcell", "clickable", "summary",
  ]);
  const GENERIC = new Set(["generic", "none", "presentation", ""]);
  const PHRASING = new Set([
    "span", "b", "i", "em", "strong", "small", "code", "sup", "sub", "abbr", "time", "mark",
    "u", "s", "cite", "q", "font", "bdi", "bdo", "kbd", "var", "samp", "del", "ins", "dfn", "tt",
  ]);
  const NO_BOX = { x: 0, y: 0, w: 0, h: 0 };
  const MAX_NAME = 120;
  const MAX_OPTIONS = 25;

  let nextId = 1;
  const idOf = new WeakMap();
  const byId = new Map(); // local id -> WeakRef(element), for the action layer
  const frameEls = []; // cross-origin iframe elements of the last walk, by frame key
  const docToken = Math.random().toString(36).slice(2) + Date.now().toString(36);

  function localId(el) {
    let id = idOf.get(el);
    if (id === undefined) {
      id = nextId++;
      idOf.set(el, id);
      byId.set(id, new WeakRef(el));
    }
    return id;
  }

  function norm(s) {
    return s.replace(/[\s\u00a0\u200b]+/g, " ").trim();
  }
  function cap(s, n) {
    return s.length > n ? s.slice(0, n - 1) + "\u2026" : s;
  }

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

  // --- roles, names, values, states -------------------------------------------------------------
  function inputRole(el) {
    switch ((el.getAttribute("type") || "text").toLowerCase()) {
      case "hidden": return null;
      case "checkbox": return "checkbox";
      case "radio": return "radio";
      case "range": return "slider";
      case "number": return "spinbutton";
      case "search": return "searchbox";
      case "button": case "submit": case "reset": case "image": case "file": return "button";
      default: return el.getAttribute("list") ? "combobox" : "textbox";
    }
  }

  function roleOf(el, tag) {
    const explicit = el.getAttribute("role");
    if (explicit) {
      const first = explicit.trim().split(/\s+/)[0].toLowerCase();
      if (first) return first;
    }
    switch (tag) {
      case "a": case "area": return el.hasAttribute("href") ? "link" : "";
      case "button": return "button";
      case "input": return inputRole(el);
      case "select": return el.multiple || el.size > 1 ? "listbox" : "combobox";
      case "textarea": return "textbox";
      case "summary": return "button";
      case "h1": case "h2": case "h3": case "h4": case "h5": case "h6": return "heading";
      case "img": return (el.getAttribute("alt") || el.getAttribute("aria-label") || el.title) ? "img" : "";
      case "iframe": case "frame": return "iframe";
      case "header": return el.closest("article,aside,main,nav,section") ? "" : "banner";
      case "footer": return el.closest("article,aside,main,nav,section") ? "" : "contentinfo";
      case "section": return el.hasAttribute("aria-label") || el.hasAttribute("aria-labelledby") ? "region" : "";
      case "progress": return "progressbar";
      case "meter": return "meter";
      case "option": return "option";
      case "canvas": return "canvas";
      case "video": case "audio": return el.controls ? tag : "";
      default: return LANDMARK[tag] || "";
    }
  }

  function textOfIds(el, ids) {
    const doc = el.ownerDocument;
    const root = el.getRootNode();
    const parts = [];
    for (const id of ids.split(/\s+/)) {
      const ref = (root.getElementById && root.getElementById(id)) || doc.getElementById(id);
      if (ref) parts.push(ref.getAttribute("aria-label") || ref.textContent || "");
    }
    return norm(parts.join(" "));
  }

  // Text of a <label>, minus the controls inside it (a label wrapping a select would otherwise
  // read out every option).
  function labelText(label) {
    let out = "";
    const walk = (n) => {
      for (let c = n.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === TEXT) out += c.data;
        else if (c.nodeType === ELEMENT) {
          const t = c.localName;
          if (t === "input" || t === "select" || t === "textarea" || t === "button" || SKIP.has(t)) continue;
          if (t === "img") out += " " + (c.getAttribute("alt") || "") + " ";
          else { out += " "; walk(c); out += " "; }
        }
      }
    };
    walk(label);
    return norm(out);
  }

  // The name a control gets from outside its own content: aria, labels, alt, title.
  function externalName(el, tag) {
    const by = el.getAttribute("aria-labelledby");
    if (by) {
      const t = textOfIds(el, by);
      if (t) return t;
    }
    const aria = el.getAttribute("aria-label");
    if (aria && aria.trim()) return norm(aria);
    if (el.labels && el.labels.length && tag !== "button") {
      const t = norm(Array.from(el.labels, labelText).join(" "));
      if (t) return t;
    }
    if (tag === "img" || tag === "area" || (tag === "input" && el.type === "image")) {
      const alt = el.getAttribute("alt");
      if (alt && alt.trim()) return norm(alt);
    }
    if (tag === "input" && (el.type === "submit" || el.type === "reset" || el.type === "button")) {
      return el.value || (el.type === "submit" ? "Submit" : el.type === "reset" ? "Reset" : "");
    }
    if (tag === "svg" || tag === "g" || tag === "circle" || tag === "path" || tag === "rect") {
      const t = el.querySelector(":scope > title");
      if (t && t.textContent.trim()) return norm(t.textContent);
    }
    if (tag === "fieldset") {
      const legend = el.querySelector(":scope > legend");
      if (legend) return norm(legend.textContent);
    }
    if (tag === "figure") {
      const caption = el.querySelector(":scope > figcaption");
      if (caption) return norm(caption.textContent);
    }
    return "";
  }

  function fallbackName(el, tag) {
    const title = el.getAttribute("title");
    if (title && title.trim()) return norm(title);
    if (tag === "input" || tag === "textarea") {
      const ph = el.getAttribute("placeholder");
      if (ph && ph.trim()) return norm(ph);
    }
    return "";
  }

  function valueOf(el, tag, role) {
    if (tag === "input") {
      const type = el.type;
      if (type === "checkbox" || type === "radio" || type === "button" || type === "submit" ||
          type === "reset" || type === "image" || type === "hidden") return undefined;
      if (type === "password") return el.value ? "\u2022".repeat(Math.min(el.value.length, 8)) : undefined;
      if (type === "file") return el.files && el.files.length ? Array.from(el.files, (f) => f.name).join(", ") : undefined;
      return el.value || undefined;
    }
    if (tag === "textarea") return el.value || undefined;
    if (tag === "select") {
      const picked = Array.from(el.selectedOptions, (o) => norm(o.label || o.text));
      return picked.length ? picked.join(", ") : undefined;
    }
    if (el.isContentEditable && (!el.parentElement || !el.parentElement.isContentEditable)) {
      return cap(norm(el.innerText || ""), 400) || undefined;
    }
    const now = el.getAttribute("aria-valuetext") || el.getAttribute("aria-valuenow");
    if (now) return now;
    if ((role === "combobox" || role === "textbox" || role === "searchbox") && "value" in el && typeof el.value === "string") {
      return el.value || undefined;
    }
    return undefined;
  }

  function optionsOf(el) {
    const labels = [];
    for (const o of el.options) {
      if (labels.length >= MAX_OPTIONS) { labels.push(`+${el.options.length - MAX_OPTIONS} more`); break; }
      labels.push(norm(o.label || o.text));
    }
    return labels;
  }

  function statesOf(el, tag, ctx) {
    const s = [];
    const aria = (name) => el.getAttribute(name);
    if (tag === "input" && (el.type === "checkbox" || el.type === "radio")) {
      if (el.indeterminate) s.push("mixed");
      else if (el.checked) s.push("checked");
    } else {
      const c = aria("aria-checked");
      if (c === "true") s.push("checked");
      else if (c === "mixed") s.push("mixed");
    }
    if (aria("aria-pressed") === "true") s.push("pressed");
    if (aria("aria-selected") === "true" || (tag === "option" && el.selected)) s.push("selected");
    const exp = aria("aria-expanded");
    if (exp === "true") s.push("expanded");
    else if (exp === "false") s.push("collapsed");
    if (tag === "summary" && el.parentElement && el.parentElement.localName === "details") {
      s.push(el.parentElement.open ? "expanded" : "collapsed");
    }
    if ((("disabled" in el) && el.matches(":disabled")) || aria("aria-disabled") === "true" || ctx.disabled) s.push("disabled");
    if ((tag === "input" || tag === "textarea") && el.readOnly) s.push("readonly");
    else if (aria("aria-readonly") === "true") s.push("readonly");
    if (el.required || aria("aria-required") === "true") s.push("required");
    if (aria("aria-invalid") === "true" || (("validity" in el) && el.matches(":user-invalid"))) s.push("invalid");
    if (el === ctx.active) s.push("focused");
    if (ctx.ariaHidden) s.push("aria-hidden");
    return s;
  }

  // --- occlusion -------------------------------------------------------------------------------
  function opaqueBackground(el) {
    const st = el.ownerDocument.defaultView.getComputedStyle(el);
    if (st.backgroundImage !== "none") return true;
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
  // True only when hit-testing says an opaque box that is not the element (nor inside it, nor
  // around it) is painted above the whole visible part of the element.
  function certainlyCovered(el, vis) {
    if (vis.w < 1 || vis.h < 1) return false;
    const root = el.getRootNode();
    const hitter = root.elementFromPoint ? root : el.ownerDocument;
    const hit = hitter.elementFromPoint(vis.x + vis.w / 2, vis.y + vis.h / 2);
    if (!hit || hit === el || el.contains(hit) || hit.contains(el)) return false;
    if (opaqueCoverAt(hit, el, vis)) return true;
    // Several boxes together (a dialog over part, its backdrop over the rest): every sampled
    // point must land on an opaque box above the element.
    const xs = [vis.x + 1, vis.x + vis.w / 2, vis.x + vis.w - 1];
    const ys = [vis.y + 1, vis.y + vis.h / 2, vis.y + vis.h - 1];
    for (const x of xs) {
      for (const y of ys) {
        const h = hitter.elementFromPoint(x, y);
        if (!h || h === el || el.contains(h) || h.contains(el)) return false;
        if (!opaqueCoverAt(h, el, { x, y, w: 0, h: 0 })) return false;
      }
    }
    return true;
  }
  // An opaque box at or above ``hit`` (but not around the element) that spans ``area``.
  function opaqueCoverAt(hit, el, area) {
    for (let c = hit; c && c.nodeType === ELEMENT && !c.contains(el); c = c.parentElement) {
      const r = c.getBoundingClientRect();
      if (!contains({ x: r.left, y: r.top, w: r.width, h: r.height }, area)) continue;
      if (opaqueBackground(c) && fullyOpaque(c)) return true;
    }
    return false;
  }

  // --- the walk ------------------------------------------------------------------------------------
  function composedChildren(el) {
    // A closed <details> shows only its summary (the rest sits in a hidden UA slot).
    if (el.localName === "details" && !el.open) {
      const summary = el.querySelector(":scope > summary");
      return summary ? [summary] : [];
    }
    const root = el.shadowRoot || hooksOf(el.ownerDocument.defaultView).closedRoots.get(el);
    if (root) return root.childNodes;
    if (el.localName === "slot") {
      const assigned = el.assignedNodes({ flatten: true });
      return assigned.length ? assigned : el.childNodes;
    }
    return el.childNodes;
  }

  function pushText(out, text) {
    const last = out.length ? out[out.length - 1] : null;
    if (typeof last === "string") out[out.length - 1] = last + text;
    else out.push(text);
  }

  // Walks the composed children into ``out``; true when the element has text of its own.
  function walkChildren(el, ctx, out) {
    const kids = composedChildren(el);
    let own = false;
    for (let i = 0; i < kids.length; i++) {
      const k = kids[i];
      if (k.nodeType === TEXT) {
        if (ctx.invisible) continue;
        const d = k.data;
        if (d.trim()) { pushText(out, d.replace(/[\s\u00a0]+/g, " ")); own = true; }
        else if (d.length && typeof out[out.length - 1] === "string") pushText(out, " ");
      } else if (k.nodeType === ELEMENT) {
        if (walkElement(k, ctx, out)) own = true;
      }
    }
    return own;
  }

  // Text runs and nodes -> tidy list: merge adjacent runs, trim, drop empties and breaks.
  function tidy(items) {
    const out = [];
    let run = null;
    for (const it of items) {
      if (typeof it === "string") { run = run === null ? it : run + it; continue; }
      if (run !== null) { const t = norm(run); if (t) out.push(t); run = null; }
      if (it !== BREAK) out.push(it);
    }
    if (run !== null) { const t = norm(run); if (t) out.push(t); }
    return out;
  }

  // Visible text of a tidied subtree, for names that come from content.
  function flatText(items) {
    const parts = [];
    for (const it of items) {
      if (typeof it === "string") parts.push(it);
      else if (it && it.n) parts.push(it.n);
      else if (it && it.c) parts.push(flatText(it.c));
    }
    return norm(parts.join(" "));
  }

  function hasActionable(items) {
    for (const it of items) if (it && typeof it === "object" && (it.i !== undefined || (it.c && hasActionable(it.c)))) return true;
    return false;
  }
  function countActionable(items) {
    let n = 0;
    for (const it of items) if (it && typeof it === "object") n += (it.i !== undefined ? 1 : 0) + (it.c ? countActionable(it.c) : 0);
    return n;
  }

  function walkElement(el, ctx, out) {
    const tag = el.localName;
    if (SKIP.has(tag)) return;
    if (el.inert) return;
    const view = el.ownerDocument.defaultView;
    const style = view.getComputedStyle(el);
    const display = style.display;
    if (display === "none") return;
    if (tag === "option" || tag === "optgroup") return; // read through their select
    const opacity = style.opacity;
    const isToggle = tag === "input" && (el.type === "checkbox" || el.type === "radio");
    if (opacity === "0" && !isToggle) return;
    const invisible = style.visibility !== "visible";

    const pos = style.position;
    const state = pos === "fixed" ? ctx.fixedState : pos === "absolute" ? ctx.absState : ctx.state;
    const cursor = style.cursor;
    // Overflow does not apply to inline boxes; reading it there would only cost time.
    const overflow = display === "inline" ? "visible" : style.overflow;
    const clips = overflow !== "visible";
    // A plain phrasing element (a <b> in a paragraph) shares its parent's box and fate, so its
    // geometry is skipped: on text-heavy pages that is most of the elements.
    const phrasing = display === "inline" && PHRASING.has(tag) && !el.hasAttribute("role") &&
      !el.hasAttribute("tabindex") && !el.hasAttribute("onclick") && !hooksOf(view).clickTargets.has(el) &&
      !(cursor === "pointer" && !ctx.parentPointer) && !el.isContentEditable;
    let box = NO_BOX;
    if (!phrasing) {
      const r = el.getBoundingClientRect();
      box = { x: r.left, y: r.top, w: r.width, h: r.height };
    }
    const noBox = phrasing || display === "contents" || (box.w === 0 && box.h === 0 && !clips);

    if (!noBox) {
      // Visually hidden patterns: a 1-px clipped box, a clip rect or inset clip-path.
      if ((box.w <= 1 || box.h <= 1) && clips) return;
      if (pos === "absolute" || pos === "fixed") {
        const clip = style.clip;
        if (clip !== "auto" && (box.w <= 1 || box.h <= 1 || /rect\(0(px)?,? 0(px)?,? 0(px)?,? 0(px)?\)/.test(clip))) return;
        const cp = style.clipPath;
        if (cp !== "none" && /^inset\((50|100)%/.test(cp)) return;
      }
      // Clipped away: outside everything any scrolling could reveal.
      if (box.w >= 1 && box.h >= 1 && !meets(box, state.reach)) return;
    }

    const inClickable = ctx.inClickable;
    let role = roleOf(el, tag);
    if (role === "presentation" || role === "none" || role === "generic") role = "";
    if (role === null) return; // <input type=hidden>

    // Is it something a person can act on?
    let strong = false;
    if (role && INTERACTIVE_ROLES.has(role)) strong = true;
    if (tag === "a" && el.hasAttribute("href")) strong = true;
    if (tag === "button" || tag === "select" || tag === "textarea" || tag === "summary" || (tag === "input" && role)) strong = true;
    const editable = el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable);
    if (editable) { strong = true; if (!role) role = "textbox"; }
    if (tag === "video" || tag === "audio") strong = strong || el.controls;
    let weak = false;
    if (!strong) {
      const ti = el.getAttribute("tabindex");
      if (ti !== null && parseInt(ti, 10) >= 0) weak = true;
      else if (el.hasAttribute("onclick") || hooksOf(view).clickTargets.has(el)) weak = true;
      else if (cursor === "pointer" && !ctx.parentPointer) weak = true;
      if (weak && (tag === "body" || tag === "html" || tag === "label" || inClickable)) weak = false;
    }

    const onscreen = !noBox && box.w >= 1 && box.h >= 1 && meets(box, state.clip);

    // Child context: clipping and scrolling established by this element.
    let inner = state;
    let scrollerId = null;
    if (clips && !noBox && tag !== "html" && tag !== "body") {
      const [overflowX, overflowY = overflowX] = overflow.split(" ");
      const pad = { x: box.x + el.clientLeft, y: box.y + el.clientTop, w: el.clientWidth, h: el.clientHeight };
      const scrollX = (overflowX === "auto" || overflowX === "scroll") && el.scrollWidth > el.clientWidth + 1;
      const scrollY = (overflowY === "auto" || overflowY === "scroll") && el.scrollHeight > el.clientHeight + 1;
      if (scrollX || scrollY) {
        scrollerId = localId(el);
        const area = {
          x: scrollX ? pad.x - el.scrollLeft : pad.x, y: scrollY ? pad.y - el.scrollTop : pad.y,
          w: scrollX ? el.scrollWidth : pad.w, h: scrollY ? el.scrollHeight : pad.h,
        };
        inner = { clip: inter(state.clip, pad), reach: area, scroller: scrollerId };
      } else {
        inner = { clip: inter(state.clip, pad), reach: inter(state.reach, pad), scroller: state.scroller };
      }
    }
    // A transform makes a containing block even for fixed descendants; only parents matter.
    const transformed = el.firstElementChild !== null && !phrasing && style.transform !== "none";
    const positioned = pos !== "static" || transformed;
    const childCtx = {
      state: inner,
      absState: positioned ? inner : ctx.absState,
      fixedState: transformed ? inner : ctx.fixedState,
      invisible,
      // Inside a real control, listener-only descendants are part of it; under a weak one we
      // cannot know yet (it may turn out to be a delegation root), so that is settled after.
      inClickable: inClickable || strong,
      parentPointer: cursor === "pointer",
      ariaHidden: ctx.ariaHidden || el.getAttribute("aria-hidden") === "true",
      disabled: ctx.disabled || (tag === "fieldset" && el.disabled),
      active: ctx.active, doc: ctx.doc, frames: ctx.frames, offset: ctx.offset, viewArea: ctx.viewArea,
    };

    // Frames: same-origin ones are walked inline; others leave a placeholder for Python.
    if (tag === "iframe" || tag === "frame") {
      if (invisible || noBox || (onscreen && certainlyCovered(el, inter(box, state.clip)))) return;
      const node = { r: "iframe", n: el.getAttribute("title") || el.getAttribute("name") || "", i: localId(el) };
      finishElement(node, el, box, state, onscreen, ctx);
      let doc = null;
      try { doc = el.contentDocument; } catch (e) { doc = null; }
      const offX = ctx.offset.x + box.x + el.clientLeft, offY = ctx.offset.y + box.y + el.clientTop;
      if (doc && doc.documentElement) {
        node.fu = doc.URL;
        const fv = { x: 0, y: 0, w: el.clientWidth, h: el.clientHeight };
        const frameState = pageState(doc, fv);
        node.c = tidy(walkDocument(doc, { state: frameState, absState: frameState, fixedState: { clip: fv, reach: fv, scroller: null }, offset: { x: offX, y: offY }, frames: ctx.frames }));
      } else {
        node.fk = ctx.frames.length;
        node.co = [offX, offY];
        ctx.frames.push(el);
      }
      out.push(node);
      return;
    }

    let content = [];
    const ownText = tag !== "select" && tag !== "textarea" && tag !== "input" && walkChildren(el, childCtx, content);

    // A <label> of a visible control: its text is that control's name, not separate text.
    if (tag === "label" && el.control) {
      const cst = el.control.ownerDocument.defaultView.getComputedStyle(el.control);
      if (cst.display !== "none") {
        spliceInto(out, content.filter((x) => typeof x !== "string"), display);
        return;
      }
    }

    let items = tidy(content);
    if (weak && !role && (countActionable(items) >= 3 || (box.w * box.h > 0.5 * ctx.viewArea && hasActionable(items)))) {
      weak = false; // an event-delegation root for a region, not a control
    }
    const actionable = strong || weak || scrollerId !== null;
    if (weak && !role) role = "clickable";

    const selfVisible = !invisible && !noBox && box.w >= 1 && box.h >= 1;
    // Hit-testing cannot see an element that lets the pointer through; keep it when unsure.
    const speaks = actionable || role === "heading" || role === "img" || ownText;
    if (speaks && selfVisible && onscreen && style.pointerEvents !== "none" && certainlyCovered(el, inter(box, state.clip))) {
      if (actionable || role === "heading" || role === "img") return; // all of it is under the cover
      const objects = (x) => typeof x !== "string";
      items = items.filter(objects);
      content = content.filter(objects);
    }

    if ((strong || weak) && selfVisible) {
      let name = externalName(el, tag);
      const fromContent = NAME_FROM_CONTENT.has(role) || role === "clickable" || tag === "summary";
      // The outermost clickable speaks for the listener-only ones inside it.
      if (weak) items = items.map((x) => (typeof x === "object" && x.r === "clickable" ? x.n || "" : x));
      let children = items;
      if (!name && fromContent) {
        name = flatText(items);
        children = items.filter((x) => typeof x === "object" && x.i !== undefined && x.r !== "img");
      } else if (fromContent) {
        children = items.filter((x) => typeof x === "object" && x.i !== undefined);
      }
      if (!name) name = fallbackName(el, tag);
      const node = { r: role, n: cap(name, MAX_NAME), i: localId(el) };
      const v = valueOf(el, tag, role);
      if (v !== undefined) node.v = cap(v, 400);
      if (tag === "select") node.opts = optionsOf(el);
      if (tag === "input" && el.type === "range") { node.min = el.min || "0"; node.max = el.max || "100"; }
      const st = statesOf(el, tag, ctx);
      if (st.length) node.s = st;
      if (wantHref && tag === "a" && el.href) node.h = el.href; // resolving URLs is not free
      if (scrollerId !== null) pushState(node, "scrollable");
      if (children.length) node.c = children;
      finishElement(node, el, box, state, onscreen, ctx);
      out.push(node);
      return;
    }
    if (actionable && !selfVisible) {
      // An invisible scroll container or control (visibility:hidden parent): only its
      // visible descendants count.
      spliceInto(out, content, display);
      return;
    }

    // Not a control: structure and content.
    if (role === "heading") {
      const name = externalName(el, tag) || flatText(items);
      if (!name || invisible) { spliceInto(out, content.filter((x) => typeof x === "object"), display); return; }
      const node = { r: "heading", n: cap(name, 300), lv: parseInt(el.getAttribute("aria-level") || tag.slice(1), 10) || 2 };
      const nested = items.filter((x) => typeof x === "object" && hasActionable([x]));
      if (nested.length) node.c = nested;
      finishElement(node, el, box, state, onscreen, ctx);
      out.push(node);
      return;
    }
    if (role === "img") {
      if (invisible || noBox) return;
      const name = externalName(el, tag);
      if (!name) return;
      const node = { r: "img", n: cap(name, MAX_NAME) };
      finishElement(node, el, box, state, onscreen, ctx);
      out.push(node);
      return;
    }
    if (scrollerId !== null || (role && !GENERIC.has(role))) {
      if (!items.length) return;
      const node = { r: role || "group", c: items };
      const name = externalName(el, tag);
      if (name) node.n = cap(name, MAX_NAME);
      if (role === "dialog" && tag === "dialog" && !el.open) return;
      if (scrollerId !== null) { node.i = scrollerId; pushState(node, "scrollable"); }
      if (ctx.ariaHidden || el.getAttribute("aria-hidden") === "true") pushState(node, "aria-hidden");
      finishElement(node, el, box, state, onscreen, ctx);
      out.push(node);
      return;
    }
    // A generic wrapper that ties text to its own controls (a card with its Edit button) is kept
    // as a group; other generic wrappers dissolve into their parent.
    // (A paragraph with an inline link is not such a wrapper: its content has no blocks.)
    if (items.length > 1 && !INLINE_DISPLAY.has(display) && content.includes(BREAK) && hasActionable(items) && items.some((x) => typeof x === "string" || (x.r === "heading")) && siblingsRepeat(el)) {
      const node = { r: "group", c: items };
      const aria = el.getAttribute("aria-label");
      if (aria) node.n = norm(aria);
      out.push(node);
      return;
    }
    // A block of prose with inline controls (a paragraph with links) stays one unit, so it
    // can be read as one line: "Mozilla is a [13] link "free-software" community…".
    if (!INLINE_DISPLAY.has(display) && !content.includes(BREAK) && items.length > 1 &&
        items.some((x) => typeof x === "string") &&
        items.every((x) => typeof x === "string" || (x.i !== undefined && !x.c))) {
      out.push(BREAK, { r: "paragraph", c: items }, BREAK);
      return;
    }
    spliceInto(out, content, display);
    return phrasing && ownText; // its text is its parent's own text, for the cover check
  }

  // A wrapper's siblings with the same tag and class: the repeated shape of cards and rows.
  function siblingsRepeat(el) {
    const cls = el.className;
    for (const sib of [el.previousElementSibling, el.nextElementSibling]) {
      if (sib && sib.localName === el.localName && sib.className === cls) return true;
    }
    return false;
  }

  function pushState(node, s) {
    if (!node.s) node.s = [];
    if (!node.s.includes(s)) node.s.push(s);
  }

  function spliceInto(out, items, display) {
    const block = !INLINE_DISPLAY.has(display);
    if (block) out.push(BREAK);
    for (const it of items) out.push(it);
    if (block) out.push(BREAK);
  }

  // Geometry only where someone will use it: on what can be acted on.
  function finishElement(node, el, box, state, onscreen, ctx) {
    if (node.i === undefined) return;
    node.b = [
      Math.round(box.x + ctx.offset.x), Math.round(box.y + ctx.offset.y), Math.round(box.w), Math.round(box.h),
    ];
    if (!onscreen) node.o = 1;
    if (state.scroller !== null && state.scroller !== undefined) node.sc = state.scroller;
  }

  function deepActive(doc) {
    const closed = hooksOf(doc.defaultView).closedRoots;
    let a = doc.activeElement;
    for (;;) {
      const root = a && (a.shadowRoot || closed.get(a));
      if (!root || !root.activeElement) return a;
      a = root.activeElement;
    }
  }

  // The page itself: visible now = the viewport; reachable = the document's scrollable area
  // (content at negative coordinates cannot be scrolled to).
  function pageState(doc, viewport) {
    const se = doc.scrollingElement || doc.documentElement;
    const view = doc.defaultView;
    const hst = view.getComputedStyle(doc.documentElement), bst = doc.body ? view.getComputedStyle(doc.body) : hst;
    const lockedY = hst.overflowY === "hidden" || hst.overflowY === "clip" || bst.overflowY === "hidden" && hst.overflowY === "visible";
    const lockedX = hst.overflowX === "hidden" || hst.overflowX === "clip" || bst.overflowX === "hidden" && hst.overflowX === "visible";
    const reach = {
      x: lockedX ? 0 : -se.scrollLeft, y: lockedY ? 0 : -se.scrollTop,
      w: lockedX ? viewport.w : Math.max(se.scrollWidth, viewport.w),
      h: lockedY ? viewport.h : Math.max(se.scrollHeight, viewport.h),
    };
    return { clip: viewport, reach, scroller: null };
  }

  function walkDocument(doc, ctx) {
    const view = doc.defaultView;
    const vw = view.innerWidth, vh = view.innerHeight;
    const full = {
      state: ctx.state, absState: ctx.absState, fixedState: ctx.fixedState,
      invisible: false, inClickable: false, parentPointer: false, ariaHidden: false, disabled: false,
      active: deepActive(doc), doc, frames: ctx.frames, offset: ctx.offset, viewArea: vw * vh,
    };
    const out = [];
    const root = doc.body || doc.documentElement;
    if (root) walkChildren(root, full, out);
    return out;
  }

  let wantHref = false;

  function observe(opts) {
    wantHref = Boolean(opts && opts.href);
    const doc = document;
    const vw = window.innerWidth, vh = window.innerHeight;
    const viewport = { x: 0, y: 0, w: vw, h: vh };
    const st = pageState(doc, viewport);
    frameEls.length = 0;
    const tree = tidy(walkDocument(doc, { state: st, absState: st, fixedState: { clip: viewport, reach: viewport, scroller: null }, offset: { x: 0, y: 0 }, frames: frameEls }));
    return {
      doc: docToken,
      url: doc.URL,
      title: doc.title,
      loaded: doc.readyState === "complete",
      early: hooks.installedEarly,
      viewport: [vw, vh, window.scrollX, window.scrollY, window.devicePixelRatio],
      tree,
      frames: frameEls.length,
    };
  }

  function elementById(id) {
    const ref = byId.get(id);
    const el = ref && ref.deref();
    return el && el.isConnected ? el : null;
  }

  const api = { observe, elementById, frameElement: (k) => frameEls[k] || null, docToken };
  Object.defineProperty(globalThis, KEY, { value: api, enumerable: false });
  return api;
})();
