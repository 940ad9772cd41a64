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
//   iframe placeholder), fu frame url, er the browser's validation message of an invalid field,
//   ie the number of its last invalid event in its document, nh the name is a hint guessed
//   from markup, ph the placeholder of an empty labelled field, np the name is the field's
//   placeholder (it has no label), hs the states among s hinted
//   by class names, up "upload" applies (a file input or what opens one), lk the role a link
//   is drawn as ("button").
(() => {
  const KEY = Symbol.for("pagesight.walker");
  if (globalThis[KEY]) return globalThis[KEY];
  // Names guessed from markup, and each element's tag, attributes and selector (hints.js and
  // selectors.js, installed just before this).
  const HINTS = globalThis[Symbol.for("pagesight.hints")];
  const MARKUP = globalThis[Symbol.for("pagesight.selectors")];
  // What an element is and is called, and what it holds (names.js, installed just before this).
  const NAMES = globalThis[Symbol.for("pagesight.names")];
  const { SKIP, INLINE_DISPLAY, saysMore, roleOf, labelText, externalName, hiddenLabel, fallbackName, placeholderOf, valueOf, optionLabels, labelledField, forgetLabels } = NAMES;
  // The states an element is in and what it lends itself to, and the page's hooks (states.js).
  const { hooksOf, statesOf, classState, activeDescendant, deepActive, dragSource, dropZone, opensFiles, undrawnFileInputs } =
    globalThis[Symbol.for("pagesight.states")];
  // The walk's lists of text runs and nodes: their text and controls, and the wrappers that
  // are a field's frame (items.js).
  const { BREAK, tidy, flatText, hasHint, countActionable, isProse, framesOneField, namedByItsField } =
    globalThis[Symbol.for("pagesight.items")];
  // Boxes, what covers them and the page's visible and reachable areas (sight.js).
  const { inter, meets, coverOf, pageState, textUnseen, forgetDropped, dropText, textBox, backdropOf, scaleOf, clipsAll, WHITE } =
    globalThis[Symbol.for("pagesight.sight")];
  const hooks = hooksOf(globalThis);

  const ELEMENT = 1;
  const TEXT = 3;
  const INTERACTIVE_ROLES = new Set([
    "button", "link", "checkbox", "radio", "tab", "menuitem", "menuitemcheckbox",
    "menuitemradio", "option", "switch", "combobox", "textbox", "searchbox", "slider",
    "spinbutton", "treeitem", "listbox", "gridcell", "scrollbar",
  ]);
  // Roles whose name comes from their content (so their text is folded into the name).
  const NAME_FROM_CONTENT = new Set([
    "button", "link", "checkbox", "radio", "tab", "menuitem", "menuitemcheckbox",
    "menuitemradio", "option", "switch", "treeitem", "heading", "cell", "columnheader",
    "rowheader", "gridcell", "clickable", "summary", "row", "listitem",
  ]);
  const GENERIC = new Set(["generic", "none", "presentation", ""]);
  const PHRASING = new Set([
    "span", "b", "i", "em", "strong", "small", "code", "sup", "sub", "abbr", "time", "mark",
    "u", "s", "cite", "q", "font", "bdi", "bdo", "kbd", "var", "samp", "del", "ins", "dfn", "tt",
  ]);
  const NO_BOX = { x: 0, y: 0, w: 0, h: 0 };
  const FORM_FIELD = new Set(["input", "select", "textarea"]);
  // Roles that structure a page; a listener on them delegates for what is inside.
  const NEVER_WEAK = new Set([
    "navigation", "main", "banner", "contentinfo", "complementary", "region", "form", "search",
    "list", "table", "dialog", "alertdialog", "article", "figure", "group", "toolbar", "menu", "menubar", "tablist",
  ]);
  // Widgets that stand in for a native control the page hid (Select2 draws a span after its select).
  const STAND_IN = '[role="combobox"],[role="listbox"],[role="button"],button';
  const MAX_NAME = 120;

  let nextId = 1;
  const idOf = new WeakMap();
  const byId = new Map(); // local id -> WeakRef(element), for the action layer
  const frameEls = []; // cross-origin iframe elements of the last walk, by frame key
  // Widgets named by the label of the native control they replace (this walk only).
  const standInNames = new Map();
  // Nodes of clickables with a listener of their own (not just a pointer cursor), this walk.
  const ownListener = new WeakSet();
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

  // --- the walk ------------------------------------------------------------------------------------
  function composedChildren(el) {
    // Content a browser keeps unrendered until found by search is not on screen.
    if (el.getAttribute("hidden") === "until-found") return [];
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

  function firstText(el) {
    for (const k of composedChildren(el)) if (k.nodeType === TEXT && k.data.trim()) return k;
    return null;
  }

  function pushText(out, text) {
    const last = out.length ? out[out.length - 1] : null;
    if (typeof last === "string") out[out.length - 1] = last + text;
    else out.push(text);
  }

  // Walks the composed children into ``out``; true when the element has text of its own.
  // ``style`` and ``look`` are the element's (look is null for a document's root): its text is
  // left out when a person could not read it (sight.js), decided once, at its first text.
  function walkChildren(el, ctx, out, style, look) {
    const kids = composedChildren(el);
    let own = false;
    let unseen = null;
    for (let i = 0; i < kids.length; i++) {
      const k = kids[i];
      if (k.nodeType === TEXT) {
        if (ctx.invisible) continue;
        const d = k.data;
        if (d.trim()) {
          if (unseen === null) unseen = textUnseen(el, style, look, k, ctx.backdrop, ctx.scale, ctx.alpha);
          if (unseen) continue;
          pushText(out, d.replace(/[\s\u00a0]+/g, " "));
          own = true;
        }
        else if (d.length && typeof out[out.length - 1] === "string") pushText(out, " ");
      } else if (k.nodeType === ELEMENT) {
        if (walkElement(k, ctx, out)) own = true;
      }
    }
    return own;
  }

  // --- the walk: one element -------------------------------------------------------------------
  // Every element passes the same steps, in the order the design names them: is it drawn
  // (appearance), what is it (classify), what does it establish for its children (childContext),
  // what is inside, is it covered, and what node it becomes (the emit functions).

  function walkElement(el, ctx, out) {
    const tag = el.localName;
    if (tag === "br") {
      if (!ctx.invisible) pushText(out, " "); // a line break still separates words
      return;
    }
    if (SKIP.has(tag) || tag === "option" || tag === "optgroup" || el.inert) return;
    if (ctx.modal && !ctx.inModal && el !== ctx.modal && !containsComposed(el, ctx.modal)) return;
    const style = el.ownerDocument.defaultView.getComputedStyle(el);
    const look = appearance(el, tag, style, ctx);
    if (look === null) { dropText(el); return; } // nor a name guessed from its text
    const kind = classify(el, tag, style, look, ctx);
    if (kind === null) return;
    if (tag === "iframe" || tag === "frame") {
      walkFrame(el, look, ctx, out);
      return;
    }
    const child = childContext(el, tag, style, look, kind, ctx);
    let content = [];
    const ownText = !FORM_FIELD.has(tag) && walkChildren(el, child, content, style, look);
    if (tag === "label" && el.control) {
      emitLabel(el, content, look, ctx, out);
      return;
    }
    let items = tidy(content);
    if (kind.weak && (countActionable(items) >= 3 || (look.box.w * look.box.h > 0.5 * ctx.viewArea && countActionable(items) > 0))) {
      kind.weak = false; // an event-delegation root for a region, not a control
      if (kind.role === "clickable") kind.role = "";
    } else if (kind.weak && (framesOneField(items, look.box) || namedByItsField(items))) {
      kind.weak = false; // the box drawn around a field (its listener focuses the field)
      if (kind.role === "clickable") kind.role = "";
    } else if (kind.weak && foldsIntoField(el, ctx)) {
      // A clickable text that names a field (aria-labelledby) is the field's label: one entry,
      // the field's, whose name says the text; what the text holds besides stays (a link).
      spliceInto(out, content.filter((x) => typeof x !== "string"), look.display);
      return;
    }
    const actionable = kind.strong || kind.weak || child.scrollerId !== null;
    const shown = !look.invisible && !look.noBox && look.box.w >= 1 && look.box.h >= 1;

    // Occlusion, by hit-testing; an element that lets the pointer through cannot be tested.
    const speaks = actionable || kind.role === "heading" || kind.role === "img" || ownText;
    if (speaks && shown && look.onscreen && style.pointerEvents !== "none") {
      // Text is tested where it is drawn (a short line in a wide block may be covered alone).
      const first = ownText && !actionable && kind.role !== "img" ? firstText(el) : null;
      const area = first ? inter(textBox(first), look.box) : look.box;
      const cover = coverOf(el, inter(area.w >= 1 && area.h >= 1 ? area : look.box, look.state.clip), look.state);
      if (cover === "scrolled") look.onscreen = false; // under a fixed header: scroll to see it
      else if (cover === "covered") {
        if (actionable || kind.role === "heading" || kind.role === "img") return;
        const objects = (x) => typeof x !== "string";
        dropText(el);
        items = items.filter(objects);
        content = content.filter(objects);
      }
    }

    if ((kind.strong || kind.weak) && shown) emitControl(el, tag, style, look, kind, child, items, ctx, out);
    else if (actionable && !shown) spliceInto(out, content, look.display); // only its visible insides count
    else if (kind.role === "heading") emitHeading(el, tag, look, items, content, ctx, out);
    else if (kind.role === "img") emitImage(el, tag, look, ctx, out);
    else if (child.scrollerId !== null || (kind.role && !GENERIC.has(kind.role)) || dropZone(el)) emitContainer(el, tag, look, kind, child, items, content, ctx, out);
    else return emitGeneric(el, look, items, content, ownText, out);
  }

  // Style and geometry: null when a person cannot see the element or anything inside it.
  function appearance(el, tag, style, ctx) {
    const display = style.display;
    if (display === "none") return null;
    // A transparent native control laid over its visible label or box is what the pointer hits.
    const transparent = style.opacity === "0";
    if (transparent && !(FORM_FIELD.has(tag) && tag !== "textarea")) return null;
    // ...unless the page hid it from everyone: a form's copy behind a custom select.
    if (transparent && el.getAttribute("aria-hidden") === "true") return null;
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
      !el.hasAttribute("tabindex") && !hasClickHandler(el) && !(cursor === "pointer" && !ctx.parentPointer) &&
      !el.isContentEditable;
    let box = NO_BOX;
    if (!phrasing) {
      const r = el.getBoundingClientRect();
      box = { x: r.left, y: r.top, w: r.width, h: r.height };
    }
    const zero = box.w === 0 && box.h === 0;
    if (zero && !phrasing && display !== "contents" && style.transform !== "none") return null; // scale(0)
    const noBox = phrasing || display === "contents" || (zero && !clips);
    if (!noBox) {
      // Visually hidden patterns: a 1-px clipped box, a clip rect or inset clip-path.
      if ((box.w <= 1 || box.h <= 1) && clips) return null;
      if (pos === "absolute" || pos === "fixed") {
        const clip = style.clip;
        if (clip !== "auto" && (box.w <= 1 || box.h <= 1 || /rect\(0(px)?,? 0(px)?,? 0(px)?,? 0(px)?\)/.test(clip))) return null;
      }
      if (clipsAll(style.clipPath)) return null; // clipped to nothing, wherever it is placed
      // Clipped away: outside everything any scrolling could reveal (unless its content
      // overflows it back into view, as a carousel's translated track does).
      if (box.w >= 1 && box.h >= 1 && !meets(box, state.reach) && !overflowsBox(el, clips)) return null;
    }
    const onscreen = !noBox && box.w >= 1 && box.h >= 1 && meets(box, state.clip);
    return { display, invisible, pos, state, cursor, overflow, clips, phrasing, box, noBox, onscreen, transparent };
  }

  function overflowsBox(el, clips) {
    return !clips && (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1);
  }

  // Click-like listeners, or draggable="true" (an HTML5 drag source such as a kanban card).
  function hasClickHandler(el) {
    return typeof el.onclick === "function" || el.getAttribute("draggable") === "true" ||
      hooksOf(el.ownerDocument.defaultView).clickTargets.has(el);
  }

  // Role and interactivity: strong (a real control) or weak (acts as one: a listener, a
  // pointer cursor, a tabindex). Null for what is never rendered (<input type=hidden>).
  function classify(el, tag, style, look, ctx) {
    let role = roleOf(el, tag);
    if (role === null) return null;
    if (role === "presentation" || role === "none" || role === "generic") role = "";
    let strong = Boolean(role && INTERACTIVE_ROLES.has(role));
    if ((tag === "a" && el.hasAttribute("href")) || tag === "button" || tag === "select" || tag === "textarea" ||
        tag === "summary" || (tag === "input" && role)) strong = true;
    if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) {
      strong = true;
      if (!role) role = "textbox";
    }
    if ((tag === "video" || tag === "audio") && el.controls) strong = true;
    let weak = false;
    const listens = !strong && !ctx.inClickable && hasClickHandler(el);
    if (!strong && !ctx.inClickable && !NEVER_WEAK.has(role) && tag !== "body" && tag !== "html" && tag !== "label") {
      const ti = el.getAttribute("tabindex");
      weak = (ti !== null && parseInt(ti, 10) >= 0) || listens ||
        (look.cursor === "pointer" && (!ctx.parentPointer || delegatedCell(el, tag, role, ctx)));
      if (weak && !role) role = "clickable";
    }
    return { role, strong, weak, listens };
  }

  // A cell under a pointer cursor whose table listens for its clicks: each day of a date
  // picker is a target of its own, though the cursor it shows is inherited.
  function delegatedCell(el, tag, role, ctx) {
    return ctx.delegates && (tag === "td" || role === "gridcell") && el.textContent.trim() !== "";
  }

  // What this element establishes for its children: clipping, scrolling, containing blocks.
  function childContext(el, tag, style, look, kind, ctx) {
    const { box, state } = look;
    let inner = state;
    let scrollerId = null;
    // (The page's own scrolling, through <html> or <body>, is the page state's business.)
    if (look.clips && !look.noBox && tag !== "html" && tag !== "body") {
      const [overflowX, overflowY = overflowX] = look.overflow.split(" ");
      const pad = { x: box.x + el.clientLeft, y: box.y + el.clientTop, w: el.clientWidth, h: el.clientHeight };
      const scrollX = (overflowX === "auto" || overflowX === "scroll") && el.scrollWidth > el.clientWidth + 1;
      const scrollY = (overflowY === "auto" || overflowY === "scroll") && el.scrollHeight > el.clientHeight + 1;
      if (scrollX || scrollY) {
        scrollerId = localId(el);
        let x = pad.x;
        if (scrollX) {
          // Right-to-left content overflows to the left (and scrollLeft runs negative there).
          x = style.direction === "rtl" ? pad.x + pad.w - el.scrollLeft - el.scrollWidth : pad.x - el.scrollLeft;
        }
        const area = {
          x, y: scrollY ? pad.y - el.scrollTop : pad.y,
          w: scrollX ? el.scrollWidth : pad.w, h: scrollY ? el.scrollHeight : pad.h,
        };
        inner = { clip: inter(state.clip, pad), reach: area, scroller: scrollerId, view: pad };
      } else {
        inner = { clip: inter(state.clip, pad), reach: inter(state.reach, pad), scroller: state.scroller, view: state.view };
      }
    }
    // A transform makes a containing block even for fixed descendants; only parents matter.
    const transform = look.phrasing ? "none" : style.transform;
    const transformed = el.firstElementChild !== null && transform !== "none";
    const positioned = look.pos !== "static" || transformed;
    return {
      state: inner,
      absState: positioned ? inner : ctx.absState,
      fixedState: transformed ? inner : ctx.fixedState,
      scrollerId,
      invisible: look.invisible,
      // Inside a real control, listener-only descendants are part of it; under a weak one we
      // cannot know yet (it may turn out to be a delegation root), so that is settled after.
      inClickable: ctx.inClickable || kind.strong,
      parentPointer: look.cursor === "pointer",
      // A listener on a table (or another structure that is never a control itself) is for
      // the cells inside; inside a clickable of its own (a row), they are its parts.
      delegates: !kind.weak && (ctx.delegates || (kind.listens && tag !== "body" && tag !== "html")),
      ariaHidden: ctx.ariaHidden || el.getAttribute("aria-hidden") === "true",
      inModal: ctx.inModal || el === ctx.modal,
      modal: ctx.modal,
      active: ctx.active, activeOption: ctx.activeOption, frames: ctx.frames, offset: ctx.offset,
      viewArea: ctx.viewArea, fileInputs: ctx.fileInputs,
      // What is painted behind the text inside, and how much transforms shrink it (a plain
      // phrasing element is taken to paint nothing of its own, to keep its cost low).
      backdrop: look.phrasing ? ctx.backdrop : backdropOf(style, ctx.backdrop),
      scale: transform === "none" ? ctx.scale : ctx.scale * scaleOf(transform),
      alpha: style.opacity === "1" ? ctx.alpha : ctx.alpha * parseFloat(style.opacity),
    };
  }

  // Frames: same-origin ones are walked inline; others leave a placeholder for Python.
  function walkFrame(el, look, ctx, out) {
    const { box, state } = look;
    if (look.invisible || look.noBox) return;
    if (look.onscreen && coverOf(el, inter(box, state.clip), state) === "covered") return;
    const node = { r: "iframe", n: el.getAttribute("title") || el.getAttribute("name") || "", i: localId(el) };
    finishElement(node, look, ctx);
    MARKUP.add(node, el, "");
    let doc = null;
    try { doc = el.contentDocument; } catch (e) { doc = null; }
    const offX = ctx.offset.x + box.x + el.clientLeft, offY = ctx.offset.y + box.y + el.clientTop;
    if (doc && doc.documentElement) {
      node.fu = doc.URL;
      const fv = { x: 0, y: 0, w: el.clientWidth, h: el.clientHeight };
      const frameState = pageState(doc, fv);
      node.c = tidy(walkDocument(doc, {
        state: frameState, absState: frameState, fixedState: { clip: fv, reach: fv, scroller: null, view: fv },
        offset: { x: offX, y: offY }, frames: ctx.frames,
      }));
      // The frame's own viewport knows nothing of the page around it: where the frame is off
      // screen or inside a scroll container, so is everything in it.
      inheritPlacement(node.c, !look.onscreen, state.scroller);
    } else {
      node.fk = ctx.frames.length;
      node.co = [offX, offY];
      ctx.frames.push(el);
    }
    out.push(node);
  }

  function inheritPlacement(items, offscreen, scroller) {
    for (const it of items) {
      if (typeof it !== "object") continue;
      if (it.i !== undefined) {
        if (offscreen) it.o = 1;
        if (it.sc === undefined && scroller !== null && scroller !== undefined) it.sc = scroller;
      }
      if (it.c) inheritPlacement(it.c, offscreen, scroller);
    }
  }

  // A <label>: its text names its control. When the control itself is visually hidden (a
  // custom checkbox, a Bootstrap btn-check) the label is what a person sees and clicks, so
  // the control is emitted here, in the label's place.
  function emitLabel(el, content, look, ctx, out) {
    const control = el.control;
    const labelShown = !look.invisible && !look.noBox && look.box.w >= 1 && look.box.h >= 1;
    if (labelShown && visuallyHidden(control, ctx)) {
      // Hidden from everyone (Select2's select): the widget drawn in its place takes its name.
      const standIn = control.getAttribute("aria-hidden") === "true" ? standInFor(control) : null;
      if (standIn) {
        standInNames.set(standIn, labelText(el));
        spliceInto(out, content.filter((x) => typeof x !== "string"), look.display);
        return;
      }
      const tag = control.localName;
      const style = control.ownerDocument.defaultView.getComputedStyle(control);
      const kind = { role: roleOf(control, tag) || "textbox", strong: true, weak: false };
      const name = externalName(control, tag) || labelText(el);
      const node = controlNode(control, tag, style, { ...look, transparent: true }, kind, null, [], ctx, name);
      // A switch's drawn knob (a span with a pointer cursor) is the control, not one of its own.
      spliceInto(out, content.filter((x) => typeof x === "object" && x.r !== "clickable"), look.display);
      out.push(node);
      return;
    }
    spliceInto(out, content.filter((x) => typeof x !== "string"), look.display);
  }

  // The widget beside a hidden native control that stands in for it: the sibling drawn right
  // after it (Select2) or before it, or the one control inside that sibling, or its one
  // combobox (a Select2 multiple also draws a remove button on each chosen item).
  function standInFor(control) {
    for (const sib of [control.nextElementSibling, control.previousElementSibling]) {
      if (!sib || FORM_FIELD.has(sib.localName)) continue;
      if (sib.matches(STAND_IN)) return sib;
      const inside = sib.querySelectorAll(STAND_IN);
      if (inside.length === 1) return inside[0];
      const boxes = sib.querySelectorAll('[role="combobox"]');
      if (boxes.length === 1) return boxes[0];
    }
    return null;
  }

  // Would the walk drop this control for how it looks (not for where it is)?
  function visuallyHidden(control, ctx) {
    const style = control.ownerDocument.defaultView.getComputedStyle(control);
    if (style.display === "none" || style.visibility !== "visible") return true;
    const look = appearance(control, control.localName, style, ctx);
    return look === null || look.box.w < 2 || look.box.h < 2;
  }

  function emitControl(el, tag, style, look, kind, child, items, ctx, out) {
    const node = controlNode(el, tag, style, look, kind, child.scrollerId, items, ctx, "");
    if (node) out.push(node);
  }

  function controlNode(el, tag, style, look, kind, scrollerId, items, ctx, labelName) {
    const role = kind.role;
    let name = labelName || (standInNames.size && standInNames.get(el)) || externalName(el, tag);
    const fromContent = NAME_FROM_CONTENT.has(role) || tag === "summary";
    // The outermost clickable speaks for the listener-only ones inside it, but for those with
    // a listener and a box of their own, clearly smaller (a colour swatch on a product card).
    let own = null;
    if (kind.weak) {
      items = items.map((x) => (typeof x === "object" && x.r === "clickable" && !ownTarget(x, look.box) ? x.n || "" : x));
      own = items.filter((x) => typeof x !== "object" || x.r !== "clickable"); // its name leaves those out
    }
    // A real control is named as browsers name it, hidden label text included ("Cart (3
    // items)", an icon button's ".sr-only" text); a clickable by what it shows.
    // A name guessed from markup is a hint (``nh``), marked so that a model knows it is a guess.
    let hint = false;
    if (!name && fromContent) {
      const spoken = kind.strong ? hiddenLabel(el) : "";
      name = spoken || flatText(own || items);
      if (!spoken && name && hasHint(own || items)) hint = true; // a control inside named it by a guess
      // Shown but hidden from screen readers: an icon font's glyph or ligature ("more_vert").
      if (!spoken && name && kind.strong && el.querySelector('[aria-hidden="true"]')) {
        name = HINTS.glyph(name);
        hint = true;
      }
    }
    let fromPlaceholder = false;
    if (!name) {
      name = fallbackName(el, tag);
      // a field named by its placeholder alone: a hint of what to type, not what the page holds
      fromPlaceholder = Boolean(name) && !(el.getAttribute("title") || "").trim();
    }
    if (!name && tag === "a") {
      const href = el.getAttribute("href") || ""; // an unlabelled image link: where it goes
      if (!/^(javascript:|#)/i.test(href)) {
        name = cap(href, 60);
        hint = Boolean(name); // where it goes, not what it is called: a hint
      }
    }
    if (!name && look.transparent && el.parentElement) name = cap(norm(el.parentElement.innerText || ""), 80);
    if (!name) {
      name = HINTS.nameOf(el, tag, role, style);
      hint = Boolean(name);
    }
    const node = { r: role, n: cap(name, MAX_NAME), i: localId(el) };
    if (kind.listens) ownListener.add(node);
    if (hint) node.nh = 1;
    if (fromPlaceholder) node.np = 1;
    const v = valueOf(el, tag, role);
    if (v !== undefined) node.v = cap(v, 400);
    else if (name) {
      const ph = placeholderOf(el, tag, role);
      if (ph && saysMore(ph, name)) node.ph = cap(ph, MAX_NAME); // an empty labelled field shows its placeholder
    }
    const options = tag === "select" ? el.options : tag === "input" && el.list ? el.list.options : null;
    if (options) node.opts = optionLabels(options);
    if (tag === "input" && el.type === "range") { node.min = el.min || "0"; node.max = el.max || "100"; }
    const st = statesOf(el, tag, ctx);
    const hinted = classState(el, tag, role, st);
    if (hinted) { st.push(hinted); node.hs = [hinted]; }
    if (st.length) node.s = st;
    if (node.s && node.s.includes("invalid") && el.validationMessage) {
      node.er = cap(norm(el.validationMessage), MAX_NAME);
      const last = hooksOf(el.ownerDocument.defaultView).invalidFields.get(el);
      if (last) node.ie = last; // which invalid event last named it: did this action's?
    }
    if (opensFiles(el, tag, role, ctx)) node.up = 1;
    if (dragSource(el, look)) node.dg = 1;
    if (role === "link" && HINTS.looksLike(el, role, style)) node.lk = "button";
    if (wantHref && tag === "a" && el.href) node.h = el.href; // resolving URLs is not free
    MARKUP.add(node, el, flatText(items));
    if (scrollerId !== null) pushState(node, "scrollable");
    // Inside a control only other controls are kept; its text is its name (or its value).
    const children = items.filter((x) => typeof x === "object" && x.i !== undefined && x.r !== "img" && !shownChoice(role, x));
    if (children.length) node.c = children;
    finishElement(node, look, ctx);
    return node;
  }

  // A combobox's read-only text box that only shows its choice (Select2's rendered span).
  function shownChoice(role, x) {
    return role === "combobox" && x.r === "textbox" && x.s !== undefined && x.s.includes("readonly") && !x.c;
  }

  function ownTarget(node, box) {
    return ownListener.has(node) && node.b !== undefined && node.b[2] * node.b[3] <= 0.25 * box.w * box.h;
  }

  // Whether a clickable text is the label of a field drawn on the page (names.js decides when
  // it is only that); a label whose field is hidden is what a person clicks, so it stays.
  function foldsIntoField(el, ctx) {
    const field = labelledField(el);
    return field !== null && !visuallyHidden(field, ctx);
  }

  function headingIn(el) {
    const h = el.querySelector("h1, h2, h3, h4, h5, h6, legend, [role=heading]");
    return h ? cap(norm(h.textContent || ""), 80) : "";
  }

  function emitHeading(el, tag, look, items, content, ctx, out) {
    const name = externalName(el, tag) || flatText(items);
    if (!name || look.invisible) {
      spliceInto(out, content.filter((x) => typeof x === "object"), look.display);
      return;
    }
    const node = { r: "heading", n: cap(name, 300), lv: parseInt(el.getAttribute("aria-level") || tag.slice(1), 10) || 2 };
    const nested = items.filter((x) => typeof x === "object" && countActionable([x]) > 0);
    if (nested.length === 1 && nested[0].n === node.n) {
      out.push(nested[0]); // an accordion header: the heading is its button
      return;
    }
    if (nested.length) node.c = nested;
    out.push(node);
  }

  function emitImage(el, tag, look, ctx, out) {
    if (look.invisible || look.noBox) return;
    const name = externalName(el, tag);
    if (name) out.push({ r: "img", n: cap(name, MAX_NAME) });
  }

  function emitContainer(el, tag, look, kind, child, items, content, ctx, out) {
    if (!items.length || (tag === "dialog" && !el.open)) return;
    // A note or alert that is one run of prose with inline links reads as one line, too.
    const prose = !content.includes(BREAK) && isProse(items);
    const node = { r: kind.role || "group", c: prose ? [{ r: "paragraph", c: items }] : items };
    const zone = dropZone(el);
    const name = externalName(el, tag) || (zone ? headingIn(el) : "");
    if (name) node.n = cap(name, MAX_NAME);
    if (child.scrollerId !== null || zone) {
      node.i = child.scrollerId !== null ? child.scrollerId : localId(el); // a drag can aim at a drop zone
      if (child.scrollerId !== null) pushState(node, "scrollable");
      finishElement(node, look, ctx);
      MARKUP.add(node, el, "");
    }
    if (ctx.ariaHidden || el.getAttribute("aria-hidden") === "true") pushState(node, "aria-hidden");
    out.push(node);
  }

  // A generic wrapper: a card that ties text to its own controls stays a group; a block of
  // prose with inline controls stays one paragraph; anything else dissolves into its parent.
  // Returns true when its text counts as its parent's own (for the parent's cover check).
  function emitGeneric(el, look, items, content, ownText, out) {
    const block = !INLINE_DISPLAY.has(look.display);
    const hasBlocks = content.includes(BREAK);
    if (block && hasBlocks && items.length > 1 && countActionable(items) > 0 &&
        items.some((x) => typeof x === "string" || x.r === "heading") && siblingsRepeat(el)) {
      const node = { r: "group", c: items };
      const aria = el.getAttribute("aria-label");
      if (aria) node.n = norm(aria);
      out.push(node);
      return false;
    }
    if (block && !hasBlocks && isProse(items)) {
      out.push(BREAK, { r: "paragraph", c: items }, BREAK);
      return false;
    }
    spliceInto(out, content, look.display);
    return look.phrasing && ownText;
  }

  // The repeated shape of cards and rows: siblings with the same tag and the same non-empty
  // class, or (classless) the same inner structure.
  function siblingsRepeat(el) {
    const cls = typeof el.className === "string" ? el.className : "";
    for (const sib of [el.previousElementSibling, el.nextElementSibling]) {
      if (!sib || sib.localName !== el.localName) continue;
      if (cls) {
        if (sib.className === cls) return true;
      } else if (!sib.className && sib.childElementCount === el.childElementCount && el.childElementCount > 1 &&
                 sameShape(sib, el)) {
        return true;
      }
    }
    return false;
  }
  function sameShape(a, b) {
    for (let x = a.firstElementChild, y = b.firstElementChild; x && y; x = x.nextElementSibling, y = y.nextElementSibling) {
      if (x.localName !== y.localName || x.className !== y.className) return false;
    }
    return true;
  }

  function containsComposed(ancestor, node) {
    for (let n = node; n; n = n.parentNode || n.host) if (n === ancestor) return true;
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

  // Geometry and placement, on what can be acted on: its box (top-level viewport px), whether
  // it is off screen, its scroll container, and whether that container hides it now.
  function finishElement(node, look, ctx) {
    const { box, state } = look;
    node.b = [
      Math.round(box.x + ctx.offset.x), Math.round(box.y + ctx.offset.y), Math.round(box.w), Math.round(box.h),
    ];
    if (!look.onscreen) node.o = 1;
    if (state.scroller !== null && state.scroller !== undefined) {
      node.sc = state.scroller;
      if (box.w >= 1 && box.h >= 1 && !meets(box, state.view)) node.hc = 1;
    }
  }

  let invalidEvents = 0; // over the documents of this walk
  function walkDocument(doc, ctx) {
    const view = doc.defaultView;
    invalidEvents += hooksOf(view).invalidEvents();
    const vw = view.innerWidth, vh = view.innerHeight;
    let modal = null;
    try { modal = doc.querySelector(":modal"); } catch (e) { modal = null; } // a dialog opened with showModal()
    if (!modal) {
      // A script-made modal says so with aria-modal; while it shows, the page behind is out of reach.
      const flagged = doc.querySelector('[aria-modal="true"]');
      if (flagged && flagged.checkVisibility && flagged.checkVisibility({ opacityProperty: true, visibilityProperty: true })) modal = flagged;
    }
    const active = deepActive(doc);
    const full = {
      state: ctx.state, absState: ctx.absState, fixedState: ctx.fixedState,
      invisible: false, inClickable: false, parentPointer: false, delegates: false, ariaHidden: false,
      modal, inModal: false,
      active, activeOption: activeDescendant(active), frames: ctx.frames, offset: ctx.offset,
      viewArea: vw * vh, fileInputs: undrawnFileInputs(doc),
      backdrop: null, scale: 1, alpha: 1,
    };
    const out = [];
    const root = doc.body || doc.documentElement;
    if (root) {
      const rootStyle = view.getComputedStyle(root);
      const html = root === doc.documentElement ? WHITE : backdropOf(view.getComputedStyle(doc.documentElement), WHITE);
      full.backdrop = html && backdropOf(rootStyle, html);
      walkChildren(root, full, out, rootStyle, null);
    }
    return out;
  }

  let wantHref = false;

  function observe(opts) {
    wantHref = Boolean(opts && opts.href);
    MARKUP.start(Boolean(opts && opts.selector));
    const doc = document;
    const vw = window.innerWidth, vh = window.innerHeight;
    const viewport = { x: 0, y: 0, w: vw, h: vh };
    const st = pageState(doc, viewport);
    frameEls.length = 0;
    standInNames.clear();
    forgetLabels();
    forgetDropped();
    invalidEvents = 0;
    const tree = tidy(walkDocument(doc, {
      state: st, absState: st, fixedState: { clip: viewport, reach: viewport, scroller: null, view: viewport },
      offset: { x: 0, y: 0 }, frames: frameEls,
    }));
    MARKUP.forget(); // its indexes hold elements, and the DOM moves on
    return {
      doc: docToken,
      url: doc.URL,
      title: doc.title,
      loaded: doc.readyState === "complete",
      early: hooks.installedEarly,
      viewport: [vw, vh, window.scrollX, window.scrollY, window.devicePixelRatio],
      tree,
      frames: frameEls.length,
      iv: invalidEvents,
    };
  }

  // The observation as JSON, safe from pages that patch toJSON onto built-in prototypes (old
  // Prototype.js code does, and JSON.stringify would then garble every array).
  const stringify = JSON.stringify;
  function observeJSON(opts) {
    const protos = [Array.prototype, Object.prototype, String.prototype, Number.prototype];
    const saved = protos.map((p) => Object.getOwnPropertyDescriptor(p, "toJSON"));
    protos.forEach((p, i) => { if (saved[i]) delete p.toJSON; });
    try {
      return stringify(observe(opts));
    } finally {
      protos.forEach((p, i) => { if (saved[i]) Object.defineProperty(p, "toJSON", saved[i]); });
    }
  }

  // A closed shadow root found through CDP (the hooks were installed too late to see it).
  function registerShadowRoot(root) {
    hooksOf(root.host.ownerDocument.defaultView).closedRoots.set(root.host, root);
  }

  function elementById(id) {
    const ref = byId.get(id);
    const el = ref && ref.deref();
    return el && el.isConnected ? el : null;
  }

  const api = { observe, observeJSON, elementById, registerShadowRoot, frameElement: (k) => frameEls[k] || null, docToken };
  Object.defineProperty(globalThis, KEY, { value: api, enumerable: false });
  return api;
})();
