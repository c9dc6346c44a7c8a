/* Enface autosave: a queue of idempotent PUT/DELETE requests kept in localStorage, sent one by one, retried.
 *
 *   const q = new AutosaveQueue({key, csrfToken, onStatus, onRefused});
 *   q.put(url, body); q.delete(url, body); await q.flush(); q.pending();
 *
 * A queued request to the same URL that has not been sent yet is superseded by a newer one. Network
 * errors, 5xx, 408 and 429 are retried with a growing delay; any other 4xx drops the request and calls
 * onRefused(op, error) (the server said no: retrying cannot help). The queue survives reloads and
 * closed tabs (localStorage), so it replays on the next visit; the server ignores revisions it has seen.
 * onStatus({state: 'saved'|'saving'|'offline'|'error', pending, message}).
 */
(function (global) {
  'use strict';

  function AutosaveQueue(opts) {
    this.storageKey = 'enface:autosave:' + opts.key;
    this.csrf = opts.csrfToken || '';
    this.onStatus = opts.onStatus || function () {};
    this.onRefused = opts.onRefused || function () {};
    this.onSaved = opts.onSaved || function () {};
    this.queue = [];
    try { this.queue = JSON.parse(global.localStorage.getItem(this.storageKey) || '[]'); } catch (e) { this.queue = []; }
    if (!Array.isArray(this.queue)) this.queue = [];
    this.inFlight = false;
    this.backoff = 500;
    this.stopped = false;
    this.timer = null;
    const self = this;
    global.addEventListener('online', function () { self.kick(); });
    if (this.queue.length) setTimeout(function () { self.pump(); }, 0);
  }

  AutosaveQueue.prototype.persist = function () {
    try {
      if (this.queue.length) global.localStorage.setItem(this.storageKey, JSON.stringify(this.queue));
      else global.localStorage.removeItem(this.storageKey);
    } catch (e) { /* private mode: the queue lives in memory */ }
  };

  AutosaveQueue.prototype.status = function (state, message) {
    const pending = this.queue.length;
    if (!state) state = pending ? 'saving' : 'saved';
    this.onStatus({ state: state, pending: pending, message: message || '' });
  };

  AutosaveQueue.prototype.enqueue = function (op) {
    const start = this.inFlight ? 1 : 0;     // the request on the wire cannot be taken back
    for (let k = this.queue.length - 1; k >= start; k--) {
      if (this.queue[k].url === op.url) this.queue.splice(k, 1);
    }
    this.queue.push(op);
    this.persist();
    this.status();
    this.pump();
  };

  AutosaveQueue.prototype.put = function (url, body) { this.enqueue({ method: 'PUT', url: url, body: body }); };
  AutosaveQueue.prototype.delete = function (url, body) { this.enqueue({ method: 'DELETE', url: url, body: body }); };
  AutosaveQueue.prototype.pending = function () { return this.queue.map(function (op) { return Object.assign({}, op); }); };

  AutosaveQueue.prototype.send = function (op, keepalive) {
    return fetch(op.url, {
      method: op.method, credentials: 'same-origin', keepalive: !!keepalive,
      headers: { 'Content-Type': 'application/json', 'Accept': 'application/json', 'X-CSRFToken': this.csrf },
      body: op.body == null ? undefined : JSON.stringify(op.body),
    });
  };

  AutosaveQueue.prototype.kick = function () {
    clearTimeout(this.timer);
    this.timer = null;
    this.backoff = 500;
    this.pump();
  };

  AutosaveQueue.prototype.pump = async function () {
    if (this.inFlight || this.stopped || !this.queue.length || this.timer) return;
    this.inFlight = true;
    const op = this.queue[0];
    let res = null, data = null;
    try {
      res = await this.send(op);
      data = await res.json().catch(function () { return null; });
    } catch (e) { res = null; }
    this.inFlight = false;
    const self = this;
    if (res && res.ok) {
      if (this.queue[0] === op) this.queue.shift();
      this.persist();
      this.backoff = 500;
      this.onSaved(op, data);
      this.status();
      this.pump();
      return;
    }
    if (!res || res.status >= 500 || res.status === 429 || res.status === 408) {
      this.status('offline', 'Not saved yet: retrying (' + this.queue.length + ' pending). Your answers are kept in this browser.');
      this.timer = setTimeout(function () { self.timer = null; self.pump(); }, this.backoff);
      this.backoff = Math.min(this.backoff * 2, 15000);
      return;
    }
    if (this.queue[0] === op) this.queue.shift();
    this.persist();
    const err = (data && data.error) || { code: 'http_' + res.status, message: 'The server refused the change (HTTP ' + res.status + ')' };
    if (res.status === 401) {
      this.stopped = true;
      this.queue.unshift(op);
      this.persist();
      this.status('error', 'Signed out: sign in again; unsaved answers are kept in this browser.');
      return;
    }
    this.status('error', err.message);
    this.onRefused(op, err, res.status);
    this.pump();
  };

  AutosaveQueue.prototype.flush = async function (timeoutMs) {
    const deadline = Date.now() + (timeoutMs || 20000);
    this.kick();
    while (this.queue.length && Date.now() < deadline && !this.stopped) {
      await new Promise(function (r) { setTimeout(r, 60); });
      if (!this.inFlight && !this.timer) this.pump();
    }
    return this.queue.length === 0;
  };

  global.AutosaveQueue = AutosaveQueue;
})(window);
