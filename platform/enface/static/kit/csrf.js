/* Enface kit: the page's CSRF token, and JSON requests that carry it (plain script, no build step).
 *
 *   EnfaceKit.csrf.token() -> string
 *       the token of <meta name="csrf-token" content="..."> (every page that saves writes it; '' when absent)
 *   EnfaceKit.csrf.request(method, url, body, opts) -> Promise<Response>
 *       one fetch, same-origin credentials, JSON in and out (body: any JSON value, or null for none),
 *       with the X-CSRFToken header; opts.token (default: token()), opts.keepalive (for a page going away)
 *
 * The autosave queue (autosave.js) sends through request() with the token it was given.
 */
(function (global) {
  'use strict';
  const kit = global.EnfaceKit = global.EnfaceKit || {};

  function token() {
    const meta = document.querySelector('meta[name="csrf-token"]');
    return (meta && meta.content) || '';
  }

  function request(method, url, body, opts) {
    opts = opts || {};
    return fetch(url, {
      method: method, credentials: 'same-origin', keepalive: !!opts.keepalive,
      headers: { 'Content-Type': 'application/json', 'Accept': 'application/json',
        'X-CSRFToken': opts.token == null ? token() : opts.token },
      body: body == null ? undefined : JSON.stringify(body),
    });
  }

  kit.csrf = { token: token, request: request };
})(window);
