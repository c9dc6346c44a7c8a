/* The rubric item page: three 0/1/2 scores per phenomenon, keyboard-first, autosaved through the core.
 *
 * Keys: 0/1/2 score the highlighted criterion and move on; ↑↓ or k/j move; h or ? shows every level's
 * description; r cycles the refusal (none, justified, unjustified) where the rubric scores refusals;
 * c writes a comment (Esc leaves it); Backspace clears; Enter asks whether to finish the item (Enter again
 * finishes it and opens the next, Esc goes back to scoring).
 *
 * The rubric's rules hold as you score: Specific 0 sets and locks both General scores at 0; a refusal sets
 * and locks the criterion holding the refusal rule (Sensitive Information Handling: justified 2,
 * unjustified 0); a change breaking a rule is refused with the reason. The server checks the same rules
 * on every save (humaneval.rubric.check_scores) and before the item can be finished.
 */
(function () {
  'use strict';
  const state = JSON.parse(document.getElementById('rubric-state').textContent);
  const root = document.getElementById('rubric');
  const KEYS = ['sp', 'g_1', 'g_2'];
  const NAMES = { sp: 'Specific', g_1: 'General 1', g_2: 'General 2' };
  const readonly = state.readonly;
  const statusEl = document.getElementById('save-status');

  const phenomena = state.phenomena.map(function (ph) {
    return {
      id: ph.id, dimension: ph.dimension, name: ph.dimension_name, criteria: ph.criteria,
      el: root.querySelector('[data-phenomenon="' + ph.id + '"]'),
      uuid: ph.response ? ph.response.uuid : AutosaveQueue.uuid(),
      rev: ph.response ? ph.response.rev : 0,
      data: Object.assign({ sp: null, g_1: null, g_2: null, refusal: null, comment: '' },
        ph.response ? ph.response.data : {}),
      holder: ph.criteria.filter(function (c) { return c.refusal; })[0] || null,
    };
  });
  function criterion(p, key) { return p.criteria.filter(function (c) { return c.key === key; })[0]; }

  const queue = readonly ? null : new AutosaveQueue({
    key: 'enface:pending:' + state.item.id, csrfToken: EnfaceKit.csrf.token(), statusEl: statusEl,
    onRefused: function (op, status, data) {
      const p = phenomena.filter(function (x) { return op.body && x.id === op.body.key; })[0];
      const msg = (data && data.error && data.error.message) || ('not saved (HTTP ' + status + ')');
      showError(p, 'Not saved: ' + msg);
    },
  });
  if (queue) {
    phenomena.forEach(function (p) { if (p.rev) queue.seenRev(p.uuid, p.rev); });
    // changes made before a reload and not yet acknowledged win over what the server sent
    queue.ops().forEach(function (op) {
      const p = phenomena.filter(function (x) { return op.body && x.id === op.body.key; })[0];
      if (!p || !op.body || !op.body.data) return;
      p.uuid = op.url.split('/').pop();
      p.data = Object.assign({}, p.data, op.body.data);
      queue.seenRev(p.uuid, op.body.rev);
    });
  }

  // ---------------------------------------------------------------- the rules (as humaneval.rubric.rules)
  function refusalScore(p, refusal) { return p.holder ? p.holder.refusal[refusal] : null; }

  function ruleErrors(p, d) {
    const errors = [];
    if (d.sp === 0) {
      ['g_1', 'g_2'].forEach(function (k) {
        if (d[k] !== null && d[k] !== 0) errors.push('the Specific score is 0, so ' + criterion(p, k).name + ' must be 0 too');
      });
    }
    if (d.refusal) {
      if (!p.holder) {
        errors.push('a refusal is scored only in Cultural Safety');
      } else {
        const want = refusalScore(p, d.refusal);
        if (p.holder.key !== 'sp' && d.sp === 0 && want !== 0) {
          return ['a ' + d.refusal + ' refusal scores ' + p.holder.name + ' ' + want +
                  ', which the Specific score 0 forbids: raise the Specific score or mark the refusal unjustified'];
        }
        if (d[p.holder.key] !== null && d[p.holder.key] !== want) {
          errors.push('a ' + d.refusal + ' refusal scores ' + p.holder.name + ' ' + want);
        }
      }
    }
    return errors;
  }

  function lockedWhy(p, key) {
    if (key !== 'sp' && p.data.sp === 0) return 'the Specific score is 0, so ' + criterion(p, key).name + ' is 0';
    if (p.data.refusal && p.holder && p.holder.key === key) {
      return 'a ' + p.data.refusal + ' refusal scores ' + p.holder.name + ' ' + refusalScore(p, p.data.refusal);
    }
    return null;
  }

  function missing(p) {
    const out = KEYS.filter(function (k) { return p.data[k] === null || p.data[k] === undefined; })
      .map(function (k) { return p.name + ': ' + criterion(p, k).name + ' not scored'; });
    return out.concat(ruleErrors(p, p.data).map(function (e) { return p.name + ': ' + e; }));
  }

  // ---------------------------------------------------------------- changes
  function change(p, next) {
    const errors = ruleErrors(p, next);
    if (errors.length) { showError(p, errors.join('; ')); return false; }
    p.data = next;
    showError(p, null);
    render(p);
    save(p);
    return true;
  }

  function setScore(p, key, value) {
    if (readonly) return false;
    const why = lockedWhy(p, key);
    if (why && value !== p.data[key]) { showError(p, 'Locked: ' + why + '.'); return false; }
    const next = Object.assign({}, p.data);
    next[key] = value;
    if (key === 'sp' && value === 0) { next.g_1 = 0; next.g_2 = 0; }
    if (next.refusal && p.holder && !(p.holder.key !== 'sp' && next.sp === 0)) next[p.holder.key] = refusalScore(p, next.refusal);
    return change(p, next);
  }

  function setRefusal(p, refusal) {
    if (readonly || !p.holder) return false;
    const next = Object.assign({}, p.data, { refusal: refusal });
    if (refusal && !(p.holder.key !== 'sp' && next.sp === 0)) next[p.holder.key] = refusalScore(p, refusal);
    return change(p, next);
  }

  let commentTimers = {};
  function setComment(p, text) {
    p.data = Object.assign({}, p.data, { comment: text });
    clearTimeout(commentTimers[p.id]);
    commentTimers[p.id] = setTimeout(function () { save(p); }, 400);
  }

  function save(p) {
    if (!queue) return;
    queue.put(state.urls.responses + p.uuid,
      { rev: queue.nextRev(p.uuid), kind: 'score', key: p.id, data: Object.assign({}, p.data) }, { key: p.uuid });
  }

  // ---------------------------------------------------------------- drawing
  function render(p) {
    KEYS.forEach(function (k) {
      const row = p.el.querySelector('[data-criterion="' + k + '"]');
      const locked = !!lockedWhy(p, k);
      row.classList.toggle('locked', locked);
      row.classList.toggle('scored', p.data[k] !== null);
      row.querySelectorAll('.rb-choice').forEach(function (b) {
        const on = Number(b.dataset.score) === p.data[k];
        b.classList.toggle('chosen', on);
        b.setAttribute('aria-checked', on ? 'true' : 'false');
      });
      row.querySelectorAll('.rb-levels li').forEach(function (li) {
        li.classList.toggle('chosen', Number(li.dataset.score) === p.data[k]);
      });
    });
    p.el.querySelectorAll('.rb-refusal-row input').forEach(function (r) {
      r.checked = (r.value || null) === (p.data.refusal || null);
    });
    const ta = p.el.querySelector('textarea');
    if (ta && document.activeElement !== ta && ta.value !== (p.data.comment || '')) ta.value = p.data.comment || '';
    const sigma = KEYS.every(function (k) { return p.data[k] !== null; })
      ? KEYS.reduce(function (s, k) { return s + p.data[k]; }, 0) : null;
    p.el.dataset.sigma = sigma === null ? '' : String(sigma);
  }

  function showError(p, message) {
    const el = p ? p.el.querySelector('.rb-error') : document.getElementById('finish-error');
    if (!el) return;
    el.textContent = message || '';
    el.hidden = !message;
  }

  // ---------------------------------------------------------------- the cursor
  const slots = [];
  phenomena.forEach(function (p, i) { KEYS.forEach(function (k) { slots.push({ p: i, key: k }); }); });
  let cursor = 0;
  function slotEl(s) { return phenomena[s.p].el.querySelector('[data-criterion="' + s.key + '"]'); }
  function setCursor(i, scroll) {
    if (!slots.length) return;
    cursor = Math.max(0, Math.min(slots.length - 1, i));
    root.querySelectorAll('.rb-criterion.active').forEach(function (e) { e.classList.remove('active'); });
    const el = slotEl(slots[cursor]);
    el.classList.add('active');
    if (scroll !== false) el.scrollIntoView({ block: 'nearest' });
  }
  function advance() {
    for (let i = cursor + 1; i < slots.length; i++) {
      const s = slots[i];
      if (!lockedWhy(phenomena[s.p], s.key)) { setCursor(i); return; }
    }
    setCursor(cursor);
  }
  function firstOpen() {
    for (let i = 0; i < slots.length; i++) {
      const s = slots[i];
      if (phenomena[s.p].data[s.key] === null && !lockedWhy(phenomena[s.p], s.key)) return i;
    }
    return 0;
  }

  let help = false;
  function toggleHelp() {
    help = !help;
    root.classList.toggle('rb-help', help);
    root.querySelectorAll('.rb-levels, .rb-note').forEach(function (e) { e.hidden = !help; });
  }

  // ---------------------------------------------------------------- finishing
  const confirmEl = document.getElementById('finish-confirm');
  function confirming() { return confirmEl && !confirmEl.hidden; }
  function closeConfirm() {
    if (!confirmEl) return;
    // The question's "Yes" has focus while it is open: hidden, it would keep it until the next rendering,
    // and an Enter in between would press it (finish without asking). Give the focus back first.
    if (confirmEl.contains(document.activeElement)) document.activeElement.blur();
    confirmEl.hidden = true;
  }

  // One Enter (or the button) only asks: finishing is final, and Enter is easy to press by mistake.
  function askFinish() {
    if (readonly) return;
    const problems = [];
    phenomena.forEach(function (p) { problems.push.apply(problems, missing(p)); });
    if (problems.length) {
      showError(null, 'Score every criterion first: ' + problems.join('; ') + '.');
      setCursor(firstOpen());
      return;
    }
    showError(null, null);
    confirmEl.hidden = false;
    confirmEl.scrollIntoView({ block: 'nearest' });
    document.getElementById('finish-yes').focus({ preventScroll: true });
  }

  function finish() {
    closeConfirm();
    phenomena.forEach(function (p) { clearTimeout(commentTimers[p.id]); save(p); });
    queue.flush(15000).then(function (ok) {
      if (!ok) { showError(null, 'Your scores are not saved yet (offline?): try again in a moment.'); return null; }
      return queue.request('POST', state.urls.finish).then(function (r) {
        return r.json().then(function (body) {
          if (!r.ok) { showError(null, (body.error && body.error.message) || ('HTTP ' + r.status)); return; }
          window.location.assign(body.next || state.urls.list);
        });
      });
    }).catch(function () { showError(null, 'Could not reach the server: try again.'); });
  }

  // ---------------------------------------------------------------- events
  phenomena.forEach(function (p, pi) {
    render(p);
    KEYS.forEach(function (k, ki) {
      const row = p.el.querySelector('[data-criterion="' + k + '"]');
      row.addEventListener('click', function () { setCursor(pi * 3 + ki, false); });
      row.querySelectorAll('.rb-choice').forEach(function (b) {
        b.addEventListener('click', function (ev) {
          ev.stopPropagation();
          setCursor(pi * 3 + ki, false);
          if (setScore(p, k, Number(b.dataset.score))) advance();
        });
      });
    });
    p.el.querySelectorAll('.rb-refusal-row input').forEach(function (r) {
      r.addEventListener('change', function () { if (!setRefusal(p, r.value || null)) render(p); });
    });
    const ta = p.el.querySelector('textarea');
    if (ta && !readonly) ta.addEventListener('input', function () { setComment(p, ta.value); });
  });
  const finishBtn = document.getElementById('finish');
  if (finishBtn) finishBtn.addEventListener('click', askFinish);
  if (confirmEl) {
    document.getElementById('finish-yes').addEventListener('click', finish);
    document.getElementById('finish-no').addEventListener('click', function () { closeConfirm(); setCursor(cursor); });
  }

  document.addEventListener('keydown', function (ev) {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const t = ev.target;
    const typing = t && (t.tagName === 'TEXTAREA' || (t.tagName === 'INPUT' && t.type === 'text'));
    if (typing) { if (ev.key === 'Escape') t.blur(); return; }
    if (confirming()) {   // the question is open: Enter finishes, Esc goes back, nothing else scores
      if (ev.key === 'Enter') { ev.preventDefault(); finish(); }
      else if (ev.key === 'Escape') { ev.preventDefault(); closeConfirm(); setCursor(cursor); }
      return;
    }
    if (!slots.length) return;
    const s = slots[cursor];
    const p = phenomena[s.p];
    if (ev.key === '0' || ev.key === '1' || ev.key === '2') {
      if (state.scale.indexOf(Number(ev.key)) < 0) return;
      ev.preventDefault();
      if (setScore(p, s.key, Number(ev.key))) advance();
    } else if (ev.key === 'ArrowDown' || ev.key === 'j') {
      ev.preventDefault(); setCursor(cursor + 1);
    } else if (ev.key === 'ArrowUp' || ev.key === 'k') {
      ev.preventDefault(); setCursor(cursor - 1);
    } else if (ev.key === 'h' || ev.key === '?') {
      ev.preventDefault(); toggleHelp();
    } else if (ev.key === 'r') {
      if (!p.holder) { showError(p, 'A refusal is scored only in Cultural Safety (Sensitive Information Handling).'); return; }
      ev.preventDefault();
      const order = [null, 'justified', 'unjustified'];
      setRefusal(p, order[(order.indexOf(p.data.refusal || null) + 1) % 3]);
    } else if (ev.key === 'c') {
      const ta = p.el.querySelector('textarea');
      if (ta && !readonly) { ev.preventDefault(); ta.focus(); }
    } else if (ev.key === 'Backspace' || ev.key === 'Delete') {
      ev.preventDefault();
      if (!lockedWhy(p, s.key)) {
        const next = Object.assign({}, p.data); next[s.key] = null; change(p, next);
      }
    } else if (ev.key === 'Enter') {
      if (t && (t.tagName === 'BUTTON' || t.tagName === 'A')) return;
      ev.preventDefault(); askFinish();
    }
  });

  setCursor(firstOpen(), false);
  // for tests and the console: how many changes are not acknowledged yet
  window.enfaceRubric = { pending: function () { return queue ? queue.pending() : 0; } };
  root.dataset.ready = '1';
})();
