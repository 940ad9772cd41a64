// The deal board: a card moves to another stage by HTML5 drag and drop onto a column, or by
// its "Move to…" list (the keyboard way). Either is saved with fetch, then the card moves.
(() => {
  const status = document.getElementById("board-status");
  const money = (n) => "$" + n.toLocaleString("en-US");
  const stageName = (stage) => orbitText(`stage_${stage}`);

  const refreshTotals = () => {
    for (const column of document.querySelectorAll(".column")) {
      const sum = [...column.querySelectorAll(".deal")]
        .reduce((total, card) => total + Number(card.dataset.amount), 0);
      column.querySelector(".sum").textContent = money(sum);
    }
  };
  const refreshMenu = (card, stage) => {
    const select = card.querySelector("select.move");
    const placeholder = new Option(orbitText("move_to"), "", true, true);
    placeholder.disabled = true;
    const others = [...document.querySelectorAll(".column")]
      .map((column) => column.dataset.stage)
      .filter((other) => other !== stage)
      .map((other) => new Option(stageName(other), other));
    select.replaceChildren(placeholder, ...others);
  };
  const move = async (card, stage) => {
    const column = document.getElementById(`stage-${stage}`);
    if (!column || card.closest(".column") === column) return;
    const reply = await fetch(`/api/deals/${card.dataset.deal}/stage`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ stage }),
    });
    if (!reply.ok) {
      status.textContent = orbitText("move_failed");
      return;
    }
    column.querySelector(".deals").append(card);
    refreshMenu(card, stage);
    refreshTotals();
    status.textContent = orbitText("moved", { title: card.dataset.title, stage: stageName(stage) });
  };

  for (const card of document.querySelectorAll(".deal")) {
    card.addEventListener("dragstart", (event) => {
      event.dataTransfer.setData("text/plain", card.id);
      event.dataTransfer.effectAllowed = "move";
      card.classList.add("dragging");
    });
    card.addEventListener("dragend", () => card.classList.remove("dragging"));
  }
  document.addEventListener("change", (event) => {
    const select = event.target.closest("select.move");
    if (select && select.value) move(select.closest(".deal"), select.value);
  });
  for (const column of document.querySelectorAll(".column")) {
    column.addEventListener("dragover", (event) => {
      event.preventDefault();
      event.dataTransfer.dropEffect = "move";
      column.classList.add("drop-target");
    });
    column.addEventListener("dragleave", (event) => {
      if (!column.contains(event.relatedTarget)) column.classList.remove("drop-target");
    });
    column.addEventListener("drop", (event) => {
      event.preventDefault();
      column.classList.remove("drop-target");
      const card = document.getElementById(event.dataTransfer.getData("text/plain"));
      if (card && card.classList.contains("deal")) move(card, column.dataset.stage);
    });
  }
})();
