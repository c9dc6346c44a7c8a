/* Enface reader study (LAIT): immersive reading, questionnaires, side-by-side close reading with highlights.
 *
 * The page embeds its state as JSON (#reader-state), built by ReaderProtocol.item_state: the texts the
 * reader may see now, their answers, and nothing that names a system or says which version is which.
 * "1" and "2" are presentation labels (Translation 1 = read first; in close reading T1 = left column).
 *
 * Every answer is a response (kind, key, data) with a client UUID and a revision, saved at once through
 * the shared AutosaveQueue (localStorage-backed, retried, idempotent on the server). Reading times go to
 * the progress endpoint per part ("read:1", "questions:1", "compare:all", "chunk:3", "post:all").
 * Highlight offsets are Unicode code points into the displayed chunk text (paragraphs joined by "\n").
 * Words, the keyboard cursor, the reading clock, toasts and requests are the shared client kit's
 * (static/kit/, docs/development/client-kit.md).
 */
(function () {
  'use strict';

  const stateEl = document.getElementById('reader-state');
  if (!stateEl) return;
  const S = JSON.parse(stateEl.textContent);
  const kit = window.EnfaceKit;
  const API = S.urls.api;
  const VIEW = S.view;
  const READONLY = !!S.readonly;
  const ITEM = S.item.id;
  if ('scrollRestoration' in history) history.scrollRestoration = 'manual';   // the page restores the reading position itself
  const IDLE_MS = VIEW === 'read' || VIEW === 'questions' ? 3 * 60 * 1000 : 2 * 60 * 1000;
  const PROGRESS_EVERY_MS = 15 * 1000;

  // ---------------------------------------------------------------- helpers
  const $ = kit.dom.$, $$ = kit.dom.$$, el = kit.dom.el;
  const uuid4 = kit.AutosaveQueue.uuid;
  function local(key, value) {
    const k = 'enface:reader:' + ITEM + ':' + key;
    try {
      if (value === undefined) return JSON.parse(localStorage.getItem(k) || 'null');
      if (value === null) localStorage.removeItem(k); else localStorage.setItem(k, JSON.stringify(value));
    } catch (e) { return null; }
    return null;
  }
  const toast = kit.toaster($('#toast'), 'rd-toast');
  const request = kit.csrf.request;
  let dialogResolve = null;
  function confirmBox(title, text, yes) {
    $('#confirm-title').textContent = title;
    $('#confirm-text').textContent = text;
    $('#confirm-yes').textContent = yes || 'Continue';
    $('#confirm').hidden = false;
    $('#confirm-yes').focus();
    return new Promise(function (resolve) { dialogResolve = resolve; });
  }
  function closeConfirm(answer) {
    $('#confirm').hidden = true;
    if (dialogResolve) { const r = dialogResolve; dialogResolve = null; r(answer); }
  }

  // ---------------------------------------------------------------- saving
  const statusEl = $('#save-status');
  function showStatus(st) {
    if (!statusEl || READONLY) return;
    statusEl.className = 'rd-status ' + st.state;
    statusEl.textContent = st.message;
  }
  let reloading = false;
  let hideHook = null;   // the reading view saves its position when the page is hidden
  const queue = READONLY ? null : new window.AutosaveQueue({
    key: 'enface:reader:pending:' + ITEM, csrfToken: kit.csrf.token(), onStatus: showStatus,
    onHide: function () { if (hideHook) hideHook(); queueTimes(); },
    onRefused: function (op, status, data) {
      const err = (data && data.error) || {};
      toast(err.message || 'The server refused a change (HTTP ' + status + ')', 'error');
      // The server's truth wins: reload once the rest of the queue is out.
      if (!reloading) { reloading = true; setTimeout(function () { queue.flush().then(function () { location.reload(); }); }, 1800); }
    },
  });

  // Responses known to the page: "kind:key" -> {uuid, rev, data} (questionnaires, steps, positions).
  const known = {};
  Object.keys(S.responses || {}).forEach(function (k) { known[k] = Object.assign({}, S.responses[k]); });
  const highlights = new Map();   // uuid -> {uuid, rev, chunk, side, start, end, label, text}
  const deadRevs = new Map();     // uuid -> rev of a deleted highlight (an undo needs a newer one)
  ((S.close && S.close.highlights) || []).forEach(function (h) { highlights.set(h.uuid, Object.assign({}, h)); });

  // Replay what a closed tab left in the queue over the server's state (its revisions are newer).
  if (queue) queue.ops().forEach(function (op) {
    const uuid = op.url.split('/').pop();
    if (op.method === 'PUT' && op.body) {
      if (op.body.kind === 'highlight') {
        highlights.set(uuid, Object.assign({ uuid: uuid, rev: op.body.rev, chunk: Number(op.body.key) }, op.body.data));
        return;
      }
      const k = op.body.kind + ':' + op.body.key;
      if (!known[k] || known[k].rev < op.body.rev) known[k] = { uuid: uuid, rev: op.body.rev, data: op.body.data };
    } else if (op.method === 'DELETE') {
      highlights.delete(uuid);
      deadRevs.set(uuid, (op.body && op.body.rev) || 1);
    }
  });

  function save(kind, key, data) {
    if (READONLY) return;
    const k = kind + ':' + key;
    const r = known[k] || (known[k] = { uuid: uuid4(), rev: 0, data: null });
    r.rev += 1;
    r.data = data;
    queue.put(API + '/responses/' + r.uuid, { rev: r.rev, kind: kind, key: key, data: data });
  }
  function dataOf(kind, key) { const r = known[kind + ':' + key]; return (r && r.data) || {}; }

  // ---------------------------------------------------------------- reading time
  const clock = new kit.ReadingClock({ times: S.times, idleMs: IDLE_MS });
  const times = clock.times;
  function setPart(p) { clock.at(p); }
  function activity() { clock.activity(); }
  function queueTimes() {
    if (READONLY) return;
    clock.tick();
    if (!clock.dirty) return;
    clock.dirty = false;
    queue.post(API + '/progress', function () { clock.tick(); return { times: times }; }, { key: 'progress', quiet: true });
  }

  // ---------------------------------------------------------------- finishing a stage or a step
  async function flushAll() {
    clock.dirty = true;
    queueTimes();
    const ok = await queue.flush();
    if (!ok) toast('Some answers are not saved yet; check your connection and try again.', 'error');
    return ok;
  }
  async function advanceStep(step) {
    if (READONLY) return;
    save('step', 'immersive', { step: step });
    if (await flushAll()) { reloading = true; location.reload(); }
  }
  async function finishStage() {
    if (READONLY) return;
    if (!(await flushAll())) return;
    let res, data;
    try { res = await request('POST', API + '/finish', {}); data = await res.json().catch(function () { return null; }); }
    catch (e) { toast('Could not reach the server; try again.', 'error'); return; }
    if (!res.ok) { toast((data && data.error && data.error.message) || 'Could not finish', 'error'); return; }
    reloading = true;
    if (data && data.finished && data.next && VIEW === 'post_elsewhere') location.href = data.next;
    else location.reload();
  }

  // ---------------------------------------------------------------- questionnaires
  function readForm(form) {
    const out = {};
    $$('fieldset[data-q]', form).forEach(function (fs) {
      const id = fs.dataset.q;
      const ta = $('textarea', fs);
      if (ta) { out[id] = ta.value; return; }
      const checked = $('input[type=radio]:checked', fs);
      out[id] = checked ? (checked.dataset.type === 'int' ? Number(checked.value) : checked.value) : null;
    });
    return out;
  }
  function fillForm(form, data) {
    $$('fieldset[data-q]', form).forEach(function (fs) {
      const v = data ? data[fs.dataset.q] : null;
      const ta = $('textarea', fs);
      if (ta) { ta.value = v == null ? '' : v; return; }
      $$('input[type=radio]', fs).forEach(function (r) { r.checked = v != null && String(v) === r.value; });
      fs.classList.remove('missing');
    });
  }
  function missingIn(form) {
    return $$('fieldset[data-q]', form).filter(function (fs) {
      const required = !!$('[required]', fs);
      if (!required) return false;
      const ta = $('textarea', fs);
      if (ta) return !ta.value.trim();
      return !$('input[type=radio]:checked', fs);
    });
  }
  function showMissing(form, flag) {
    const miss = missingIn(form);
    $$('fieldset[data-q]', form).forEach(function (fs) { fs.classList.toggle('missing', flag && miss.indexOf(fs) >= 0); });
    const note = $('#form-missing');
    if (note) note.textContent = miss.length ? 'Still to answer: ' + miss.map(function (fs) { return $('.rq-num', fs).textContent; }).join(', ') : '';
    if (flag && miss.length) { miss[0].scrollIntoView({ block: 'center', behavior: 'smooth' }); const i = $('input, textarea', miss[0]); if (i) i.focus({ preventScroll: true }); }
    return miss;
  }
  function wireForm(form, onSave) {
    let timer = null;
    form.addEventListener('submit', function (e) { e.preventDefault(); });
    form.addEventListener('change', function (e) {
      if (e.target.type === 'radio') { clearTimeout(timer); onSave(readForm(form)); showMissing(form, false); }
    });
    form.addEventListener('input', function (e) {
      if (e.target.tagName !== 'TEXTAREA') return;
      showMissing(form, false);
      clearTimeout(timer);
      timer = setTimeout(function () { timer = null; onSave(readForm(form)); }, 500);
    });
    form.addEventListener('focusout', function (e) {
      if (e.target.tagName === 'TEXTAREA' && timer) { clearTimeout(timer); timer = null; onSave(readForm(form)); }
    });
  }
  function simpleForm(form, kind, key) {
    fillForm(form, dataOf(kind, key));
    showMissing(form, false);
    wireForm(form, function (data) { save(kind, key, data); });
  }

  // ---------------------------------------------------------------- immersive reading
  function initReading() {
    const book = $('#book');
    const paras = $$('.rd-pages p', book);
    const label = book.dataset.label;
    const n = paras.length;
    const pos = Object.assign({ para: 0, furthest: -1 }, dataOf('position', label));
    const saved = local('pos:' + label);
    if (saved && saved.para != null && saved.para < n) { pos.para = saved.para; pos.furthest = Math.max(pos.furthest, saved.furthest || 0); }
    let lastSent = JSON.stringify({ para: pos.para, furthest: pos.furthest });
    const bar = $('#read-progress > div');
    const doneBtn = $('#done-reading');

    function topOffset() { return 12; }
    function measure() {
      if (book.hidden) return;
      const vh = window.innerHeight;
      let top = pos.para;
      // the first paragraph whose bottom is below the top of the window
      let lo = 0, hi = n - 1, ans = n - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        if (paras[mid].getBoundingClientRect().bottom > topOffset()) { ans = mid; hi = mid - 1; } else lo = mid + 1;
      }
      top = ans;
      let seen = top;
      while (seen + 1 < n && paras[seen + 1].getBoundingClientRect().top < vh - 40) seen++;
      pos.para = top;
      pos.furthest = Math.max(pos.furthest, seen);
      local('pos:' + label, { para: pos.para, furthest: pos.furthest });
      if (bar) {
        // how far through the book the window is (0% at the top, 100% at the end)
        const rect = book.getBoundingClientRect();
        const span = Math.max(1, rect.height - vh);
        bar.style.width = Math.round(100 * Math.min(1, Math.max(0, -rect.top / span))) + '%';
      }
      if (doneBtn) doneBtn.disabled = pos.furthest < n - 1;
    }
    function sendPosition() {
      const now = JSON.stringify({ para: pos.para, furthest: pos.furthest });
      if (now !== lastSent && !READONLY && n) { lastSent = now; save('position', label, { para: pos.para, furthest: Math.max(pos.furthest, 0) }); }
    }
    function restore() {
      const p = paras[Math.min(pos.para, n - 1)];
      // the paragraph's first line at the top of the window (a hair above the line measure() reads)
      if (p && pos.para > 0) window.scrollTo(0, p.getBoundingClientRect().top + window.scrollY - topOffset() + 3);
    }
    let raf = 0;
    window.addEventListener('scroll', function () {
      activity();
      if (!raf) raf = requestAnimationFrame(function () { raf = 0; measure(); });
    }, { passive: true });
    setInterval(sendPosition, 4000);
    hideHook = sendPosition;
    restore();
    measure();

    if (doneBtn) doneBtn.addEventListener('click', async function () {
      measure();
      if (pos.furthest < n - 1) { toast('Read to the end of the text first.'); return; }
      const ok = await confirmBox('Finished reading Translation ' + label + '?',
        'Next you answer eight questions about it. While answering you can still reread it.', 'Go to the questions');
      if (!ok) return;
      sendPosition();
      advanceStep(S.immersive.step + 1);
    });
    return { measure: measure, sendPosition: sendPosition, restore: restore };
  }

  function initQuestions(reading) {
    const book = $('#book'), qs = $('#questions'), form = $('#single-form');
    const label = book.dataset.label;
    simpleForm(form, 'single', label);
    let qScroll = 0;
    function showText(on) {
      if (on) { qScroll = window.scrollY; qs.hidden = true; book.hidden = false; reading.restore(); reading.measure(); setPart('read:' + label); }
      else { reading.sendPosition(); book.hidden = true; qs.hidden = false; window.scrollTo(0, qScroll); setPart('questions:' + label); }
    }
    $('#reread').addEventListener('click', function () { showText(true); });
    $('#back-to-questions').addEventListener('click', function () { showText(false); });
    $('#next-step').addEventListener('click', async function () {
      if (showMissing(form, true).length) return;
      const ok = await confirmBox(label === '1' ? 'Continue to Translation 2?' : 'Continue to the comparison?',
        label === '1' ? 'Your answers about Translation 1 become final and Translation 1 closes: you read Translation 2 on its own.'
          : 'Your answers about Translation 2 become final. Then you compare the two translations.');
      if (!ok) return;
      save('single', label, readForm(form));
      advanceStep(S.immersive.step + 1);
    });
  }

  function initCompare() {
    const form = $('#compare-form');
    simpleForm(form, 'compare', '');
    $('#finish-stage').addEventListener('click', async function () {
      if (showMissing(form, true).length) return;
      const ok = await confirmBox('Finish Part 1?', S.lock_text || 'Part 2 opens later.', 'Finish Part 1');
      if (!ok) return;
      save('compare', '', readForm(form));
      finishStage();
    });
  }

  // ---------------------------------------------------------------- close reading
  function prepare(text) {
    // Tokens (UTF-16 offsets; every mark a word of its own), code-point maps both ways, paragraphs with their UTF-16 start.
    const words = kit.spans.tokenize(text, { runs: false });
    const cp = words.cp, u16 = words.u16;
    const tokens = words.tokens.map(function (t) { return { a: t.a16, b: t.b16 }; });
    const paras = [];
    let start = 0;
    text.split('\n').forEach(function (p) { paras.push({ a: start, b: start + p.length }); start += p.length + 1; });
    return { text: text, tokens: tokens, cp: cp, u16: u16, paras: paras };
  }

  function cursorIn(side) {
    // the keyboard's word cursor in one column (side null: none yet); keys: the arrows have moved it
    return Object.assign(new kit.spans.WordCursor(), { side: side, keys: false });
  }

  function initClose() {
    const chunks = S.close.chunks;
    const N = chunks.length;
    const prepared = chunks.map(function (c) { return { '1': prepare(c.texts['1']), '2': prepare(c.texts['2']) }; });
    const form = $('#chunk-form');
    const cols = { '1': $('.rd-text[data-side="1"]'), '2': $('.rd-text[data-side="2"]') };
    let cur = 1;
    let kc = cursorIn(null);                        // keyboard cursor
    let pendingSel = null;                          // {side, a, b} (UTF-16) awaiting a label
    const popover = $('#hl-popover');

    chunks.forEach(function (c) {
      const k = 'chunk:' + c.n;
      if (!known[k] && c.answer) known[k] = { uuid: c.answer.uuid, rev: c.answer.rev, data: c.answer.data };
    });
    function answer(n) { return dataOf('chunk', String(n)); }
    function complete(n) {
      const a = answer(n);
      return !!(a.preference && a.justification && String(a.justification).trim() && a.difficulty);
    }
    function firstIncomplete() { for (let n = 1; n <= N; n++) if (!complete(n)) return n; return N + 1; }
    function hlOf(n, side) {
      return Array.from(highlights.values()).filter(function (h) { return h.chunk === n && (side == null || h.side === side); })
        .sort(function (a, b) { return a.start - b.start; });
    }

    function renderSide(side) {
      const P = prepared[cur - 1][side];
      const col = cols[side];
      col.textContent = '';
      const hs = hlOf(cur, side).map(function (h) { return { h: h, a: P.u16[h.start], b: P.u16[h.end] }; });
      function hlAt(a, b) { return hs.find(function (x) { return x.a < b && a < x.b; }); }
      let t = 0;
      P.paras.forEach(function (para) {
        const p = el('p', { 'data-a': para.a });
        let last = para.a, prevH = null;
        while (t < P.tokens.length && P.tokens[t].b <= para.b) {
          const tok = P.tokens[t];
          const h = hlAt(tok.a, tok.b);
          if (tok.a > last) {
            // the space between two words of one highlight is highlighted with them
            if (h && prevH && h.h.uuid === prevH.h.uuid) p.appendChild(el('span', { cls: 'gap', 'data-h': h.h.uuid, text: P.text.slice(last, tok.a) }));
            else p.appendChild(document.createTextNode(P.text.slice(last, tok.a)));
          }
          const span = el('span', { cls: 't', 'data-k': t, text: P.text.slice(tok.a, tok.b) });
          if (h) span.dataset.h = h.h.uuid;
          if (kc.side === side && kc.keys && kc.k === t) span.classList.add('kcur');
          if (kc.side === side && kc.anchor != null && t >= kc.range()[0] && t <= kc.range()[1]) span.classList.add('ksel');
          p.appendChild(span);
          last = tok.b;
          prevH = h;
          t++;
        }
        if (last < para.b) p.appendChild(document.createTextNode(P.text.slice(last, para.b)));
        col.appendChild(p);
      });
      // Wrap runs of highlighted spans in <mark> for one continuous background (clickable to remove).
      $$('p', col).forEach(function (p) {
        let run = null;
        Array.from(p.childNodes).forEach(function (node) {
          const hid = node.nodeType === 1 ? node.dataset.h : null;
          if (hid && run && run.dataset.uuid === hid) { run.appendChild(node); return; }
          if (hid) {
            const h = highlights.get(hid);
            run = el('mark', { cls: 'hl ' + h.label, 'data-uuid': hid, title: (h.label === 'good' ? 'Good' : 'Poor') + ' · click to remove' });
            p.insertBefore(run, node);
            run.appendChild(node);
            return;
          }
          run = null;
        });
      });
      const good = hlOf(cur, side).filter(function (h) { return h.label === 'good'; }).length;
      const poor = hlOf(cur, side).length - good;
      $('.rd-count[data-count="' + side + '"]').textContent = (good || poor) ? '· ' + good + ' good, ' + poor + ' poor' : '';
    }
    function renderNav() {
      const fi = firstIncomplete();
      $$('#chunk-list button').forEach(function (b) {
        const n = Number(b.dataset.chunk);
        b.classList.toggle('done', complete(n));
        b.classList.toggle('current', n === cur);
        b.disabled = n > fi && !READONLY;
        b.setAttribute('aria-current', n === cur ? 'step' : 'false');
      });
      $('#chunk-now').textContent = String(cur);
      $('#prev-chunk').disabled = cur <= 1;
      const last = cur === N;
      $('#next-chunk').hidden = last;
      $('#finish-stage').hidden = !last || READONLY;
    }
    function go(n, focus) {
      n = Math.max(1, Math.min(N, n));
      if (!READONLY && n > firstIncomplete()) n = firstIncomplete();
      clock.tick();
      cur = n;
      kc = cursorIn(null);
      closePopover();
      renderSide('1'); renderSide('2');
      fillForm(form, answer(cur));
      showMissing(form, false);
      renderNav();
      local('chunk', cur);
      if (location.hash !== '#chunk-' + cur) history.replaceState(null, '', '#chunk-' + cur);
      setPart('chunk:' + cur);
      if (focus) window.scrollTo({ top: $('.rd-chunks').getBoundingClientRect().top + window.scrollY - 8 });
    }

    // -- highlights
    function offsetIn(side, node, offset) {
      // UTF-16 offset in the chunk text of a DOM position inside column `side`.
      const col = cols[side];
      let p = node.nodeType === 1 ? node : node.parentElement;
      while (p && p.tagName !== 'P' && p !== col) p = p.parentElement;
      if (!p || p === col) {
        // a position between paragraphs: the start of the next or the end of the text
        const ps = $$('p', col);
        if (node === col) return offset >= ps.length ? prepared[cur - 1][side].text.length : Number(ps[offset].dataset.a);
        return null;
      }
      const r = document.createRange();
      r.setStart(p, 0);
      r.setEnd(node, offset);
      return Number(p.dataset.a) + r.toString().length;
    }
    function snap(side, a, b) {
      // to whole words: from the first token ending after a to the last token starting before b
      const T = prepared[cur - 1][side].tokens;
      const w = kit.spans.snap(T.map(function (t) { return { a16: t.a, b16: t.b }; }), a, b);
      return w && { a: T[w.i].a, b: T[w.j].b, i: w.i, j: w.j };
    }
    function overlaps(side, a, b) {
      const P = prepared[cur - 1][side];
      return hlOf(cur, side).some(function (h) { return P.u16[h.start] < b && a < P.u16[h.end]; });
    }
    function openPopover(sel, rect) {
      if (READONLY) return;
      pendingSel = sel;
      popover.hidden = false;
      const top = rect.bottom + window.scrollY + 8;
      let left = rect.left + window.scrollX;
      left = Math.min(left, window.scrollX + document.documentElement.clientWidth - popover.offsetWidth - 8);
      popover.style.top = top + 'px';
      popover.style.left = Math.max(8, left) + 'px';
      $('button[data-label="good"]', popover).focus({ preventScroll: true });
    }
    function closePopover() { pendingSel = null; if (popover) popover.hidden = true; }
    function addHighlight(sel, label) {
      const P = prepared[cur - 1][sel.side];
      const h = { uuid: uuid4(), rev: 1, chunk: cur, side: sel.side, start: P.cp[sel.a], end: P.cp[sel.b], label: label,
        text: P.text.slice(sel.a, sel.b) };
      highlights.set(h.uuid, h);
      putHighlight(h);
      window.getSelection().removeAllRanges();
      renderSide(sel.side);
      toast((label === 'good' ? 'Good' : 'Poor') + ': “' + (h.text.length > 60 ? h.text.slice(0, 57) + '…' : h.text) + '”');
    }
    function putHighlight(h) {
      queue.put(API + '/responses/' + h.uuid, { rev: h.rev, kind: 'highlight', key: String(h.chunk),
        data: { side: h.side, start: h.start, end: h.end, label: h.label, text: h.text } });
    }
    function removeHighlight(uuid) {
      const h = highlights.get(uuid);
      if (!h || READONLY) return;
      highlights.delete(uuid);
      h.rev += 1;
      queue.delete(API + '/responses/' + uuid, { rev: h.rev });
      renderSide(h.side);
      toast('Highlight removed', '', { label: 'Undo', run: function () {
        if (highlights.has(uuid) || h.chunk !== cur || overlaps(h.side, prepared[cur - 1][h.side].u16[h.start], prepared[cur - 1][h.side].u16[h.end])) return;
        h.rev += 1; highlights.set(uuid, h); putHighlight(h); renderSide(h.side);
      } });
    }
    function fromSelection() {
      const sel = window.getSelection();
      if (!sel || sel.rangeCount === 0 || sel.isCollapsed) return null;
      const range = sel.getRangeAt(0);
      const side = ['1', '2'].find(function (s) { return cols[s].contains(range.startContainer) && cols[s].contains(range.endContainer); });
      if (!side) { if (cols['1'].contains(range.startContainer) || cols['2'].contains(range.startContainer)) toast('Select words in one column at a time.'); return null; }
      const a = offsetIn(side, range.startContainer, range.startOffset);
      const b = offsetIn(side, range.endContainer, range.endOffset);
      if (a == null || b == null) return null;
      const s = snap(side, Math.min(a, b), Math.max(a, b));
      if (!s) return null;
      if (overlaps(side, s.a, s.b)) { toast('That overlaps a highlight: click the highlight to remove it first.'); return null; }
      return { side: side, a: s.a, b: s.b, rect: range.getBoundingClientRect() };
    }
    ['1', '2'].forEach(function (side) {
      const col = cols[side];
      let down = null;
      col.addEventListener('mousedown', function (e) {
        const mark = e.target.closest && e.target.closest('mark.hl');
        down = { x: e.clientX, y: e.clientY, mark: mark ? mark.dataset.uuid : null };
      });
      col.addEventListener('mouseup', function (e) {
        activity();
        if (READONLY) return;
        const start = down;
        down = null;
        // A click (not a drag) on a highlight removes it, even a quick second click (which would select a word).
        if (start && start.mark && Math.abs(e.clientX - start.x) < 4 && Math.abs(e.clientY - start.y) < 4) {
          window.getSelection().removeAllRanges();
          removeHighlight(start.mark);
          return;
        }
        setTimeout(function () {
          const s = fromSelection();
          if (s) openPopover({ side: s.side, a: s.a, b: s.b }, s.rect);
        }, 0);
      });
      col.addEventListener('focus', function () {
        // (no re-render of this column: a mouse drag may be starting in it)
        if (kc.side === side) return;
        const before = kc.side;
        kc = cursorIn(side);
        if (before) renderSide(before);
      });
      col.addEventListener('keydown', function (e) { keyInColumn(e, side); });
    });
    popover.addEventListener('click', function (e) {
      const b = e.target.closest('button');
      if (!b) return;
      const sel = pendingSel;
      closePopover();
      if (b.dataset.label && sel) addHighlight(sel, b.dataset.label);
      // back to the column the words were in (a mouse highlight too): Tab goes on from the text, in order
      const side = (sel && sel.side) || kc.side;
      if (side) { kc.anchor = null; if (kc.side) renderSide(kc.side); cols[side].focus({ preventScroll: true }); }
    });
    // The preference (T1/T2) changes only when chosen (a click, Space): an arrow key on its radios moves the
    // focus and leaves the choice as it is. Native radios would switch T1/T2 on an arrow key, unnoticed
    // by a reader who tabbed there from the text.
    if (form) form.addEventListener('keydown', function (e) {
      const r = e.target;
      if (!r || r.type !== 'radio' || !r.closest("fieldset[data-q='preference']")) return;
      if (['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown'].indexOf(e.key) < 0) return;
      e.preventDefault();
      const radios = Array.prototype.slice.call(r.closest('fieldset').querySelectorAll("input[type='radio']"));
      const step = (e.key === 'ArrowLeft' || e.key === 'ArrowUp') ? -1 : 1;
      radios[(radios.indexOf(r) + step + radios.length) % radios.length].focus();
    });
    popover.addEventListener('keydown', function (e) {
      const key = e.key.toLowerCase();
      if (key === 'g' || key === 'p') { e.preventDefault(); const sel = pendingSel; closePopover(); if (sel) addHighlight(sel, key === 'g' ? 'good' : 'poor'); if (kc.side) { kc.anchor = null; renderSide(kc.side); cols[kc.side].focus({ preventScroll: true }); } }
      else if (e.key === 'Escape') { e.preventDefault(); closePopover(); if (kc.side) cols[kc.side].focus({ preventScroll: true }); }
    });
    document.addEventListener('mousedown', function (e) { if (!popover.hidden && !popover.contains(e.target)) closePopover(); });

    function keyInColumn(e, side) {
      activity();
      const T = prepared[cur - 1][side].tokens;
      if (!T.length) return;
      const key = e.key;
      if (key === 'ArrowRight' || key === 'ArrowLeft') {
        e.preventDefault();
        if (!kc.keys) { kc.keys = true; if (!e.shiftKey) { renderSide(side); return; } }
        kc.move(key === 'ArrowRight' ? 1 : -1, e.shiftKey, T.length);
        renderSide(side);
        const span = $('.t[data-k="' + kc.k + '"]', cols[side]);
        if (span) span.scrollIntoView({ block: 'nearest' });
        return;
      }
      if (key === 'Escape') { kc.anchor = null; renderSide(side); return; }
      const lower = key.toLowerCase();
      if ((lower === 'g' || lower === 'p' || key === 'Enter') && !READONLY) {
        e.preventDefault();
        const i = kc.range()[0], j = kc.range()[1];
        const sel = { side: side, a: T[i].a, b: T[j].b };
        if (overlaps(side, sel.a, sel.b)) { toast('That overlaps a highlight: press X on it to remove it first.'); return; }
        if (key === 'Enter') {
          const span = $('.t[data-k="' + j + '"]', cols[side]);
          openPopover(sel, span.getBoundingClientRect());
          return;
        }
        kc.anchor = null;
        addHighlight(sel, lower === 'g' ? 'good' : 'poor');
        return;
      }
      if ((lower === 'x' || key === 'Delete' || key === 'Backspace') && !READONLY) {
        e.preventDefault();
        const t = T[kc.k];
        const P = prepared[cur - 1][side];
        const h = hlOf(cur, side).find(function (x) { return P.u16[x.start] < t.b && t.a < P.u16[x.end]; });
        if (h) removeHighlight(h.uuid); else toast('No highlight under the cursor.');
      }
    }

    // -- the chunk's questions
    wireForm(form, function (data) {
      save('chunk', String(cur), data);
      renderNav();
    });
    $('#chunk-list').addEventListener('click', function (e) {
      const b = e.target.closest('button[data-chunk]');
      if (b && !b.disabled) go(Number(b.dataset.chunk), true);
    });
    $('#prev-chunk').addEventListener('click', function () { go(cur - 1, true); });
    $('#next-chunk').addEventListener('click', function () {
      if (!READONLY) {
        save('chunk', String(cur), readForm(form));
        if (showMissing(form, true).length) return;
      }
      go(cur + 1, true);
    });
    $('#finish-stage').addEventListener('click', async function () {
      save('chunk', String(cur), readForm(form));
      if (showMissing(form, true).length) return;
      const fi = firstIncomplete();
      if (fi <= N) { toast('Chunk ' + fi + ' is not complete yet.', 'error'); go(fi, true); return; }
      const ok = await confirmBox('Finish Part 2?', 'Your answers for all ' + N + ' chunks become final.', 'Finish Part 2');
      if (ok) finishStage();
    });

    const fromHash = /^#chunk-(\d+)$/.exec(location.hash);
    const start = fromHash ? Number(fromHash[1]) : (local('chunk') || firstIncomplete());
    go(Math.min(start, N), false);
    window.enfaceReader.highlights = function () { return Array.from(highlights.values()); };
    window.enfaceReader.chunk = function () { return cur; };
  }

  // ---------------------------------------------------------------- passphrase, lock, post
  function initPassphrase() {
    const form = $('#passphrase-form');
    form.addEventListener('submit', async function (e) {
      e.preventDefault();
      const err = $('#passphrase-error');
      err.hidden = true;
      const value = $('#passphrase-input').value;
      let res, data;
      try {
        res = await request('PUT', API + '/responses/' + uuid4(), { rev: 1, kind: 'passphrase', key: '', data: { passphrase: value } });
        data = await res.json().catch(function () { return null; });
      } catch (x) { err.textContent = 'Could not reach the server; try again.'; err.hidden = false; return; }
      if (res.ok) { location.reload(); return; }
      err.textContent = (data && data.error && data.error.message) || 'That is not the passphrase.';
      err.hidden = false;
      $('#passphrase-input').select();
    });
    $('#passphrase-input').focus();
  }
  function initLock() {
    const t = $('#opens-at');
    if (!t) return;
    const when = new Date(t.getAttribute('datetime'));
    if (isNaN(when)) return;
    t.textContent = when.toLocaleString(undefined, { weekday: 'long', day: 'numeric', month: 'long', hour: '2-digit', minute: '2-digit' })
      + ' (your time; ' + t.textContent + ')';
    const wait = when - Date.now();
    if (wait > 0 && wait < 24 * 3600 * 1000) setTimeout(function () { location.reload(); }, wait + 3000);
  }

  // ---------------------------------------------------------------- start
  function init() {
    window.enfaceReader = { pending: function () { return queue ? queue.pending() : 0; }, view: VIEW,
      times: function () { clock.tick(); return Object.assign({}, times); } };
    $('#confirm-yes').addEventListener('click', function () { closeConfirm(true); });
    $('#confirm-no').addEventListener('click', function () { closeConfirm(false); });
    document.addEventListener('keydown', function (e) {
      if ($('#confirm').hidden) return;
      if (e.key === 'Escape') { e.preventDefault(); closeConfirm(false); }
    });
    clock.watch(['keydown', 'mousemove', 'pointerdown', 'input', 'wheel', 'touchstart']);
    setInterval(queueTimes, PROGRESS_EVERY_MS);

    if (VIEW === 'passphrase') initPassphrase();
    else if (VIEW === 'locked') initLock();
    else if (VIEW === 'read') { const r = initReading(); setPart('read:' + S.immersive.label); void r; }
    else if (VIEW === 'questions') { const r = initReading(); initQuestions(r); setPart('questions:' + S.immersive.label); }
    else if (VIEW === 'compare') { initCompare(); setPart('compare:all'); }
    else if (VIEW === 'close') initClose();
    else if (VIEW === 'post') {
      simpleForm($('#post-form'), 'post', '');
      setPart('post:all');
      $('#finish-stage').addEventListener('click', async function () {
        const form = $('#post-form');
        if (showMissing(form, true).length) return;
        const ok = await confirmBox('Send your answers?', 'This finishes the study. Thank you for reading with us!', 'Send and finish');
        if (!ok) return;
        save('post', '', readForm(form));
        finishStage();
      });
    } else if (VIEW === 'post_elsewhere') {
      $('#finish-stage').addEventListener('click', finishStage);
      if (!READONLY) finishStage();
    }
    if (READONLY) $$('input, textarea, button.primary').forEach(function (x) { if (x.id !== 'confirm-yes') x.disabled = true; });
    document.body.dataset.ready = '1';
  }
  init();
})();
