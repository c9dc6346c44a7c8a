"""sacrebleu's TER with its inner loop compiled.

TER is ~80 % of what ``sacrebleu -m bleu chrf ter`` spends on a WMT-size
test set, all of it in ``lib_ter.translation_edit_rate``, pure Python. The
extension ``_ter`` (scoring/metrics/_ter.c) is a line-for-line port of that
function; everything around it (tokenisation, the choice of the best
reference, averaging the reference lengths, the score, the signature) stays
sacrebleu's. tests/test_fast_ter.py checks the port against sacrebleu on real
WMT outputs and on random input.

Without a C compiler at install time the extension is absent and sacrebleu's
own code runs (same numbers, slower). ``ENFACE_TER=sacrebleu`` forces that.
"""

from __future__ import annotations

import os

from sacrebleu.metrics import TER
from sacrebleu.metrics.lib_ter import translation_edit_rate as sacrebleu_translation_edit_rate

try:
    from . import _ter
except ImportError:  # built without a compiler: optional=True in setup.py
    _ter = None


def backend() -> str:
    """Which TER code a metric built now runs: ``compiled`` or ``sacrebleu``.

    Read once, where the metric is built (``make_metric``), never per segment.
    """
    if _ter is None or os.environ.get("ENFACE_TER", "").strip().lower() == "sacrebleu":
        return "sacrebleu"
    return "compiled"


def translation_edit_rate(words_hyp: list[str], words_ref: list[str]) -> tuple[int, int]:
    """``(number of edits, reference length)``, exactly as sacrebleu's ``lib_ter`` returns it."""
    if _ter is not None:
        result = _ter.translation_edit_rate(words_hyp, words_ref)
        if result is not None:
            return result
    # The port hands back the degenerate cases it does not take (sacrebleu raises on them).
    return sacrebleu_translation_edit_rate(words_hyp, words_ref)


class CompiledTER(TER):
    """sacrebleu's ``TER`` metric, its per-segment statistics computed by the compiled port."""

    def __init__(self, *args, **kwargs):
        if _ter is None:
            raise RuntimeError("the compiled TER extension is not built; use sacrebleu's TER")
        super().__init__(*args, **kwargs)

    def _compute_segment_statistics(self, hypothesis: str, ref_kwargs: dict) -> list[float]:
        # Same steps as TER._compute_segment_statistics in sacrebleu 2.6, one call swapped.
        compiled = _ter.translation_edit_rate
        words_hyp = hypothesis.split()
        ref_words = ref_kwargs["ref_words"]
        ref_lengths = 0
        best_num_edits = int(1e16)
        for words_ref in ref_words:
            result = compiled(words_hyp, words_ref)
            # The port hands back the degenerate cases it does not take (sacrebleu raises on them).
            num_edits, ref_len = (result if result is not None
                                  else sacrebleu_translation_edit_rate(words_hyp, words_ref))
            ref_lengths += ref_len
            if num_edits < best_num_edits:
                best_num_edits = num_edits
        return [best_num_edits, ref_lengths / len(ref_words)]
