// What state an element is in: checked, expanded, disabled, invalid, focused... as ARIA, the
// native control or (as a hint) the page's own class names say; where focus is; and what it
// lends itself to (a drag, a drop, an upload). Sent with
// the walker (capture.py joins the page scripts into one expression) and installed once per
// document under Symbol.for("pagesight.states"); the walker takes its functions from there.
(() => {
  const KEY = Symbol.for("pagesight.states");
  if (globalThis[KEY]) return globalThis[KEY];
  // Names and states guessed from markup (hints.js, installed just before this).
  const HINTS = globalThis[Symbol.for("pagesight.hints")];

  // The hooks are normally installed before the page's scripts; when pagesight attached later,
  // an empty set stands in (and CDP fills closedRoots in, see capture.py).
  const HOOKS = Symbol.for("pagesight.hooks");
  function hooksOf(win) {
    if (!win[HOOKS]) {
      Object.defineProperty(win, HOOKS, {
        value: {
          clickTargets: new WeakSet(), closedRoots: new WeakMap(), installedEarly: false,
          invalidFields: new WeakMap(), invalidEvents: () => 0,
        },
        enumerable: false,
      });
    }
    return win[HOOKS];
  }

  // --- states ------------------------------------------------------------------------------------
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
    const current = aria("aria-current");
    if (current && current !== "false") s.push("current");
    if (aria("aria-selected") === "true" || (tag === "option" && el.selected)) s.push("selected");
    const exp = aria("aria-expanded");
    if (exp === "true") s.push("expanded");
    else if (exp === "false") s.push("collapsed");
    if (tag === "summary" && el.parentElement && el.parentElement.localName === "details") {
      s.push(el.parentElement.open ? "expanded" : "collapsed");
    }
    if ((("disabled" in el) && el.matches(":disabled")) || aria("aria-disabled") === "true") s.push("disabled");
    if ((tag === "input" || tag === "textarea") && el.readOnly) s.push("readonly");
    else if (aria("aria-readonly") === "true") s.push("readonly");
    if (el.required || aria("aria-required") === "true") s.push("required");
    if (aria("aria-invalid") === "true" || failsValidation(el)) s.push("invalid");
    if (el === ctx.active) s.push("focused");
    else if (el === ctx.activeOption) s.push("active"); // the option arrow keys moved to
    if (ctx.ariaHidden) s.push("aria-hidden");
    return s;
  }

  // A field the browser's validation rejects and has told the person so: after they edited it
  // (:user-invalid) or after a submit it stopped (an ``invalid`` event).
  function failsValidation(el) {
    if (!("validity" in el)) return false;
    return el.matches(":user-invalid") ||
      (hooksOf(el.ownerDocument.defaultView).invalidFields.has(el) && !el.validity.valid);
  }

  // A state the page shows only through its own class names ("selected", "is-active"), where
  // neither ARIA nor the native control says anything: a hint, as the walker marks it. (A
  // disclosure's "active" class while open is its aria-expanded, not a pressed toggle.)
  function classState(el, tag, role, states) {
    const hinted = HINTS.stateOf(el, role); // one class-attribute test for most controls
    if (!hinted || states.includes(hinted)) return "";
    if (el.hasAttribute("aria-selected") || el.hasAttribute("aria-pressed") || el.hasAttribute("aria-current") ||
        el.hasAttribute("aria-expanded") ||
        el.hasAttribute("aria-checked") || tag === "option" || (tag === "input" && (el.type === "checkbox" || el.type === "radio"))) return "";
    return hinted;
  }

  // The option a focused combobox or listbox points at with aria-activedescendant: focus stays
  // on the box while arrow keys move this highlight, so it is where keys act (Enter picks it).
  function activeDescendant(focused) {
    if (!focused || !focused.hasAttribute("aria-activedescendant")) return null;
    return focused.ariaActiveDescendantElement || null;
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

  // What a person would drag: an HTML5 drag source, what shows a grab or move cursor (a
  // sortable item, a kanban card), or what says it is draggable (dnd-kit's roledescription).
  function dragSource(el, look) {
    return el.getAttribute("draggable") === "true" || look.cursor === "grab" || look.cursor === "move" ||
      /drag|sortable/i.test(el.getAttribute("aria-roledescription") || "");
  }

  // An HTML5 drop zone (a kanban column): it gets an id, so that a drag can be aimed at it.
  function dropZone(el) {
    const drops = hooksOf(el.ownerDocument.defaultView).dropTargets;
    return typeof el.ondrop === "function" || Boolean(drops && drops.has(el));
  }

  // Whether "upload" applies: a file input, or a button beside a hidden one it opens (the
  // element, its parent or grandparent holds it, or the shadow root it sits at the top of, as
  // in a file-upload web component, and holds no other control: a form's submit button is
  // not beside the form's file inputs; act.js finds the input by the same rule).
  function opensFiles(el, tag, role, ctx) {
    if (tag === "input") return el.type === "file";
    if (!(role === "button" || role === "link" || role === "clickable")) return false;
    const root = el.getRootNode();
    const inputs = root.host ? undrawnFileInputs(root) : ctx.fileInputs;
    for (let n = el, up = 0; n && up < 3 && inputs.length; n = n.parentElement || shadowOf(n), up++) {
      if (inputs.some((f) => n.contains(f))) return !holdsOtherControls(n, el);
    }
    return false;
  }

  const OTHER_CONTROLS = 'button, select, textarea, a[href], [role="button"], input:not([type="file" i]):not([type="hidden" i])';
  function holdsOtherControls(n, el) {
    for (const c of n.querySelectorAll(OTHER_CONTROLS)) if (!el.contains(c) && !c.contains(el)) return true;
    return false;
  }

  function shadowOf(n) {
    return n.parentNode && n.parentNode.host ? n.parentNode : null;
  }

  // The file inputs of a document (or shadow root) that the page does not draw (a button or
  // label opens them).
  function undrawnFileInputs(doc) {
    return Array.from(doc.querySelectorAll('input[type="file" i]')).filter((f) => {
      const r = f.getBoundingClientRect();
      return r.width < 2 || r.height < 2 || !f.checkVisibility({ visibilityProperty: true });
    });
  }

  const api = {
    hooksOf, statesOf, classState, activeDescendant, deepActive, dragSource, dropZone, opensFiles,
    undrawnFileInputs,
  };
  Object.defineProperty(globalThis, KEY, { value: api, enumerable: false });
  return api;
})();
