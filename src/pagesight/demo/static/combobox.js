// The team picker: a select-only ARIA combobox (WAI-ARIA APG pattern). Click or Enter, Space,
// Alt+ArrowDown or ArrowDown opens it; ArrowUp/ArrowDown/Home/End move the active option;
// Enter or a click picks it; Escape or a click elsewhere closes it.
(() => {
  const combo = document.getElementById("team");
  const list = document.getElementById("team-list");
  const value = document.getElementById("team-value");
  const options = [...list.querySelectorAll("[role=option]")];
  let active = Math.max(0, options.findIndex((o) => o.getAttribute("aria-selected") === "true"));

  const isOpen = () => !list.hidden;
  const highlight = (index) => {
    active = Math.min(Math.max(index, 0), options.length - 1);
    options.forEach((o, i) => o.classList.toggle("active", i === active));
    combo.setAttribute("aria-activedescendant", options[active].id);
    options[active].scrollIntoView({ block: "nearest" });
  };
  const open = () => {
    list.hidden = false;
    combo.setAttribute("aria-expanded", "true");
    highlight(active);
  };
  const close = () => {
    list.hidden = true;
    combo.setAttribute("aria-expanded", "false");
    combo.removeAttribute("aria-activedescendant");
  };
  const pick = (index) => {
    const option = options[index];
    options.forEach((o) => o.setAttribute("aria-selected", String(o === option)));
    value.value = option.dataset.value;
    combo.textContent = option.textContent;
    combo.removeAttribute("aria-invalid");
    active = index;
    close();
    combo.focus();
  };

  combo.addEventListener("click", () => (isOpen() ? close() : open()));
  combo.addEventListener("keydown", (event) => {
    const keys = {
      ArrowDown: () => (isOpen() ? highlight(active + 1) : open()),
      ArrowUp: () => (isOpen() ? highlight(active - 1) : open()),
      Home: () => isOpen() && highlight(0),
      End: () => isOpen() && highlight(options.length - 1),
      Enter: () => (isOpen() ? pick(active) : open()),
      " ": () => (isOpen() ? pick(active) : open()),
      Escape: () => isOpen() && close(),
      Tab: () => { if (isOpen()) pick(active); return "pass"; },
    };
    const handle = keys[event.key];
    if (handle && handle() !== "pass") event.preventDefault();
  });
  // mousedown would move focus off the combobox before the click lands on an option
  list.addEventListener("mousedown", (event) => event.preventDefault());
  list.addEventListener("click", (event) => {
    const option = event.target.closest("[role=option]");
    if (option) pick(options.indexOf(option));
  });
  document.addEventListener("click", (event) => {
    if (isOpen() && !combo.contains(event.target) && !list.contains(event.target)) close();
  });
})();
