// Installed before the page's own scripts (an init script in every frame), so pagesight can
// later see what the DOM does not expose: which elements got click-like or key listeners, which
// closed shadow roots exist, and whether the page is still settling (short timers pending,
// recent DOM mutations). Everything is kept in closures and weak collections; nothing is
// added to the DOM.
(() => {
  const KEY = Symbol.for("pagesight.hooks");
  if (globalThis[KEY]) return;
  const clickTargets = new WeakSet();
  const keyTargets = new WeakSet(); // elements that listen for keys: typing must send them
  const dropTargets = new WeakSet(); // HTML5 drop zones: a drag can be aimed at them
  const closedRoots = new WeakMap();
  const CLICKISH = new Set(["click", "mousedown", "mouseup", "pointerdown", "pointerup", "touchstart", "dblclick"]);
  const KEYISH = new Set(["keydown", "keyup", "keypress"]);
  const ELEMENT_NODE = 1;
  // A timer this short is the page finishing what it started (a render, a debounce), not a
  // poll; readiness waits for it.
  const SHORT_TIMER_MS = 1000;

  const addEventListener = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (type, listener, options) {
    if (this && this.nodeType === ELEMENT_NODE) {
      if (CLICKISH.has(type)) clickTargets.add(this);
      else if (KEYISH.has(type)) keyTargets.add(this);
      else if (type === "drop") dropTargets.add(this);
    }
    return addEventListener.call(this, type, listener, options);
  };

  const attachShadow = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (init) {
    const root = attachShadow.call(this, init);
    if (init && init.mode === "closed") closedRoots.set(this, root);
    return root;
  };

  const now = () => performance.now();
  // A timer set by a person's input (within a moment of a trusted event, or by a timer that
  // input set) is that input still being handled: an action waits for it. A page's own
  // ticking timers are not, or a page that polls would hold every action up.
  const CAUSE_MS = 20;
  let lastInput = -Infinity;
  let causing = false;
  for (const type of ["pointerdown", "mousedown", "pointerup", "mouseup", "click", "keydown", "keyup", "input", "change", "submit"]) {
    addEventListener.call(globalThis, type, (e) => { if (e.isTrusted) lastInput = now(); }, { capture: true });
  }
  const shortTimers = new Map(); // id -> set by input
  const setTimeout_ = globalThis.setTimeout;
  const clearTimeout_ = globalThis.clearTimeout;
  globalThis.setTimeout = function (handler, delay, ...args) {
    const ms = Number(delay) || 0;
    if (typeof handler !== "function" || ms > SHORT_TIMER_MS) return setTimeout_(handler, delay, ...args);
    const caused = causing || now() - lastInput < CAUSE_MS;
    const id = setTimeout_(function () {
      shortTimers.delete(id);
      const was = causing;
      causing = caused;
      try { return handler.apply(this, args); } finally { causing = was; }
    }, delay);
    shortTimers.set(id, caused);
    return id;
  };
  globalThis.clearTimeout = function (id) {
    shortTimers.delete(id);
    return clearTimeout_(id);
  };

  let lastMutation = now();
  // Inline-style churn is how animations run (a spinner, a carousel): every frame, for ever.
  // What a person reads changes with nodes, text and other attributes.
  const churn = (r) => r.type === "attributes" && r.attributeName === "style";
  new MutationObserver((records) => {
    if (!records.every(churn)) lastMutation = now();
  }).observe(document, {
    subtree: true, childList: true, attributes: true, characterData: true,
  });

  // Fields the browser's own form validation stopped a submit on, each with the number of its
  // last invalid event, and how many there were (``invalid`` does not bubble, so it is caught
  // on its way down, at the window).
  const invalidFields = new WeakMap();
  let invalidEvents = 0;
  addEventListener.call(globalThis, "invalid", (e) => {
    if (e.target && e.target.nodeType === ELEMENT_NODE) { invalidEvents += 1; invalidFields.set(e.target, invalidEvents); }
  }, { capture: true });

  Object.defineProperty(globalThis, KEY, {
    value: {
      clickTargets,
      keyTargets,
      dropTargets,
      closedRoots,
      invalidFields,
      invalidEvents: () => invalidEvents,
      installedEarly: true,
      ready: false, // latched by pagesight once the document has settled
      settling: () => ({
        loaded: document.readyState === "complete",
        quietMs: now() - lastMutation,
        timers: shortTimers.size,
        inputTimers: Array.from(shortTimers.values()).filter(Boolean).length,
      }),
    },
    enumerable: false,
  });
})();
