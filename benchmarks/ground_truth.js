// Ground truth for recall: the visible interactive elements of a page, found by a
// plain DOM walk that shares nothing with pagesight's own page code.
//
// Evaluated as a function expression; returns [{kind, name, x, y, width, height, frame}]
// with boxes in CSS px of the top-level viewport.  Same-origin iframes and open shadow
// roots are walked too (closed roots cannot be reached from a page script).
(() => {
  const ROLES = new Set([
    "button", "link", "checkbox", "radio", "tab", "menuitem", "option", "switch",
    "combobox", "textbox", "searchbox", "slider", "spinbutton", "treeitem",
  ]);
  const INPUT_KINDS = {
    checkbox: "checkbox", radio: "radio", range: "slider", number: "spinbutton",
    search: "searchbox", submit: "button", reset: "button", button: "button",
    image: "button", file: "button", color: "button",
  };

  const roleOf = (el) => (el.getAttribute("role") || "").trim().split(/\s+/)[0].toLowerCase();

  // Kind of an interactive element, or "" if it is not one.  `strong` kinds are the
  // ones that absorb interactive descendants (a button inside a link counts once).
  function kindOf(el) {
    const role = roleOf(el);
    if (ROLES.has(role)) return role;
    const tag = el.localName;
    if ((tag === "a" || tag === "area") && el.hasAttribute("href")) return "link";
    if (tag === "button") return "button";
    if (tag === "input") {
      const type = (el.getAttribute("type") || "text").toLowerCase();
      if (type === "hidden") return "";
      return INPUT_KINDS[type] || "textbox";
    }
    if (tag === "select") return el.multiple || el.size > 1 ? "listbox" : "combobox";
    if (tag === "textarea") return "textbox";
    if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) {
      return "textbox";
    }
    if (el.hasAttribute("onclick") && tag !== "body" && tag !== "html") return "clickable";
    return "";
  }
  // onclick/contenteditable containers often wrap whole regions: they do not absorb.
  const absorbs = (el, kind) => kind !== "clickable" && !el.isContentEditable;

  // Parent in the composed tree: crosses from a shadow root to its host.
  const parentOf = (el) =>
    el.parentElement || (el.parentNode instanceof ShadowRoot ? el.parentNode.host : null);

  // `clip: rect(...)` (absolutely positioned boxes) or `clip-path: inset(50%)` that leaves
  // nothing: the ".sr-only" pattern, "clipped away" like an overflow:hidden ancestor.
  function clippedToNothing(cs) {
    if ((cs.position === "absolute" || cs.position === "fixed") && cs.clip.startsWith("rect(")) {
      const [top, right, bottom, left] = cs.clip.slice(5, -1).split(/[\s,]+/).map(parseFloat);
      if (right - left <= 0 || bottom - top <= 0) return true;
    }
    return /^inset\(50%\)$/.test(cs.clipPath);
  }

  const clean = (s) => (s || "").replace(/\s+/g, " ").trim();
  function nameOf(el) {
    const img = el.querySelector && el.querySelector("img[alt]");
    const candidates = [
      el.getAttribute("aria-label"), el.innerText, el.value, el.getAttribute("placeholder"),
      el.getAttribute("title"), el.getAttribute("alt"), img && img.getAttribute("alt"),
    ];
    for (const c of candidates) {
      const s = clean(typeof c === "string" ? c : "");
      if (s) return s.slice(0, 60);
    }
    return "";
  }

  // Is `rect` (viewport coords of `doc`) cut away entirely by an overflow-clipping
  // ancestor?  Follows the containing-block chain so that absolutely positioned and
  // fixed boxes escape static overflow:hidden ancestors, as in CSS.
  function clippedAway(el, rect) {
    const win = el.ownerDocument.defaultView;
    const own = win.getComputedStyle(el);
    if (clippedToNothing(own)) return true;
    let position = own.position;
    for (let a = parentOf(el); a; a = parentOf(a)) {
      if (a === el.ownerDocument.documentElement || a === el.ownerDocument.body) break;
      const cs = win.getComputedStyle(a);
      if (position === "fixed") {
        if (cs.transform === "none" && cs.filter === "none" && cs.contain.indexOf("paint") < 0) {
          continue;
        }
      } else if (position === "absolute" && cs.position === "static" && cs.transform === "none") {
        continue;
      }
      position = cs.position;
      if (clippedToNothing(cs)) return true;
      const clipsX = cs.overflowX === "hidden" || cs.overflowX === "clip";
      const clipsY = cs.overflowY === "hidden" || cs.overflowY === "clip";
      if (!clipsX && !clipsY) continue;
      const r = a.getBoundingClientRect();
      const left = r.left + a.clientLeft;
      const top = r.top + a.clientTop;
      if (clipsX && (rect.right <= left || rect.left >= left + a.clientWidth)) return true;
      if (clipsY && (rect.bottom <= top || rect.top >= top + a.clientHeight)) return true;
    }
    return false;
  }

  function inert(el) {
    for (let a = el; a; a = parentOf(a)) if (a.hasAttribute("inert")) return true;
    return false;
  }

  function visible(el, rect) {
    if (!(rect.width > 0 && rect.height > 0)) return false;
    if (!el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return false;
    if (inert(el)) return false;
    const doc = el.ownerDocument;
    // An open modal <dialog> makes the rest of its document inert.
    const modal = doc.querySelector("dialog:modal");
    if (modal && !modal.contains(el)) return false;
    const win = doc.defaultView;
    const scroller = doc.scrollingElement || doc.documentElement;
    // Document coordinates must fall inside the scrollable area [0, scrollWidth/Height].
    const left = rect.left + win.scrollX;
    const top = rect.top + win.scrollY;
    if (left + rect.width <= 0 || top + rect.height <= 0) return false;
    if (left >= scroller.scrollWidth || top >= scroller.scrollHeight) return false;
    return !clippedAway(el, rect);
  }

  const out = [];

  // Walks a document or shadow root; `absorbed` holds the counted elements that absorb
  // their interactive descendants, per document.
  function walk(root, dx, dy, frame, absorbed) {
    for (const el of root.querySelectorAll("*")) {
      visit(el, dx, dy, frame, absorbed);
      if (el.shadowRoot) walk(el.shadowRoot, dx, dy, frame, absorbed);
    }
  }

  function visit(el, dx, dy, frame, absorbed) {
    if (el.localName === "iframe" || el.localName === "frame") {
      let inner = null;
      try {
        inner = el.contentDocument;
      } catch (e) {
        inner = null; // cross-origin
      }
      const rect = el.getBoundingClientRect();
      if (inner && inner.documentElement && visible(el, rect)) {
        const cs = el.ownerDocument.defaultView.getComputedStyle(el);
        const ox = dx + rect.left + el.clientLeft + parseFloat(cs.paddingLeft);
        const oy = dy + rect.top + el.clientTop + parseFloat(cs.paddingTop);
        walk(inner, ox, oy, frame + 1, new Set());
      }
      return;
    }
    const kind = kindOf(el);
    if (!kind) return;
    for (let a = parentOf(el); a; a = parentOf(a)) if (absorbed.has(a)) return;
    const rect = el.getBoundingClientRect();
    if (!visible(el, rect)) return;
    if (absorbs(el, kind)) absorbed.add(el);
    out.push({
      kind,
      name: nameOf(el),
      x: rect.left + dx,
      y: rect.top + dy,
      width: rect.width,
      height: rect.height,
      frame,
    });
  }

  walk(document, 0, 0, 0, new Set());
  return out;
})
