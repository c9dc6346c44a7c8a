/* Enface kit: span marking, words of a text and a selection of them as a span (plain script, no build step).
 *
 * A span sent to the server is in Unicode code points (Python str indices), [start, end); the DOM counts
 * UTF-16 units. Words follow one rule, the server's too (the attention checks' words_in, in Python): a CJK
 * character on its own, or a run of letters, marks and digits with inner apostrophes or hyphens; any other
 * mark is a word of its own (with `runs`, a run of the same mark is one: "--", "...").
 *
 *   EnfaceKit.spans.tokenize(text, {runs: true}) -> {tokens, length, cp, u16}
 *       tokens: [{a16, b16, s, e}], each word's UTF-16 offsets (a16, b16) and code-point offsets (s, e);
 *       length: the text's length in code points; cp[utf16 index] -> code point; u16[code point] -> utf16 index
 *   EnfaceKit.spans.cpSlice(text, s, e) -> the text between two code-point offsets
 *   EnfaceKit.spans.snap(tokens, a16, b16) -> {i, j} | null
 *       a UTF-16 range widened to whole words: from the first word ending after a16 to the last starting before b16
 *   EnfaceKit.spans.touched(range, root, selector) -> [first, last] | null
 *       the first and last word elements (matching selector, each with data-k = its token index) that a DOM
 *       Range (a mouse selection) touches inside root
 *   new EnfaceKit.spans.WordCursor()   the keyboard's word cursor and selection in one text
 *       .k (the word under the cursor), .anchor (where a Shift selection started; null: none)
 *       .move(delta, extend, count)  delta words on (clamped to 0..count-1); extend: grow the selection
 *       .range() -> [i, j]           the selected words (i <= j; the cursor's word when nothing is selected)
 *       .reset(k)                    the cursor on word k (default 0), no selection
 */
(function (global) {
  'use strict';
  const kit = global.EnfaceKit = global.EnfaceKit || {};

  const CJK = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}';
  const WORD = '[' + CJK + ']|(?:(?![' + CJK + '])[\\p{L}\\p{M}\\p{N}])+(?:[\'\\u2019\\-](?:(?![' + CJK + '])[\\p{L}\\p{M}\\p{N}])+)*';
  const WITH_RUNS = new RegExp(WORD + '|(\\S)\\1*', 'gu');
  const SINGLE = new RegExp(WORD + '|\\S', 'gu');

  function tokenize(text, opts) {
    const re = opts && opts.runs === false ? SINGLE : WITH_RUNS;
    const cp = new Array(text.length + 1);
    const u16 = [];
    let n = 0;
    for (let i = 0; i < text.length; i++) {
      cp[i] = n; u16[n] = i;
      const c = text.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) { cp[i + 1] = n; i++; }
      n++;
    }
    cp[text.length] = n; u16[n] = text.length;
    const tokens = [];
    re.lastIndex = 0;
    let m;
    while ((m = re.exec(text)) !== null) {
      const a = m.index, b = m.index + m[0].length;
      tokens.push({ a16: a, b16: b, s: cp[a], e: cp[b] });
    }
    return { tokens: tokens, length: n, cp: cp, u16: u16 };
  }

  function cpSlice(text, s, e) { return Array.from(text).slice(s, e).join(''); }

  function snap(tokens, a16, b16) {
    const i = tokens.findIndex(function (t) { return t.b16 > a16; });
    let j = -1;
    for (let k = tokens.length - 1; k >= 0; k--) if (tokens[k].a16 < b16) { j = k; break; }
    if (i < 0 || j < 0 || j < i) return null;
    return { i: i, j: j };
  }

  function touched(range, root, selector) {
    const hit = Array.from(root.querySelectorAll(selector)).filter(function (t) { return range.intersectsNode(t); });
    if (!hit.length) return null;
    return [Number(hit[0].dataset.k), Number(hit[hit.length - 1].dataset.k)];
  }

  function WordCursor() { this.k = 0; this.anchor = null; }
  WordCursor.prototype.move = function (delta, extend, count) {
    if (extend && this.anchor == null) this.anchor = this.k;
    if (!extend) this.anchor = null;
    this.k = Math.min(Math.max(this.k + delta, 0), count - 1);
  };
  WordCursor.prototype.range = function () {
    return this.anchor == null ? [this.k, this.k] : [Math.min(this.anchor, this.k), Math.max(this.anchor, this.k)];
  };
  WordCursor.prototype.reset = function (k) { this.k = k || 0; this.anchor = null; };

  kit.spans = { tokenize: tokenize, cpSlice: cpSlice, snap: snap, touched: touched, WordCursor: WordCursor };
})(window);
