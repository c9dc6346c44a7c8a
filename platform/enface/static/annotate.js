/* Enface MQM annotation: facing pages, keyboard-first span marking, every change saved at once.
 *
 * The page embeds its state as JSON (#annotate-state): the item's segments, the annotator's
 * marks, the reading cursor, per-segment times and the scheme (categories with definitions,
 * severities). Nothing in it names the system: the item is known by an opaque id.
 *
 * Saving: each mark has a client-generated UUID and a revision number. Changes go through a
 * queue kept in localStorage (so a closed tab or a dropped connection loses nothing) and are
 * sent one by one with the CSRF token; the server ignores a revision it has already seen, so
 * retries and replays are harmless.
 *
 * Offsets sent to the server are Unicode code points (Python str indices), not UTF-16 units.
 */
(function () {
  'use strict';

  const stateEl = document.getElementById('annotate-state');
  if (!stateEl) return;
  const S = JSON.parse(stateEl.textContent);
  const CSRF = (document.querySelector('meta[name="csrf-token"]') || {}).content || '';
  const API = S.urls.api;
  const PENDING_KEY = 'enface:pending:' + S.item.id;
  const IDLE_MS = 90 * 1000;          // no key or mouse for this long: the clock stops
  const PROGRESS_EVERY_MS = 15 * 1000;

  // ---------------------------------------------------------------- words (same rule as logic.py)
  const CJK = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}';
  const TOKEN_RE = new RegExp(
    '[' + CJK + ']|(?:(?![' + CJK + '])[\\p{L}\\p{M}\\p{N}])+(?:[\'\\u2019\\-](?:(?![' + CJK + '])[\\p{L}\\p{M}\\p{N}])+)*|\\S',
    'gu');

  function tokenize(text) {
    // Tokens with UTF-16 offsets (for the DOM) and code-point offsets (for the server), and the
    // text's length in code points.
    const cp = new Array(text.length + 1);
    let n = 0;
    for (let i = 0; i < text.length; i++) {
      cp[i] = n;
      const c = text.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) { cp[i + 1] = n; i++; }
      n++;
    }
    cp[text.length] = n;
    const out = [];
    TOKEN_RE.lastIndex = 0;
    let m;
    while ((m = TOKEN_RE.exec(text)) !== null) {
      const a = m.index, b = m.index + m[0].length;
      out.push({ a16: a, b16: b, s: cp[a], e: cp[b] });
    }
    return { tokens: out, length: n };
  }

  function cpSlice(text, s, e) { return Array.from(text).slice(s, e).join(''); }

  // ---------------------------------------------------------------- state
  const segs = S.segments.map(function (seg, i) {
    return {
      i: i, source: seg.source, target: seg.target, label: seg.label,
      tok: { source: tokenize(seg.source), target: tokenize(seg.target) },
      row: null, cells: {}, marksEl: null,
    };
  });
  const marks = new Map();               // uuid -> mark
  S.marks.forEach(function (m) { if (!m.deleted) marks.set(m.uuid, m); });
  const revs = new Map();                // uuid -> highest revision known (deleted marks too)
  S.marks.forEach(function (m) { revs.set(m.uuid, m.rev); });
  const times = {};
  Object.keys(S.times || {}).forEach(function (k) { times[k] = S.times[k]; });

  let finished = !!S.item.finished;
  const readonly = !!S.readonly;
  let cur = Math.min(Math.max(S.cursor || 0, 0), segs.length - 1);
  let furthest = Math.max(S.furthest == null ? -1 : S.furthest, cur);
  let side = 'target';
  let wordK = 0;                          // word cursor: token index in segs[cur].tok[side]
  let anchorK = null;                     // selection anchor (null: no selection)
  let focusUuid = null;                   // the mark under focus
  let popover = null;                     // the open popover's state
  const undoStack = [];
  const sevIndex = {};
  S.scheme.severities.forEach(function (s, i) { sevIndex[s.name] = i; });
  const NT = S.scheme.non_translation;   // {category, severity}

  // ---------------------------------------------------------------- helpers
  const $ = function (sel, root) { return (root || document).querySelector(sel); };
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
  function uuid4() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    const b = new Uint8Array(16); crypto.getRandomValues(b);
    b[6] = (b[6] & 0x0f) | 0x40; b[8] = (b[8] & 0x3f) | 0x80;
    const h = Array.from(b, function (x) { return x.toString(16).padStart(2, '0'); }).join('');
    return h.slice(0, 8) + '-' + h.slice(8, 12) + '-' + h.slice(12, 16) + '-' + h.slice(16, 20) + '-' + h.slice(20);
  }
  function segText(seg, sd) { return sd === 'source' ? seg.source : seg.target; }
  function marksOf(i) {
    return Array.from(marks.values()).filter(function (m) { return m.seg === i; })
      .sort(function (a, b) { return (a.side === b.side ? 0 : a.side === 'target' ? -1 : 1) || a.start - b.start || a.end - b.end; });
  }
  function isNT(m) { return m.category === NT.category; }
  function ntMark(i) { return marksOf(i).find(isNT) || null; }
  function catLabel(m) { return m.subcategory ? m.category + ' › ' + m.subcategory : m.category; }
  function dirOf(sd) { return sd === 'source' ? S.item.src_dir : S.item.tgt_dir; }
  function toast(msg, kind) {
    const t = $('#toast');
    t.textContent = msg;
    t.className = 'toast show ' + (kind || '');
    clearTimeout(toast.timer);
    toast.timer = setTimeout(function () { t.className = 'toast'; }, kind === 'error' ? 6000 : 2500);
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
    let last = 0;
    tk.forEach(function (t, k) {
      if (t.a16 > last) {
        // the gap between two words of one mark is highlighted with them
        const prev = tk[k - 1];
        const inMark = prev && ms.find(function (m) { return m.start < prev.e && m.end > t.s; });
        if (inMark) {
          const w = (S.scheme.severities[sevIndex[inMark.severity]] || { rank: 0 }).rank;
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
          const w = sevIndex[m.severity] != null ? S.scheme.severities[sevIndex[m.severity]].rank : 0;
          if (w > worst) worst = w;
          if (m.uuid === focusUuid) span.classList.add('focus');
        }
      });
      if (count) {
        span.classList.add('marked', 'rank-' + worst);
        if (count > 1) span.classList.add('multi');
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
    marksOf(seg.i).forEach(function (m, n) {
      const sev = el('span', { cls: 'sev rank-' + (S.scheme.severities[sevIndex[m.severity]] || { rank: 0 }).rank, text: m.severity });
      const quote = isNT(m) ? null : el('q', {}, [el('bdi', { text: m.text, dir: dirOf(m.side) })]);
      const where = m.side === 'source' ? el('span', { cls: 'side', text: 'source' }) : null;
      const note = m.note ? el('span', { cls: 'note', text: m.note }) : null;
      const btns = (finished || readonly) ? [] : [
        isNT(m) ? null : el('button', { type: 'button', cls: 'mini', title: 'Edit (E)', 'aria-label': 'Edit mark', text: '✎',
          onclick: function (ev) { ev.stopPropagation(); focusMark(m.uuid); openPopover({ edit: m }); } }),
        el('button', { type: 'button', cls: 'mini', title: 'Delete (X)', 'aria-label': 'Delete mark', text: '×',
          onclick: function (ev) { ev.stopPropagation(); deleteMark(m.uuid); } }),
      ];
      const li = el('li', { cls: 'mark' + (m.uuid === focusUuid ? ' focus' : '') + (isNT(m) ? ' nt' : ''), 'data-uuid': m.uuid,
        onclick: function () { setCurrent(seg.i); focusMark(m.uuid, true); } },
      [el('span', { cls: 'n', text: String(n + 1) }), sev, el('span', { cls: 'cat', text: catLabel(m) }), where, quote, note].concat(btns));
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
    wordK = Math.min(Math.max(wordK, 0), tks.length - 1);
    if (anchorK != null) {
      const a = Math.min(anchorK, wordK), b = Math.max(anchorK, wordK);
      for (let k = a; k <= b; k++) tks[k].classList.add('sel');
    }
    tks[wordK].classList.add('cursor');
  }

  function updateCursor(scroll) {
    segs.forEach(function (seg) {
      seg.row.classList.toggle('current', seg.i === cur);
      seg.row.classList.toggle('seen', seg.i <= furthest);
      seg.cells.source.classList.toggle('active-side', seg.i === cur && side === 'source');
      seg.cells.target.classList.toggle('active-side', seg.i === cur && side === 'target');
    });
    paintCursor();
    const done = Math.max(furthest + 1, 0);
    $('#progress-bar').style.width = (100 * done / segs.length).toFixed(1) + '%';
    $('#progress-text').textContent = 'Segment ' + segs[cur].label + ' · read ' + done + ' of ' + segs.length;
    $('#progress').setAttribute('aria-valuenow', String(done));
    $('#side-label').textContent = side === 'target' ? 'translation' : 'source (omissions)';
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
  let clockSeg = cur, clockAt = performance.now(), lastActivity = Date.now(), progressDirty = false;

  function tickClock() {
    const now = performance.now();
    const active = document.visibilityState === 'visible' && Date.now() - lastActivity < IDLE_MS && !finished && !readonly;
    if (active) {
      const key = String(clockSeg);
      times[key] = (times[key] || 0) + Math.round(now - clockAt);
      progressDirty = true;
    }
    clockAt = now;
  }

  function setCurrent(i, opts) {
    i = Math.min(Math.max(i, 0), segs.length - 1);
    if (i === cur && !(opts && opts.force)) return;
    tickClock();
    cur = i; clockSeg = i;
    if (i > furthest) furthest = i;
    anchorK = null;
    wordK = 0;
    side = (opts && opts.side) || 'target';   // each segment starts in the translation
    if (opts && opts.wordK != null) wordK = opts.wordK;
    const ms = marksOf(i);
    if (!ms.some(function (m) { return m.uuid === focusUuid; })) focusUuid = null;
    updateCursor(!(opts && opts.noscroll));
    refreshFocus();
    queueProgress();
  }

  function queueProgress() {
    if (readonly || finished) return;
    progressDirty = true;
    enqueue({ kind: 'progress' });
  }

  // ---------------------------------------------------------------- word cursor and selection
  function tokCount(i, sd) { return segs[i].tok[sd].tokens.length; }

  function moveWord(delta, extend) {
    const n = tokCount(cur, side);
    if (!n) return;
    if (extend && anchorK == null) anchorK = wordK;
    if (!extend) anchorK = null;
    wordK = Math.min(Math.max(wordK + delta, 0), n - 1);
    focusFromCursor();
    paintCursor();
  }

  function focusFromCursor() {
    const t = segs[cur].tok[side].tokens[wordK];
    if (!t) return;
    const m = marksOf(cur).find(function (m) { return m.side === side && !isNT(m) && m.start < t.e && t.s < m.end; });
    const next = m ? m.uuid : null;
    if (next !== focusUuid) { focusUuid = next; renderSeg(cur); }
  }

  function selectionSpan() {
    const tk = segs[cur].tok[side].tokens;
    if (!tk.length) return null;
    const a = anchorK == null ? wordK : Math.min(anchorK, wordK);
    const b = anchorK == null ? wordK : Math.max(anchorK, wordK);
    return { seg: cur, side: side, start: tk[a].s, end: tk[b].e };
  }

  function switchSide() {
    side = side === 'target' ? 'source' : 'target';
    anchorK = null; wordK = 0;
    focusFromCursor();
    updateCursor(false);
  }

  function focusMark(uuid, moveCursor) {
    focusUuid = uuid;
    const m = marks.get(uuid);
    if (m && moveCursor && !isNT(m)) {
      side = m.side;
      const k = segs[m.seg].tok[side].tokens.findIndex(function (t) { return t.e > m.start; });
      wordK = Math.max(k, 0); anchorK = null;
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

  // ---------------------------------------------------------------- the popover
  const KEYS = '123456789abcdefghijklmnopqrstuvwxyz';

  // the categories offered for a span (Non-translation is a whole segment's, by its own key)
  const SPAN_CATEGORIES = S.scheme.categories.filter(function (c) { return c.name !== NT.category; });

  function openPopover(opts) {
    if (finished || readonly) return;
    let span, init = {};
    if (opts.edit) {
      const m = opts.edit;
      span = { seg: m.seg, side: m.side, start: m.start, end: m.end };
      init = { cat: m.category, sub: m.subcategory, sev: m.severity, note: m.note };
    } else {
      span = opts.span || selectionSpan();
      if (!span) { toast('Nothing to mark in this segment'); return; }
      if (span.side === 'source' && S.scheme.omission) {
        init = { cat: S.scheme.omission.category, sub: S.scheme.omission.subcategory };
      }
    }
    span.text = cpSlice(segText(segs[span.seg], span.side), span.start, span.end);
    popover = { span: span, edit: opts.edit || null, step: 'cat', cat: init.cat || null, sub: init.sub || '',
      sev: init.sev || null, note: init.note || '', hi: 0 };
    popover.hi = Math.max(0, SPAN_CATEGORIES.findIndex(function (c) { return c.name === popover.cat; }));
    renderPopover();
  }

  function closePopover() {
    popover = null;
    const p = $('#popover');
    p.hidden = true;
    p.textContent = '';
  }

  function popoverOptions() {
    const p = popover;
    if (p.step === 'cat') {
      return SPAN_CATEGORIES.map(function (c) { return { name: c.name, def: c.definition, ex: c.example, value: c }; });
    }
    if (p.step === 'sub') {
      const cat = S.scheme.categories.find(function (c) { return c.name === p.cat; });
      return cat.subcategories.map(function (c) { return { name: c.name, def: c.definition, ex: c.example, value: c }; });
    }
    if (p.step === 'sev') {
      return S.scheme.severities.map(function (s) { return { name: s.name, def: s.description, value: s, rank: s.rank }; });
    }
    return [];
  }

  function renderPopover() {
    const p = popover;
    const box = $('#popover');
    box.textContent = '';
    box.hidden = false;
    const titles = { cat: 'Category', sub: 'Subcategory', sev: 'Severity', note: 'Note (optional)' };
    const crumbs = [p.cat, p.sub, p.step === 'note' ? p.sev : null].filter(Boolean).join(' › ');
    box.appendChild(el('div', { cls: 'pop-head' }, [
      el('strong', { text: (p.edit ? 'Edit mark: ' : 'Mark: ') + titles[p.step] }),
      el('span', { cls: 'crumbs', text: crumbs }),
    ]));
    box.appendChild(el('div', { cls: 'pop-quote' }, [
      p.span.side === 'source' ? el('span', { cls: 'side', text: 'source' }) : null,
      el('q', {}, [el('bdi', { text: p.span.text, dir: dirOf(p.span.side) })])]));
    const opts = popoverOptions();
    if (p.step !== 'note') {
      const list = el('ol', { cls: 'pop-list', role: 'listbox' });
      opts.forEach(function (o, k) {
        const selected = (p.step === 'cat' && o.name === p.cat) || (p.step === 'sub' && o.name === p.sub) ||
          (p.step === 'sev' && o.name === p.sev);
        const li = el('li', { cls: 'opt' + (k === p.hi ? ' hi' : '') + (selected ? ' chosen' : ''), role: 'option',
          'aria-selected': k === p.hi ? 'true' : 'false',
          onmousedown: function (ev) { ev.preventDefault(); choose(k); },
          onmouseenter: function () { p.hi = k; markHi(); } }, [
          el('kbd', { text: KEYS[k] }),
          el('span', { cls: 'opt-name' + (o.rank != null ? ' sev rank-' + o.rank : ''), text: o.name }),
          o.def ? el('span', { cls: 'opt-def', text: o.def }) : null,
        ]);
        list.appendChild(li);
      });
      box.appendChild(list);
      box.appendChild(el('div', { cls: 'pop-example', id: 'pop-example' }));
      box.appendChild(el('div', { cls: 'pop-keys', text: KEYS[0] + '–' + KEYS[Math.max(opts.length - 1, 0)] +
        ' or ↑↓ Enter: choose · Backspace: back · Esc: cancel' }));
    } else {
      const input = el('textarea', { id: 'pop-note', rows: '2', maxlength: '2000', placeholder: 'A note for the organizers (optional)' });
      input.value = p.note;
      box.appendChild(input);
      box.appendChild(el('div', { cls: 'pop-actions' }, [
        el('button', { type: 'button', cls: 'primary', text: 'Save (Enter)', onclick: function () { p.note = input.value; saveFromPopover(); } }),
        el('button', { type: 'button', text: 'Back (Shift+Tab)', onclick: function () { back(); } }),
        el('button', { type: 'button', text: 'Cancel (Esc)', onclick: closePopover }),
      ]));
      box.appendChild(el('div', { cls: 'pop-keys', text: 'Enter: save · Shift+Enter: new line · Esc: cancel' }));
      setTimeout(function () { input.focus(); }, 0);
    }
    if (p.step !== 'note') markHi();
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
    const cell = segs[popover.span.seg].cells[popover.span.side];
    const tks = cell.querySelectorAll('.tok.sel, .tok.cursor, .tok.focus');
    let anchor = (tks.length ? tks[tks.length - 1] : cell).getBoundingClientRect();
    const w = box.offsetWidth, h = box.offsetHeight;
    const topLimit = $('#topbar').getBoundingClientRect().bottom + 8;
    const need = anchor.bottom + 6 + h + 8 - window.innerHeight;   // missing room below the marked words
    if (need > 0 && anchor.top - h - 6 < topLimit) {
      // neither below nor above fits: scroll the marked words up so that the menu fits below them
      window.scrollBy(0, Math.min(need + 4, anchor.top - topLimit - 4));
      anchor = (tks.length ? tks[tks.length - 1] : cell).getBoundingClientRect();
    }
    let left = Math.min(Math.max(8, anchor.left), window.innerWidth - w - 8);
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
      p.step = o.value.subcategories && o.value.subcategories.length ? 'sub' : 'sev';
    } else if (p.step === 'sub') {
      p.sub = o.name; p.step = 'sev';
    } else if (p.step === 'sev') {
      p.sev = o.name; p.step = 'note';
    }
    p.hi = 0;
    const opts = popoverOptions();
    const want = p.step === 'sub' ? p.sub : p.step === 'sev' ? p.sev : null;
    const idx = opts.findIndex(function (x) { return x.name === want; });
    if (idx >= 0) p.hi = idx;
    renderPopover();
  }

  function back() {
    const p = popover;
    if (p.step === 'note') p.step = 'sev';
    else if (p.step === 'sev') {
      const cat = S.scheme.categories.find(function (c) { return c.name === p.cat; });
      p.step = cat && cat.subcategories.length ? 'sub' : 'cat';
    } else if (p.step === 'sub') p.step = 'cat';
    else { closePopover(); return; }
    const opts = popoverOptions();
    const want = p.step === 'cat' ? p.cat : p.step === 'sub' ? p.sub : p.sev;
    p.hi = Math.max(0, opts.findIndex(function (x) { return x.name === want; }));
    renderPopover();
  }

  function popoverKey(ev) {
    const p = popover;
    if (p.step === 'note') {
      if (ev.key === 'Enter' && !ev.shiftKey) { ev.preventDefault(); p.note = $('#pop-note').value; saveFromPopover(); }
      else if (ev.key === 'Escape') { ev.preventDefault(); closePopover(); }
      else if (ev.key === 'Tab' && ev.shiftKey) { ev.preventDefault(); p.note = $('#pop-note').value; back(); }
      return;
    }
    const opts = popoverOptions();
    if (ev.key === 'Escape') { ev.preventDefault(); closePopover(); return; }
    if (ev.key === 'Backspace' || (ev.key === 'Tab' && ev.shiftKey)) { ev.preventDefault(); back(); return; }
    if (ev.key === 'ArrowDown') { ev.preventDefault(); p.hi = (p.hi + 1) % opts.length; markHi(); return; }
    if (ev.key === 'ArrowUp') { ev.preventDefault(); p.hi = (p.hi - 1 + opts.length) % opts.length; markHi(); return; }
    if (ev.key === 'Enter') { ev.preventDefault(); choose(p.hi); return; }
    const k = KEYS.indexOf(ev.key.toLowerCase());
    if (k >= 0 && k < opts.length && !ev.ctrlKey && !ev.metaKey && !ev.altKey) { ev.preventDefault(); choose(k); }
  }

  function saveFromPopover() {
    const p = popover;
    const sp = p.span;
    const m = p.edit ? Object.assign({}, p.edit) : { uuid: uuid4(), seg: sp.seg, side: sp.side, start: sp.start, end: sp.end, text: sp.text };
    m.category = p.cat; m.subcategory = p.sub || ''; m.severity = p.sev; m.note = (p.note || '').trim();
    m.rev = (revs.get(m.uuid) || 0) + 1;
    closePopover();
    putMark(m);
    anchorK = null;
    focusUuid = m.uuid;
    renderSeg(m.seg);
    toast((p.edit ? 'Changed: ' : 'Marked: ') + catLabel(m) + ' · ' + m.severity);
  }

  // ---------------------------------------------------------------- mark operations
  function putMark(m) {
    revs.set(m.uuid, m.rev);
    m.deleted = false;
    marks.set(m.uuid, m);
    enqueue({ kind: 'put', uuid: m.uuid, body: markBody(m) });
    $('#mark-count').textContent = String(marks.size);
  }
  function markBody(m) {
    return { rev: m.rev, seg: m.seg, side: m.side, start: m.start, end: m.end, text: m.text, category: m.category,
      subcategory: m.subcategory, severity: m.severity, note: m.note };
  }

  function deleteMark(uuid) {
    if (finished || readonly) return;
    const m = marks.get(uuid);
    if (!m) return;
    const rev = (revs.get(uuid) || m.rev) + 1;
    revs.set(uuid, rev);
    marks.delete(uuid);
    undoStack.push(Object.assign({}, m, { rev: rev }));
    enqueue({ kind: 'del', uuid: uuid, body: { rev: rev } });
    if (focusUuid === uuid) focusUuid = null;
    renderSeg(m.seg);
    $('#mark-count').textContent = String(marks.size);
    toast('Deleted ' + catLabel(m) + ' · press U to undo');
  }

  function undoDelete() {
    const m = undoStack.pop();
    if (!m) { toast('Nothing to undo'); return; }
    m.rev = (revs.get(m.uuid) || m.rev) + 1;
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
    const m = { uuid: uuid4(), seg: cur, side: 'target', start: 0, end: seg.tok.target.length, text: seg.target,
      category: NT.category, subcategory: '', severity: NT.severity, note: '', rev: 1 };
    if (!m.end) { toast('An empty translation cannot be marked as Non-translation', 'error'); return; }
    putMark(m);
    renderSeg(cur);
    toast('Segment ' + seg.label + ' marked as Non-translation (N again to undo)');
  }

  // ---------------------------------------------------------------- saving: a persistent queue
  let queue = [];
  try { queue = JSON.parse(localStorage.getItem(PENDING_KEY) || '[]'); } catch (e) { queue = []; }
  let inFlight = false, backoff = 500, stopped = false;

  function persist() {
    try {
      const keep = queue.filter(function (op) { return op.kind !== 'progress'; });
      if (keep.length) localStorage.setItem(PENDING_KEY, JSON.stringify(keep));
      else localStorage.removeItem(PENDING_KEY);
    } catch (e) { /* private mode: the queue still lives in memory */ }
  }

  function enqueue(op) {
    // A queued (not yet sent) op on the same mark, or an older progress op, is superseded.
    const start = inFlight ? 1 : 0;
    for (let k = queue.length - 1; k >= start; k--) {
      const q = queue[k];
      if ((op.kind === 'progress' && q.kind === 'progress') || (op.uuid && q.uuid === op.uuid)) queue.splice(k, 1);
    }
    queue.push(op);
    persist();
    setStatus();
    pump();
  }

  function setStatus(kind, text) {
    const st = $('#save-status');
    const pending = queue.filter(function (op) { return op.kind !== 'progress'; }).length;
    if (kind) { st.className = 'save-status ' + kind; st.textContent = text; return; }
    if (pending) { st.className = 'save-status saving'; st.textContent = 'Saving… (' + pending + ')'; }
    else { st.className = 'save-status saved'; st.textContent = 'All changes saved'; }
  }

  function request(method, url, body, keepalive) {
    return fetch(url, {
      method: method, credentials: 'same-origin', keepalive: !!keepalive,
      headers: { 'Content-Type': 'application/json', 'Accept': 'application/json', 'X-CSRFToken': CSRF },
      body: body == null ? undefined : JSON.stringify(body),
    });
  }

  function opRequest(op, keepalive) {
    if (op.kind === 'put') return request('PUT', API + '/marks/' + op.uuid, op.body, keepalive);
    if (op.kind === 'del') return request('DELETE', API + '/marks/' + op.uuid, op.body, keepalive);
    tickClock();
    progressDirty = false;
    return request('POST', API + '/progress', { cursor: cur, furthest: furthest, times: times }, keepalive);
  }

  async function pump() {
    if (inFlight || stopped || !queue.length) return;
    inFlight = true;
    const op = queue[0];
    let res = null, data = null;
    try {
      res = await opRequest(op);
      data = await res.json().catch(function () { return null; });
    } catch (e) { res = null; }
    inFlight = false;
    if (res && res.ok) {
      queue.shift(); persist(); backoff = 500;
      if (data && data.mark) revs.set(data.mark.uuid, Math.max(revs.get(data.mark.uuid) || 0, data.mark.rev));
      setStatus();
      pump();
      return;
    }
    if (!res || res.status >= 500 || res.status === 429 || res.status === 408) {
      setStatus('offline', 'Not saved yet: retrying (' + queue.length + ' pending). Your marks are kept in this browser.');
      setTimeout(pump, backoff);
      backoff = Math.min(backoff * 2, 15000);
      return;
    }
    // A 4xx: this change was refused. Drop it, say why, and reload the truth from the server.
    queue.shift(); persist();
    const msg = (data && data.error && data.error.message) || ('The server refused the change (HTTP ' + res.status + ')');
    if (res.status === 401) { stopped = true; setStatus('error', 'Signed out: sign in again; unsaved changes are kept in this browser.'); return; }
    toast(msg, 'error');
    setStatus('error', msg);
    if (data && data.error && data.error.code === 'item_finished') lockFinished();
    await reload();
    pump();
  }

  async function reload() {
    try {
      const res = await request('GET', API);
      if (!res.ok) return;
      const data = await res.json();
      marks.clear();
      data.marks.forEach(function (m) { revs.set(m.uuid, Math.max(revs.get(m.uuid) || 0, m.rev)); if (!m.deleted) marks.set(m.uuid, m); });
      applyQueued();
      if (data.item.finished) lockFinished();
      segs.forEach(function (s) { renderSeg(s.i); });
      updateCursor(false);
    } catch (e) { /* offline: keep what we have */ }
  }

  function flushOnExit() {
    // The page is going away: send the latest progress with keepalive (queued marks stay in localStorage).
    if (readonly || finished) return;
    tickClock();
    try { opRequest({ kind: 'progress' }, true); } catch (e) { /* nothing more to do */ }
  }

  function applyQueued() {
    // Changes still queued win over what the server has (their revisions are the newest known).
    queue.forEach(function (op) {
      if (op.kind !== 'put' && op.kind !== 'del') return;
      if (op.kind === 'put') marks.set(op.uuid, Object.assign({ uuid: op.uuid }, op.body));
      else marks.delete(op.uuid);
      revs.set(op.uuid, Math.max(revs.get(op.uuid) || 0, op.body.rev));
    });
  }

  // Replay changes left by a closed tab before showing the page.
  queue = queue.filter(function (op) { return op.kind === 'put' || op.kind === 'del'; });
  applyQueued();

  // ---------------------------------------------------------------- finishing
  function openFinish() {
    if (finished || readonly) return;
    tickClock();
    const dlg = $('#finish-dialog');
    const unread = segs.length - (furthest + 1);
    $('#finish-summary').textContent = unread > 0
      ? 'You have not read the last ' + unread + ' segment(s) yet. Read to the end (↓) before finishing.'
      : marks.size + ' mark(s) in ' + segs.length + ' segments. Segments without marks count as error-free. ' +
        'After finishing you cannot change this item.';
    $('#finish-confirm').disabled = unread > 0;
    dlg.hidden = false;
    $(unread > 0 ? '#finish-cancel' : '#finish-confirm').focus();
  }
  function closeFinish() { $('#finish-dialog').hidden = true; }

  async function confirmFinish() {
    closeFinish();
    setStatus('saving', 'Finishing…');
    queueProgress();
    for (let n = 0; n < 200 && queue.length; n++) { pump(); await new Promise(function (r) { setTimeout(r, 100); }); }
    if (queue.length) { toast('Some changes are not saved yet; try again in a moment.', 'error'); setStatus(); return; }
    let res, data;
    try { res = await request('POST', API + '/finish', {}); data = await res.json().catch(function () { return null; }); }
    catch (e) { toast('Could not reach the server; try again.', 'error'); setStatus(); return; }
    if (!res.ok) { toast((data && data.error && data.error.message) || 'Could not finish', 'error'); setStatus(); return; }
    lockFinished(data && data.next);
    toast('Item finished. Thank you!');
  }

  function lockFinished(next) {
    finished = true;
    closePopover();
    document.body.classList.add('finished');
    ['#finish-btn', '#side-btn', '#nt-btn'].forEach(function (id) { $(id).disabled = true; });
    $('.side-now').hidden = true;
    $('#finished-banner').hidden = false;
    if (next) { const a = $('#next-link'); a.href = next; a.hidden = false; }
    segs.forEach(function (s) { renderSeg(s.i); });
    setStatus('saved', 'Finished · read-only');
  }

  // ---------------------------------------------------------------- keyboard
  function onKey(ev) {
    lastActivity = Date.now();
    if (!$('#finish-dialog').hidden) {
      if (ev.key === 'Escape') { ev.preventDefault(); closeFinish(); }
      else if (ev.key === 'Enter' && !$('#finish-confirm').disabled && document.activeElement !== $('#finish-cancel')) { ev.preventDefault(); confirmFinish(); }
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
      case 'Tab': if (finished || readonly) { handled = false; } else switchSide(); break;
      case 'Enter': case 'm': case 'M': openPopover({}); break;
      case 'Escape': anchorK = null; focusUuid = null; refreshFocus(); break;
      case '[': cycleMark(-1); break;
      case ']': cycleMark(1); break;
      case 'e': case 'E': {
        const m = focusUuid && marks.get(focusUuid);
        if (!m) toast('Move onto a mark (or press ] ) to edit it');
        else if (isNT(m)) toast('Non-translation has no category to edit: press N to remove it');
        else openPopover({ edit: m });
        break;
      }
      case 'x': case 'X': case 'Delete': case 'Backspace':
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
    lastActivity = Date.now();
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
      const range = sel.getRangeAt(0);
      const tks = Array.from(cell.querySelectorAll('.tok'));
      const hit = tks.filter(function (t) { return range.intersectsNode(t); });
      sel.removeAllRanges();
      if (!hit.length || finished || readonly) return;
      // Snap to whole words: the first and last token the drag touched.
      if (i !== cur) setCurrent(i, { noscroll: true });
      side = sd;
      anchorK = Number(hit[0].dataset.k);
      wordK = Number(hit[hit.length - 1].dataset.k);
      updateCursor(false);
      openPopover({});
      return;
    }
    const t = tokenAt(ev.target);
    if (i !== cur) setCurrent(i, { noscroll: true });
    if (t && !finished && !readonly) {
      side = sd; anchorK = null; wordK = Number(t.dataset.k);
      focusFromCursor();
      updateCursor(false);
    }
  }

  // ---------------------------------------------------------------- start
  function fitTopbar() {
    document.documentElement.style.setProperty('--top-h', $('#topbar').offsetHeight + 'px');
  }

  function init() {
    fitTopbar();
    renderAll();
    if (finished) lockFinished();
    if (readonly) document.body.classList.add('readonly');
    setStatus();
    document.addEventListener('keydown', onKey);
    $('#facing').addEventListener('mouseup', onMouseUp);
    document.addEventListener('mousemove', function () { lastActivity = Date.now(); }, { passive: true });
    document.addEventListener('scroll', function () { lastActivity = Date.now(); if (popover) placePopover(); }, { passive: true });
    window.addEventListener('resize', function () { fitTopbar(); if (popover) placePopover(); });
    $('#prev-btn').addEventListener('click', function () { setCurrent(cur - 1); });
    $('#next-btn').addEventListener('click', function () { setCurrent(cur + 1); });
    $('#nt-btn').addEventListener('click', toggleNonTranslation);
    $('#side-btn').addEventListener('click', switchSide);
    $('#finish-btn').addEventListener('click', openFinish);
    $('#finish-confirm').addEventListener('click', confirmFinish);
    $('#finish-cancel').addEventListener('click', closeFinish);
    $('#keys-toggle').addEventListener('click', toggleHelp);
    document.addEventListener('visibilitychange', function () {
      if (document.visibilityState === 'hidden') flushOnExit(); else { clockAt = performance.now(); lastActivity = Date.now(); }
    });
    window.addEventListener('pagehide', flushOnExit);
    setInterval(function () {
      tickClock();
      if (progressDirty && !queue.length) enqueue({ kind: 'progress' });
    }, PROGRESS_EVERY_MS);
    if (!readonly && !finished) {
      // Resume where the annotator stopped, and record the visit.
      setCurrent(cur, { force: true });
      pump();
    }
    window.enfaceAnnotate = {  // for tests and the curious: read-only views of the state
      marks: function () { return Array.from(marks.values()); },
      pending: function () { return queue.length; },
      cursor: function () { return cur; },
    };
    document.body.dataset.ready = '1';
  }

  init();
})();
