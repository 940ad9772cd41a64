// Page-side helpers for actions, evaluated on the element an id resolves to. The page is asked
// right before acting (never from a cached observation): is the element still there, can a
// person see and reach it, and where would a click land. An expression whose value is an
// object of functions; Python calls them as `(el, arg) => (<this file>).name(el, arg)`.
({
  // The facts an action is validated against. With `reveal`, an element out of view is first
  // scrolled to the middle of its scroll containers and the viewport; with "in-place", where
  // the pointer would reach it is found without scrolling (a drag's drop target).
  check(el, reveal) {
    if (!el.isConnected) return { connected: false };
    const tag = el.localName;
    const field = ["input", "select", "textarea"].includes(tag);
    const target = this.pointerTarget(el);
    const file = this.fileInput(el);
    const facts = {
      connected: true,
      tag,
      role: el.getAttribute("role") || "",
      visible: this.visible(target, field),
      proxy: target !== el,
      disabled: el.matches(":disabled") || el.getAttribute("aria-disabled") === "true",
      readonly: ((tag === "input" || tag === "textarea") && el.readOnly) || el.getAttribute("aria-readonly") === "true",
      editable: this.editable(el),
      scrollable: this.scrollable(el),
      type: tag === "input" ? (el.getAttribute("type") || "text").toLowerCase() : "",
      multiple: (tag === "select" || tag === "input") && el.multiple,
      // A file input, or the nearest hidden one a button or label opens (its chooser).
      files: file ? { multiple: file.multiple, direct: file === el, accept: file.accept } : null,
      keys: this.hearsKeys(el),
      lang: ((el.closest("[lang]") || el.ownerDocument.documentElement).getAttribute("lang") || "").toLowerCase(),
      options: tag === "select" ? Array.from(el.options, (o) => o.label || o.text || o.value) : [],
      cover: null,
      point: null,
    };
    if (!facts.visible || !reveal) return facts;
    const win = el.ownerDocument.defaultView;
    const r = target.getBoundingClientRect();
    const inPlace = reveal === "in-place";
    if (!inPlace && (r.top < 0 || r.left < 0 || r.bottom > win.innerHeight || r.right > win.innerWidth)) {
      target.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
      facts.scrolled = true;
    }
    let hit = this.reach(target, el);
    if (!hit.point && !facts.scrolled && !inPlace) {
      // Clipped by a scroll container, or in a frame below the fold: scrolling brings it
      // (and every frame around it) into view; then look again.
      target.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
      facts.scrolled = true;
      hit = this.reach(target, el);
    }
    facts.point = hit.point;
    facts.cover = hit.cover;
    return facts;
  },

  // Where the pointer goes: the element, or the visible label drawn in place of a hidden
  // native control (a custom checkbox), which is what a person clicks.
  pointerTarget(el) {
    const field = ["input", "select", "textarea"].includes(el.localName);
    if (this.visible(el, field) || !el.labels) return el;
    return Array.from(el.labels).find((l) => this.visible(l, false)) || el;
  },

  visible(el, field) {
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) return false;
    // A transparent native control laid over its own drawn box still takes the pointer.
    return el.checkVisibility({ visibilityProperty: true, opacityProperty: !field });
  },

  // Where a pointer would reach the element: the first of nine points (the centre first) whose
  // hit-test lands on it, relative to its box (x, y) and to the viewport (vx, vy); else what
  // covers the centre.
  reach(target, el) {
    const root = target.getRootNode();
    const hitter = root.elementFromPoint ? root : target.ownerDocument;
    const win = target.ownerDocument.defaultView;
    const r = target.getBoundingClientRect();
    const left = Math.max(r.left, 0), top = Math.max(r.top, 0);
    const right = Math.min(r.right, win.innerWidth), bottom = Math.min(r.bottom, win.innerHeight);
    if (right - left < 1 || bottom - top < 1) return { point: null, cover: null };
    const xs = [(left + right) / 2, left + 2, right - 2];
    const ys = [(top + bottom) / 2, top + 2, bottom - 2];
    let first = null;
    for (const y of ys) {
      for (const x of xs) {
        const hit = hitter.elementFromPoint(x, y);
        if (this.receives(target, el, hit)) {
          const up = this.throughFrames(win, x, y);
          if (up.cover) return { point: null, cover: up.cover };
          const point = { x: x - r.left, y: y - r.top, vx: up.x, vy: up.y, top: up.top, w: r.width, h: r.height };
          return { point, cover: null };
        }
        if (first === null) first = hit;
      }
    }
    return { point: null, cover: first ? this.describe(first) : "something outside the page" };
  },

  // A point of a frame's viewport in the top-level viewport, checking at each level that the
  // frame itself is what the pointer reaches there; ``top`` is false past a cross-origin
  // parent, whose geometry a page script cannot see (the caller then lets Playwright place it).
  throughFrames(win, x, y) {
    for (let w = win; w !== w.parent; w = w.parent) {
      let frame = null;
      try { frame = w.frameElement; } catch (e) { frame = null; }
      if (!frame) return { x, y, top: false, cover: null };
      const fr = frame.getBoundingClientRect();
      const st = frame.ownerDocument.defaultView.getComputedStyle(frame);
      // A zoomed or transformed frame is drawn at another size than its own layout.
      const sx = frame.offsetWidth ? fr.width / frame.offsetWidth : 1;
      const sy = frame.offsetHeight ? fr.height / frame.offsetHeight : 1;
      x = fr.left + (frame.clientLeft + parseFloat(st.paddingLeft) + x) * sx;
      y = fr.top + (frame.clientTop + parseFloat(st.paddingTop) + y) * sy;
      const root = frame.getRootNode(); // an iframe may sit in a shadow root
      const hit = (root.elementFromPoint ? root : frame.ownerDocument).elementFromPoint(x, y);
      if (hit !== frame) return { x, y, top: false, cover: hit ? this.describe(hit) : "something outside the frame" };
    }
    return { x, y, top: true, cover: null };
  },

  // What the top document has at (x, y) over this iframe, if not the iframe itself.
  coverAt(frame, [x, y]) {
    const root = frame.getRootNode();
    const hit = (root.elementFromPoint ? root : frame.ownerDocument).elementFromPoint(x, y);
    return hit === frame ? null : hit ? this.describe(hit) : "something outside the page";
  },

  receives(target, el, hit) {
    if (!hit) return false;
    if (hit === target || target.contains(hit) || hit === el || el.contains(hit)) return true;
    const label = hit.closest("label");
    return Boolean(label && label.control === el);
  },

  // `<div class="modal-backdrop">` with a few words of its text: what a person would point at.
  describe(el, withText = true) {
    let out = "<" + el.localName;
    if (el.id) out += ` id="${el.id}"`;
    const classes = (el.getAttribute("class") || "").trim().split(/\s+/).filter(Boolean).slice(0, 3);
    if (classes.length) out += ` class="${classes.join(" ")}"`;
    const role = el.getAttribute("role");
    if (role) out += ` role="${role}"`;
    out += ">";
    if (!withText) return out;
    const text = (el.innerText || "").trim().replace(/\s+/g, " ");
    if (text) out += ` "${text.length > 40 ? text.slice(0, 39) + "…" : text}"`;
    return out;
  },

  // "text" takes typed text, "value" a value set whole (date, range, colour), null nothing.
  editable(el) {
    const tag = el.localName;
    if (tag === "textarea") return "text";
    if (tag === "input") {
      const type = (el.getAttribute("type") || "").toLowerCase();
      if (["", "text", "search", "email", "url", "tel", "password", "number"].includes(type)) return "text";
      if (["date", "time", "datetime-local", "month", "week", "range", "color"].includes(type)) return "value";
      return null;
    }
    return el.isContentEditable ? "text" : null;
  },

  // Whether the element or an element around it listens for keys (a date picker or an input
  // mask parsing on keyup): then text is typed key by key, not inserted.
  hearsKeys(el) {
    const hooks = el.ownerDocument.defaultView[Symbol.for("pagesight.hooks")];
    const listeners = hooks && hooks.keyTargets;
    for (let n = el; n; n = n.parentElement || (n.getRootNode().host || null)) {
      if (listeners && listeners.has(n)) return true;
      if (typeof n.onkeydown === "function" || typeof n.onkeyup === "function" || typeof n.onkeypress === "function") return true;
    }
    return false;
  },

  // The file input an upload on this element sets: the element itself, a label's control, or
  // a hidden file input inside the element or its parent or grandparent, or the shadow root it
  // sits at the top of (a styled button that calls input.click()), where that holds no other
  // control (a form's submit button is not the one opening the form's file input). The walker
  // offers "upload" by the same rule.
  fileInput(el) {
    const isFile = (n) => n && n.localName === "input" && (n.getAttribute("type") || "").toLowerCase() === "file";
    if (isFile(el)) return el;
    if (el.localName === "label" && isFile(el.control)) return el.control;
    const up1 = (n) => n.parentElement || (n.parentNode && n.parentNode.host ? n.parentNode : null);
    const others = 'button, select, textarea, a[href], [role="button"], input:not([type="file" i]):not([type="hidden" i])';
    for (let n = el, up = 0; n && up < 3; n = up1(n), up++) {
      const found = Array.from(n.querySelectorAll('input[type="file" i]')).find((f) => this.undrawn(f));
      if (found) {
        const other = Array.from(n.querySelectorAll(others)).some((c) => !el.contains(c) && !c.contains(el));
        return other ? null : found;
      }
    }
    return null;
  },

  // A control the page does not draw (display:none, hidden, a 1-px clip): another element
  // stands in for it. The walker tells hidden file inputs apart the same way.
  undrawn(el) {
    const r = el.getBoundingClientRect();
    return r.width < 2 || r.height < 2 || !el.checkVisibility({ visibilityProperty: true });
  },

  // Where a dragged element is: its box (this document's viewport), its place among its
  // siblings, what holds it, and its value (a slider's).
  where(el) {
    if (!el.isConnected) return null;
    const r = el.getBoundingClientRect();
    const parent = el.parentElement;
    const short = (n) => (n.innerText || n.textContent || "").trim().replace(/\s+/g, " ").slice(0, 30);
    const siblings = parent ? Array.from(parent.children).filter((c) => this.visible(c, false)) : [];
    const slider = el.closest('[role="slider"], input[type="range" i]') || el.querySelector('[role="slider"], input[type="range" i]');
    const value = slider ? (slider.getAttribute("aria-valuetext") || slider.getAttribute("aria-valuenow") || slider.value || null) : null;
    return {
      box: [Math.round(r.left), Math.round(r.top), Math.round(r.width), Math.round(r.height)],
      parent: parent ? this.describe(parent, false) + this.quotedName(this.holderName(parent)) : "",
      order: siblings.length > 1 && siblings.length <= 12 ? siblings.map(short) : [],
      value: value === null ? null : String(value),
    };
  },

  // What a person calls the list or column holding a dragged element, where its markup says
  // nothing (every column a <ul class="deals">): its own label, else the heading that leads it
  // (a column's title, often in a header beside the list). Looked for up to the column: the
  // first ancestor among look-alike siblings, past which the other columns' headings start.
  holderName(holder) {
    const HEADING = "h1, h2, h3, h4, h5, h6, legend, [role=heading]";
    const text = (h) => (h.textContent || "").trim().replace(/\s+/g, " ");
    for (let n = holder, up = 0; n && n.localName !== "body" && up < 4; n = n.parentElement, up++) {
      const ids = (n.getAttribute("aria-labelledby") || "").split(/\s+/).filter(Boolean);
      const own = (n.getAttribute("aria-label") || "").trim() ||
        ids.map((id) => n.ownerDocument.getElementById(id)).filter(Boolean).map(text).join(" ");
      if (own) return own;
      const title = Array.from(n.children).find((c) => c.matches(HEADING));
      if (title && text(title)) return text(title);
      const parent = n.parentElement;
      if (!parent) return "";
      const cls = n.getAttribute("class");
      const alike = Array.from(parent.children).some((s) => s !== n && s.localName === n.localName && s.getAttribute("class") === cls);
      const before = n.previousElementSibling;
      if (alike) return before && before.matches(HEADING) ? text(before) : "";
      for (let s = before; s; s = s.previousElementSibling) {
        const h = s.matches(HEADING) ? s : Array.from(s.querySelectorAll(HEADING)).pop();
        if (h && text(h)) return text(h);
      }
    }
    return "";
  },

  quotedName(name) {
    return name ? ` "${name.length > 40 ? name.slice(0, 39) + "…" : name}"` : "";
  },

  // The value a date or time input holds now (to tell whether the page kept what was set).
  valueNow(el) {
    return typeof el.value === "string" ? el.value : "";
  },

  // The browser's message for a value it keeps but will not submit (under min, over max,
  // off step); "" when the value is fine or only missing.
  badValue(el) {
    const v = el.validity;
    return v && (v.rangeUnderflow || v.rangeOverflow || v.stepMismatch) ? el.validationMessage : "";
  },

  scrollable(el) {
    const st = el.ownerDocument.defaultView.getComputedStyle(el);
    const y = /(auto|scroll)/.test(st.overflowY) && el.scrollHeight > el.clientHeight;
    const x = /(auto|scroll)/.test(st.overflowX) && el.scrollWidth > el.clientWidth;
    return x || y;
  },

  // The values of a native select's options matching each wanted label or value, exactly or
  // ignoring case and spacing; `missing` lists what matched nothing.
  matchOptions(el, wanted) {
    const norm = (s) => String(s).replace(/\s+/g, " ").trim().toLowerCase();
    const options = Array.from(el.options);
    const values = [], missing = [];
    for (const w of wanted) {
      const found = options.find((o) => o.value === w || o.label === w || o.text === w) ||
        options.find((o) => norm(o.label || o.text) === norm(w) || norm(o.value) === norm(w));
      if (found) values.push(found.value);
      else missing.push(w);
    }
    return { values, missing };
  },

  // Put the caret after the last character, so typed text is added at the end.
  caretToEnd(el) {
    el.focus();
    if (typeof el.setSelectionRange === "function" && typeof el.value === "string") {
      try { el.setSelectionRange(el.value.length, el.value.length); return; } catch (e) { /* e.g. type=number */ }
    }
    const sel = el.ownerDocument.getSelection();
    if (sel) {
      const range = el.ownerDocument.createRange();
      range.selectNodeContents(el);
      range.collapse(false);
      sel.removeAllRanges();
      sel.addRange(range);
    }
  },

  // Scroll the element (null: the page) by a number of pixels, or by `pages` screens of it;
  // returns the scroll position before and after.
  scroll(el, req) {
    const doc = el ? el.ownerDocument : document;
    const box = el || this.pageScroller(doc, req.axis);
    const before = [box.scrollLeft, box.scrollTop];
    const width = el ? el.clientWidth : doc.defaultView.innerWidth;
    const height = el ? el.clientHeight : doc.defaultView.innerHeight;
    const step = req.pixels !== null ? req.pixels : Math.round((req.axis === "x" ? width : height) * 0.9);
    const delta = step * req.sign;
    box.scrollBy({ left: req.axis === "x" ? delta : 0, top: req.axis === "y" ? delta : 0, behavior: "instant" });
    return { before, after: [box.scrollLeft, box.scrollTop] };
  },

  // What scrolls "the page": the document, or in an app layout (html and body fixed, a
  // <main> scrolling) the scroll container under the middle of the viewport.
  pageScroller(doc, axis) {
    const page = doc.scrollingElement || doc.documentElement;
    const room = (e) => axis === "x" ? e.scrollWidth > e.clientWidth : e.scrollHeight > e.clientHeight;
    const view = doc.defaultView;
    const overflow = (e) => view.getComputedStyle(e)[axis === "x" ? "overflowX" : "overflowY"];
    if (room(page) && overflow(doc.body || page) !== "hidden" && overflow(page) !== "hidden") return page;
    for (let e = doc.elementFromPoint(view.innerWidth / 2, view.innerHeight / 2); e; e = e.parentElement) {
      if (room(e) && /(auto|scroll)/.test(overflow(e))) return e;
    }
    return page;
  },

  // The listbox an ARIA combobox controls (aria-controls / aria-owns), else a visible listbox
  // of the same document that opened with it.
  popupOf(el) {
    if (el.getAttribute("role") === "listbox") return el;
    const root = el.getRootNode();
    for (const attr of ["aria-controls", "aria-owns"]) {
      for (const id of (el.getAttribute(attr) || "").split(/\s+/).filter(Boolean)) {
        const found = (root.getElementById ? root.getElementById(id) : null) || el.ownerDocument.getElementById(id);
        if (found && found.getAttribute("role") === "listbox") return found;
        const inner = found && found.querySelector('[role="listbox"]');
        if (inner) return inner;
      }
    }
    const inside = el.querySelector('[role="listbox"]');
    if (inside) return inside;
    const open = Array.from(el.ownerDocument.querySelectorAll('[role="listbox"]')).filter((l) => this.visible(l, false));
    return open.length === 1 ? open[0] : null;
  },

  optionLabels(listbox) {
    return Array.from(listbox.querySelectorAll('[role="option"]'), (o) => this.optionLabel(o));
  },

  optionLabel(o) {
    return (o.getAttribute("aria-label") || o.textContent || "").replace(/\s+/g, " ").trim();
  },

  // The option of an ARIA listbox whose label or value (data-value, value, id) is `wanted`.
  findOption(listbox, wanted) {
    const norm = (s) => String(s).replace(/\s+/g, " ").trim().toLowerCase();
    const options = Array.from(listbox.querySelectorAll('[role="option"]'));
    const keys = (o) => [this.optionLabel(o), o.getAttribute("data-value"), o.getAttribute("value"), o.id].filter(Boolean);
    return options.find((o) => keys(o).includes(wanted)) ||
      options.find((o) => keys(o).some((k) => norm(k) === norm(wanted))) || null;
  },
})
