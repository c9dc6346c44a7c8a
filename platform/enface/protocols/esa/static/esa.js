/* The ESA annotation page: error spans (minor / major, [missing]) and a 0-100 score per segment.
 *
 * Everything comes from #esa-state (enface.protocols.esa.page.item_state) and is saved through the
 * core's autosave queue (autosave.js): one answer per segment (kind "segment", key its index), and the
 * reading clock (".../progress"). A segment can be scored once it and every segment before it has been
 * read for its minimum time (the server applies the same rule). Offsets are code points, spans are
 * inclusive (as Appraise's), snapped to words. Texts are set with textContent only.
 *
 * The CSRF token, toasts, DOM building, words, the reading clock and the autosave queue are the shared
 * client kit's (static/kit/, docs/development/client-kit.md); what is ESA's own is here.
 */
(function () {
  'use strict';

  // ------------------------------------------------------------------ the shared client kit (static/kit/)
  const kit = window.EnfaceKit;
  const toast = kit.toaster(document.getElementById('toast'), 'esa-toast');
  /* kit.dom.el, with attributes that are false or null left out (a disabled=false slider stays enabled) */
  function el(tag, attrs, kids) {
    const clean = {};
    Object.keys(attrs || {}).forEach(function (k) {
      const v = attrs[k];
      if (v !== null && v !== undefined && v !== false) clean[k] = v === true ? '' : v;
    });
    return kit.dom.el(tag, clean, kids);
  }

  // ------------------------------------------------------------------ state
  const S = JSON.parse(document.getElementById('esa-state').textContent);
  const readonly = !!S.readonly;
  const root = document.getElementById('esa');
  const box = document.getElementById('esa-segments');
  const pop = document.getElementById('esa-pop');
  const SEV = {};
  S.severities.forEach(function (s) { SEV[s.name] = s; });
  const segs = S.segments.map(function (seg) {
    return { i: seg.i, label: seg.label, source: seg.source, target: seg.target, cps: Array.from(seg.target),
      tok: kit.spans.tokenize(seg.target).tokens };
  });
  let finishedNow = !!S.item.finished;
  const clock = new kit.ReadingClock({ times: S.times, dwell: S.dwell_ms || [], idleMs: 60000,
    running: function () { return !readonly && !finishedNow; } });
  const times = clock.times;
  const answers = {};     // seg -> {uuid, data}
  /* ESA^AI: a segment not answered yet opens with its suggestions, each a span "kept" as suggested
     (drawn apart until touched); editing one makes it "edited", removing it "deleted" (kept in the record). */
  function prefilled(i) {
    return ((S.suggestions || {})[String(i)] || []).map(function (s) {
      return { start: s.start, end: s.end, severity: s.severity, provenance: 'kept', suggestion: Object.assign({}, s) };
    });
  }
  function fresh(i) { return { uuid: null, data: { score: null, spans: prefilled(i), started_ms: null, ended_ms: null } }; }
  segs.forEach(function (seg) {
    const a = S.answers[String(seg.i)];
    answers[seg.i] = a ? { uuid: a.uuid, data: a.data } : fresh(seg.i);
  });
  let cur = S.cursor || 0;
  let furthest = Math.max(S.furthest, cur);
  let caret = 0, anchor = null;  // word cursor in the current translation (index tok.length = [missing])
  let finished = !!S.item.finished;

  const Q = readonly ? null : new AutosaveQueue({
    key: 'enface:pending:' + S.item.id,
    csrfToken: kit.csrf.token(),
    statusEl: document.getElementById('save-status'),
    onSaved: function (op, data) { if (data && data.response) Q.seenRev(data.response.uuid, data.response.rev); },
    onRefused: function (op, status, data) {
      toast((data && data.error && data.error.message) || 'A change was refused; reloading what is saved.', 'error');
      reload();
    },
    onHide: function () { if (!readonly) queueProgress(); },
  });
  segs.forEach(function (seg) { const a = S.answers[String(seg.i)]; if (a && Q) Q.seenRev(a.uuid, a.rev); });
  if (Q) {   // unsaved changes of an earlier visit go over what the server sent
    Q.ops().forEach(function (op) {
      if (op.key === 'progress' && op.body) {
        clock.merge(op.body.times);
      } else if (op.body && op.body.kind === 'segment' && op.method === 'PUT') {
        const i = parseInt(op.body.key, 10);
        if (answers[i]) answers[i] = { uuid: op.url.split('/').pop(), data: op.body.data };
      }
    });
  }

  // ------------------------------------------------------------------ reading (the kit's clock; the server's dwell rule)
  function canScore(i) { return clock.furthest() >= i; }   // read, and every segment before it too
  /* Opens segment i's closed slider once it has been read (the reading goes to the server first, which
     checks it before a score); true when it opened. */
  function openSliderIfRead(i) {
    const input = box.querySelector('[data-i="' + i + '"] .esa-score input');
    if (!input || !input.disabled || !canScore(i)) return false;
    queueProgress(); renderScore(i); renderCount();
    return true;
  }
  function progressBody() { clock.tick(); return { cursor: cur, furthest: Math.max(furthest, cur), times: Object.assign({}, times) }; }
  function queueProgress() { if (Q && !finished) Q.post(S.urls.progress, progressBody, { key: 'progress', quiet: true }); }
  if (!readonly) {
    clock.watch(['keydown', 'mousedown', 'mousemove', 'wheel', 'scroll', 'touchstart']);
    let sinceSent = Date.now();
    setInterval(function () {
      clock.tick();
      // (not "became readable since the last tick": a key press or a click ticks the clock too, and a
      // segment read at that moment kept a closed slider)
      if (openSliderIfRead(cur)) sinceSent = Date.now();
      else if (clock.dirty && Date.now() - sinceSent > 5000) { clock.dirty = false; queueProgress(); sinceSent = Date.now(); }
    }, 250);
  }

  // ------------------------------------------------------------------ answers
  function spansOf(i) { return answers[i].data.spans || []; }
  function live(sp) { return sp.provenance !== 'deleted'; }
  function spanAt(i, k) {   // the live span covering word k (k = tok.length: [missing])
    const seg = segs[i];
    if (k >= seg.tok.length) return spansOf(i).find(function (sp) { return live(sp) && sp.start === 'missing'; }) || null;
    const t = seg.tok[k];
    return spansOf(i).find(function (sp) { return live(sp) && sp.start !== 'missing' && sp.start < t.e && sp.end >= t.s; }) || null;
  }
  function save(i) {
    if (!Q) return;
    const a = answers[i];
    if (!a.uuid) a.uuid = AutosaveQueue.uuid();
    const now = Date.now();
    if (!a.data.started_ms) a.data.started_ms = now;
    a.data.ended_ms = now;
    if (a.data.score !== null) queueProgress();   // the server checks the reading before the score
    Q.put(S.urls.responses + a.uuid, { rev: Q.nextRev(a.uuid), kind: 'segment', key: String(i), data: JSON.parse(JSON.stringify(a.data)) },
      { key: 'answer:' + i });
  }
  /* Marks words a..b (inclusive, word indexes) or [missing] with a severity; an overlapping span is replaced. */
  function mark(i, a, b, severity) {
    if (readonly) return;
    const seg = segs[i];
    let sp;
    if (a >= seg.tok.length) sp = { start: 'missing', end: 'missing', severity: severity, provenance: 'human', suggestion: null };
    else {
      b = Math.min(b, seg.tok.length - 1);
      sp = { start: seg.tok[a].s, end: seg.tok[b].e - 1, severity: severity, provenance: 'human', suggestion: null };
    }
    function overlaps(x) {
      if (sp.start === 'missing' || x.start === 'missing') return sp.start === 'missing' && x.start === 'missing';
      return !(x.end < sp.start || x.start > sp.end);
    }
    // ESA^AI: the new span takes over the first suggestion it overlaps (live or deleted): it is that suggestion
    // edited (or kept, when it is the suggestion again); other live suggestions it covers become deleted.
    const heir = spansOf(i).find(function (x) { return x.provenance !== 'human' && overlaps(x); });
    const keep = [];
    spansOf(i).forEach(function (x) {
      if (x === heir || !overlaps(x)) { if (x !== heir) keep.push(x); return; }
      if (x.provenance !== 'human' && live(x)) keep.push(Object.assign({}, x, { provenance: 'deleted' }));
      else if (!live(x)) keep.push(x);
    });
    if (heir) {
      const g = heir.suggestion;
      sp.suggestion = g;
      sp.provenance = (g.start === sp.start && g.end === sp.end && g.severity === sp.severity) ? 'kept' : 'edited';
    }
    keep.push(sp);
    keep.sort(function (x, y) { return (x.start === 'missing' ? 1e9 : x.start) - (y.start === 'missing' ? 1e9 : y.start); });
    answers[i].data.spans = keep;
    save(i);
    renderSeg(i);
  }
  function unmark(i, sp) {
    if (readonly || !sp) return;
    answers[i].data.spans = spansOf(i).map(function (x) {
      if (x !== sp) return x;
      return x.provenance === 'human' ? null : Object.assign({}, x, { provenance: 'deleted' });
    }).filter(Boolean);
    save(i);
    renderSeg(i);
  }
  function setScore(i, value) {
    if (readonly || !canScore(i)) return;
    answers[i].data.score = Math.max(0, Math.min(100, Math.round(value)));
    save(i);
    renderScore(i);
    renderCount();
  }

  // ------------------------------------------------------------------ rendering
  function renderText(i) {
    const seg = segs[i];
    const p = el('p', { cls: 'esa-text', lang: S.item.tgt_lang, dir: S.item.tgt_dir });
    let at = 0;
    seg.tok.forEach(function (t, k) {
      if (t.s > at) {
        const gap = el('span', { cls: 'gap', text: seg.cps.slice(at, t.s).join('') });
        const before = k > 0 ? spanAt(i, k - 1) : null;
        if (before && before === spanAt(i, k)) gap.className = 'gap in sev-' + before.severity;
        p.appendChild(gap);
      }
      const sp = spanAt(i, k);
      const w = el('span', { cls: 'tok', 'data-k': k, text: seg.cps.slice(t.s, t.e).join('') });
      if (sp) {
        w.classList.add('in', 'sev-' + sp.severity);
        if (sp.provenance !== 'human') w.classList.add('suggested-' + sp.provenance);
        const next = k + 1 < seg.tok.length ? spanAt(i, k + 1) : null;
        if (next !== sp) { w.classList.add('span-end'); w.setAttribute('data-sev', SEV[sp.severity].letter); }
      }
      p.appendChild(w);
      at = t.e;
    });
    if (at < seg.cps.length) p.appendChild(document.createTextNode(seg.cps.slice(at).join('')));
    const miss = spanAt(i, seg.tok.length);
    const m = el('span', { cls: 'tok esa-missing' + (miss ? ' in sev-' + miss.severity + ' span-end' : ''), 'data-k': seg.tok.length,
      text: '[missing]', title: 'Content of the source left out of the translation: mark this', 'data-sev': miss ? SEV[miss.severity].letter : null });
    p.appendChild(document.createTextNode(' '));
    p.appendChild(m);
    return p;
  }
  function restore(i, sp) {   // a deleted suggestion back as suggested; what it overlaps gives way
    if (readonly || !sp) return;
    const g = sp.suggestion;
    function overlaps(x) {
      if (g.start === 'missing' || x.start === 'missing') return g.start === 'missing' && x.start === 'missing';
      return !(x.end < g.start || x.start > g.end);
    }
    const keep = [];
    spansOf(i).forEach(function (x) {
      if (x === sp) return;
      if (!live(x) || !overlaps(x)) keep.push(x);
      else if (x.provenance !== 'human') keep.push(Object.assign({}, x, { provenance: 'deleted' }));
    });
    keep.push({ start: g.start, end: g.end, severity: g.severity, provenance: 'kept', suggestion: g });
    keep.sort(function (x, y) { return (x.start === 'missing' ? 1e9 : x.start) - (y.start === 'missing' ? 1e9 : y.start); });
    answers[i].data.spans = keep;
    save(i);
    renderSeg(i);
  }
  function renderSpans(i) {
    const ul = el('ul', { cls: 'esa-spanlist', 'aria-label': 'Errors marked' });
    spansOf(i).filter(function (sp) { return !live(sp); }).forEach(function (sp) {   // ESA^AI: rejected suggestions
      const g = sp.suggestion;
      const text = g.start === 'missing' ? '[missing]' : segs[i].cps.slice(g.start, g.end + 1).join('');
      ul.appendChild(el('li', { cls: 'esa-ai-deleted', title: 'A suggestion you removed' }, [
        el('span', { cls: 'esa-ai-tag', text: 'AI' }), el('s', {}, [el('q', { text: text })]),
        readonly ? null : el('button', { type: 'button', cls: 'mini link', text: '↺', title: 'Restore this suggestion',
          'aria-label': 'Restore the suggestion ' + text, onclick: function (ev) { ev.stopPropagation(); restore(i, sp); } }),
      ]));
    });
    spansOf(i).filter(live).forEach(function (sp) {
      const text = sp.start === 'missing' ? '[missing]' : segs[i].cps.slice(sp.start, sp.end + 1).join('');
      ul.appendChild(el('li', { cls: 'sev-' + sp.severity + (sp.provenance === 'kept' ? ' esa-ai-kept' : ''),
        title: sp.provenance === 'kept' ? 'Suggested by AI, not changed yet' : (sp.provenance === 'edited' ? 'An AI suggestion you changed' : null) }, [
        sp.provenance === 'kept' ? el('span', { cls: 'esa-ai-tag', text: 'AI' }) : null,
        el('span', { cls: 'esa-sev esa-' + sp.severity, text: SEV[sp.severity].letter, title: sp.severity }),
        el('q', { text: text }),
        readonly ? null : el('button', { type: 'button', cls: 'mini link', text: '×', title: 'Remove this error', 'aria-label': 'Remove ' + sp.severity + ' error ' + text,
          onclick: function (ev) { ev.stopPropagation(); unmark(i, sp); } }),
      ]));
    });
    return ul;
  }
  function scoreBox(i) {
    const a = answers[i].data;
    const wrap = el('div', { cls: 'esa-score' });
    const input = el('input', { type: 'range', min: 0, max: 100, step: 1, value: a.score === null ? 50 : a.score,
      'aria-label': 'Score of segment ' + segs[i].label + ' (0-100)', 'aria-valuetext': a.score === null ? 'not scored' : String(a.score),
      cls: a.score === null ? 'unset' : '', disabled: readonly || !canScore(i) });
    input.addEventListener('input', function () { setScore(i, parseInt(input.value, 10)); });
    input.addEventListener('focus', function () { if (cur !== i) setCurrent(i, { keepFocus: true }); });
    input.addEventListener('keydown', function (ev) {
      if (ev.key === 'Escape') { ev.preventDefault(); input.blur(); root.focus(); }
      else if (ev.key === 'Enter') { ev.preventDefault(); if (answers[i].data.score === null) setScore(i, parseInt(input.value, 10)); input.blur(); setCurrent(Math.min(i + 1, segs.length - 1)); }
      else if ((ev.key === 'ArrowLeft' || ev.key === 'ArrowRight' || ev.key === 'ArrowUp' || ev.key === 'ArrowDown') && answers[i].data.score === null) {
        // the first key press scores what the slider shows (the native step would skip it)
        ev.preventDefault(); setScore(i, parseInt(input.value, 10) + (ev.key === 'ArrowLeft' || ev.key === 'ArrowDown' ? -1 : 1));
      }
    });
    const value = el('output', { cls: 'esa-value', text: a.score === null ? (canScore(i) ? 'not scored' : 'read first') : String(a.score) });
    const anchors = el('div', { cls: 'esa-anchors', 'aria-hidden': 'true' });
    S.anchors.forEach(function (an) {
      const mark = el('span', { 'data-value': an.value }, [el('b', { text: String(an.value) }), el('br'), an.text]);
      mark.style.left = an.value + '%';   // (CSSOM: the CSP forbids style attributes)
      anchors.appendChild(mark);
    });
    wrap.appendChild(el('div', { cls: 'esa-slider' }, [input, value]));
    wrap.appendChild(anchors);
    return wrap;
  }
  function renderSeg(i) {
    const sec = box.querySelector('[data-i="' + i + '"]');
    const tgt = sec.querySelector('.esa-tgt');
    tgt.replaceChildren(renderText(i), renderSpans(i), scoreBox(i));
    sec.classList.toggle('scored', answers[i].data.score !== null);
    paintCaret();
  }
  function renderScore(i) {
    const sec = box.querySelector('[data-i="' + i + '"]');
    const old = sec.querySelector('.esa-score');
    const focused = document.activeElement && old.contains(document.activeElement);
    const fresh = scoreBox(i);
    old.replaceWith(fresh);
    if (focused) fresh.querySelector('input').focus();
    sec.classList.toggle('scored', answers[i].data.score !== null);
  }
  function renderCount() {
    const n = segs.filter(function (s) { return answers[s.i].data.score !== null; }).length;
    document.getElementById('esa-count').textContent = n + ' of ' + segs.length + ' segments scored';
  }
  function renderAll() {
    box.replaceChildren();
    segs.forEach(function (seg) {
      const sec = el('section', { cls: 'esa-seg', 'data-i': seg.i, 'aria-label': 'Segment ' + seg.label }, [
        el('div', { cls: 'esa-num', text: String(seg.label) }),
        el('div', { cls: 'esa-src' }, [el('p', { lang: S.item.src_lang, dir: S.item.src_dir, text: seg.source })]),
        el('div', { cls: 'esa-tgt' }),
      ]);
      sec.addEventListener('mousedown', function (ev) { if (!ev.target.closest('.esa-pop')) { if (cur !== seg.i) setCurrent(seg.i, { keepFocus: true }); } });
      box.appendChild(sec);
    });
    segs.forEach(function (seg) { renderSeg(seg.i); });
    renderCount();
    setCurrent(cur, { noScroll: false });
  }
  function paintCaret() {
    box.querySelectorAll('.tok.caret, .tok.sel').forEach(function (t) { t.classList.remove('caret', 'sel'); });
    const sec = box.querySelector('[data-i="' + cur + '"]');
    if (!sec || readonly) return;
    const lo = anchor === null ? caret : Math.min(anchor, caret), hi = anchor === null ? caret : Math.max(anchor, caret);
    sec.querySelectorAll('.esa-text .tok').forEach(function (t) {
      const k = parseInt(t.getAttribute('data-k'), 10);
      if (k === caret) t.classList.add('caret');
      if (anchor !== null && k >= lo && k <= hi) t.classList.add('sel');
    });
  }
  function setCurrent(i, opts) {
    opts = opts || {};
    if (i < 0 || i >= segs.length) return;
    if (i !== cur) { caret = 0; anchor = null; }
    cur = i;
    clock.at(readonly ? null : cur);
    furthest = Math.max(furthest, cur);
    box.querySelectorAll('.esa-seg').forEach(function (s) { s.classList.toggle('current', parseInt(s.getAttribute('data-i'), 10) === cur); });
    paintCaret();
    queueProgress();
    const sec = box.querySelector('[data-i="' + cur + '"]');
    if (sec && !opts.noScroll) sec.scrollIntoView({ block: 'nearest' });
    if (!opts.keepFocus && !readonly) root.focus({ preventScroll: true });
  }

  // ------------------------------------------------------------------ the severity menu (mouse)
  function closePop() { pop.hidden = true; pop.replaceChildren(); }
  function openPop(i, a, b, x, y) {
    if (readonly) return;
    const existing = a === b ? spanAt(i, a) : null;
    pop.replaceChildren();
    S.severities.forEach(function (s, n) {
      pop.appendChild(el('button', { type: 'button', role: 'menuitem', cls: 'esa-choice sev-' + s.name, 'data-severity': s.name,
        onclick: function () { closePop(); mark(i, a, b, s.name); } },
        [el('span', { cls: 'esa-sev esa-' + s.name, text: s.letter }), ' ' + s.name + ' (' + (n + 1) + ')']));
    });
    if (existing) pop.appendChild(el('button', { type: 'button', role: 'menuitem', cls: 'esa-choice remove', text: 'Remove (Del)',
      onclick: function () { closePop(); unmark(i, existing); } }));
    pop.hidden = false;
    const r = root.getBoundingClientRect();
    pop.style.left = Math.max(0, x - r.left) + 'px';
    pop.style.top = (y - r.top + 12) + 'px';
    pop.firstChild.focus();
  }
  function tokIndex(node) {
    const t = node && (node.nodeType === 1 ? node : node.parentElement);
    const tok = t && t.closest('.tok');
    return tok ? parseInt(tok.getAttribute('data-k'), 10) : null;
  }
  box.addEventListener('mouseup', function (ev) {
    if (readonly) return;
    const sec = ev.target.closest('.esa-seg');
    if (!sec || !ev.target.closest('.esa-text')) return;
    const i = parseInt(sec.getAttribute('data-i'), 10);
    const sel = window.getSelection();
    let a = null, b = null;
    const textEl = sec.querySelector('.esa-text');
    const hit = sel && !sel.isCollapsed && textEl.contains(sel.anchorNode) ? kit.spans.touched(sel.getRangeAt(0), textEl, '.tok') : null;
    if (hit) {
      a = hit[0]; b = hit[1];
    } else {
      a = b = tokIndex(ev.target);
    }
    if (a === null || b === null) return;
    if (a > b) { const t = a; a = b; b = t; }
    const seg = segs[i];
    if (a < seg.tok.length && b >= seg.tok.length) b = seg.tok.length - 1;   // [missing] goes alone
    setCurrent(i, { keepFocus: true, noScroll: true });
    caret = b; anchor = a === b ? null : a;
    paintCaret();
    if (sel) sel.removeAllRanges();
    openPop(i, a, b, ev.clientX, ev.clientY);
  });
  document.addEventListener('mousedown', function (ev) { if (!pop.hidden && !pop.contains(ev.target)) closePop(); });
  pop.addEventListener('keydown', function (ev) {
    const items = Array.from(pop.querySelectorAll('button'));
    const k = items.indexOf(document.activeElement);
    if (ev.key === 'Escape') { ev.preventDefault(); closePop(); root.focus(); }
    else if (ev.key === 'ArrowDown' || ev.key === 'ArrowRight') { ev.preventDefault(); items[(k + 1) % items.length].focus(); }
    else if (ev.key === 'ArrowUp' || ev.key === 'ArrowLeft') { ev.preventDefault(); items[(k - 1 + items.length) % items.length].focus(); }
    else if (ev.key === '1' || ev.key === '2') { ev.preventDefault(); items[parseInt(ev.key, 10) - 1].click(); root.focus(); }
    else if (ev.key === 'Delete' || ev.key === 'Backspace') { const rm = pop.querySelector('.remove'); if (rm) { ev.preventDefault(); rm.click(); root.focus(); } }
    ev.stopPropagation();
  });

  // ------------------------------------------------------------------ keys
  root.setAttribute('tabindex', '-1');
  document.addEventListener('keydown', function (ev) {
    const t = ev.target;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || pop.contains(t))) return;
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const confirmBox = document.getElementById('finish-confirm');
    if (confirmBox && !confirmBox.hidden) {
      if (ev.key === 'Enter') { ev.preventDefault(); doFinish(); }
      else if (ev.key === 'Escape') { ev.preventDefault(); confirmBox.hidden = true; }
      return;
    }
    if (t && t.tagName === 'BUTTON' && (ev.key === 'Enter' || ev.key === ' ')) return;
    const seg = segs[cur];
    const stops = seg.tok.length + 1;   // words, then [missing]
    switch (ev.key) {
      case 'ArrowDown': case 'j': ev.preventDefault(); setCurrent(cur + 1); break;
      case 'ArrowUp': case 'k': ev.preventDefault(); setCurrent(cur - 1); break;
      case 'ArrowRight': case 'ArrowLeft': {
        ev.preventDefault();
        const step = ev.key === 'ArrowRight' ? 1 : -1;
        if (ev.shiftKey) { if (anchor === null) anchor = caret; caret = Math.max(0, Math.min(seg.tok.length - 1, caret + step)); }
        else { anchor = null; caret = (caret + step + stops) % stops; }
        paintCaret();
        break;
      }
      case '1': case '2': {
        if (readonly) return;
        ev.preventDefault();
        const sev = S.severities[parseInt(ev.key, 10) - 1].name;
        const a = anchor === null ? caret : Math.min(anchor, caret), b = anchor === null ? caret : Math.max(anchor, caret);
        const existing = anchor === null ? spanAt(cur, caret) : null;
        if (existing && existing.start !== 'missing') {
          const first = seg.tok.findIndex(function (x) { return x.e > existing.start; });
          let last = first;
          while (last + 1 < seg.tok.length && seg.tok[last + 1].s <= existing.end) last++;
          mark(cur, first, last, sev);
        } else mark(cur, a, b, sev);
        anchor = null;
        paintCaret();
        break;
      }
      case 'Delete': case 'Backspace': ev.preventDefault(); unmark(cur, spanAt(cur, caret)); break;
      case 's': {
        ev.preventDefault();
        // read since the reading clock's last tick (every 250 ms): open the slider now, not on the next one
        if (!readonly) openSliderIfRead(cur);
        const input = box.querySelector('[data-i="' + cur + '"] .esa-score input');
        if (input.disabled) toast(readonly ? 'Read-only view' : 'Read the segment first: the slider opens once it has been read.');
        else input.focus();
        break;
      }
      case 'Enter': ev.preventDefault(); askFinish(); break;
      case 'Escape': anchor = null; closePop(); paintCaret(); break;
      default: return;
    }
  });

  // ------------------------------------------------------------------ finish and reload
  function askFinish() {
    if (readonly) return;
    const unscored = segs.filter(function (s) { return answers[s.i].data.score === null; });
    if (unscored.length) { toast('Score every segment first: segment ' + unscored[0].label + ' has no score yet.', 'error'); setCurrent(unscored[0].i); return; }
    document.getElementById('finish-confirm').hidden = false;
    document.getElementById('finish-yes').focus();
  }
  async function doFinish() {
    const confirmBox = document.getElementById('finish-confirm');
    confirmBox.hidden = true;
    queueProgress();
    const ok = await Q.flush(15000);
    if (!ok) { toast('Not everything is saved yet; try again in a moment.', 'error'); return; }
    const resp = await Q.request('POST', S.urls.finish, {});
    const data = await resp.json().catch(function () { return {}; });
    const err = document.getElementById('finish-error');
    if (!resp.ok) { err.hidden = false; err.textContent = (data.error && data.error.message) || 'Could not finish.'; return; }
    finished = true;
    finishedNow = true;
    window.location.href = data.next || S.urls.list;
  }
  async function reload() {
    try {
      const resp = await fetch(S.urls.api, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
      if (!resp.ok) return;
      const data = await resp.json();
      segs.forEach(function (seg) {
        const a = data.answers[String(seg.i)];
        answers[seg.i] = a ? { uuid: a.uuid, data: a.data } : fresh(seg.i);
        if (a) Q.seenRev(a.uuid, a.rev);
      });
      clock.merge(data.times);
      segs.forEach(function (seg) { renderSeg(seg.i); });
      renderCount();
    } catch (e) { /* offline: the queue retries */ }
  }
  if (!readonly) {
    document.getElementById('finish').addEventListener('click', askFinish);
    document.getElementById('finish-yes').addEventListener('click', doFinish);
    document.getElementById('finish-no').addEventListener('click', function () { document.getElementById('finish-confirm').hidden = true; root.focus(); });
  }
  renderAll();
  root.setAttribute('data-ready', '1');
  window.enfaceEsa = {   // (for tests and debugging)
    pending: function () { return Q ? Q.pending() : 0; },
    read: function () { return segs.map(function (s) { return canScore(s.i); }); },
    cursor: function () { return cur; },
    answer: function (i) { return JSON.parse(JSON.stringify(answers[i].data)); },
  };
})();
