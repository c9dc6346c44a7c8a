/* Enface kit: the autosave queue, every change a page makes is saved in order, and none is lost.
 *
 * Protocol-agnostic: it knows URLs, JSON bodies and HTTP statuses, nothing of a protocol (MQM's marks,
 * the reader study's answers and the rubric's scores all go through it). Load it with a plain <script>
 * after kit/csrf.js and before the page's own script (no bundler); it defines EnfaceKit.AutosaveQueue
 * (also window.AutosaveQueue).
 *
 *   const q = new AutosaveQueue({
 *     key: 'enface:pending:' + itemId,   // localStorage key: unsaved changes survive a reload or a closed tab
 *     csrfToken: token,                  // sent as X-CSRFToken with every request (default: EnfaceKit.csrf.token())
 *     statusEl: element,                 // optional: shows the status (class "save-status <state>", text)
 *     onStatus: function (s) {},         // optional: s = {state, pending, message};
 *                                        //   state: 'saved' | 'saving' | 'offline' | 'error'
 *     onSaved: function (op, data) {},   // optional: after a 2xx, with the parsed JSON answer
 *     onRefused: function (op, status, data) {},  // optional: after a 4xx (not 401): the change was dropped
 *     onHide: function () {},            // optional: the page is being hidden; queue last changes now
 *   });
 *   q.put(url, body, opts)      // queue a PUT; opts.key: an unsent op with the same key is replaced, in its place (default: url)
 *   q.delete(url, body, opts)   // queue a DELETE
 *   q.post(url, body, opts)     // queue a POST; body may be a function, called when the op is sent (and when it
 *                               //   is stored), for state that keeps changing (a reading position, times)
 *                               // opts.quiet: not counted in the status text (a heartbeat, a reading position)
 *   q.flush(timeoutMs) -> Promise<boolean>   // send everything now; true once nothing is pending
 *   q.pending() -> number       // ops not yet acknowledged by the server (quiet ones included)
 *   q.ops() -> [{method, url, body, key}]     // copies of those ops, oldest first (e.g. to replay local changes
 *                               //   over what the server sent)
 *   q.nextRev(id) -> number     // the next revision of record id (1, 2, ...); send it with the record
 *   q.seenRev(id, rev)          // a revision known from the server or from ops()
 *   q.request(method, url, body) -> Promise<Response>   // one request now, same headers, not queued
 *   q.showStatus()              // draw the status again (after the page wrote its own message in statusEl)
 *   AutosaveQueue.uuid()        // a random UUID (v4): the client names new records, so a retry never makes two
 *
 * Rules. Ops are sent one at a time, oldest first. 2xx: done. No answer, 408, 429 or 5xx: kept and retried
 * with exponential backoff (0.5 s doubling up to 15 s; at once when the browser comes back online), status
 * 'offline'. 401: sending stops, status 'error' (signed out); the ops stay stored for the next visit. Any
 * other 4xx: the op is dropped and onRefused is called (the page should reload the truth from the server).
 * When the page is hidden or closed, every pending op is also sent with fetch keepalive; it stays queued
 * until a normal send is acknowledged. So the server must make every op idempotent: a record carries a
 * client UUID and a revision, and a write whose revision is not newer than the stored one changes nothing.
 */
