/* Enface kit: toasts, the short messages a page shows after a change (plain script, no build step).
 *
 *   const toast = EnfaceKit.toaster(element, baseClass)
 *       element: the page's toast box (e.g. <div id="toast" role="status" aria-live="polite">);
 *       baseClass: its class while hidden ('toast' by default); shown, it also has 'show' and the kind
 *   toast(message, kind, action)
 *       kind: '' or 'error'; action (optional): {label, run}, a button in the toast that hides it and calls run()
 *       The toast hides after 2.5 s, or 6 s for an error or one with an action; a new one replaces it.
 *
 * The page's style sheet draws the box (.toast, .toast.show, .toast.error); the kit draws nothing.
 */
(function (global) {
  'use strict';
  const kit = global.EnfaceKit = global.EnfaceKit || {};

  kit.toaster = function (element, baseClass) {
    const base = baseClass || 'toast';
    let timer = null;
    return function toast(message, kind, action) {
      const t = element;
      t.textContent = message;
      if (action) {
        const b = document.createElement('button');
        b.type = 'button';
        b.textContent = action.label;
        b.addEventListener('click', function () { t.className = base; action.run(); });
        t.appendChild(b);
      }
      t.className = base + ' show ' + (kind || '');
      clearTimeout(timer);
      timer = setTimeout(function () { t.className = base; }, kind === 'error' || action ? 6000 : 2500);
    };
  };
})(window);
