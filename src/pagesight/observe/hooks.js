// Installed before the page's own scripts (an init script in every frame), so pagesight can
// later see what the DOM does not expose: which elements got click-like listeners, which
// closed shadow roots exist, and whether the page is still settling (short timers pending,
// recent DOM mutations). Everything is kept in closures and weak collections; nothing is
// added to the DOM.
(() => {
  const KEY = Symbol.for("pagesight.hooks");
  if (globalThis[KEY]) return;
  const clickTargets = new WeakSet();
  const closedRoots = new WeakMap();
  const CLICKISH = new Set(["click", "mousedown", "mouseup", "pointerdown", "pointerup", "touchstart", "dblclick"]);
  const ELEMENT_NODE = 1;
  // A timer this short is the page finishing what it started (a render, a debounce), not a
  // poll; readiness waits for it.
  const SHORT_TIMER_MS = 1000;

  const addEventListener = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (type, listener, options) {
    if (this && this.nodeType === ELEMENT_NODE && CLICKISH.has(type)) clickTargets.add(this);
    return addEventListener.call(this, type, listener, options);
  };

  const attachShadow = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (init) {
    const root = attachShadow.call(this, init);
    if (init && init.mode === "closed") closedRoots.set(this, root);
    return root;
  };

  const shortTimers = new Set();
  const setTimeout_ = globalThis.setTimeout;
  const clearTimeout_ = globalThis.clearTimeout;
  globalThis.setTimeout = function (handler, delay, ...args) {
    const ms = Number(delay) || 0;
    if (typeof handler !== "function" || ms > SHORT_TIMER_MS) return setTimeout_(handler, delay, ...args);
    const id = setTimeout_(function () {
      shortTimers.delete(id);
      return handler.apply(this, args);
    }, delay);
    shortTimers.add(id);
    return id;
  };
  globalThis.clearTimeout = function (id) {
    shortTimers.delete(id);
    return clearTimeout_(id);
  };

  const now = () => performance.now();
  let lastMutation = now();
  new MutationObserver(() => { lastMutation = now(); }).observe(document, {
    subtree: true, childList: true, attributes: true, characterData: true,
  });

  Object.defineProperty(globalThis, KEY, {
    value: {
      clickTargets,
      closedRoots,
      installedEarly: true,
      ready: false, // latched by pagesight once the document has settled
      settling: () => ({
        loaded: document.readyState === "complete",
        quietMs: now() - lastMutation,
        timers: shortTimers.size,
      }),
    },
    enumerable: false,
  });
})();
