// Installed before the page's own scripts (an init script in every frame), so the walker can
// later see what the DOM does not expose: which elements got click-like listeners, and which
// closed shadow roots exist. Both are kept in weak collections; nothing is added to the DOM.
(() => {
  const KEY = Symbol.for("pagesight.hooks");
  if (globalThis[KEY]) return;
  const clickTargets = new WeakSet();
  const closedRoots = new WeakMap();
  const CLICKISH = new Set(["click", "mousedown", "mouseup", "pointerdown", "pointerup", "touchstart", "dblclick"]);
  const ELEMENT_NODE = 1;

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

  Object.defineProperty(globalThis, KEY, {
    value: { clickTargets, closedRoots, installedEarly: true },
    enumerable: false,
  });
})();
