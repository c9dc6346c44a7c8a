/* Enface MQM annotation: facing pages, keyboard-first span marking, every change saved at once.
 *
 * The page embeds its state as JSON (#annotate-state): the item's segments, the annotator's
 * marks, the reading cursor, per-segment times, each segment's minimum reading time (dwell_ms)
 * and the scheme (categories with definitions and the sides they may be marked on, severities
 * with their short labels). Nothing in it names the system: the item is known by an opaque id.
 *
 * Marking: select words, press Enter (or drag with the mouse), choose a category, a subcategory
 * and a severity. Nothing is preselected at the severity step: the mark is saved when the
 * annotator chooses one (a number key or a click), never by Enter alone. A note is optional and
 * added afterwards, with C on a mark or its "+ note" button; it is saved as it is typed.
 * The category menu offers only what the scheme allows on the side of the selected words.
 *
 * Reading: a segment counts as read once the time spent on it reaches its dwell_ms (the server
 * applies the same rule to the times it receives, and refuses to finish an item with unread
 * segments).
 *
 * Saving: through the kit's AutosaveQueue (static/kit/autosave.js): each mark has a client-generated
 * UUID and a revision number; the server ignores a revision it has already seen, so retries are harmless.
 * Words, the selection, the reading clock and toasts are the kit's too (docs/development/client-kit.md).
 *
 * Offsets sent to the server are Unicode code points (Python str indices), not UTF-16 units.
 */
