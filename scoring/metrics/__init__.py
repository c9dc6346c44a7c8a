"""The metric registry: name -> what computes it.

BLEU, chrF, TER and d-BLEU come from sacrebleu; COMET from unbabel-comet,
imported only when asked for (torch and lightning cost seconds to import).
"""

from .base import Score
from .sacrebleu_metrics import SACREBLEU_METRICS

REGISTRY = {
    "bleu": "BLEU (sacrebleu, corpus level, all references)",
    "chrf": "chrF2 (sacrebleu, all references)",
    "ter": "TER (sacrebleu, all references; lower is better)",
    "dbleu": "d-BLEU: BLEU over documents, each joined into one line",
    "comet": "COMET (unbabel-comet) against reference 1, x100",
}
DEFAULT_METRICS = ("bleu", "chrf", "ter", "dbleu", "comet")
HIGHER_IS_BETTER = {k: v.higher_is_better for k, v in SACREBLEU_METRICS.items()} | {"comet": True}
DISPLAY = {k: v.display for k, v in SACREBLEU_METRICS.items()} | {"comet": "COMET"}

__all__ = ["Score", "REGISTRY", "DEFAULT_METRICS", "HIGHER_IS_BETTER", "DISPLAY"]
