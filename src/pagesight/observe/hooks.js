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
  // A timer set in a timer's callback takes that timer's cause, whenever it runs: a page's
  // own beat that fires just after an input (every beat does now and then, and on a busy
  // machine, whose late timers run in a bunch once the input is handled, often) is still the
  // page ticking, not the input's doing; judged by the clock, it would count as the input's,
  // and so would every tick after it, holding the action until it timed out.
  const CAUSE_MS = 20;
  let lastInput = -Infinity;
  let causing = false;
  let inTimer = false;
  for (const type of ["pointerdown", "mousedown", "pointerup", "mouseup", "click", "keydown", "keyup", "input", "change", "submit"]) {
    addEventListener.call(globalThis, type, (e) => { if (e.isTrusted) lastInput = now(); }, { capture: true });
  }
  // A short timer the page sets again each time the last one fired (a poll's
  // ``setTimeout(poll, 200)``, a clock's tick) is the page ticking: from the third in such a
  // chain, readiness does not wait for it. A timer set again before the last fired (a
  // debounce) is no chain. Chains are known by handler source (a fresh closure each time is
  // still the same code), not by delay: a poller that spreads its load sets each delay a
  // little off the last, never the same twice.
  const chains = new Map(); // source -> {pending, fired, length}
  const chainOf = (handler) => {
    let source = "";
    try { source = Function.prototype.toString.call(handler).slice(0, 200); } catch (e) { /* a proxy */ }
    let chain = chains.get(source);
    if (!chain) {
      if (chains.size > 500) chains.clear(); // a page making timers of ever new code
      chain = { pending: 0, fired: false, length: 0 };
      chains.set(source, chain);
    }
    if (chain.pending > 0) chain.length = 0; // set again before the last fired
    else if (chain.fired) chain.length += 1;
    chain.fired = false;
    chain.pending += 1;
    return chain;
  };
  const shortTimers = new Map(); // id -> {caused: set by input, ticking: a chain's third or later}
  const setTimeout_ = globalThis.setTimeout;
  const clearTimeout_ = globalThis.clearTimeout;
  globalThis.setTimeout = function (handler, delay, ...args) {
    const ms = Number(delay) || 0;
    if (typeof handler !== "function" || ms > SHORT_TIMER_MS) return setTimeout_(handler, delay, ...args);
    const caused = inTimer ? causing : now() - lastInput < CAUSE_MS;
    const chain = chainOf(handler);
    const id = setTimeout_(function () {
      if (shortTimers.delete(id)) { chain.pending -= 1; chain.fired = true; }
      const was = causing, wasIn = inTimer;
      causing = caused;
      inTimer = true;
      try { return handler.apply(this, args); } finally { causing = was; inTimer = wasIn; }
    }, delay);
    shortTimers.set(id, { caused, ticking: chain.length >= 2, chain });
    return id;
  };
  globalThis.clearTimeout = function (id) {
    const timer = shortTimers.get(id);
    if (timer) { shortTimers.delete(id); timer.chain.pending -= 1; }
    return clearTimeout_(id);
  };

  // What the page's scripts are waiting on from the network: a fetch (until it answers), the
  // body it reads (json(), text() …, until read) and an XMLHttpRequest (until loadend). A load
  // fetching link after link has one pending from the first call to the last answer, with no
  // lull between them (the next is asked for in the very task the last answer was handled
  // in), however late a busy machine runs the page: readiness waits for none to be pending.
  // One pending longer than LONG_MS is a long poll or a hung request, not the page loading.
  const LONG_MS = 3000;
  const waitingOn = new Map(); // id -> when asked
  let asked = 0;
  const waitFor = (promise) => {
    const id = ++asked;
    waitingOn.set(id, now());
    const done = () => { waitingOn.delete(id); };
    promise.then(done, done); // a branch of its own: the page's promise keeps its rejection
    return promise;
  };
  const fetch_ = globalThis.fetch;
  if (typeof fetch_ === "function") {
    globalThis.fetch = function (...args) { return waitFor(fetch_.apply(this, args)); };
  }
  const body = globalThis.Response && globalThis.Response.prototype;
  for (const name of ["json", "text", "arrayBuffer", "blob", "formData", "bytes"]) {
    const read = body && body[name];
    if (typeof read === "function") body[name] = function (...args) { return waitFor(read.apply(this, args)); };
  }
  const xhr = globalThis.XMLHttpRequest && globalThis.XMLHttpRequest.prototype;
  const send = xhr && xhr.send;
  if (typeof send === "function") {
    xhr.send = function (...args) {
      const id = ++asked;
      waitingOn.set(id, now());
      addEventListener.call(this, "loadend", () => { waitingOn.delete(id); });
      return send.apply(this, args);
    };
  }
  const requests = () => {
    const t = now();
    let n = 0;
    for (const since of waitingOn.values()) if (t - since < LONG_MS) n += 1;
    return n;
  };

  // Inline-style churn is how animations run (a spinner, a carousel): every frame, for ever.
  // What a person reads changes with nodes, text and other attributes.
  const churn = (r) => r.type === "attributes" && r.attributeName === "style";
  // A node the page rewrites at a steady beat (a clock, a counter each poll updates) is the
  // page ticking, not loading: from its third change at a steady interval, its changes, the
  // earlier ones too, do not count. A change off the beat (an action's) counts again, and so
  // does one that only adds nodes (growth, not a rewrite).
  const STEADY = 0.35; // two intervals differing by at most this share of the longer
  // A change touching more nodes than this is the page rendering anew, not a tick; below it,
  // a live table whose every cell each poll rewrites (a few dozen nodes) can still tick.
  const TICK_NODES = 256;
  const KEPT = 32; // the last changes, so a node found ticking forgives its earlier ones
  const beats = new WeakMap(); // node -> {t, dt, steady}
  const changes = []; // {t, nodes}: nodes null for a change that always counts
  let before = now(); // the latest counting change no longer kept
  const beat = (node, t) => {
    const b = beats.get(node);
    if (!b) { beats.set(node, { t, dt: 0, steady: 0 }); return; }
    const dt = t - b.t;
    if (dt < 5) return; // the same change, in another observer call
    b.steady = b.dt && Math.abs(dt - b.dt) <= STEADY * Math.max(dt, b.dt) ? b.steady + 1 : 0;
    b.dt = dt;
    b.t = t;
  };
  const ticking = (node) => { const b = beats.get(node); return Boolean(b && b.steady >= 1); };
  const counts = (c) => c.nodes === null || !c.nodes.every(ticking);
  new MutationObserver((records) => {
    const t = now();
    let nodes = new Set();
    let added = false, removed = false;
    for (const r of records) {
      if (churn(r)) continue;
      if (r.type === "childList") {
        added = added || r.addedNodes.length > 0;
        removed = removed || r.removedNodes.length > 0;
      }
      nodes.add(r.type === "characterData" ? r.target.parentNode || r.target : r.target);
      if (nodes.size > TICK_NODES) { nodes = null; break; }
    }
    // Nodes added with none taken away are content arriving (a list loading page after page
    // into one parent), however steady its beat; a tick rewrites what it showed.
    if (nodes !== null && added && !removed) nodes = null;
    if (nodes !== null && nodes.size === 0) return;
    if (nodes !== null) for (const node of nodes) beat(node, t);
    changes.push({ t, nodes: nodes && Array.from(nodes) });
    if (changes.length > KEPT) {
      const dropped = changes.shift();
      if (counts(dropped)) before = Math.max(before, dropped.t);
    }
  }).observe(document, {
    subtree: true, childList: true, attributes: true, characterData: true,
  });
  const lastChange = () => {
    for (let i = changes.length - 1; i >= 0; i--) if (counts(changes[i])) return changes[i].t;
    return before;
  };

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
        quietMs: now() - lastChange(),
        timers: Array.from(shortTimers.values()).filter((t) => !t.ticking).length,
        // Every timer an input set, a chain too: an action's steps are its result arriving.
        inputTimers: Array.from(shortTimers.values()).filter((t) => t.caused).length,
        requests: requests(),
      }),
    },
    enumerable: false,
  });
})();
