// The tutorial page: a span chosen by selecting text in the translation (code points, as the server counts them).
(function () {
  "use strict";
  const text = document.getElementById("tutorial-translation");
  const value = document.getElementById("span-value");
  const shown = document.getElementById("span-shown");
  const none = document.getElementById("span-none");
  if (!text || !value) return;
  const codePoints = (s) => Array.from(s).length;

  function offsetIn(node, offset) {
    // the selection's position as a UTF-16 offset into the paragraph's text
    const range = document.createRange();
    range.setStart(text, 0);
    range.setEnd(node, offset);
    return range.toString().length;
  }

  function choose() {
    const sel = window.getSelection();
    if (!sel || sel.rangeCount === 0 || sel.isCollapsed) return;
    const r = sel.getRangeAt(0);
    if (!text.contains(r.startContainer) || !text.contains(r.endContainer)) return;
    const full = text.textContent;
    let a = offsetIn(r.startContainer, r.startOffset);
    let b = offsetIn(r.endContainer, r.endOffset);
    while (a < b && /\s/.test(full[a])) a++;
    while (b > a && /\s/.test(full[b - 1])) b--;
    if (a >= b) return;
    const start = codePoints(full.slice(0, a));
    const end = start + codePoints(full.slice(a, b));
    value.value = start + ":" + end;
    shown.textContent = full.slice(a, b);
    shown.classList.remove("muted");
    if (none) none.checked = false;
  }

  text.addEventListener("mouseup", choose);
  text.addEventListener("keyup", choose);
  if (none) {
    none.addEventListener("change", () => {
      if (none.checked) {
        value.value = "";
        shown.textContent = "nothing (no error)";
        shown.classList.add("muted");
      }
    });
  }
})();