(function () {
  'use strict';

  const stateEl = document.getElementById('annotate-state');
  if (!stateEl) return;
  const S = JSON.parse(stateEl.textContent);
  const kit = window.EnfaceKit;
  const API = S.urls.api;
  const PENDING_KEY = 'enface:pending:' + S.item.id;
  const IDLE_MS = 90 * 1000;          // no key or mouse for this long: the clock stops
  const PROGRESS_EVERY_MS = 15 * 1000;
  const READ_CHECK_MS = 250;          // how often the current segment's reading time is checked
  const NOTE_SAVE_MS = 600;           // a note is saved this long after the last keystroke

  // ---------------------------------------------------------------- words (the kit's rule, the server's too)
  function tokenize(text) { return kit.spans.tokenize(text); }
  const cpSlice = kit.spans.cpSlice;

  // ---------------------------------------------------------------- state
  const segs = S.segments.map(function (seg, i) {
    return {
      i: i, source: seg.source, target: seg.target, label: seg.label,
      tok: { source: tokenize(seg.source), target: tokenize(seg.target) },
      row: null, cells: {}, marksEl: null,
    };
  });
  const dwell = segs.map(function (seg, i) { return (S.dwell_ms && S.dwell_ms[i]) || 0; });
  const marks = new Map();               // uuid -> mark

  let finished = !!S.item.finished;
  const readonly = !!S.readonly;
  let cur = Math.min(Math.max(S.cursor || 0, 0), segs.length - 1);
  let side = 'target';
  const wc = new kit.spans.WordCursor();   // word cursor (wc.k: token index in segs[cur].tok[side]) and selection anchor
  let focusUuid = null;                   // the mark under focus
  let popover = null;                     // the open popover's state
  const undoStack = [];
  const sevIndex = {};
  S.scheme.severities.forEach(function (s, i) { sevIndex[s.name] = i; });
  const NT = S.scheme.non_translation;   // {category, severity}

  // ---------------------------------------------------------------- helpers
  const $ = kit.dom.$, el = kit.dom.el;
  function segText(seg, sd) { return sd === 'source' ? seg.source : seg.target; }
  function marksOf(i) {
    return Array.from(marks.values()).filter(function (m) { return m.seg === i; })
      .sort(function (a, b) { return (a.side === b.side ? 0 : a.side === 'target' ? -1 : 1) || a.start - b.start || a.end - b.end; });
  }
  function isNT(m) { return m.category === NT.category; }
  function ntMark(i) { return marksOf(i).find(isNT) || null; }
  function catLabel(m) { return m.subcategory ? m.category + ' › ' + m.subcategory : m.category; }
  function dirOf(sd) { return sd === 'source' ? S.item.src_dir : S.item.tgt_dir; }
  function sevOf(name) { return S.scheme.severities[sevIndex[name]] || { name: name, short: '?', rank: 0 }; }
  function sevBadge(name, extra) {
    // a severity is drawn with its colour AND its letter(s), never by colour alone
    const s = sevOf(name);
    return el('span', { cls: 'sev rank-' + s.rank + (extra ? ' ' + extra : ''), title: s.name }, [
      el('b', { cls: 'sev-k', text: s.short || s.name.charAt(0) }), el('span', { cls: 'sev-name', text: s.name })]);
  }
  const toast = kit.toaster($('#toast'), 'toast');

  // ---------------------------------------------------------------- which categories go on which side (scheme data)
  // the categories offered for a span (Non-translation is a whole segment's, by its own key)
  const SPAN_CATEGORIES = S.scheme.categories.filter(function (c) { return c.name !== NT.category; });
  function sidesOf(c) { return c.sides || ['target']; }
  function subsFor(cat, sd) { return (cat.subcategories || []).filter(function (s) { return sidesOf(s).indexOf(sd) >= 0; }); }
  function offeredOn(cat, sd) { return cat.subcategories && cat.subcategories.length ? subsFor(cat, sd).length > 0 : sidesOf(cat).indexOf(sd) >= 0; }
  function catsFor(sd) { return SPAN_CATEGORIES.filter(function (c) { return offeredOn(c, sd); }); }
  function findCat(name) { return S.scheme.categories.find(function (c) { return c.name === name; }); }

  // ---------------------------------------------------------------- reading: a segment is read after its dwell time
  const clock = new kit.ReadingClock({ times: S.times, idleMs: IDLE_MS, dwell: dwell,
    running: function () { return !finished && !readonly; } });
  const times = clock.times;
  function isRead(i) { return clock.isRead(i); }
  function readCount() { return clock.readCount(); }
  function unreadList() { return clock.unread().map(function (i) { return segs[i]; }); }

  // ---------------------------------------------------------------- saving (autosave.js)
  const Q = new AutosaveQueue({
    key: PENDING_KEY, csrfToken: kit.csrf.token(), statusEl: readonly ? null : $('#save-status'),
    onSaved: function (op, data) { if (data && data.mark) Q.seenRev(data.mark.uuid, data.mark.rev); },
    onRefused: async function (op, status, data) {
      const msg = (data && data.error && data.error.message) || ('The server refused the change (HTTP ' + status + ')');
      toast(msg, 'error');
      if (data && data.error && data.error.code === 'item_finished') lockFinished();
      await reload();
    },
    onHide: function () { if (!readonly && !finished) queueProgress(); },
  });
  function markUrl(uuid) { return API + '/marks/' + uuid; }

  S.marks.forEach(function (m) { Q.seenRev(m.uuid, m.rev); if (!m.deleted) marks.set(m.uuid, m); });

  function applyQueued() {
    // Changes still queued (also those a closed tab left behind) win over what the server has:
    // their revisions are the newest known. Reading times only grow: the larger one wins.
    Q.ops().forEach(function (op) {
      if (op.key === 'progress') {
        clock.merge(op.body.times);
        return;
      }
      if (op.key.indexOf('mark:') !== 0) return;
      const uuid = op.key.slice(5);
      if (op.method === 'PUT') marks.set(uuid, Object.assign({ uuid: uuid }, op.body));
      else marks.delete(uuid);
      Q.seenRev(uuid, op.body.rev);
    });
  }
  applyQueued();

  function progressBody() {
    clock.tick();
    return { cursor: cur, furthest: clock.furthest(), times: Object.assign({}, times) };
  }
  function queueProgress() {
    if (readonly || finished) return;
    clock.dirty = false;
    Q.post(API + '/progress', progressBody, { key: 'progress', quiet: true });
  }

  async function reload() {
    try {
      const res = await Q.request('GET', API);
      if (!res.ok) return;
      const data = await res.json();
      marks.clear();
      data.marks.forEach(function (m) { Q.seenRev(m.uuid, m.rev); if (!m.deleted) marks.set(m.uuid, m); });
      applyQueued();
      if (data.item.finished) lockFinished();
      segs.forEach(function (s) { renderSeg(s.i); });
      updateCursor(false);
    } catch (e) { /* offline: keep what we have */ }
  }

  // ---------------------------------------------------------------- rendering
  function renderAll() {
    const body = $('#facing');
    body.textContent = '';
    segs.forEach(function (seg) {
      const num = el('div', { cls: 'segnum', text: String(seg.label) });
      const src = el('div', { cls: 'text src', dir: S.item.src_dir, lang: S.item.src_lang, 'data-side': 'source' });
      const tgt = el('div', { cls: 'text tgt', dir: S.item.tgt_dir, lang: S.item.tgt_lang, 'data-side': 'target' });
      const marksEl = el('ul', { cls: 'marks', 'aria-label': 'Marks in segment ' + seg.label });
      const row = el('section', { cls: 'seg', id: 'seg-' + seg.i, 'data-seg': seg.i }, [num, src, tgt, marksEl]);
      seg.row = row; seg.cells = { source: src, target: tgt }; seg.marksEl = marksEl;
      body.appendChild(row);
      renderSeg(seg.i);
    });
    updateCursor(false);
  }

  function renderText(seg, sd) {
    const cell = seg.cells[sd];
    const text = segText(seg, sd);
    const tk = seg.tok[sd].tokens;
    cell.textContent = '';
    const ms = marksOf(seg.i).filter(function (m) { return m.side === sd && !isNT(m); });
    // the last token of each mark carries the severity letters (drawn after it by CSS)
    const ends = {};
    ms.forEach(function (m) {
      let last = -1;
      tk.forEach(function (t, k) { if (m.start < t.e && t.s < m.end) last = k; });
      if (last >= 0) (ends[last] = ends[last] || []).push(m);
    });
    let last = 0;
    tk.forEach(function (t, k) {
      if (t.a16 > last) {
        // the gap between two words of one mark is highlighted with them
        const prev = tk[k - 1];
        const inMark = prev && ms.filter(function (m) { return m.start < prev.e && m.end > t.s; });
        if (inMark && inMark.length) {
          const w = Math.max.apply(null, inMark.map(function (m) { return sevOf(m.severity).rank; }));
          cell.appendChild(el('span', { cls: 'gap marked rank-' + w, text: text.slice(last, t.a16) }));
        } else {
          cell.appendChild(document.createTextNode(text.slice(last, t.a16)));
        }
      }
      const span = el('span', { cls: 'tok', 'data-k': k, text: text.slice(t.a16, t.b16) });
      let worst = -1, count = 0;
      ms.forEach(function (m) {
        if (m.start < t.e && t.s < m.end) {
          count++;
          const w = sevOf(m.severity).rank;
          if (w > worst) worst = w;
          if (m.uuid === focusUuid) span.classList.add('focus');
        }
      });
      if (count) {
        span.classList.add('marked', 'rank-' + worst);
        if (count > 1) span.classList.add('multi');
      }
      if (ends[k]) {
        const endRank = Math.max.apply(null, ends[k].map(function (m) { return sevOf(m.severity).rank; }));
        span.classList.add('mark-end', 'end-rank-' + endRank);
        span.setAttribute('data-sev', ends[k].map(function (m) { return sevOf(m.severity).short; }).join('·'));
      }
      cell.appendChild(span);
      last = t.b16;
    });
    if (last < text.length) cell.appendChild(document.createTextNode(text.slice(last)));
    if (!text.length) cell.appendChild(el('span', { cls: 'empty', text: '(empty)' }));
  }

  function renderMarks(seg) {
    const ul = seg.marksEl;
    ul.textContent = '';
    const editable = !(finished || readonly);
    marksOf(seg.i).forEach(function (m, n) {
      const quote = isNT(m) ? null : el('q', {}, [el('bdi', { text: m.text, dir: dirOf(m.side) })]);
      const where = m.side === 'source' ? el('span', { cls: 'side', text: 'source' }) : null;
      let note = null;
      if (m.note) {
        note = editable
          ? el('button', { type: 'button', cls: 'note', title: 'Edit the note (C)', text: m.note,
            onclick: function (ev) { ev.stopPropagation(); focusMark(m.uuid); openNote(m.uuid); } })
          : el('span', { cls: 'note', text: m.note });
      } else if (editable) {
        note = el('button', { type: 'button', cls: 'mini add-note', title: 'Add a note (C)', 'aria-label': 'Add a note', text: '+ note',
          onclick: function (ev) { ev.stopPropagation(); focusMark(m.uuid); openNote(m.uuid); } });
      }
      const btns = editable ? [
        isNT(m) ? null : el('button', { type: 'button', cls: 'mini', title: 'Edit (E)', 'aria-label': 'Edit mark', text: '✎',
          onclick: function (ev) { ev.stopPropagation(); focusMark(m.uuid); openPopover({ edit: m }); } }),
        el('button', { type: 'button', cls: 'mini', title: 'Delete (X)', 'aria-label': 'Delete mark', text: '×',
          onclick: function (ev) { ev.stopPropagation(); deleteMark(m.uuid); } }),
      ] : [];
      const li = el('li', { cls: 'mark' + (m.uuid === focusUuid ? ' focus' : '') + (isNT(m) ? ' nt' : ''), 'data-uuid': m.uuid,
        'data-severity': m.severity,
        onclick: function () { setCurrent(seg.i); focusMark(m.uuid, true); } },
      [el('span', { cls: 'n', text: String(n + 1) }), sevBadge(m.severity), el('span', { cls: 'cat', text: catLabel(m) }), where, quote, note].concat(btns));
      ul.appendChild(li);
    });
    seg.row.classList.toggle('is-nt', !!ntMark(seg.i));
  }

  function renderSeg(i) {
    const seg = segs[i];
    renderText(seg, 'source');
    renderText(seg, 'target');
    renderMarks(seg);
    paintCursor();
  }

  function paintCursor() {
    document.querySelectorAll('.tok.cursor, .tok.sel').forEach(function (t) { t.classList.remove('cursor', 'sel'); });
    const seg = segs[cur];
    if (!seg || !seg.cells[side] || finished || readonly) return;   // (not rendered yet)
    const cell = seg.cells[side];
    const tks = cell.querySelectorAll('.tok');
    if (!tks.length) return;
    wc.k = Math.min(Math.max(wc.k, 0), tks.length - 1);
    if (wc.anchor != null) {
      const r = wc.range();
      for (let k = r[0]; k <= r[1]; k++) tks[k].classList.add('sel');
    }
    tks[wc.k].classList.add('cursor');
  }

  function updateCursor(scroll) {
    segs.forEach(function (seg) {
      seg.row.classList.toggle('current', seg.i === cur);
      seg.row.classList.toggle('seen', isRead(seg.i));
      seg.cells.source.classList.toggle('active-side', seg.i === cur && side === 'source');
      seg.cells.target.classList.toggle('active-side', seg.i === cur && side === 'target');
    });
    paintCursor();
    const done = readCount();
    $('#progress-bar').style.width = (100 * done / segs.length).toFixed(1) + '%';
    $('#progress-text').textContent = 'Segment ' + segs[cur].label + (isRead(cur) || readonly || finished ? '' : ' (reading…)') +
      ' · read ' + done + ' of ' + segs.length;
    $('#progress').setAttribute('aria-valuenow', String(done));
    $('#side-label').textContent = side === 'target' ? 'translation' : 'source';
    $('#mark-count').textContent = String(marks.size);
    if (scroll) {
      const r = segs[cur].row.getBoundingClientRect();
      const top = $('#topbar').getBoundingClientRect().bottom;
      if (r.top < top + 8 || r.bottom > window.innerHeight - 60) {
        window.scrollBy({ top: r.top - top - window.innerHeight * 0.25, behavior: 'auto' });
      }
    }
  }

  // ---------------------------------------------------------------- reading cursor and timing
  clock.at(cur);

  function checkRead() {
    // the current segment becomes read once its time reaches its dwell: show it, and tell the server
    if (readonly || finished) return;
    const before = isRead(cur);
    clock.tick();
    if (!before && isRead(cur)) { updateCursor(false); queueProgress(); }
  }

  function setCurrent(i, opts) {
    i = Math.min(Math.max(i, 0), segs.length - 1);
    if (i === cur && !(opts && opts.force)) return;
    clock.at(i);
    cur = i;
    wc.reset(opts && opts.wordK != null ? opts.wordK : 0);
    side = (opts && opts.side) || 'target';   // each segment starts in the translation
    const ms = marksOf(i);
    if (!ms.some(function (m) { return m.uuid === focusUuid; })) focusUuid = null;
    updateCursor(!(opts && opts.noscroll));
    refreshFocus();
    queueProgress();
  }

  // ---------------------------------------------------------------- word cursor and selection
  function tokCount(i, sd) { return segs[i].tok[sd].tokens.length; }

  function moveWord(delta, extend) {
    const n = tokCount(cur, side);
    if (!n) return;
    wc.move(delta, extend, n);
    focusFromCursor();
    paintCursor();
  }

  function focusFromCursor() {
    const t = segs[cur].tok[side].tokens[wc.k];
    if (!t) return;
    const m = marksOf(cur).find(function (m) { return m.side === side && !isNT(m) && m.start < t.e && t.s < m.end; });
    const next = m ? m.uuid : null;
    if (next !== focusUuid) { focusUuid = next; renderSeg(cur); }
  }

  function selectionSpan() {
    const tk = segs[cur].tok[side].tokens;
    if (!tk.length) return null;
    const r = wc.range(), a = r[0], b = r[1];
    return { seg: cur, side: side, start: tk[a].s, end: tk[b].e };
  }

  function switchSide() {
    side = side === 'target' ? 'source' : 'target';
    wc.reset(0);
    focusFromCursor();
    updateCursor(false);
  }

  function focusMark(uuid, moveCursor) {
    focusUuid = uuid;
    const m = marks.get(uuid);
    if (m && moveCursor && !isNT(m)) {
      side = m.side;
      const k = segs[m.seg].tok[side].tokens.findIndex(function (t) { return t.e > m.start; });
      wc.reset(Math.max(k, 0));
    }
    refreshFocus();
  }

  function refreshFocus() {
    segs.forEach(function (seg) {
      const has = seg.row.querySelector('.tok.focus, .mark.focus');
      const wants = focusUuid && marks.has(focusUuid) && marks.get(focusUuid).seg === seg.i;
      if (has || wants) renderSeg(seg.i);
    });
    updateCursor(false);
  }

  function cycleMark(delta) {
    const ms = marksOf(cur);
    if (!ms.length) { toast('No marks in this segment'); return; }
    let k = ms.findIndex(function (m) { return m.uuid === focusUuid; });
    k = k < 0 ? (delta > 0 ? 0 : ms.length - 1) : (k + delta + ms.length) % ms.length;
    focusMark(ms[k].uuid, true);
  }

  // ---------------------------------------------------------------- the classification popover
  const KEYS = '123456789abcdefghijklmnopqrstuvwxyz';

  function openPopover(opts) {
    if (finished || readonly) return;
    closePopover();
    let span, init = {};
    if (opts.edit) {
      const m = opts.edit;
      span = { seg: m.seg, side: m.side, start: m.start, end: m.end };
      init = { cat: m.category, sub: m.subcategory, sev: m.severity };
    } else {
      span = opts.span || selectionSpan();
      if (!span) { toast('Nothing to mark in this segment'); return; }
      const om = S.scheme.omission;
      if (om && span.side === 'source') {
        const c = findCat(om.category);
        if (c && subsFor(c, 'source').some(function (s) { return s.name === om.subcategory; })) init = { cat: om.category, sub: om.subcategory };
      }
    }
    if (!catsFor(span.side).length) {
      toast('This scheme has no error to mark in the ' + (span.side === 'source' ? 'source' : 'translation'), 'error');
      return;
    }
    span.text = cpSlice(segText(segs[span.seg], span.side), span.start, span.end);
    popover = { mode: 'classify', span: span, edit: opts.edit || null, step: 'cat', cat: init.cat || null,
      sub: init.sub || '', sev: init.sev || null, hi: 0 };
    popover.hi = Math.max(0, catsFor(span.side).findIndex(function (c) { return c.name === popover.cat; }));
    renderPopover();
  }

  function closePopover() {
    if (popover && popover.mode === 'note') { finishNote(popover, false); return; }
    popover = null;
    const p = $('#popover');
    p.hidden = true;
    p.textContent = '';
    p.className = '';
  }

  function popoverOptions() {
    const p = popover;
    if (p.step === 'cat') {
      return catsFor(p.span.side).map(function (c) { return { name: c.name, def: c.definition, ex: c.example, value: c }; });
    }
    if (p.step === 'sub') {
      return subsFor(findCat(p.cat), p.span.side).map(function (c) { return { name: c.name, def: c.definition, ex: c.example, value: c }; });
    }
    if (p.step === 'sev') {
      return S.scheme.severities.map(function (s) { return { name: s.name, def: s.description, value: s, sev: s }; });
    }
    return [];
  }

  function renderPopover() {
    const p = popover;
    const box = $('#popover');
    box.textContent = '';
    box.hidden = false;
    box.className = 'step-' + p.step;
    const titles = { cat: 'Category', sub: 'Subcategory', sev: 'Severity' };
    const crumbs = [p.cat, p.step === 'sev' ? p.sub : null].filter(Boolean).join(' › ');
    box.appendChild(el('div', { cls: 'pop-head' }, [
      el('strong', { text: (p.edit ? 'Edit mark: ' : 'Mark: ') + titles[p.step] }),
      el('span', { cls: 'crumbs', text: crumbs }),
    ]));
    box.appendChild(el('div', { cls: 'pop-quote' }, [
      p.span.side === 'source' ? el('span', { cls: 'side', text: 'source' }) : null,
      el('q', {}, [el('bdi', { text: p.span.text, dir: dirOf(p.span.side) })])]));
    const opts = popoverOptions();
    const list = el('ol', { cls: 'pop-list', role: 'listbox', 'aria-label': titles[p.step] });
    opts.forEach(function (o, k) {
      const selected = (p.step === 'cat' && o.name === p.cat) || (p.step === 'sub' && o.name === p.sub) ||
        (p.step === 'sev' && o.name === p.sev);
      const name = o.sev
        ? el('span', { cls: 'opt-name' }, [sevBadge(o.name, 'opt-sev')])
        : el('span', { cls: 'opt-name', text: o.name });
      const li = el('li', { cls: 'opt' + (selected ? ' chosen' : ''), role: 'option', 'aria-selected': 'false',
        'data-name': o.name,
        onmousedown: function (ev) { ev.preventDefault(); choose(k); },
        onmouseenter: function () { p.hi = k; markHi(); } }, [
        el('kbd', { text: KEYS[k] }), name,
        o.def ? el('span', { cls: 'opt-def', text: o.def }) : null,
      ]);
      list.appendChild(li);
    });
    box.appendChild(list);
    box.appendChild(el('div', { cls: 'pop-example', id: 'pop-example' }));
    const range = KEYS[0] + '–' + KEYS[Math.max(opts.length - 1, 0)];
    box.appendChild(el('div', { cls: 'pop-keys', id: 'pop-keys', text: p.step === 'sev'
      ? 'Choose the severity: ' + range + ' (or click). It is saved at once; add a note afterwards with C. · Backspace: back · Esc: cancel'
      : range + ' or ↑↓ Enter: choose · Backspace: back · Esc: cancel' }));
    markHi();
    placePopover();
  }

  function markHi() {
    const items = document.querySelectorAll('#popover .opt');
    items.forEach(function (li, k) { li.classList.toggle('hi', k === popover.hi); li.setAttribute('aria-selected', k === popover.hi ? 'true' : 'false'); });
    const o = popoverOptions()[popover.hi];
    const ex = $('#pop-example');
    if (!ex) return;
    // the highlighted option in full: its definition and example (the list shows one line of each)
    ex.textContent = '';
    if (o && (o.def || o.ex)) {
      ex.appendChild(el('b', { text: o.name + ': ' }));
      ex.appendChild(document.createTextNode(o.def || ''));
      if (o.ex) { ex.appendChild(el('br')); ex.appendChild(el('i', { text: 'Example: ' })); ex.appendChild(document.createTextNode(o.ex)); }
    }
  }

  function placePopover() {
    const box = $('#popover');
    const sp = popover.span;
    const cell = segs[sp.seg].cells[sp.side];
    const tks = cell.querySelectorAll('.tok.sel, .tok.cursor, .tok.focus');
    const anchorEl = function () { return tks.length ? tks[tks.length - 1] : cell; };
    let anchor = anchorEl().getBoundingClientRect();
    const w = box.offsetWidth, h = box.offsetHeight;
    const topLimit = $('#topbar').getBoundingClientRect().bottom + 8;
    const need = anchor.bottom + 6 + h + 8 - window.innerHeight;   // missing room below the marked words
    if (need > 0 && anchor.top - h - 6 < topLimit) {
      // neither below nor above fits: scroll the marked words up so that the menu fits below them
      window.scrollBy(0, Math.min(need + 4, anchor.top - topLimit - 4));
      anchor = anchorEl().getBoundingClientRect();
    }
    const left = Math.min(Math.max(8, anchor.left), window.innerWidth - w - 8);
    let top = anchor.bottom + 6;
    if (top + h > window.innerHeight - 8) top = Math.max(topLimit, anchor.top - h - 6);
    box.style.left = left + 'px';
    box.style.top = top + 'px';
  }

  function choose(k) {
    const p = popover;
    const o = popoverOptions()[k];
    if (!o) return;
    if (p.step === 'cat') {
      if (p.cat !== o.name) p.sub = '';
      p.cat = o.name;
      p.step = subsFor(o.value, p.span.side).length ? 'sub' : 'sev';
    } else if (p.step === 'sub') {
      p.sub = o.name; p.step = 'sev';
    } else if (p.step === 'sev') {
      p.sev = o.name;
      saveFromPopover();      // the severity is the last choice: saved now, no note step in the way
      return;
    }
    p.hi = stepHi(p);
    renderPopover();
  }

  function stepHi(p) {
    // the option highlighted on entering a step: the current choice; at the severity step of a new
    // mark nothing is (-1): Enter alone must not pick a severity
    const want = p.step === 'cat' ? p.cat : p.step === 'sub' ? p.sub : p.sev;
    const idx = popoverOptions().findIndex(function (x) { return x.name === want; });
    if (p.step === 'sev') return idx;
    return Math.max(idx, 0);
  }

  function back() {
    const p = popover;
    if (p.step === 'sev') {
      const cat = findCat(p.cat);
      p.step = cat && subsFor(cat, p.span.side).length ? 'sub' : 'cat';
    } else if (p.step === 'sub') p.step = 'cat';
    else { closePopover(); return; }
    p.hi = stepHi(p);
    renderPopover();
  }

  function needChoice() {
    const hint = $('#pop-keys');
    if (!hint) return;
    hint.classList.remove('need');
    void hint.offsetWidth;     // restart the animation
    hint.classList.add('need');
  }

  function popoverKey(ev) {
    const p = popover;
    if (p.mode === 'note') { noteKey(ev); return; }
    const opts = popoverOptions();
    if (ev.key === 'Escape') { ev.preventDefault(); closePopover(); return; }
    if (ev.key === 'Backspace' || (ev.key === 'Tab' && ev.shiftKey)) { ev.preventDefault(); back(); return; }
    if (ev.key === 'ArrowDown') { ev.preventDefault(); p.hi = p.hi < 0 ? 0 : (p.hi + 1) % opts.length; markHi(); return; }
    if (ev.key === 'ArrowUp') { ev.preventDefault(); p.hi = p.hi < 0 ? opts.length - 1 : (p.hi - 1 + opts.length) % opts.length; markHi(); return; }
    if (ev.key === 'Enter') {
      ev.preventDefault();
      if (p.hi < 0) needChoice(); else choose(p.hi);
      return;
    }
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const k = KEYS.indexOf(ev.key.toLowerCase());
    if (k >= 0 && k < opts.length) { ev.preventDefault(); choose(k); return; }
    ev.preventDefault();       // nothing else leaks out of the menu (J, K, ... do nothing while it is open)
  }

  function saveFromPopover() {
    const p = popover;
    const sp = p.span;
    const m = p.edit ? Object.assign({}, marks.get(p.edit.uuid) || p.edit)
      : { uuid: AutosaveQueue.uuid(), seg: sp.seg, side: sp.side, start: sp.start, end: sp.end, text: sp.text, note: '' };
    m.category = p.cat; m.subcategory = p.sub || ''; m.severity = p.sev;
    m.rev = Q.nextRev(m.uuid);
    closePopover();
    putMark(m);
    wc.anchor = null;
    focusUuid = m.uuid;
    renderSeg(m.seg);
    toast((p.edit ? 'Changed: ' : 'Marked: ') + catLabel(m) + ' · ' + m.severity + (m.note ? '' : ' · C adds a note'));
  }

  // ---------------------------------------------------------------- notes: optional, off the keystroke path
  function normNote(v) { return v.replace(/[\t\r\n]+/g, ' ').trim(); }

  function openNote(uuid) {
    if (finished || readonly) return;
    const m = marks.get(uuid);
    if (!m) return;
    closePopover();
    popover = { mode: 'note', uuid: uuid, original: m.note || '', timer: null,
      span: isNT(m) ? { seg: m.seg, side: 'target' } : { seg: m.seg, side: m.side } };
    const box = $('#popover');
    box.textContent = '';
    box.hidden = false;
    box.className = 'step-note';
    box.appendChild(el('div', { cls: 'pop-head' }, [
      el('strong', { text: m.note ? 'Edit the note' : 'Add a note' }),
      el('span', { cls: 'crumbs' }, [sevBadge(m.severity), ' ' + catLabel(m)]),
    ]));
    if (!isNT(m)) {
      box.appendChild(el('div', { cls: 'pop-quote' }, [
        m.side === 'source' ? el('span', { cls: 'side', text: 'source' }) : null,
        el('q', {}, [el('bdi', { text: m.text, dir: dirOf(m.side) })])]));
    }
    const input = el('textarea', { id: 'pop-note', rows: '2', maxlength: '2000', 'aria-label': 'Note',
      placeholder: 'A note for the organizers (optional), e.g. a better translation' });
    input.value = m.note || '';
    input.addEventListener('input', function () {
      clearTimeout(popover.timer);
      const p = popover;
      p.timer = setTimeout(function () { saveNote(p, input.value); }, NOTE_SAVE_MS);
    });
    box.appendChild(input);
    box.appendChild(el('div', { cls: 'pop-actions' }, [
      el('button', { type: 'button', cls: 'primary', text: 'Done (Enter)', onclick: function () { finishNote(popover, false); } }),
      el('button', { type: 'button', text: 'Cancel (Esc)', onclick: function () { finishNote(popover, true); } }),
    ]));
    box.appendChild(el('div', { cls: 'pop-keys', text: 'Saved as you type · Enter: done · Esc: undo the changes' }));
    placePopover();
    input.focus();
    input.setSelectionRange(input.value.length, input.value.length);
  }

  function saveNote(p, value) {
    const m = marks.get(p.uuid);
    const note = normNote(value);
    if (!m || (m.note || '') === note) return;
    const next = Object.assign({}, m, { note: note, rev: Q.nextRev(m.uuid) });
    putMark(next);
    renderMarks(segs[m.seg]);
  }

  function finishNote(p, revert) {
    if (!p || p.mode !== 'note') return;
    clearTimeout(p.timer);
    const input = $('#pop-note');
    if (revert) saveNote(p, p.original);
    else if (input) saveNote(p, input.value);
    popover = null;
    const box = $('#popover');
    box.hidden = true; box.textContent = ''; box.className = '';
    const m = marks.get(p.uuid);
    if (m) {
      focusUuid = m.uuid;
      renderSeg(m.seg);
      if (!revert && (m.note || '') !== p.original) toast(m.note ? 'Note saved' : 'Note removed');
    }
  }

  function noteKey(ev) {
    if (ev.key === 'Enter' && !ev.shiftKey) { ev.preventDefault(); finishNote(popover, false); }
    else if (ev.key === 'Escape') { ev.preventDefault(); finishNote(popover, true); }
    else if (ev.key === 'Tab') { ev.preventDefault(); }
    // every other key types into the note (the field was opened on purpose, by C or a click)
  }

  // ---------------------------------------------------------------- mark operations
  function putMark(m) {
    m.deleted = false;
    marks.set(m.uuid, m);
    Q.put(markUrl(m.uuid), markBody(m), { key: 'mark:' + m.uuid });
    $('#mark-count').textContent = String(marks.size);
  }
  function markBody(m) {
    return { rev: m.rev, seg: m.seg, side: m.side, start: m.start, end: m.end, text: m.text, category: m.category,
      subcategory: m.subcategory, severity: m.severity, note: m.note || '' };
  }

  function deleteMark(uuid) {
    if (finished || readonly) return;
    const m = marks.get(uuid);
    if (!m) return;
    const rev = Q.nextRev(uuid);
    marks.delete(uuid);
    undoStack.push(Object.assign({}, m));
    Q.delete(markUrl(uuid), { rev: rev }, { key: 'mark:' + uuid });
    if (focusUuid === uuid) focusUuid = null;
    renderSeg(m.seg);
    $('#mark-count').textContent = String(marks.size);
    toast('Deleted ' + catLabel(m) + ' · press U to undo');
  }

  function undoDelete() {
    if (finished || readonly) return;
    const m = undoStack.pop();
    if (!m) { toast('Nothing to undo'); return; }
    m.rev = Q.nextRev(m.uuid);
    putMark(m);
    focusUuid = m.uuid;
    setCurrent(m.seg);
    renderSeg(m.seg);
    toast('Restored ' + catLabel(m));
  }

  function toggleNonTranslation() {
    if (finished || readonly) return;
    const existing = ntMark(cur);
    if (existing) { deleteMark(existing.uuid); return; }
    const seg = segs[cur];
    const uuid = AutosaveQueue.uuid();
    const m = { uuid: uuid, seg: cur, side: 'target', start: 0, end: seg.tok.target.length, text: seg.target,
      category: NT.category, subcategory: '', severity: NT.severity, note: '' };
    if (!m.end) { toast('An empty translation cannot be marked as Non-translation', 'error'); return; }
    m.rev = Q.nextRev(uuid);
    putMark(m);
    renderSeg(cur);
    toast('Segment ' + seg.label + ' marked as Non-translation (N again to undo)');
  }

  // ---------------------------------------------------------------- finishing
  function openFinish() {
    if (finished || readonly) return;
    closePopover();
    clock.tick();
    const dlg = $('#finish-dialog');
    const unread = unreadList();
    const goBtn = $('#finish-goto');
    if (unread.length) {
      const names = unread.slice(0, 12).map(function (s) { return s.label; }).join(', ') +
        (unread.length > 12 ? ' and ' + (unread.length - 12) + ' more' : '');
      $('#finish-summary').textContent = unread.length + ' segment(s) not read yet: ' + names + '. ' +
        'A segment counts as read (✓ next to its number) once you have spent its reading time on it: its words at ' +
        (S.words_per_second || 20) + ' words a second. Go back to them before finishing.';
      goBtn.hidden = false;
      goBtn.textContent = 'Go to segment ' + unread[0].label;
      goBtn.dataset.seg = String(unread[0].i);
    } else {
      $('#finish-summary').textContent = marks.size + ' mark(s) in ' + segs.length + ' segments. Segments without marks count as error-free. ' +
        'After finishing you cannot change this item.';
      goBtn.hidden = true;
    }
    $('#finish-confirm').disabled = unread.length > 0;
    dlg.hidden = false;
    (unread.length ? goBtn : $('#finish-confirm')).focus();
  }
  function closeFinish() { $('#finish-dialog').hidden = true; }

  async function confirmFinish() {
    closeFinish();
    $('#save-status').className = 'save-status saving';
    $('#save-status').textContent = 'Finishing…';
    queueProgress();
    const saved = await Q.flush(20000);
    if (!saved) { Q.showStatus(); toast('Some changes are not saved yet; try again in a moment.', 'error'); return; }
    let res, data;
    try { res = await Q.request('POST', API + '/finish', {}); data = await res.json().catch(function () { return null; }); }
    catch (e) { toast('Could not reach the server; try again.', 'error'); Q.showStatus(); return; }
    Q.showStatus();
    if (!res.ok) { toast((data && data.error && data.error.message) || 'Could not finish', 'error'); return; }
    lockFinished(data && data.next);
    // the banner with "Go to the next item" is at the top of the page: bring it into view, the link focused
    const banner = $('#finished-banner');
    if (banner) banner.scrollIntoView({ block: 'center' });
    if (!$('#next-link').hidden) $('#next-link').focus({ preventScroll: true });
    toast('Item finished. Thank you!');
  }

  function lockFinished(next) {
    finished = true;
    closePopover();
    document.body.classList.add('finished');
    ['#finish-btn', '#side-btn', '#nt-btn'].forEach(function (id) { if ($(id)) $(id).disabled = true; });
    $('.side-now').hidden = true;
    const banner = $('#finished-banner');
    if (banner) banner.hidden = false;
    if (next && $('#next-link')) { const a = $('#next-link'); a.href = next; a.hidden = false; }
    segs.forEach(function (s) { renderSeg(s.i); });
    updateCursor(false);
    const st = $('#save-status');
    st.className = 'save-status saved';
    st.textContent = 'Finished · read-only';
  }

  // ---------------------------------------------------------------- keyboard
  function onKey(ev) {
    clock.activity();
    if (!$('#finish-dialog').hidden) {
      if (ev.key === 'Escape') { ev.preventDefault(); closeFinish(); }
      else if (ev.key === 'Enter' && !$('#finish-confirm').disabled && document.activeElement === $('#finish-confirm')) { ev.preventDefault(); confirmFinish(); }
      return;
    }
    if (popover) { popoverKey(ev); return; }
    const tag = (ev.target && ev.target.tagName) || '';
    if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT') return;
    if (ev.ctrlKey || ev.metaKey || ev.altKey) {
      if ((ev.ctrlKey || ev.metaKey) && ev.key.toLowerCase() === 'z') { ev.preventDefault(); undoDelete(); }
      return;
    }
    const rtl = dirOf(side) === 'rtl';
    const key = ev.key;
    const editable = !(finished || readonly);
    let handled = true;
    switch (key) {
      case 'ArrowDown': case 'j': case 'J': setCurrent(cur + 1); break;
      case 'ArrowUp': case 'k': case 'K': setCurrent(cur - 1); break;
      case 'ArrowRight': moveWord(rtl ? -1 : 1, ev.shiftKey); break;
      case 'ArrowLeft': moveWord(rtl ? 1 : -1, ev.shiftKey); break;
      case 'l': moveWord(1, false); break;
      case 'L': moveWord(1, true); break;
      case 'h': moveWord(-1, false); break;
      case 'H': moveWord(-1, true); break;
      case 'Home': moveWord(-1e6, ev.shiftKey); break;
      case 'End': moveWord(1e6, ev.shiftKey); break;
      case 'Tab': if (!editable) { handled = false; } else switchSide(); break;
      case 'Enter': case 'm': case 'M': if (editable) openPopover({}); else handled = false; break;
      case 'Escape': wc.anchor = null; focusUuid = null; refreshFocus(); break;
      case '[': cycleMark(-1); break;
      case ']': cycleMark(1); break;
      case 'e': case 'E': {
        if (!editable) break;
        const m = focusUuid && marks.get(focusUuid);
        if (!m) toast('Move onto a mark (or press ] ) to edit it');
        else if (isNT(m)) toast('Non-translation has no category to edit: press N to remove it');
        else openPopover({ edit: m });
        break;
      }
      case 'c': case 'C': {
        if (!editable) break;
        if (focusUuid && marks.get(focusUuid)) openNote(focusUuid);
        else toast('Move onto a mark (or press ] ) to add a note to it');
        break;
      }
      case 'x': case 'X': case 'Delete': case 'Backspace':
        if (!editable) break;
        if (focusUuid) deleteMark(focusUuid); else toast('Move onto a mark (or press ] ) to delete it');
        break;
      case 'u': case 'U': undoDelete(); break;
      case 'n': case 'N': toggleNonTranslation(); break;
      case '?': toggleHelp(); break;
      case 'F': openFinish(); break;
      default: handled = false;
    }
    if (handled) ev.preventDefault();
  }

  function toggleHelp() {
    const h = $('#keys');
    h.classList.toggle('expanded');
  }

  // ---------------------------------------------------------------- mouse
  function tokenAt(node) {
    while (node && node.nodeType !== 1) node = node.parentNode;
    return node && node.closest ? node.closest('.tok') : null;
  }

  function onMouseUp(ev) {
    clock.activity();
    if (popover && ev.target.closest && ev.target.closest('#popover')) return;
    const cell = ev.target.closest && ev.target.closest('.text');
    if (!cell) {
      // a click elsewhere in a segment's row (its number, its marks' gaps) moves the reading cursor there
      const r = ev.target.closest && ev.target.closest('.seg');
      if (r && !ev.target.closest('button, .mark')) setCurrent(Number(r.dataset.seg), { noscroll: true });
      return;
    }
    const row = cell.closest('.seg');
    const i = Number(row.dataset.seg);
    const sd = cell.dataset.side;
    const sel = window.getSelection();
    if (popover) closePopover();
    if (sel && !sel.isCollapsed && sel.rangeCount) {
      const hit = kit.spans.touched(sel.getRangeAt(0), cell, '.tok');
      sel.removeAllRanges();
      if (!hit || finished || readonly) return;
      // Snap to whole words: the first and last token the drag touched.
      if (i !== cur) setCurrent(i, { noscroll: true });
      side = sd;
      wc.anchor = hit[0];
      wc.k = hit[1];
      updateCursor(false);
      openPopover({});
      return;
    }
    const t = tokenAt(ev.target);
    if (i !== cur) setCurrent(i, { noscroll: true });
    if (t && !finished && !readonly) {
      side = sd; wc.reset(Number(t.dataset.k));
      focusFromCursor();
      updateCursor(false);
    }
  }

  // ---------------------------------------------------------------- start
  function fitTopbar() {
    // the exact (fractional) height: a rounded one leaves a sliver between the top bar and the column header
    document.documentElement.style.setProperty('--top-h', $('#topbar').getBoundingClientRect().height + 'px');
  }

  function init() {
    fitTopbar();
    renderAll();
    if (finished) lockFinished();
    if (readonly) {
      document.body.classList.add('readonly');
      const st = $('#save-status');
      st.className = 'save-status readonly-pill';
      st.textContent = finished ? 'Finished · read-only' : 'Read-only';
    }
    document.addEventListener('keydown', onKey);
    $('#facing').addEventListener('mouseup', onMouseUp);
    clock.watch(['mousemove', 'scroll']);
    document.addEventListener('scroll', function () { if (popover) placePopover(); }, { passive: true });
    window.addEventListener('resize', function () { fitTopbar(); if (popover) placePopover(); });
    // the top bar's height also changes without a resize (its status texts wrap to another row): follow it,
    // or the sticky column header hides under it, or leaves a gap that scrolled text shows through
    if (window.ResizeObserver) new ResizeObserver(fitTopbar).observe($('#topbar'));
    const on = function (sel, fn) { const e = $(sel); if (e) e.addEventListener('click', fn); };   // (read-only pages lack some)
    on('#prev-btn', function () { setCurrent(cur - 1); });
    on('#next-btn', function () { setCurrent(cur + 1); });
    on('#nt-btn', toggleNonTranslation);
    on('#side-btn', switchSide);
    on('#finish-btn', openFinish);
    on('#finish-confirm', confirmFinish);
    on('#finish-cancel', closeFinish);
    on('#finish-goto', function () {
      closeFinish();
      setCurrent(Number($('#finish-goto').dataset.seg));
    });
    on('#keys-toggle', toggleHelp);
    if (!readonly && !finished) {
      setInterval(checkRead, READ_CHECK_MS);
      setInterval(function () {
        clock.tick();
        if (clock.dirty && !Q.pending()) queueProgress();
      }, PROGRESS_EVERY_MS);
      // Resume where the annotator stopped, and record the visit.
      setCurrent(cur, { force: true });
    }
    window.enfaceAnnotate = {  // for tests and the curious: read-only views of the state
      marks: function () { return Array.from(marks.values()); },
      pending: function () { return Q.pending(); },
      cursor: function () { return cur; },
      read: function () { return segs.map(function (s) { return isRead(s.i); }); },
      dwell: function () { return dwell.slice(); },
      tokens: function (text) { return tokenize(text).tokens; },
      scheme: function () { return S.scheme; },
    };
    document.body.dataset.ready = '1';
  }

  init();
})();
