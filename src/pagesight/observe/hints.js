// Names and states guessed from markup, for what a page left unnamed or unmarked. Sent with
// the walker (capture.py joins the two into one expression) and installed once per document
// under Symbol.for("pagesight.hints"). The walker calls it only for a control it could not
// name and only reads class names for states, so a well-labelled page pays almost nothing.
//
//   nameOf(el, tag, role, style)  a short name guessed from the markup, or ""
//   glyph(text)                   an icon font's ligature ("more_vert") as words ("more")
//   stateOf(el, role)             the state the page's own class names give it, or ""
//   looksLike(el, role, style)    "button" for a link drawn as a button, else ""
(() => {
  const KEY = Symbol.for("pagesight.hints");
  if (globalThis[KEY]) return globalThis[KEY];

  const ELEMENT = 1;
  const TEXT = 3;
  const FRAGMENT = 11; // a shadow root
  const MAX_WORDS = 6;
  const MAX_TEXT = 80; // longer text beside a field is prose, not its label
  const SCAN = 12; // descendants of an unnamed control looked at for an icon or an image
  const STOP = "\u0000stop"; // another field is nearer: what lies beyond is not this one's label

  // Words in ids and class names that say what kind of thing it is, not what it does.
  const FILLER = new Set([
    "btn", "button", "icon", "icons", "ico", "img", "image", "svg", "js", "lnk", "el", "ui",
    "fa", "fas", "far", "fab", "fal", "fad", "bi", "glyphicon", "mdi", "material", "symbols",
    // icon sizes, styles and animations, and button looks
    "solid", "regular", "light", "thin", "duotone", "brands", "sharp", "outline", "outlined",
    "filled", "fill", "round", "rounded", "lg", "sm", "xs", "xl", "md", "fw", "li", "ul",
    "small", "large", "spin", "pulse", "beat", "fade", "bounce", "shake", "flip", "inverse",
    "border", "primary", "secondary", "tertiary", "success", "danger",
    "warning", "info", "dark", "white", "black", "default", "block", "ghost", "flat", "text",
    "plain", "link", "transparent", "mini", "wrapper", "container", "wrap", "inner", "id",
    "chromeless", "borderless", "unstyled", "naked", "bare", "base", "only",
  ]);
  // What common icons mean, where the icon's own name only says what it looks like.
  const MEANS = new Map([
    ["times", "close"], ["xmark", "close"], ["x", "close"], ["cross", "close"],
    ["circle xmark", "close"], ["times circle", "close"], ["x circle", "close"],
    ["bars", "menu"], ["navicon", "menu"], ["hamburger", "menu"], ["burger", "menu"],
    ["magnifying glass", "search"], ["magnify", "search"], ["loupe", "search"],
    ["ellipsis", "more"], ["ellipsis v", "more"], ["ellipsis h", "more"],
    ["ellipsis vertical", "more"], ["ellipsis horizontal", "more"], ["more vert", "more"],
    ["more horiz", "more"], ["three dots", "more"], ["three dots vertical", "more"],
    ["dots vertical", "more"], ["gear", "settings"], ["cog", "settings"],
  ]);
  // Icon-set prefixes ("fa-search", "bi-x", "glyphicon-trash", "icon-close") and the button
  // prefix ("btn-close"); the same words as a suffix ("search-icon", "menu-btn").
  const ICON_PREFIX = /^(?:fa[srlbdt]?|glyphicon|bi|icon|icons|ico|ti|la[srb]?|mdi|ion|octicon|feather|gg|ri|bx[sl]?|uil|pi|typcn|wi|lnr|oi|icofont|dashicons|codicon|btn|button)[-_](.+)$/i;
  const ICON_SUFFIX = /^(.+)[-_](?:icon|ico|btn|button)$/i;
  const ICON_CAMEL = /^(?:icon|btn)([A-Z].*)$/;
  // Ids that frameworks generate say nothing a person would call the control: known prefixes,
  // React's ":r1:", and (for ids) any counter in it ("input-3", "rc_select_0", "uid_5").
  const GENERATED = /^(?:ember|mui-|mat-|cdk-|radix-|headlessui-|react-|ng-|yui|ext-|gwt-|j_id)|:/i;
  const COUNTED = /\d/;
  // The roles of date and time inputs are their types (names.js).
  const DATE_ROLES = ["date", "time", "datetime-local", "month", "week"];
  const FIELD_ROLES = new Set([
    "textbox", "searchbox", "combobox", "listbox", "spinbutton", "slider", "checkbox", "radio", "switch",
    ...DATE_ROLES,
  ]);
  const CHECKABLE = new Set(["checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"]);
  const FORM_FIELD = new Set(["input", "select", "textarea"]);
  const PUSH_TYPES = new Set(["submit", "button", "reset", "image"]);
  const CONTROL = 'input:not([type="hidden"]),select,textarea,button,a[href],[contenteditable=""],' +
    '[contenteditable="true"],[role="button"],[role="link"],[role="textbox"],[role="combobox"],[role="checkbox"],[role="radio"]';
  // Beside-label search stops at these: what is beyond belongs to another part of the page.
  const BOUNDARY = new Set(["form", "body", "html", "table", "dialog", "fieldset"]);
  const CAPTION = new Set(["label", "legend", "h1", "h2", "h3", "h4", "h5", "h6", "dt", "th"]);

  function norm(s) {
    return s.replace(/[\s\u00a0\u200b]+/g, " ").trim();
  }

  // "btn-search" -> "search", "userMenuToggle" -> "user menu toggle": lower-case words, without
  // filler (when ``drop``) and without tokens holding digits (counters, hashes).
  function words(s, drop) {
    const out = [];
    const spaced = s.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2");
    for (const w of spaced.split(/[^\p{L}\p{N}]+/u)) {
      const lw = w.toLowerCase();
      if (!lw || /\d/.test(lw) || (drop && FILLER.has(lw))) continue;
      out.push(lw);
      if (out.length >= MAX_WORDS) break;
    }
    const phrase = out.join(" ");
    return MEANS.get(phrase) || phrase;
  }

  function glyph(text) {
    const t = norm(text);
    return /^[a-z][a-z0-9_]*$/.test(t) ? words(t, true) || t : t;
  }

  // The words of one class token that names an icon or a button's purpose, or "".
  function classWords(token) {
    const m = ICON_PREFIX.exec(token) || ICON_SUFFIX.exec(token) || ICON_CAMEL.exec(token);
    return m ? words(m[1], true) : "";
  }

  // A file name as words: "/img/search-icon.png?v=2" -> "search icon"; "" for one that names
  // only a look ("white_icon.png", "button.png": a sprite sheet, a style).
  function fileWords(url) {
    if (!url || /^data:/i.test(url)) return "";
    let last = url.split(/[?#]/)[0].split("/").pop() || "";
    try { last = decodeURIComponent(last); } catch (e) { /* a stray "%": keep it as written */ }
    last = last.replace(/\.[a-z0-9]+$/i, "");
    return words(last, true) ? words(last, false) : "";
  }

  // An SVG sprite reference: <use href="#icon-search"> or "sprite.svg#icon-search".
  function spriteWords(use) {
    const ref = use.getAttribute("href") || use.getAttribute("xlink:href") || "";
    const frag = ref.includes("#") ? ref.slice(ref.indexOf("#") + 1) : "";
    return frag ? classWords(frag) || words(frag, true) : "";
  }

  // What a control shows when it has no text: an icon class on it or on an icon inside it, an
  // SVG's <title> or sprite, an image's file name, its own background image.
  function shown(el, style) {
    let seen = 0;
    for (let e = el; e && seen <= SCAN; e = nextInside(e, el), seen++) {
      const tag = e.localName;
      let t = "";
      if (tag === "use") t = spriteWords(e);
      else if (tag === "svg") {
        const title = e.querySelector(":scope > title");
        t = title ? norm(title.textContent) : "";
      } else if (tag === "img" || (tag === "input" && e.type === "image")) t = fileWords(e.getAttribute("src"));
      // A field's own classes are its styling ("form-control", "btn-check"), not its purpose.
      if (!t && !(FORM_FIELD.has(tag) && !PUSH_TYPES.has(e.type))) {
        const cls = e.getAttribute("class");
        if (cls) for (const token of cls.split(/\s+/)) if ((t = classWords(token))) break;
      }
      if (t) return t;
    }
    if (style && style.backgroundImage && style.backgroundImage !== "none") {
      const m = /url\(["']?([^"')]+)/.exec(style.backgroundImage);
      if (m) return fileWords(m[1]);
    }
    return "";
  }

  // Depth-first order inside ``root`` (light DOM only: an unnamed control's icons sit there).
  function nextInside(e, root) {
    if (e.firstElementChild) return e.firstElementChild;
    for (let n = e; n && n !== root; n = n.parentElement) {
      if (n.nextElementSibling) return n.nextElementSibling;
    }
    return null;
  }

  // Ids and test ids, as words: data-testid="header-search-button" -> "header search".
  function attributeWords(el) {
    for (const a of ["data-testid", "data-test", "data-qa", "data-cy", "id", "name", "aria-controls"]) {
      const v = el.getAttribute(a);
      if (!v || (!a.startsWith("data-") && GENERATED.test(v))) continue;
      if ((a === "id" || a === "aria-controls") && COUNTED.test(v)) continue;
      const t = words(v, true);
      if (t.length >= 2) return t;
    }
    return "";
  }

  // A label that names its control only by its title or by what it shows (a card logo).
  function labelWords(labels) {
    for (const label of labels) {
      const t = norm(label.getAttribute("title") || label.getAttribute("aria-label") || "") || shown(label, null);
      if (t) return t;
    }
    return "";
  }

  function textOfIds(el, ids) {
    const root = el.getRootNode();
    const parts = [];
    for (const id of ids.split(/\s+/)) {
      const ref = (root.getElementById && root.getElementById(id)) || el.ownerDocument.getElementById(id);
      if (ref) parts.push(ref.textContent || "");
    }
    return norm(parts.join(" "));
  }

  // The name of a group around a field: a fieldset's legend, a labelled role=group.
  function groupName(el) {
    if (el.localName === "fieldset") {
      const legend = el.querySelector(":scope > legend");
      return legend ? norm(legend.textContent) : "";
    }
    const role = el.getAttribute("role");
    if (role !== "group" && role !== "radiogroup") return "";
    const by = el.getAttribute("aria-labelledby");
    return (by && textOfIds(el, by)) || norm(el.getAttribute("aria-label") || "");
  }

  // Text a person cannot read is no label: the walker leaves it out of the outline (sight.js),
  // and a guess must not bring it back as a field's name. A font of 2 px or less is checked
  // here (the text after a field is not walked yet). Asked only of the text a guess takes.
  // Text the walk already left out (elements before the field) is asked of sight.js.
  function tiny(el) {
    if (!el) return false;
    if (globalThis[Symbol.for("pagesight.sight")].droppedText(el)) return true;
    return parseFloat(el.ownerDocument.defaultView.getComputedStyle(el).fontSize) <= 2;
  }

  // The first text in one direction from ``node`` among its siblings: a text node or a short
  // caption element, as {text, label, at} (label: a text node or a label, legend, heading or
  // "…label…" element, not a description); STOP where another control (or a label tied to one)
  // comes first; null if nothing is there.
  function siblingText(node, dir, el) {
    for (let s = node[dir]; s; s = s[dir]) {
      if (s.nodeType === TEXT) {
        const t = norm(s.data);
        if (t && tiny(s.parentElement)) continue;
        if (t) return t.length <= MAX_TEXT ? { text: t, label: true, at: s } : STOP;
        continue;
      }
      if (s.nodeType !== ELEMENT) continue;
      const tag = s.localName;
      if (tag === "script" || tag === "style" || tag === "template" || tag === "br") continue;
      if (tag === "legend") return null; // its fieldset's name: groupName decides
      if (tag === "label" && s.control && s.control !== el) return STOP;
      const cls = s.getAttribute("class") || "";
      // An editor's toolbar (Quill's .ql-toolbar) sits between it and its label.
      if (s.getAttribute("role") === "toolbar" || /(?:^|[\s_-])toolbar(?:$|\s)/i.test(cls)) continue;
      if (s.childElementCount > 20 || s.matches(CONTROL) || s.querySelector(CONTROL)) return STOP;
      const inner = s.querySelector("label[for]"); // a label in a cell of its own, tied elsewhere
      if (inner && inner.control && inner.control !== el) return STOP;
      const t = norm(s.textContent || "");
      if (!t || (s.checkVisibility && !s.checkVisibility({ visibilityProperty: true, opacityProperty: true }))) continue;
      if (tiny(s) || tiny(s.firstElementChild)) continue;
      if (t.length > MAX_TEXT) return STOP;
      return { text: t, label: CAPTION.has(tag) || /label|title|caption/i.test(cls), at: s };
    }
    return null;
  }

  // Whether ``node`` is followed at once by a field that takes text or a choice: text just
  // before such a field is its label ("[x] <label>Gift message</label> [____]"), not the
  // checkbox's before it.
  function leadsField(node) {
    let n = node.nextSibling;
    while (n && n.nodeType === TEXT && !norm(n.data)) n = n.nextSibling;
    if (!n || n.nodeType !== ELEMENT || !FORM_FIELD.has(n.localName)) return false;
    return n.localName !== "input" || !(CHECKABLE.has(n.type) || PUSH_TYPES.has(n.type) || n.type === "hidden");
  }

  // Text a page put beside a field without tying it to it: a <label> without ``for``, a text
  // node or a caption just before it in its container (just after it, for a checkbox or
  // radio), else the name of the group around it (not for a checkbox or radio), else a line
  // of other text just before it.
  // Looks a few levels up, across shadow roots.
  function beside(el, role) {
    const after = CHECKABLE.has(role);
    let node = el;
    let other = ""; // a description before the field: used when no label or group names it
    for (let depth = 0; depth < 4; depth++) {
      if (after) {
        const t = siblingText(node, "nextSibling", el);
        if (t && t !== STOP && t.label && !leadsField(t.at)) return t.text;
      }
      const t = other ? null : siblingText(node, "previousSibling", el);
      if (t === STOP) return "";
      if (t && t.label) return t.text;
      if (t) other = t.text;
      let up = node.parentNode;
      if (up && up.nodeType === FRAGMENT) up = up.host || null;
      if (!up || up.nodeType !== ELEMENT) break;
      // A group names a field or an editor in it; around checkboxes or radios it asks the
      // question ("Plan size"), and each is one answer.
      const group = after ? "" : groupName(up);
      if (group) return group;
      if (BOUNDARY.has(up.localName)) break;
      node = up;
    }
    return other;
  }

  function nameOf(el, tag, role, style) {
    let t = "";
    if (el.labels && el.labels.length) t = labelWords(el.labels);
    if (!t && (FIELD_ROLES.has(role) || el.isContentEditable)) t = beside(el, role).replace(/\s*[:\uff1a]$/, "");
    if (!t) t = shown(el, style);
    if (!t && tag === "input" && CHECKABLE.has(role) && el.value && el.value !== "on") t = words(el.value, false);
    if (!t) t = attributeWords(el);
    return t.length > MAX_TEXT ? t.slice(0, MAX_TEXT - 1) + "\u2026" : t;
  }

  // --- states -----------------------------------------------------------------------------------
  // Class names pages give the chosen or active item; said in the word of the element's role.
  // (A regular expression on the class attribute: cheaper than a DOMTokenList per control.)
  const CHOSEN = /(?:^|\s)(?:is-)?(?:selected|active|checked)(?:\s|$)/;
  const NO_STATE = new Set(["textbox", "searchbox", "combobox", "listbox", "spinbutton", "slider", "scrollbar", ...DATE_ROLES]);

  function chosen(e) {
    const cls = e.getAttribute("class");
    return cls !== null && CHOSEN.test(cls);
  }

  function stateOf(el, role) {
    if (NO_STATE.has(role)) return "";
    // A list item marked active speaks for the one link or button it holds (<li class=active><a>);
    // other wrappers so marked are too often always there (a script's flag, a carousel slide).
    const parent = el.parentElement;
    if (!chosen(el) && !(parent && parent.localName === "li" && parent.childElementCount === 1 && chosen(parent))) return "";
    if (role === "link") return "current";
    if (role === "button") return "pressed";
    return CHECKABLE.has(role) ? "checked" : "selected";
  }

  // A link drawn as a button (a CRM's "Edit" link in a filled, padded box; Bootstrap's
  // a.btn): people call it a button, so find credits it for the word. Its class says so
  // ("btn", "button small", "cta-button"), or its box does: a filled background behind
  // padding, on a box of its own (not a highlight inside a line of text).
  const BUTTON_CLASS = /(?:^|[\s_-])(?:btn|button)(?:$|[\s_-])/i;
  const CLEAR = /^(?:transparent|rgba\([^)]*,\s*0\))$/;

  function looksLike(el, role, style) {
    if (role !== "link") return "";
    const cls = el.getAttribute("class");
    if (cls !== null && BUTTON_CLASS.test(cls) && !/\bbtn-link\b/.test(cls)) return "button";
    const boxed = style.display !== "inline" && parseFloat(style.paddingLeft) >= 4;
    return boxed && !CLEAR.test(style.backgroundColor) ? "button" : "";
  }

  const api = { nameOf, glyph, stateOf, looksLike };
  Object.defineProperty(globalThis, KEY, { value: api, enumerable: false });
  return api;
})()
