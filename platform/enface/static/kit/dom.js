/* Enface kit: small DOM helpers shared by every protocol's item page (plain script, no build step).
 *
 *   EnfaceKit.dom (also window.EnfaceDOM) = {$, $$, el}
 *   $(selector, root) -> the first match or null; $$(selector, root) -> an array of every match
 *   el(tag, {text, cls, onclick, attr...}, [children]) -> a new element (children: nodes or strings; null skipped)
 */
(function () {
  'use strict';
  function $(sel, root) { return (root || document).querySelector(sel); }
  function $$(sel, root) { return Array.from((root || document).querySelectorAll(sel)); }
  function el(tag, attrs, children) {
    const e = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (k) {
      if (k === 'text') e.textContent = attrs[k];
      else if (k === 'cls') e.className = attrs[k];
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), attrs[k]);
      else e.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c != null) e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c); });
    return e;
  }
  window.EnfaceKit = window.EnfaceKit || {};
  window.EnfaceKit.dom = window.EnfaceDOM = { $: $, $$: $$, el: el };
})();
