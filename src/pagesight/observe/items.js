// The walk's lists of text runs and nodes (the node encoding of walker.js): their text, the
// controls in them, and which wrappers are only a field's frame, so that the field alone is
// listed. Pure functions of those lists, sent with the walker (capture.py joins the page
// scripts into one expression) and installed once per document under
// Symbol.for("pagesight.items").
(() => {
  const KEY = Symbol.for("pagesight.items");
  if (globalThis[KEY]) return globalThis[KEY];
  const { LABELLED } = globalThis[Symbol.for("pagesight.names")];

  const BREAK = 0; // marks a block boundary between text runs; removed by tidy()
  // Controls that take text or a choice: a wrapper around one of them is its frame, not a control.
  const FIELD_ROLES = new Set(["textbox", "searchbox", "combobox", "spinbutton", "date", "time", "datetime-local", "month", "week"]);

  function norm(s) {
    return s.replace(/[\s\u00a0\u200b]+/g, " ").trim();
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

  // Whether flatText(items) takes any part from a name guessed from markup (``nh``).
  function hasHint(items) {
    for (const it of items) {
      if (it && typeof it === "object" && (it.n ? it.nh : it.c && hasHint(it.c))) return true;
    }
    return false;
  }

  function countActionable(items) {
    let n = 0;
    for (const it of items) if (it && typeof it === "object") n += (it.i !== undefined ? 1 : 0) + (it.c ? countActionable(it.c) : 0);
    return n;
  }

  // The wrapper drawn around one field (Material UI's InputBase): the field fills most of it,
  // and nothing else acts inside it but icon buttons beside the field (a password's "show").
  // A card with a small quantity field in it is still a target of its own.
  function framesOneField(items, box) {
    let field = null;
    for (const it of items) {
      if (typeof it !== "object") continue;
      if (it.i !== undefined) {
        if (FIELD_ROLES.has(it.r)) {
          if (field) return false;
          field = it;
        } else if (it.r !== "button") return false;
      }
      if (it.c && countActionable(it.c)) return false;
    }
    return field !== null && field.b[2] * field.b[3] >= 0.5 * box.w * box.h;
  }

  // A wrapper around one field that shows nothing but the field's own name (its label, or
  // nothing at all): a click on it can only be meant for the field, whatever its size. One
  // with text of its own (a product card with a quantity field) is a target of its own.
  function namedByItsField(items) {
    const found = controlsIn(items, []);
    if (found.length !== 1 || !LABELLED.has(found[0].r)) return false;
    const name = found[0].n || "";
    const rest = bare(flatText(items).replace(name, ""));
    return rest === "" || rest === bare(name);
  }

  function controlsIn(items, out) {
    for (const it of items) {
      if (typeof it !== "object") continue;
      if (it.i !== undefined) out.push(it);
      if (it.c) controlsIn(it.c, out);
    }
    return out;
  }

  // A name without case, spacing and the marks a label ends in ("Email Address *", "Name:").
  function bare(s) {
    return norm(s).replace(/[\s:*\uff1a]+$/, "").toLowerCase();
  }

  // Text interleaved with leaf controls: a paragraph with links.
  function isProse(items) {
    return items.length > 1 && items.some((x) => typeof x === "string") &&
      items.every((x) => typeof x === "string" || (x.i !== undefined && !x.c));
  }

  const api = { BREAK, tidy, flatText, hasHint, countActionable, isProse, framesOneField, namedByItsField };
  Object.defineProperty(globalThis, KEY, { value: api, enumerable: false });
  return api;
})();
