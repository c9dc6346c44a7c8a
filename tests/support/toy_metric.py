"""A toy model metric for registry tests: 100 minus the character-length difference to reference 1, per segment."""

from __future__ import annotations

from contextlib import contextmanager

from scoring.metrics import MetricSpec, MetricUnavailable, Score
from scoring.metrics.registry import register, unregister

KEY = "toylen"


class LengthEngine:
    def __init__(self, fail: bool = False, **_options):
        if fail:
            raise MetricUnavailable("toy model not loaded")

    def score_many(self, sources, systems, references):
        out = {}
        for name, hyps in systems.items():
            seg = [100.0 - abs(len(h) - len(r)) for h, r in zip(hyps, references[0])]
            out[name] = Score(KEY, "ToyLen", sum(seg) / len(seg), signature="toylen:1", segments=seg)
        return out


def engine(**options) -> LengthEngine:
    return LengthEngine(**options)


@contextmanager
def toy_metric(queue: str = "cpu"):
    """The toy metric registered while the block runs (one registry entry, nothing else)."""
    register(MetricSpec(KEY, "ToyLen", "a toy length metric", level="segment", engine="model", queue=queue,
                        factory=f"{__name__}:engine"))
    try:
        yield KEY
    finally:
        unregister(KEY)
