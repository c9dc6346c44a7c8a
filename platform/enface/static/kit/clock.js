/* Enface kit: the reading clock, the time a reader spends on each part of a page (plain script, no build step).
 *
 * Time counts for one key at a time (a segment's index, "read:1", "chunk:3"...), only while the page is
 * visible, the reader has done something in the last idleMs, and running() says so. Back from idle, the
 * idle time is not credited. Hiding the page ticks the clock. Times are whole milliseconds per key, the
 * shape the core's progress endpoint takes ({times: {key: ms}}); the server applies the same dwell rule.
 *
 *   const clock = new EnfaceKit.ReadingClock({
 *     times: S.times,                    // the times saved so far, {key: ms} (copied)
 *     idleMs: 90000,                     // no key, mouse or scroll for this long: the clock stops
 *     running: function () { return !finished; },  // optional: false stops counting (a finished page)
 *     dwell: [ms, ...],                  // optional: segment i is read once times[String(i)] reaches dwell[i]
 *   });
 *   clock.at(key)        tick, then count for key (null: for nothing); clock.key is the current one
 *   clock.tick()         credit the time since the last tick to the current key (call it before reading times)
 *   clock.activity()     the reader did something; clock.watch(['keydown', ...]) calls it on those document events
 *   clock.times          the live {key: ms}; clock.merge(times) keeps the larger time per key (a queued save)
 *   clock.dirty          true once time was credited; the page clears it when it has queued the times
 *   clock.isRead(i), clock.readCount(), clock.unread() -> [i...], clock.furthest() -> i
 *       with dwell: whether segment i is read, how many are, which are not, and the last segment of the
 *       read run from the first one (-1: none), the "furthest" the progress endpoint takes
 */
(function (global) {
  'use strict';
  const kit = global.EnfaceKit = global.EnfaceKit || {};

  function ReadingClock(opts) {
    opts = opts || {};
    this.times = Object.assign({}, opts.times || {});
    this.idleMs = opts.idleMs || 90000;
    this.running = opts.running || function () { return true; };
    this.dwell = opts.dwell || [];
    this.key = null;
    this.dirty = false;
    this._at = performance.now();
    this._lastActivity = Date.now();
    const self = this;
    document.addEventListener('visibilitychange', function () {
      if (document.visibilityState === 'hidden') self.tick();
      else { self._at = performance.now(); self._lastActivity = Date.now(); }
    });
  }

  ReadingClock.prototype.tick = function () {
    const now = performance.now();
    if (this.key != null && document.visibilityState === 'visible' && Date.now() - this._lastActivity < this.idleMs &&
        this.running()) {
      this.times[this.key] = Math.round((this.times[this.key] || 0) + Math.min(now - this._at, this.idleMs));
      this.dirty = true;
    }
    this._at = now;
  };

  ReadingClock.prototype.at = function (key) {
    this.tick();
    this.key = key == null ? null : String(key);
  };

  ReadingClock.prototype.activity = function () {
    if (Date.now() - this._lastActivity >= this.idleMs) this._at = performance.now();   // no credit for the idle time
    this._lastActivity = Date.now();
  };

  ReadingClock.prototype.watch = function (events) {
    const self = this;
    events.forEach(function (ev) { document.addEventListener(ev, function () { self.activity(); }, { passive: true }); });
  };

  ReadingClock.prototype.merge = function (times) {
    const self = this;
    Object.keys(times || {}).forEach(function (k) { self.times[k] = Math.max(self.times[k] || 0, times[k]); });
  };

  ReadingClock.prototype.isRead = function (i) { return (this.times[String(i)] || 0) >= (this.dwell[i] || 0); };
  ReadingClock.prototype.readCount = function () {
    let n = 0;
    for (let i = 0; i < this.dwell.length; i++) if (this.isRead(i)) n++;
    return n;
  };
  ReadingClock.prototype.unread = function () {
    const out = [];
    for (let i = 0; i < this.dwell.length; i++) if (!this.isRead(i)) out.push(i);
    return out;
  };
  ReadingClock.prototype.furthest = function () {
    for (let i = 0; i < this.dwell.length; i++) if (!this.isRead(i)) return i - 1;
    return this.dwell.length - 1;
  };

  kit.ReadingClock = ReadingClock;
})(window);
