// Behaviour shared by steps-contacts.html and its re-marked-up twin steps-contacts-v2.html:
// everything is found by data-part attributes, so ids, classes, order and wrappers may differ.
(() => {
  const zh = new URLSearchParams(location.search).get("lang") === "zh";
  const L = zh ? {
    title: "联系人", search: "搜索", edit: "编辑", jobTitle: "职位", location: "城市", token: "API 令牌",
    avatar: "头像", save: "保存", cancel: "取消", help: "帮助", helpTip: "在聊天中询问团队", sync: "同步",
    synced: "已同步 3 位联系人", refresh: "刷新", favourites: "收藏夹", archived: "显示已归档",
    archivedShown: "已归档 Dana Lee", saved: "已保存", activity: "动态", escape: "已按 Escape",
    places: ["伦敦", "纽约", "东京"],
  } : {
    title: "Contacts", search: "Search contacts", edit: "Edit", jobTitle: "Job title", location: "Location",
    token: "API token", avatar: "Avatar", save: "Save", cancel: "Cancel", help: "Help",
    helpTip: "Ask the team on chat", sync: "Sync", synced: "Synced 3 contacts", refresh: "Refresh",
    favourites: "Favourites", archived: "Show archived", archivedShown: "Archived: Dana Lee",
    saved: "Saved", activity: "Activity", escape: "Escape pressed",
    places: ["London", "New York", "Tokyo"],
  };
  const $ = (part, root = document) => root.querySelector(`[data-part="${part}"]`);
  const $$ = (part) => [...document.querySelectorAll(`[data-part="${part}"]`)];
  document.documentElement.lang = zh ? "zh-CN" : "en";
  for (const el of document.querySelectorAll("[data-label]")) el.textContent = L[el.dataset.label];
  $("search").placeholder = L.search;
  $("search").setAttribute("aria-label", L.search);
  const select = $("location");
  L.places.forEach((p, i) => { select.options[i].textContent = p; });
  for (const b of $$("edit")) b.textContent = L.edit;
  // window.saved: what the page's own code stored on Save, by contact.
  window.saved = {};
  let editing = null;
  $("search").addEventListener("input", () => {
    const q = $("search").value.toLowerCase();
    for (const card of $$("card")) card.hidden = !card.dataset.name.toLowerCase().includes(q);
  });
  for (const card of $$("card")) {
    $("edit", card).addEventListener("click", () => {
      editing = card;
      const [title, place] = $("meta", card).textContent.split(" · ");
      $("job-title").value = title;
      const english = ["London", "New York", "Tokyo"].indexOf(place);
      select.selectedIndex = english >= 0 ? english : L.places.indexOf(place);
      $("form").setAttribute("aria-label", card.dataset.name);
      $("form").hidden = false;
    });
  }
  $("save").addEventListener("click", () => {
    const place = select.options[select.selectedIndex].textContent;
    window.saved[editing.dataset.name] = {
      title: $("job-title").value, location: place, token: $("token").value,
      avatar: $("avatar").files.length ? $("avatar").files[0].name : null,
    };
    $("meta", editing).textContent = `${$("job-title").value} · ${place}`;
    $("form").hidden = true;
    $("toast").textContent = `${L.saved} ${editing.dataset.name}`;
    $("toast").hidden = false;
  });
  $("cancel").addEventListener("click", () => { $("form").hidden = true; });
  $("help").addEventListener("mouseenter", () => { $("tip").textContent = L.helpTip; $("tip").hidden = false; });
  // A result that arrives late: 1.5 s is past the short timers an action waits for.
  $("sync").addEventListener("click", () => setTimeout(() => { $("sync-status").textContent = L.synced; }, 1500));
  $("refresh").addEventListener("click", () => {});  // changes nothing: a no_op
  $("archived").addEventListener("click", () => { $("archived-list").textContent = L.archivedShown; });
  document.addEventListener("keydown", (e) => { if (e.key === "Escape") $("keys").textContent = L.escape; });
  const tag = $("drag-tag");
  tag.addEventListener("dragstart", (e) => e.dataTransfer.setData("text/plain", tag.textContent));
  $("drop").addEventListener("dragover", (e) => e.preventDefault());
  $("drop").addEventListener("drop", (e) => {
    e.preventDefault();
    $("drop-list").textContent = e.dataTransfer.getData("text/plain");
  });
})();
