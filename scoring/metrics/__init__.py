"""The metrics: their registry (:mod:`~scoring.metrics.registry`), the sacrebleu ones and COMET.

BLEU, chrF, TER and d-BLEU come from sacrebleu; COMET from unbabel-comet,
imported only when asked for (torch and lightning cost seconds to import).
``DISPLAY`` and ``HIGHER_IS_BETTER`` are live views of the registry.
"""

from collections.abc import Mapping

from .base import MetricUnavailable, Score
from .registry import REGISTRY, MetricSpec, register, spec, unregister


class _Field(Mapping):
    """``{key: getattr(spec, field)}`` over the registry, read live (a metric registered later shows up)."""

    def __init__(self, field: str):
        self.field = field

    def __getitem__(self, key: str):
        return getattr(REGISTRY[key], self.field)

    def __iter__(self):
        return iter(REGISTRY)

    def __len__(self) -> int:
        return len(REGISTRY)


#: the command line's default: the sacrebleu metrics, then the model ones (COMET)
DEFAULT_METRICS = tuple(sorted(REGISTRY, key=lambda k: REGISTRY[k].engine != "sacrebleu"))
HIGHER_IS_BETTER: Mapping[str, bool] = _Field("higher_is_better")
DISPLAY: Mapping[str, str] = _Field("display")

__all__ = ["Score", "MetricSpec", "MetricUnavailable", "REGISTRY", "DEFAULT_METRICS", "HIGHER_IS_BETTER",
           "DISPLAY", "register", "unregister", "spec"]
