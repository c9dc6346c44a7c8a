// Keeps each judge's progress bar current while a run is queued or running (polls progress.json).
(function () {
  "use strict";
  function poll(box) {
    fetch(box.dataset.progressUrl, {credentials: "same-origin", headers: {Accept: "application/json"}})
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (p) {
        if (!p) { return; }
        var bar = box.querySelector("progress");
        bar.max = Math.max(p.total, 1);
        bar.value = p.done + p.failed;
        box.querySelectorAll("[data-field]").forEach(function (el) {
          var v = p[el.dataset.field];
          if (v === undefined) { return; }
          el.textContent = el.dataset.field === "cost" ? Number(v).toFixed(4) : v;
        });
        if (p.state === "queued" || (p.state === "running" && p.alive)) {
          setTimeout(function () { poll(box); }, 2000);
        }
      })
      .catch(function () { setTimeout(function () { poll(box); }, 5000); });
  }
  document.querySelectorAll(".judge-progress[data-progress-url]").forEach(function (box) {
    var state = box.querySelector('[data-field="outcome"]');
    if (state && /queued|running/.test(state.textContent)) { poll(box); }
  });
})();
