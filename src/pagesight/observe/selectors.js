// Markup for find, sent with the walker (capture.py joins hints.js, this and walker.js into one
// expression) and installed once per document under Symbol.for("pagesight.selectors"). The
// walker calls add() on each node it emits:
//
//   start(selector)        a walk begins; with ``selector``, nodes get unique selector paths
//   add(node, el, text)    node.tg tag, node.at key attributes, node.tx shown text (when it is
//                          not the name), node.sel the selector path (when asked)
//   forget()               drop the walk's indexes (they hold elements)
//
// For find: an element's tag, key attributes, shown text, and a path of CSS selectors that
// finds it alone — one selector per root on the way down from this walker's document: each
// same-origin iframe and shadow host (open or closed) to pass, then the element. Each
// selector is unique in its root (a document or a shadow root): an id or stable attribute
// whose value an index counts once per root and walk, or else a child-combinator chain of
// :nth-of-type steps anchored at a uniquely-id'd ancestor or the root itself, which is unique
// by construction. So no selector costs a search of the page.
(() => {
  const KEY = Symbol.for("pagesight.selectors");
  if (globalThis[KEY]) return globalThis[KEY];
  const MAX_TEXT = 120; // the walker's longest name

  function norm(s) {
    return s.replace(/[\s\u00a0\u200b]+/g, " ").trim();
  }
  function cap(s, n) {
    return s.length > n ? s.slice(0, n - 1) + "\u2026" : s;
  }

  const HTML_NS = "http://www.w3.org/1999/xhtml";
  const STABLE_ATTRS = ["data-testid", "name", "aria-label"];
  const KEY_ATTRS = ["id", "name", "type", "placeholder", "aria-label", "title", "alt", "data-testid", "role"];
  let wantSelector = false; // a unique selector path costs a little walking: only when asked
  let rootIndex = new Map(); // root -> Map(key -> how many elements of the root carry it)
  let siblingNth = new Map(); // element -> its place among the siblings of its type
  let siblingShared = new Set(); // elements with a sibling of the same type
  let rootPaths = new Map(); // element -> its selector within its root (memoised for ancestors)

  // A walk begins: selectors wanted or not, and nothing remembered from the last one.
  function start(selector) {
    wantSelector = selector;
    forget();
  }

  function forget() {
    if (rootIndex.size) rootIndex = new Map();
    if (siblingNth.size) { siblingNth = new Map(); siblingShared = new Set(); }
    if (rootPaths.size) rootPaths = new Map();
  }

  // Tag, key attributes and shown text are cheap and always sent (find scores on them).
  function add(node, el, text) {
    const at = {};
    for (const a of KEY_ATTRS) {
      let v = a === "type" && el.localName === "input" ? el.type : el.getAttribute(a);
      if (v && v.trim()) at[a] = cap(norm(v), 80);
    }
    node.tg = el.localName;
    node.at = at;
    if (text && text !== node.n) node.tx = cap(text, MAX_TEXT);
    if (wantSelector) node.sel = selectorPath(el);
  }

  function selectorPath(el) {
    const path = [];
    for (let e = el; e; ) {
      const root = e.getRootNode();
      path.push(selectorIn(e, root));
      if (root.host) e = root.host; // a shadow root: on to its host
      else if (root !== document && root.defaultView) e = root.defaultView.frameElement; // a same-origin frame
      else e = null;
    }
    return path.reverse();
  }

  // Counted case-insensitively: quirks-mode pages match ids that way, and where two values
  // differ only in case, declaring neither unique is merely cautious.
  function indexOf(root) {
    let idx = rootIndex.get(root);
    if (idx) return idx;
    idx = new Map();
    const bump = (k) => idx.set(k, (idx.get(k) || 0) + 1);
    for (const e of root.querySelectorAll("[id],[name],[data-testid],[aria-label]")) {
      const id = e.getAttribute("id");
      if (id) bump("#" + id.toLowerCase());
      for (const a of STABLE_ATTRS) {
        const v = e.getAttribute(a);
        if (v) bump(a + "\u0000" + e.localName + "\u0000" + v.toLowerCase());
      }
    }
    rootIndex.set(root, idx);
    return idx;
  }

  function uniqueId(el, idx) {
    const id = el.getAttribute("id");
    return id && idx.get("#" + id.toLowerCase()) === 1 ? "#" + CSS.escape(id) : null;
  }

  function selectorIn(el, root) {
    const idx = indexOf(root);
    const id = uniqueId(el, idx);
    if (id) return id;
    if (el.namespaceURI === HTML_NS) {
      for (const a of STABLE_ATTRS) {
        const v = el.getAttribute(a);
        if (v && idx.get(a + "\u0000" + el.localName + "\u0000" + v.toLowerCase()) === 1) {
          return `${typeName(el.localName)}[${a}=${cssString(v)}]`;
        }
      }
    }
    return chainIn(el, root, idx);
  }

  // "#anchor > div > button:nth-of-type(2)", or from the top: "body > …" in a document,
  // ":host > …" in a shadow root (where querySelector matches :host as the host).
  function chainIn(el, root, idx) {
    let known = rootPaths.get(el);
    if (known !== undefined) return known;
    const parent = el.parentElement;
    if (el === root.body) known = el.localName; // a frameset page's body is its <frameset>
    else if (el === root.documentElement) known = ":root";
    else if (!parent) known = ":host > " + siblingStep(el);
    else known = (uniqueId(parent, idx) || chainIn(parent, root, idx)) + " > " + siblingStep(el);
    rootPaths.set(el, known);
    return known;
  }

  // The element's type, with :nth-of-type only where a sibling shares it. A family is counted
  // once for all its members (a list of 2,000 items is one pass, not 2,000).
  function siblingStep(el) {
    let nth = siblingNth.get(el);
    if (nth === undefined) {
      const seen = new Map();
      for (const k of el.parentNode.children) {
        const n = (seen.get(k.localName) || 0) + 1;
        seen.set(k.localName, n);
        siblingNth.set(k, n);
      }
      for (const k of el.parentNode.children) if (seen.get(k.localName) > 1) siblingShared.add(k);
      nth = siblingNth.get(el);
    }
    const type = typeName(el.localName);
    return siblingShared.has(el) ? `${type}:nth-of-type(${nth})` : type;
  }

  const PLAIN_NAME = /^[a-z][a-z0-9-]*$/;
  function typeName(name) {
    return PLAIN_NAME.test(name) ? name : CSS.escape(name);
  }

  function cssString(v) {
    return '"' + v.replace(/["\\]/g, "\\$&").replace(/[\u0000-\u001f\u007f]/g, (c) => "\\" + c.charCodeAt(0).toString(16) + " ") + '"';
  }

  const api = { start, add, forget };
  Object.defineProperty(globalThis, KEY, { value: api, enumerable: false });
  return api;
})();
