// How the element clicked and its surroundings look: noted right before the click (the pointer
// already on it) and compared once the page has settled. An expression whose value is an object
// of functions; see looks.py.
({
  PROPS: ["color", "backgroundColor", "borderTopColor", "borderRightColor", "borderBottomColor",
    "borderLeftColor", "borderTopWidth", "outlineStyle", "outlineColor", "outlineWidth", "boxShadow", "visibility"],
  // Focus rings: not the page's answer to the click when focus moved.
  RING: ["outlineStyle", "outlineColor", "outlineWidth", "boxShadow"],
  KEY: Symbol.for("pagesight.looks"),

  // The element, its ancestors up to its card (three levels, not the body) and its first
  // descendants, in document order (a card's class often colours only a dot deep inside it).
  arm(el) {
    const els = [el];
    for (let e = el.parentElement, n = 0; e && n < 3 && e.localName !== "body"; e = e.parentElement, n++) els.push(e);
    const walk = el.ownerDocument.createTreeWalker(el, NodeFilter.SHOW_ELEMENT);
    for (let n = 0; n < 12 && walk.nextNode(); n++) els.push(walk.currentNode);
    globalThis[this.KEY] = { els, before: els.map((e) => this.read(e)) };
  },

  // [who, what] for each element that looks different: who is null for the element itself.
  changed(el) {
    const armed = globalThis[this.KEY];
    delete globalThis[this.KEY];
    if (!armed || armed.els[0] !== el) return [];
    const out = [];
    armed.els.forEach((e, i) => {
      const was = armed.before[i];
      if (!e.isConnected || was.animated) return;
      const now = this.read(e);
      const refocused = now.focus !== was.focus;
      const field = ["input", "select", "textarea"].includes(e.localName);
      const moved = this.PROPS.filter((p) => was.style[p] !== now.style[p] &&
        !(refocused && (this.RING.includes(p) || (field && p.startsWith("border")))));
      if (moved.length) out.push([i === 0 ? null : this.describe(e), this.say(moved, was.style, now.style)]);
    });
    return out;
  },

  read(e) {
    const st = e.ownerDocument.defaultView.getComputedStyle(e);
    const style = {};
    for (const p of this.PROPS) style[p] = st[p];
    let animated = false;
    for (const a of e.getAnimations()) {
      if (a.playState !== "running") continue;
      if (!a.transitionProperty) { animated = true; continue; } // runs on its own (a spinner)
      // A transition counts by where it ends: a hover fade is the same before and after the
      // click, and a fade the click started, or turned elsewhere, is seen at its end value.
      const frames = a.effect ? a.effect.getKeyframes() : [];
      const p = a.transitionProperty.replace(/-([a-z])/g, (_, c) => c.toUpperCase());
      const end = frames.length ? frames[frames.length - 1][p] : undefined;
      if (p in style && end !== undefined) style[p] = end;
    }
    return { style, animated, focus: e.matches(":focus-within") };
  },

  // "border-color rgb(221, 221, 221) -> rgb(37, 99, 235)": the four sides said once.
  say(moved, was, now) {
    const sides = moved.filter((p) => /^border(Top|Right|Bottom|Left)Color$/.test(p));
    const named = moved.filter((p) => !sides.includes(p)).map((p) => [p, was[p], now[p]]);
    if (sides.length) named.unshift(["borderColor", was[sides[0]], now[sides[0]]]);
    return named.map(([p, a, b]) => `${p.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase())} ${a} -> ${b}`).join(", ");
  },

  describe(e) {
    let out = "<" + e.localName;
    if (e.id) out += ` id="${e.id}"`;
    const cls = (e.getAttribute("class") || "").trim().split(/\s+/).filter(Boolean).slice(0, 2);
    if (cls.length) out += ` class="${cls.join(" ")}"`;
    return out + ">";
  },
})
