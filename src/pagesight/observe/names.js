// What an element is, what it is called and what it holds: roles (ARIA first, then the tag),
// accessible names as browsers compute them (aria-labelledby, aria-label, labels, alt, title,
// content) and which field an element is the label of, the text a control shows, its
// placeholder and its live value. Sent with the walker (capture.py joins the page scripts into
// one expression) and installed once per document under Symbol.for("pagesight.names"); the
// walker takes its functions and shared tag sets from there.
(() => {
  const KEY = Symbol.for("pagesight.names");
  if (globalThis[KEY]) return globalThis[KEY];

  const ELEMENT = 1;
  const TEXT = 3;
  const SKIP = new Set([
    "script", "style", "noscript", "template", "head", "meta", "link", "title", "base",
    "datalist", "param", "source", "track", "col", "colgroup", "wbr", "hr",
  ]);
  const INLINE_DISPLAY = new Set([
    "inline", "inline-block", "inline-flex", "inline-grid", "contents", "ruby", "ruby-base", "ruby-text",
  ]);
  const LANDMARK = {
    nav: "navigation", main: "main", aside: "complementary", form: "form", dialog: "dialog",
    ul: "list", ol: "list", menu: "list", li: "listitem", table: "table", tr: "row",
    td: "cell", th: "columnheader", fieldset: "group", details: "group", figure: "figure",
    search: "search", article: "article", blockquote: "blockquote", dl: "list",
  };
  const MAX_OPTIONS = 25;

  function norm(s) {
    return s.replace(/[\s\u00a0\u200b]+/g, " ").trim();
  }
  function cap(s, n) {
    return s.length > n ? s.slice(0, n - 1) + "\u2026" : s;
  }

  function inputRole(el) {
    const type = (el.getAttribute("type") || "text").toLowerCase();
    switch (type) {
      case "hidden": return null;
      case "checkbox": return "checkbox";
      case "radio": return "radio";
      case "range": return "slider";
      case "number": return "spinbutton";
      case "search": return "searchbox";
      case "button": case "submit": case "reset": case "image": case "file": return "button";
      // A date or time field says which: its value has that control's own format.
      case "date": case "time": case "datetime-local": case "month": case "week": return type;
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
      default: return LANDMARK[tag] || liveRole(el);
    }
  }

  // A live region with no role of its own is where the page says what just happened: as the
  // roles that imply it, "status" for a polite one and "alert" for an assertive one.
  function liveRole(el) {
    const live = el.getAttribute("aria-live");
    return live === "polite" ? "status" : live === "assertive" ? "alert" : "";
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

  // A control's label from text a person cannot see but which is there to name it: an
  // ".sr-only" span, an SVG <title>, an icon image's alt. Only aria-hidden and display:none
  // parts are left out, as browsers do when they name an icon button.
  function hiddenLabel(el) {
    let out = "";
    const walk = (n) => {
      for (let c = n.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === TEXT) { out += c.data; continue; }
        if (c.nodeType !== ELEMENT || c.getAttribute("aria-hidden") === "true") continue;
        const t = c.localName;
        if (t === "script" || t === "style" || t === "template") continue;
        if (t === "title" && c.parentElement && c.parentElement.localName === "svg") { out += " " + c.textContent + " "; continue; }
        if (t === "wbr") continue;
        if (t === "br") { out += " "; continue; }
        const display = c.ownerDocument.defaultView.getComputedStyle(c).display;
        if (display === "none") continue;
        if (t === "img") { out += " " + (c.getAttribute("alt") || "") + " "; continue; }
        // Inline children run on with their neighbours ("<span>R</span>eturn" is "Return").
        const gap = INLINE_DISPLAY.has(display) ? "" : " ";
        out += gap; walk(c); out += gap;
      }
    };
    walk(el);
    return norm(out);
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

  // What an empty field shows in place of a value (a placeholder, an editor's aria-placeholder
  // or Quill's data-placeholder); only fields that take text have one (a date input's is never
  // drawn: it shows its own format).
  const PLACEHOLDER_TYPES = new Set(["text", "search", "url", "tel", "email", "password", "number"]);
  function placeholderOf(el, tag, role) {
    let ph = null;
    if (tag === "textarea" || (tag === "input" && PLACEHOLDER_TYPES.has(el.type))) ph = el.getAttribute("placeholder");
    else if (role === "textbox" || role === "searchbox" || role === "combobox") {
      ph = el.getAttribute("aria-placeholder") || (el.isContentEditable ? el.getAttribute("data-placeholder") : null);
    }
    return ph ? norm(ph) : "";
  }

  // A placeholder that only repeats words of the name ("Search" beside "Search the BBC",
  // "Rechercher" beside "Rechercher :") says nothing more.
  function saysMore(ph, name) {
    const words = (s) => ` ${s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim()} `;
    return !words(name).includes(words(ph));
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
    if (role === "combobox") return norm(el.innerText || "") || undefined; // a div showing its choice
    return undefined;
  }

  function optionLabels(options) {
    const labels = [];
    for (const o of options) {
      if (labels.length >= MAX_OPTIONS) { labels.push(`+${options.length - MAX_OPTIONS} more`); break; }
      labels.push(norm(o.label || o.text || o.value));
    }
    return labels;
  }

  // The fields a click on their label goes to, as a <label>'s does: HTML's labelable form
  // fields and their ARIA kin. A button, a listbox or a panel named by a clickable text is not
  // one: a click on that text may well do something else (open or close the list, switch tabs).
  const LABELLED = new Set([
    "textbox", "searchbox", "combobox", "spinbutton", "slider", "checkbox", "radio", "switch",
    "date", "time", "datetime-local", "month", "week",
  ]);
  // aria-labelledby turned around: per document or shadow root, the elements each id names,
  // gathered at most once a walk (forgetLabels() at its start: the page changes in between).
  let namedBy = new WeakMap();
  function forgetLabels() {
    namedBy = new WeakMap();
  }
  function labelledBy(el) {
    const root = el.getRootNode();
    let index = namedBy.get(root);
    if (!index) {
      index = new Map();
      for (const c of root.querySelectorAll("[aria-labelledby]")) {
        for (const id of c.getAttribute("aria-labelledby").split(/\s+/)) {
          if (id) index.set(id, [...(index.get(id) || []), c]);
        }
      }
      namedBy.set(root, index);
    }
    return index.get(el.id) || [];
  }

  // The one field ``el`` is the label of by aria-labelledby (a custom checkbox's text), when
  // the markup gives it nothing else to do: it names no other element, neither holds the field
  // nor sits inside it, and says nothing of a click of its own (aria-haspopup, aria-expanded,
  // aria-controls of another element). What its listener really does cannot be read from the
  // page; a label that does something else yet says none of this is taken for a label, as a
  // browser takes a <label>. Null when it is not such a label.
  function labelledField(el) {
    if (!el.id) return null;
    const named = labelledBy(el);
    if (named.length !== 1) return null;
    const field = named[0];
    if (field.contains(el) || el.contains(field) || !LABELLED.has(roleOf(field, field.localName))) return null;
    if (el.hasAttribute("aria-haspopup") || el.hasAttribute("aria-expanded")) return null;
    const controls = el.getAttribute("aria-controls");
    return controls && controls !== field.id ? null : field;
  }

  const api = { SKIP, INLINE_DISPLAY, inputRole, roleOf, textOfIds, labelText, externalName, hiddenLabel, fallbackName, placeholderOf, saysMore, valueOf, optionLabels, LABELLED, labelledField, forgetLabels };
  Object.defineProperty(globalThis, KEY, { value: api, enumerable: false });
  return api;
})();
