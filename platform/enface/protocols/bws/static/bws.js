/* The BWS item page: pick the best and the worst translation, by keyboard or mouse, autosaved through the core.
 *
 * Keys: 1..N choose the best (the N-th translation as shown); Shift+1..N, or q w e r t y u i o p, choose the
 * worst; Backspace clears both; Enter asks whether to finish (Enter again finishes and opens the next item,
 * Esc goes back). Choosing as best the translation marked worst moves the mark (and the other way round):
 * one translation is never both. Each change is one PUT of the response {best, worst} (slots, which name no
 * system) through the client kit's AutosaveQueue (static/kit/), so a reload or a lost connection loses nothing.
 */
(function () {
  'use strict';
  const state = JSON.parse(document.getElementById('bws-state').textContent);
  const root = document.getElementById('bws');
  const readonly = state.readonly;
  const statusEl = document.getElementById('save-status');
  const WORST_KEYS = 'qwertyuiop';
  const cards = Array.prototype.slice.call(root.querySelectorAll('.bw-translation'));
  const slots = cards.map(function (c) { return Number(c.dataset.slot); });
  const errorEl = document.getElementById('finish-error');

  let uuid = state.response ? state.response.uuid : AutosaveQueue.uuid();
  let choice = Object.assign({ best: null, worst: null }, state.response ? state.response.data : {});

  const queue = readonly ? null : new AutosaveQueue({
    key: 'enface:pending:' + state.item.id, csrfToken: EnfaceKit.csrf.token(), statusEl: statusEl,
    onRefused: function (op, status, data) {
      showError('Not saved: ' + ((data && data.error && data.error.message) || ('HTTP ' + status)));
    },
  });
  if (queue) {
    if (state.response) queue.seenRev(uuid, state.response.rev);
    // a choice made before a reload and not yet acknowledged wins over what the server sent
    queue.ops().forEach(function (op) {
      if (!op.body || !op.body.data || op.body.kind !== 'choice') return;
      uuid = op.url.split('/').pop();
      choice = Object.assign({}, choice, op.body.data);
      queue.seenRev(uuid, op.body.rev);
    });
  }

  function showError(message) {
    errorEl.textContent = message || '';
    errorEl.hidden = !message;
  }

  function render() {
    cards.forEach(function (card) {
      const slot = Number(card.dataset.slot);
      const best = choice.best === slot;
      const worst = choice.worst === slot;
      card.classList.toggle('best', best);
      card.classList.toggle('worst', worst);
      card.querySelector('.bw-best').setAttribute('aria-pressed', best ? 'true' : 'false');
      card.querySelector('.bw-worst').setAttribute('aria-pressed', worst ? 'true' : 'false');
      card.querySelector('.bw-mark').textContent = best ? 'best' : (worst ? 'worst' : '');
    });
    root.dataset.best = choice.best === null ? '' : String(choice.best);
    root.dataset.worst = choice.worst === null ? '' : String(choice.worst);
  }

  function save() {
    if (!queue) return;
    queue.put(state.urls.responses + uuid,
      { rev: queue.nextRev(uuid), kind: 'choice', key: 'bws', data: { best: choice.best, worst: choice.worst } },
      { key: uuid });
  }

  function choose(which, slot) {
    if (readonly) return;
    const other = which === 'best' ? 'worst' : 'best';
    const next = Object.assign({}, choice);
    next[which] = next[which] === slot ? null : slot;   // choosing it again takes the mark off
    if (next[which] !== null && next[other] === slot) next[other] = null;
    choice = next;
    showError(null);
    render();
    save();
  }

  function clearAll() {
    if (readonly || (choice.best === null && choice.worst === null)) return;
    choice = { best: null, worst: null };
    render();
    save();
  }

  const confirmEl = document.getElementById('finish-confirm');
  function confirming() { return confirmEl && !confirmEl.hidden; }
  function closeConfirm() {
    if (!confirmEl) return;
    if (confirmEl.contains(document.activeElement)) document.activeElement.blur();
    confirmEl.hidden = true;
  }
  function askFinish() {
    if (readonly) return;
    const missing = [];
    if (choice.best === null) missing.push('the best');
    if (choice.worst === null) missing.push('the worst');
    if (missing.length) { showError('Choose ' + missing.join(' and ') + ' translation first.'); return; }
    showError(null);
    confirmEl.hidden = false;
    confirmEl.scrollIntoView({ block: 'nearest' });
    document.getElementById('finish-yes').focus({ preventScroll: true });
  }
  function finish() {
    closeConfirm();
    queue.flush(15000).then(function (ok) {
      if (!ok) { showError('Your choice is not saved yet (offline?): try again in a moment.'); return null; }
      return queue.request('POST', state.urls.finish).then(function (r) {
        return r.json().then(function (body) {
          if (!r.ok) { showError((body.error && body.error.message) || ('HTTP ' + r.status)); return; }
          window.location.assign(body.next || state.urls.list);
        });
      });
    }).catch(function () { showError('Could not reach the server: try again.'); });
  }

  cards.forEach(function (card) {
    const slot = Number(card.dataset.slot);
    card.querySelectorAll('.bw-choose').forEach(function (b) {
      // the focus leaves the button, so that Enter next asks to finish instead of pressing it again
      b.addEventListener('click', function () { choose(b.dataset.choice, slot); b.blur(); });
    });
  });
  const finishBtn = document.getElementById('finish');
  if (finishBtn) finishBtn.addEventListener('click', askFinish);
  if (confirmEl) {
    document.getElementById('finish-yes').addEventListener('click', finish);
    document.getElementById('finish-no').addEventListener('click', closeConfirm);
  }

  document.addEventListener('keydown', function (ev) {
    if (ev.ctrlKey || ev.metaKey || ev.altKey || readonly) return;
    if (confirming()) {   // the question is open: Enter finishes, Esc goes back, nothing else chooses
      if (ev.key === 'Enter') { ev.preventDefault(); finish(); }
      else if (ev.key === 'Escape') { ev.preventDefault(); closeConfirm(); }
      return;
    }
    const digit = /^Digit([1-9])$/.exec(ev.code || '');
    const n = digit ? Number(digit[1]) : (/^[1-9]$/.test(ev.key) ? Number(ev.key) : 0);
    if (n && n <= slots.length) {
      ev.preventDefault();
      choose(ev.shiftKey ? 'worst' : 'best', slots[n - 1]);
      return;
    }
    const w = WORST_KEYS.indexOf((ev.key || '').toLowerCase());
    if (w >= 0 && w < slots.length && !ev.shiftKey) {
      ev.preventDefault();
      choose('worst', slots[w]);
    } else if (ev.key === 'Backspace' || ev.key === 'Delete') {
      ev.preventDefault(); clearAll();
    } else if (ev.key === 'Enter') {
      const t = ev.target;
      if (t && (t.tagName === 'BUTTON' || t.tagName === 'A')) return;
      ev.preventDefault(); askFinish();
    }
  });

  render();
  window.enfaceBws = { pending: function () { return queue ? queue.pending() : 0; } };
  root.dataset.ready = '1';
})();
