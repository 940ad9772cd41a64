// The contact page: delete asks first; a note is written in a rich-text editor (its toolbar's
// buttons pressed while the text at the caret has their format) and saved with fetch, then
// shown at the top of the list without reloading the page.
(() => {
  const deleteForm = document.querySelector("form.delete");
  deleteForm.addEventListener("submit", (event) => {
    if (!confirm(deleteForm.dataset.confirm)) event.preventDefault();
  });

  const editor = document.getElementById("note-editor");
  const save = document.getElementById("save-note");
  const status = document.getElementById("note-status");
  const list = document.getElementById("note-list");
  // The toolbar's buttons are toggles: each says whether the text at the caret (or selected)
  // is bold, italic, in a list, as a word processor's do, and as a screen reader reads them.
  const buttons = [...document.querySelectorAll(".toolbar [data-command]")];
  const showState = () => {
    if (!editor.contains(document.getSelection().anchorNode)) return;
    for (const button of buttons) {
      button.setAttribute("aria-pressed", String(document.queryCommandState(button.dataset.command)));
    }
  };
  for (const button of buttons) {
    button.addEventListener("mousedown", (event) => event.preventDefault());  // keep the selection
    button.addEventListener("click", () => {
      editor.focus();
      document.execCommand(button.dataset.command);
      showState();
    });
  }
  document.addEventListener("selectionchange", showState);
  save.addEventListener("click", async () => {
    if (!editor.textContent.trim()) {
      status.textContent = orbitText("note_empty");
      editor.focus();
      return;
    }
    save.disabled = true;
    try {
      const reply = await fetch(`/api/contacts/${save.dataset.contact}/notes`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ html: editor.innerHTML }),
      });
      if (!reply.ok) {
        status.textContent = (await reply.json()).error;
        return;
      }
      const note = await reply.json();
      const item = document.createElement("li");
      const time = document.createElement("time");
      time.dateTime = note.created_at;
      time.textContent = note.created_at;
      const body = document.createElement("div");
      body.className = "note-body";
      body.innerHTML = note.html;  // cleaned by the server to a few formatting tags
      item.append(time, body);
      list.prepend(item);
      document.getElementById("no-notes").hidden = true;
      editor.replaceChildren();
      status.textContent = orbitText("note_saved");
    } finally {
      save.disabled = false;
    }
  });
})();
