// Shared by every page script: the labels in the page's language, and a label with {fields}.
window.orbitText = (key, values = {}) => {
  const table = JSON.parse(document.getElementById("orbit-text").textContent);
  return (table[key] || key).replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
};
