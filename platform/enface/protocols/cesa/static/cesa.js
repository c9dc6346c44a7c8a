/* Contrastive ESA: one source segment at a time with every translation side by side (columns A, B, ...
 * in the assignment's stored order), each with ESA error spans and its own 0-100 slider.
 * Answers are ESA records saved through the kit's autosave queue, key "segment:column".
 * Keys: j/k (or arrows down/up) segment, h/l column, left/right words (Shift extends; the last stop is
 * [missing]), 1 minor, 2 major, Delete removes, s the slider (arrows, PageUp/PageDown; Enter/Esc back),
 * Enter finish. Texts are set as text, never as markup. */
(function () {
  'use strict';
  const kit = window.EnfaceKit;
  const el = kit.dom.el;
  const S = JSON.parse(document.getElementById('cesa-state').textContent);
  const root = document.getElementById('cesa');
  const toast = kit.toaster(document.getElementById('toast'), 'esa-toast');
  const readonly = !!S.readonly;
  const cols = S.item.columns;
  const segs = S.segments.map(function (s) {
    return Object.assign({}, s, { toks: s.targets.map(function (t) { return kit.spans.tokenize(t); }) });
  });
  const answers = {};
  function key(i, c) { return i + ':' + c; }
  function fresh() { return { uuid: null, data: { score: null, spans: [], started_ms: null, ended_ms: null } }; }
  segs.forEach(function (seg) {
    for (let c = 0; c < cols; c++) {
      const a = S.answers[key(seg.i, c)];
      answers[key(seg.i, c)] = a ? { uuid: a.uuid, data: a.data } : fresh();
    }
  });
  let cur = S.cursor || 0, col = 0, caret = 0, anchor = null, finished = !!S.item.finished;

  const Q = readonly ? null : new AutosaveQueue({
    key: 'enface:pending:' + S.item.id,
    csrfToken: kit.csrf.token(),
    statusEl: document.getElementById('save-status'),
    onSaved: function (op, data) { if (data && data.response) Q.seenRev(data.response.uuid, data.response.rev); },
    onRefused: function (op, status, data) {
      toast((data && data.error && data.error.message) || 'A change was refused.', 'error');
    },
  });
  Object.keys(S.answers).forEach(function (k) { if (Q) Q.seenRev(S.answers[k].uuid, S.answers[k].rev); });
  if (Q) {   // unsaved changes of an earlier visit go over what the server sent
    Q.ops().forEach(function (op) {
      if (op.body && op.body.kind === 'segment' && op.method === 'PUT' && answers[op.body.key]) {
        answers[op.body.key] = { uuid: op.url.split('/').pop(), data: op.body.data };
      }
    });
  }
  function progress() {
    if (Q && !finished) Q.post(S.urls.progress, function () { return { cursor: cur, furthest: cur, times: {} }; },
      { key: 'progress', quiet: true });
  }

  // ------------------------------------------------------------------ answers
  function save(i, c) {
    const a = answers[key(i, c)];
    const now = Date.now();
    if (!a.uuid) a.uuid = AutosaveQueue.uuid();
    if (!a.data.started_ms) a.data.started_ms = now;
    a.data.ended_ms = now;
    Q.put(S.urls.responses + a.uuid, { rev: Q.nextRev(a.uuid), kind: 'segment', key: key(i, c),
      data: JSON.parse(JSON.stringify(a.data)) }, { key: 'answer:' + key(i, c) });
  }
  function spanAt(i, c, k) {
    const toks = segs[i].toks[c].tokens;
    if (k >= toks.length) return answers[key(i, c)].data.spans.find(function (sp) { return sp.start === 'missing'; });
    const t = toks[k];
    return answers[key(i, c)].data.spans.find(function (sp) { return sp.start !== 'missing' && sp.start < t.e && sp.end >= t.s; });
  }
  function mark(i, c, a, b, severity) {
    if (readonly) return;
    const toks = segs[i].toks[c].tokens;
    const spans = answers[key(i, c)].data.spans;
    let sp;
    if (a >= toks.length) sp = { start: 'missing', end: 'missing', severity: severity, provenance: 'human', suggestion: null };
    else { b = Math.min(b, toks.length - 1); sp = { start: toks[a].s, end: toks[b].e - 1, severity: severity, provenance: 'human', suggestion: null }; }
    const keep = spans.filter(function (x) {
      if (sp.start === 'missing') return x.start !== 'missing';
      return x.start === 'missing' || x.end < sp.start || x.start > sp.end;
    });
    keep.push(sp);
    answers[key(i, c)].data.spans = keep;
    save(i, c); render(i, c);
  }
  function unmark(i, c, sp) {
    if (readonly || !sp) return;
    answers[key(i, c)].data.spans = answers[key(i, c)].data.spans.filter(function (x) { return x !== sp; });
    save(i, c); render(i, c);
  }
  function setScore(i, c, v) {
    if (readonly) return;
    answers[key(i, c)].data.score = Math.max(0, Math.min(100, Math.round(v)));
    save(i, c); render(i, c);
  }
  function lowWithoutSpan(i, c) {
    const d = answers[key(i, c)].data;
    return d.score !== null && d.score < S.low_score && d.spans.length === 0;
  }

  // ------------------------------------------------------------------ drawing
  const box = document.getElementById('cesa-columns');
  function letter(c) { return String.fromCharCode(65 + c); }
  function render(i, c) {
    if (i !== cur) return;
    const seg = segs[i];
    const colEl = box.children[c];
    const text = colEl.querySelector('.cesa-text');
    text.textContent = '';
    const cps = Array.from(seg.targets[c]);
    const toks = seg.toks[c].tokens;
    let at = 0;
    const sel = (c === col) ? (anchor === null ? [caret, caret] : [Math.min(anchor, caret), Math.max(anchor, caret)]) : null;
    toks.forEach(function (t, k) {
      if (t.s > at) text.appendChild(document.createTextNode(cps.slice(at, t.s).join('')));
      const w = el('span', { cls: 'w', 'data-k': k, text: cps.slice(t.s, t.e).join('') });
      const sp = spanAt(i, c, k);
      if (sp) {
        w.classList.add('esa-' + sp.severity); w.title = sp.severity;
        if (k === toks.length - 1 || spanAt(i, c, k + 1) !== sp) { w.classList.add('span-end'); w.setAttribute('data-sev', sp.severity === 'major' ? 'Ma' : 'Mi'); }
      }
      if (sel && k >= sel[0] && k <= sel[1]) w.classList.add('cursor');
      text.appendChild(w);
      at = t.e;
    });
    if (at < cps.length) text.appendChild(document.createTextNode(cps.slice(at).join('')));
    const miss = el('span', { cls: 'w cesa-missing', 'data-k': toks.length, text: '[missing]' });
    const msp = spanAt(i, c, toks.length);
    if (msp) { miss.classList.add('esa-' + msp.severity, 'span-end'); miss.setAttribute('data-sev', msp.severity === 'major' ? 'Ma' : 'Mi'); }
    if (sel && sel[1] >= toks.length) miss.classList.add('cursor');
    text.appendChild(document.createTextNode(' '));
    text.appendChild(miss);
    const ul = colEl.querySelector('.cesa-spans');
    ul.textContent = '';
    answers[key(i, c)].data.spans.forEach(function (sp) {
      const what = sp.start === 'missing' ? '[missing]' : kit.spans.cpSlice(seg.targets[c], sp.start, sp.end + 1);
      ul.appendChild(el('li', { cls: 'sev-' + sp.severity }, [
        el('span', { cls: 'esa-sev esa-' + sp.severity, text: sp.severity === 'major' ? 'Ma' : 'Mi' }), ' ' + what + ' ',
        readonly ? null : el('button', { cls: 'mini', type: 'button', text: '×', title: 'remove', onclick: function () { unmark(i, c, sp); } })]));
    });
    const d = answers[key(i, c)].data;
    const slider = colEl.querySelector('input[type=range]');
    slider.value = d.score === null ? 50 : d.score;
    slider.classList.toggle('unset', d.score === null);
    colEl.querySelector('.cesa-value').textContent = d.score === null ? 'not scored' : String(d.score);
    colEl.querySelector('.cesa-warning').hidden = !lowWithoutSpan(i, c);
    colEl.classList.toggle('focused', c === col);
    renderCount();
  }
  function renderSegment() {
    const seg = segs[cur];
    document.getElementById('cesa-source').textContent = seg.source;
    document.getElementById('cesa-where').textContent = 'Segment ' + (cur + 1) + ' of ' + segs.length + ' (line ' + seg.label + ')';
    const ctx = document.getElementById('cesa-context');
    ctx.textContent = '';
    segs.forEach(function (s) {
      ctx.appendChild(el('p', { cls: s.i === cur ? 'now' : null, text: s.source, onclick: function () { go(s.i); } }));
    });
    for (let c = 0; c < cols; c++) render(cur, c);
  }
  function renderCount() {
    let done = 0;
    Object.keys(answers).forEach(function (k) { if (answers[k].data.score !== null) done++; });
    document.getElementById('cesa-count').textContent = done + ' of ' + segs.length * cols + ' translations scored';
  }
  for (let c = 0; c < cols; c++) {
    const slider = el('input', { type: 'range', min: '0', max: '100', step: '1', 'aria-label': 'Score of translation ' + letter(c) });
    if (readonly) slider.disabled = true;
    const c0 = c;
    slider.addEventListener('input', function () { setScore(cur, c0, parseInt(slider.value, 10)); });
    slider.addEventListener('keydown', function (ev) {
      if (ev.key === 'Enter' || ev.key === 'Escape') { ev.preventDefault(); ev.stopPropagation(); slider.blur(); root.focus(); }
    });
    const anchors = el('div', { cls: 'cesa-anchors' }, S.anchors.map(function (a) { return el('span', { text: a.value + ': ' + a.text }); }));
    box.appendChild(el('div', { cls: 'cesa-col', 'data-col': c }, [
      el('h3', { text: 'Translation ' + letter(c) }),
      el('div', { cls: 'cesa-text', dir: S.item.tgt_dir, lang: S.item.tgt_lang }),
      el('ul', { cls: 'cesa-spans' }),
      el('div', { cls: 'cesa-score' }, [slider, el('output', { cls: 'cesa-value' })]),
      anchors,
      el('p', { cls: 'cesa-warning', role: 'alert', hidden: 'hidden',
        text: '⚠ Score below ' + S.low_score + ' but no error marked: mark the errors that justify it, or check the score.' }),
    ]));
  }

  // ------------------------------------------------------------------ moving
  function go(i) {
    cur = Math.max(0, Math.min(segs.length - 1, i));
    caret = 0; anchor = null;
    renderSegment(); progress();
  }
  function focusCol(c) { col = Math.max(0, Math.min(cols - 1, c)); caret = 0; anchor = null; renderSegment(); }

  // ------------------------------------------------------------------ mouse
  const pop = document.getElementById('cesa-pop');
  function menu(x, y, c, a, b, existing) {
    pop.textContent = '';
    S.severities.forEach(function (s) {
      pop.appendChild(el('button', { type: 'button', cls: 'small esa-' + s.name, 'data-severity': s.name, text: s.letter + ' ' + s.name,
        onclick: function () { pop.hidden = true; mark(cur, c, a, b, s.name); } }));
    });
    if (existing) pop.appendChild(el('button', { type: 'button', cls: 'small remove', text: 'Remove',
      onclick: function () { pop.hidden = true; unmark(cur, c, existing); } }));
    pop.style.left = x + 'px'; pop.style.top = y + 'px';
    pop.hidden = false;
  }
  box.addEventListener('mouseup', function (ev) {
    if (readonly) return;
    const colEl = ev.target.closest('.cesa-col');
    const text = ev.target.closest('.cesa-text');
    if (!colEl || !text) return;
    const c = parseInt(colEl.getAttribute('data-col'), 10);
    if (c !== col) { col = c; }
    const selection = window.getSelection();
    let a, b;
    if (selection && !selection.isCollapsed && selection.rangeCount) {
      const hit = kit.spans.touched(selection.getRangeAt(0), text, '.w');
      selection.removeAllRanges();
      if (!hit) return;
      a = hit[0]; b = hit[1];
    } else if (ev.target.classList.contains('w')) {
      a = b = parseInt(ev.target.getAttribute('data-k'), 10);
    } else return;
    caret = a; anchor = null;
    renderSegment();
    menu(ev.pageX, ev.pageY + 8, c, a, b, a === b ? spanAt(cur, c, a) : null);
  });
  document.addEventListener('mousedown', function (ev) { if (!pop.contains(ev.target)) pop.hidden = true; });

  // ------------------------------------------------------------------ keyboard
  document.addEventListener('keydown', function (ev) {
    if (ev.target.tagName === 'INPUT' || ev.target.tagName === 'TEXTAREA' || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const n = segs[cur].toks[col].tokens.length + 1;   // the words and [missing]
    const k = ev.key;
    let done = true;
    if (k === 'j' || k === 'ArrowDown') go(cur + 1);
    else if (k === 'k' || k === 'ArrowUp') go(cur - 1);
    else if (k === 'l') focusCol(col + 1);
    else if (k === 'h') focusCol(col - 1);
    else if (k === 'ArrowRight' || k === 'ArrowLeft') {
      if (ev.shiftKey) { if (anchor === null) anchor = caret; } else anchor = null;
      caret = (caret + (k === 'ArrowRight' ? 1 : -1) + n) % n;
      render(cur, col);
    } else if (k === '1' || k === '2') {
      const a = anchor === null ? caret : Math.min(anchor, caret), b = anchor === null ? caret : Math.max(anchor, caret);
      mark(cur, col, a, b, k === '1' ? 'minor' : 'major'); anchor = null; render(cur, col);
    } else if (k === 'Delete' || k === 'Backspace') unmark(cur, col, spanAt(cur, col, caret));
    else if (k === 's') { if (!readonly) box.children[col].querySelector('input[type=range]').focus(); }
    else if (k === 'Enter') { if (!readonly) finish(); }
    else if (k === 'Escape') pop.hidden = true;
    else done = false;
    if (done) ev.preventDefault();
  });

  // ------------------------------------------------------------------ finish
  async function finish() {
    const low = [];
    segs.forEach(function (s) { for (let c = 0; c < cols; c++) if (lowWithoutSpan(s.i, c)) low.push(s.label + letter(c)); });
    const note = document.getElementById('finish-note');
    note.hidden = !low.length;
    note.textContent = low.length ? 'Note: ' + low.length + ' score(s) below ' + S.low_score + ' have no error marked (' + low.join(', ') + ').' : '';
    const ok = await Q.flush(15000);
    if (!ok) { toast('Not everything is saved yet; try again in a moment.', 'error'); return; }
    const resp = await Q.request('POST', S.urls.finish, {});
    const data = await resp.json().catch(function () { return {}; });
    const err = document.getElementById('finish-error');
    if (!resp.ok) { err.hidden = false; err.textContent = (data.error && data.error.message) || 'Could not finish.'; return; }
    finished = true;
    window.location.href = data.next || S.urls.list;
  }
  if (!readonly) document.getElementById('finish').addEventListener('click', finish);
  renderSegment();
  root.setAttribute('data-ready', '1');
  window.enfaceCesa = {   // (for tests and debugging)
    pending: function () { return Q ? Q.pending() : 0; },
    cursor: function () { return cur; },
    answer: function (i, c) { return JSON.parse(JSON.stringify(answers[key(i, c)].data)); },
  };
})();
