"""sacrebleu's BLEU and chrF with their n-gram counting compiled (scoring/metrics/_ngrams.c).

After TER was compiled (fast_ter.py), BLEU's and chrF's n-gram Counters were
what ``sacrebleu -m bleu chrf ter`` costs us: building a Counter per segment,
order and reference, then intersecting them in Python. The extension counts
the same n-grams exactly (a hash table whose keys are compared element by
element), so the statistics are sacrebleu's integers. Everything else stays
sacrebleu's: BLEU's tokeniser, chrF's whitespace removal, the choice of
chrF's best reference by its own f-score, the scores and the signatures.
tests/scoring/test_fast_ngrams.py compares both with sacrebleu on real WMT
outputs and random text.

The reference side keeps only what the extension reads (token lists,
whitespace-free strings), which is also much cheaper to build than sacrebleu's
Counters. chrF++ (word n-grams) and chrF with whitespace run sacrebleu's own
code. Without a compiler the extension is absent and sacrebleu's classes are
used; ``ENFACE_NGRAMS=sacrebleu`` forces that.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache

from sacrebleu.metrics import BLEU, CHRF
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
from sacrebleu.tokenizers.tokenizer_re import TokenizerRegexp

try:
    from . import _ngrams
except ImportError:  # built without a compiler: optional=True in setup.py
    _ngrams = None


def backend() -> str:
    """``compiled`` or ``sacrebleu``: which n-gram code a BLEU or chrF built now runs."""
    if _ngrams is None or os.environ.get("ENFACE_NGRAMS", "").strip().lower() == "sacrebleu":
        return "sacrebleu"
    return "compiled"


# sacrebleu's TokenizerRegexp (13a's second half) spaces out every character of one class with
# re.sub(' \\1 '), which expands the template in Python for each match: most of 13a's time. Each
# match is one character replaced on its own, so str.translate does exactly the same.
_PUNCTUATION = re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])")
_SPACED = {c: f" {chr(c)} " for c in range(0x80) if _PUNCTUATION.fullmatch(chr(c))}


class FastRegexpTokenizer(TokenizerRegexp):
    """sacrebleu's ``TokenizerRegexp`` with its first rule done by ``str.translate`` (same output)."""

    def __init__(self):
        super().__init__()
        first, _ = self._re[0]
        if first.pattern != _PUNCTUATION.pattern:      # another sacrebleu: keep its rules as they are
            raise ValueError("sacrebleu's TokenizerRegexp changed; use it as it is")
        self._rest = self._re[1:]
        self._cached = lru_cache(maxsize=2**16)(self._tokenize)   # as sacrebleu caches its own

    def __call__(self, line):
        return self._cached(line)

    def _tokenize(self, line: str) -> str:
        line = line.translate(_SPACED)
        for rule, repl in self._rest:
            line = rule.sub(repl, line)
        return " ".join(line.split())


class CompiledBLEU(BLEU):
    """sacrebleu's ``BLEU``, its per-segment n-gram statistics counted by the extension (and 13a's
    punctuation rule by ``str.translate``)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if type(self.tokenizer) is Tokenizer13a and type(self.tokenizer._post_tokenizer) is TokenizerRegexp:
            try:
                self.tokenizer._post_tokenizer = FastRegexpTokenizer()
            except ValueError:
                pass

    def _extract_reference_info(self, refs):
        return {"ref_tokens": tuple(r.split() for r in refs)}

    def _compute_segment_statistics(self, hypothesis: str, ref_kwargs: dict) -> list[int]:
        return _ngrams.bleu_stats(hypothesis.split(), ref_kwargs["ref_tokens"], self.max_ngram_order)


class CompiledCHRF(CHRF):
    """sacrebleu's ``CHRF`` (character n-grams only), its match statistics counted by the extension."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.word_order or self.whitespace:
            raise ValueError("CompiledCHRF counts character n-grams without whitespace only; use CHRF")

    def _extract_reference_info(self, refs):
        return {"refs": tuple(refs)}

    def _compute_segment_statistics(self, hypothesis: str, ref_kwargs: dict) -> list[int]:
        # Whitespace removed, every order counted, and the reference with the best f-score (the first
        # on a tie) picked, all in the extension, operation for operation as sacrebleu does it.
        return _ngrams.chrf_best(hypothesis, ref_kwargs["refs"], self.char_order, float(self.beta ** 2),
                                 bool(self.eps_smoothing))