(function (global) {
  'use strict';

  const MIN_BACKOFF = 500;
  const MAX_BACKOFF = 15000;

  function uuid() {
    if (global.crypto && crypto.randomUUID) return crypto.randomUUID();
    const b = new Uint8Array(16);
    crypto.getRandomValues(b);
    b[6] = (b[6] & 0x0f) | 0x40; b[8] = (b[8] & 0x3f) | 0x80;
    const h = Array.from(b, function (x) { return x.toString(16).padStart(2, '0'); }).join('');
    return h.slice(0, 8) + '-' + h.slice(8, 12) + '-' + h.slice(12, 16) + '-' + h.slice(16, 20) + '-' + h.slice(20);
  }

  function AutosaveQueue(opts) {
    opts = opts || {};
    this.key = opts.key || null;
    this.csrfToken = opts.csrfToken || global.EnfaceKit.csrf.token();
    this.statusEl = opts.statusEl || null;
    this.onStatus = opts.onStatus || null;
    this.onSaved = opts.onSaved || null;
    this.onRefused = opts.onRefused || null;
    this.onHide = opts.onHide || null;
    this._queue = [];
    this._inFlight = null;
    this._backoff = MIN_BACKOFF;
    this._timer = null;
    this._stopped = false;
    this._offline = false;
    this._error = null;         // the last refusal's message, shown until the next success
    this._waiters = [];
    this._revs = new Map();
    this._load();
    const self = this;
    global.addEventListener('online', function () { self._retryNow(); });
    global.addEventListener('pagehide', function () { self._hide(); });
    document.addEventListener('visibilitychange', function () {
      if (document.visibilityState === 'hidden') self._hide();
    });
    this._status();
    if (this._queue.length) setTimeout(function () { self._pump(); }, 0);
  }

  AutosaveQueue.uuid = uuid;

  AutosaveQueue.prototype.put = function (url, body, opts) { this._add('PUT', url, body, opts); };
  AutosaveQueue.prototype.delete = function (url, body, opts) { this._add('DELETE', url, body, opts); };
  AutosaveQueue.prototype.post = function (url, body, opts) { this._add('POST', url, body, opts); };

  AutosaveQueue.prototype.pending = function () { return this._queue.length; };

  AutosaveQueue.prototype.ops = function () {
    const self = this;
    return this._queue.map(function (op) {
      return { method: op.method, url: op.url, body: self._body(op), key: op.key };
    });
  };

  AutosaveQueue.prototype.nextRev = function (id) {
    const rev = (this._revs.get(id) || 0) + 1;
    this._revs.set(id, rev);
    return rev;
  };

  AutosaveQueue.prototype.seenRev = function (id, rev) {
    if (typeof rev === 'number' && rev > (this._revs.get(id) || 0)) this._revs.set(id, rev);
  };

  AutosaveQueue.prototype.request = function (method, url, body, keepalive) {
    return global.EnfaceKit.csrf.request(method, url, body, { token: this.csrfToken, keepalive: keepalive });
  };

  AutosaveQueue.prototype.showStatus = function () { this._status(); };

  AutosaveQueue.prototype.flush = function (timeoutMs) {
    const self = this;
    this._retryNow();
    if (!this._queue.length) return Promise.resolve(true);
    return new Promise(function (resolve) {
      const waiter = { resolve: resolve };
      waiter.timer = setTimeout(function () {
        self._waiters = self._waiters.filter(function (w) { return w !== waiter; });
        resolve(self._queue.length === 0);
      }, timeoutMs == null ? 20000 : timeoutMs);
      self._waiters.push(waiter);
    });
  };

  // ------------------------------------------------------------------ internals

  AutosaveQueue.prototype._add = function (method, url, body, opts) {
    opts = opts || {};
    const key = opts.key || url;
    // An unsent op with the same key is superseded where it stands (the one being sent is left alone):
    // the ops queued after it may depend on it (ESA's reading progress must reach the server before the
    // score it allows), so the new one must not move behind them.
    const fresh = { method: method, url: url, body: body, key: key, quiet: !!opts.quiet };
    let placed = false;
    this._queue = this._queue.reduce(function (kept, op) {
      if (op === this._inFlight || op.key !== key) kept.push(op);
      else if (!placed) { kept.push(fresh); placed = true; }
      return kept;
    }.bind(this), []);
    if (!placed) this._queue.push(fresh);
    this._save();
    this._status();
    this._pump();
  };

  AutosaveQueue.prototype._body = function (op) {
    return typeof op.body === 'function' ? op.body() : op.body;
  };

  AutosaveQueue.prototype._load = function () {
    if (!this.key) return;
    try {
      const stored = JSON.parse(global.localStorage.getItem(this.key) || '[]');
      if (Array.isArray(stored)) {
        this._queue = stored.filter(function (op) { return op && op.method && op.url; });
      }
    } catch (e) { this._queue = []; }
  };

  AutosaveQueue.prototype._save = function () {
    if (!this.key) return;
    try {
      if (!this._queue.length) { global.localStorage.removeItem(this.key); return; }
      const self = this;
      const plain = this._queue.map(function (op) {
        return { method: op.method, url: op.url, body: self._body(op), key: op.key, quiet: op.quiet };
      });
      global.localStorage.setItem(this.key, JSON.stringify(plain));
    } catch (e) { /* private mode or a full storage: the queue still lives in memory */ }
  };

  AutosaveQueue.prototype._status = function () {
    const loud = this._queue.filter(function (op) { return !op.quiet; }).length;
    let s;
    if (this._stopped) {
      s = { state: 'error', message: 'Signed out: sign in again; unsaved changes are kept in this browser.' };
    } else if (this._offline) {
      s = { state: 'offline', message: 'Not saved yet: retrying (' + this._queue.length + ' pending). ' +
        'Your changes are kept in this browser.' };
    } else if (this._error) {
      s = { state: 'error', message: this._error };
    } else if (loud) {
      s = { state: 'saving', message: 'Saving… (' + loud + ')' };
    } else {
      s = { state: 'saved', message: 'All changes saved' };
    }
    s.pending = this._queue.length;
    if (this.statusEl) {
      this.statusEl.className = 'save-status ' + s.state;
      this.statusEl.textContent = s.message;
    }
    if (this.onStatus) this.onStatus(s);
  };

  AutosaveQueue.prototype._retryNow = function () {
    if (this._stopped) return;
    if (this._timer) { clearTimeout(this._timer); this._timer = null; }
    this._backoff = MIN_BACKOFF;
    this._pump();
  };

  AutosaveQueue.prototype._settle = function () {
    if (this._queue.length) return;
    const waiters = this._waiters;
    this._waiters = [];
    waiters.forEach(function (w) { clearTimeout(w.timer); w.resolve(true); });
  };

  AutosaveQueue.prototype._pump = async function () {
    if (this._inFlight || this._stopped || this._timer || !this._queue.length) { this._settle(); return; }
    const op = this._queue[0];
    this._inFlight = op;
    let res = null, data = null;
    try {
      res = await this.request(op.method, op.url, this._body(op));
      data = await res.json().catch(function () { return null; });
    } catch (e) { res = null; }
    this._inFlight = null;
    const self = this;
    if (res && res.ok) {
      this._queue = this._queue.filter(function (o) { return o !== op; });
      this._save();
      this._backoff = MIN_BACKOFF;
      this._offline = false;
      this._error = null;
      this._status();
      if (this.onSaved) this.onSaved(op, data);
      this._pump();
      return;
    }
    if (!res || res.status >= 500 || res.status === 429 || res.status === 408) {
      this._offline = true;
      this._status();
      this._timer = setTimeout(function () { self._timer = null; self._pump(); }, this._backoff);
      this._backoff = Math.min(this._backoff * 2, MAX_BACKOFF);
      return;
    }
    this._offline = false;
    if (res.status === 401) {
      this._stopped = true;
      this._status();
      return;
    }
    // any other 4xx: this change is refused for good; drop it and say why
    this._queue = this._queue.filter(function (o) { return o !== op; });
    this._save();
    this._error = (data && data.error && data.error.message) || ('The server refused a change (HTTP ' + res.status + ')');
    this._status();
    if (this.onRefused) {
      try { await this.onRefused(op, res.status, data); } catch (e) { /* the page's business */ }
    }
    this._pump();
  };

  AutosaveQueue.prototype._hide = function () {
    if (this.onHide) { try { this.onHide(); } catch (e) { /* keep going */ } }
    const self = this;
    // Send what is pending with keepalive, so that it arrives even if the page goes away now. The ops stay
    // queued (and stored): if these requests are lost, the next visit sends them again.
    this._queue.forEach(function (op) {
      try { self.request(op.method, op.url, self._body(op), true).catch(function () {}); } catch (e) { /* ignore */ }
    });
  };

  global.EnfaceKit.AutosaveQueue = global.AutosaveQueue = AutosaveQueue;
})(window);
