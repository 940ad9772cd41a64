// Contact search: each keystroke fetches the matching contacts as JSON and redraws the rows,
// keyed by contact as React or Vue would: a row still in the results is the same element.
// The field and the rows are found by what they are, not by id, so that the redesign
// (templates/redesign/) may rename them as a real redesign does.
(() => {
  const field = document.querySelector("form[role=search] input[type=search]");
  const rows = document.querySelector("main table > tbody");
  const count = document.getElementById("contact-count");
  const empty = document.getElementById("no-contacts");
  let pending = null;

  const cell = (text) => {
    const td = document.createElement("td");
    td.textContent = text;
    return td;
  };
  const link = (href, text, className) => {
    const a = document.createElement("a");
    a.href = href;
    a.textContent = text;
    if (className) a.className = className;
    return a;
  };
  const draw = (contacts) => {
    const shown = new Map([...rows.children].map((tr) => [tr.dataset.id, tr]));
    rows.replaceChildren(...contacts.map((c) => {
      const kept = shown.get(String(c.id));
      if (kept) return kept;
      const tr = document.createElement("tr");
      tr.dataset.id = String(c.id);
      const name = document.createElement("td");
      name.append(link(`/contacts/${c.id}`, c.name));
      const edit = document.createElement("td");
      edit.append(link(`/contacts/${c.id}/edit`, orbitText("edit"), "button small"));
      tr.append(name, cell(c.job_title), cell(c.company), cell(c.location), cell(c.team), edit);
      return tr;
    }));
    count.textContent = contacts.length === 1
      ? orbitText("one_contact") : orbitText("n_contacts", { n: contacts.length });
    empty.hidden = contacts.length > 0;
  };

  field.form.addEventListener("submit", (event) => event.preventDefault());
  field.addEventListener("input", async () => {
    const q = field.value.trim();
    if (pending) pending.abort();  // only the latest keystroke's answer is drawn
    pending = new AbortController();
    const url = new URL(location.href);
    if (q) url.searchParams.set("q", q); else url.searchParams.delete("q");
    history.replaceState(null, "", url);
    try {
      const reply = await fetch(`/api/contacts?q=${encodeURIComponent(q)}`, { signal: pending.signal });
      if (!reply.ok) return;
      draw((await reply.json()).contacts);
    } catch (error) {
      if (error.name !== "AbortError") throw error;
    }
  });
})();
