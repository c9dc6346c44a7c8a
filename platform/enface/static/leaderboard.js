// Sortable leaderboard: clicking a metric header sorts the rows of every group (each <tbody>) by it.
// Rows keep their group, as in the WMT findings tables; n/a sorts last whatever the direction.
(function () {
  "use strict";
  const table = document.getElementById("leaderboard");
  if (!table) return;
  const headers = Array.from(table.querySelectorAll("thead th"));
  headers.forEach(function (th, col) {
    if (!th.classList.contains("sortable-col")) return;
    const button = th.querySelector("button.sort");
    button.addEventListener("click", function () {
      const higher = th.dataset.higher === "true";
      // First click: best first; then toggle.
      let desc = th.classList.contains("sorted-desc") ? false : th.classList.contains("sorted-asc") ? true : higher;
      headers.forEach(function (h) { h.classList.remove("sorted-asc", "sorted-desc"); h.removeAttribute("aria-sort"); });
      th.classList.add(desc ? "sorted-desc" : "sorted-asc");
      th.setAttribute("aria-sort", desc ? "descending" : "ascending");
      table.querySelectorAll("tbody").forEach(function (body) {
        const rows = Array.from(body.querySelectorAll("tr.entry"));
        rows.sort(function (a, b) {
          const va = a.children[col].dataset.value, vb = b.children[col].dataset.value;
          if (va === "" && vb === "") return 0;
          if (va === "") return 1;
          if (vb === "") return -1;
          return desc ? parseFloat(vb) - parseFloat(va) : parseFloat(va) - parseFloat(vb);
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
})();
