"""The metric registry: one :class:`MetricSpec` per metric, and every place that needs to know a metric reads it.

The scorer, the command line, the platform's jobs, the leaderboard, the significance
tests and the tables look metrics up here, so a new metric (a learned one, an LLM
judge's score) is one :func:`register` call::

    register(MetricSpec("judge", "Judge", "an LLM judge's 0-100 score", level="segment",
                        engine="model", queue="gpu", factory="mypackage.judge:engine",
                        heavy_deps=("openai",)))

Two engines:

* ``"sacrebleu"``: corpus scores from summed per-unit sufficient statistics,
  computed in parallel by :mod:`~scoring.metrics.sacrebleu_metrics` and byte-identical to the
  sacrebleu CLI (BLEU, chrF, TER, d-BLEU). Significance resamples the statistics.
* ``"model"``: a segment-level model (COMET). ``factory`` names ``"module:callable"``;
  it is imported only when the metric is computed, since models pull in torch and
  friends that cost seconds and gigabytes (``heavy_deps`` lists them so that the
  score records their versions). ``callable(**options)`` returns an engine with
  ``score_many(sources, {system: hypotheses}, references) -> {system: Score}``
  (``references``: one list per reference); it raises :class:`MetricUnavailable`
  (the metric is then n/a with the reason) when it cannot run here. The corpus
  score is the mean of the segment scores, and significance resamples those.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from .base import MetricUnavailable

LEVELS = ("corpus", "document", "segment")
ENGINES = ("sacrebleu", "model")
QUEUES = ("cpu", "gpu")


@dataclass(frozen=True)
class MetricSpec:
    key: str                     # registry name: bleu, chrf, ter, dbleu, comet
    display: str                 # name in tables and scores: BLEU, chrF2, TER, d-BLEU, COMET
    description: str
    higher_is_better: bool = True
    #: what one unit of its statistics is: "corpus" (segments summed into a corpus score),
    #: "document" (documents, each joined into one line: d-BLEU), "segment" (segment scores, averaged)
    level: str = "corpus"
    engine: str = "sacrebleu"
    #: the platform's job queue that computes it: "cpu" (the scoring job) or "gpu" (a job of its own)
    queue: str = "cpu"
    factory: str = ""            # "module:callable" (model engines), or the sacrebleu class name
    heavy_deps: tuple[str, ...] = ()
    column: str | None = None    # the leaderboard's column title, when it differs from ``display``

    def __post_init__(self) -> None:
        for field, value, allowed in (("level", self.level, LEVELS), ("engine", self.engine, ENGINES),
                                      ("queue", self.queue, QUEUES)):
            if value not in allowed:
                raise ValueError(f"metric {self.key!r}: {field} must be one of {allowed}, not {value!r}")
        if not self.key.isidentifier() or self.key != self.key.lower() or len(self.key) > 20:
            raise ValueError(f"metric key {self.key!r}: lower-case letters, digits and _, at most 20 characters")
        if self.engine == "model" and ":" not in self.factory:
            raise ValueError(f"metric {self.key!r}: a model metric needs factory='module:callable'")

    @property
    def document_level(self) -> bool:
        """Whether its units are whole documents (d-BLEU): scored on document-level submissions too."""
        return self.level == "document"

    @property
    def line_aligned(self) -> bool:
        """Whether it needs line-aligned output (n/a for a document-level submission)."""
        return not self.document_level

    @property
    def title(self) -> str:
        return self.column or self.display

    @property
    def arrow(self) -> str:
        return "↑" if self.higher_is_better else "↓"

    def load_factory(self) -> Callable:
        """The engine factory, imported now (model metrics import their heavy packages only here)."""
        module, _, name = self.factory.partition(":")
        return getattr(importlib.import_module(module), name)


REGISTRY: dict[str, MetricSpec] = {}


def register(spec: MetricSpec, *, replace: bool = False) -> MetricSpec:
    """Adds a metric; every consumer (scorer, CLI, jobs, leaderboard, tables) picks it up."""
    if spec.key in REGISTRY and not replace:
        raise ValueError(f"metric {spec.key!r} is registered already")
    REGISTRY[spec.key] = spec
    return spec


def unregister(key: str) -> None:
    REGISTRY.pop(key, None)


def spec(key: str) -> MetricSpec:
    try:
        return REGISTRY[key]
    except KeyError:
        raise ValueError(f"unknown metric {key!r}; known: {', '.join(REGISTRY)}") from None


def keys(*, engine: str | None = None, queue: str | None = None) -> list[str]:
    """Registered metric keys in registration order, optionally of one engine or queue."""
    return [k for k, s in REGISTRY.items()
            if (engine is None or s.engine == engine) and (queue is None or s.queue == queue)]


for _spec in (
    MetricSpec("bleu", "BLEU", "BLEU (sacrebleu, corpus level, all references)", factory="BLEU"),
    MetricSpec("chrf", "chrF2", "chrF2 (sacrebleu, all references)", factory="CHRF", column="chrF"),
    MetricSpec("comet", "COMET", "COMET (unbabel-comet) against reference 1, x100", level="segment",
               engine="model", queue="gpu", factory="scoring.metrics.comet:engine",
               heavy_deps=("unbabel-comet", "torch")),
    MetricSpec("ter", "TER", "TER (sacrebleu, all references; lower is better)", higher_is_better=False,
               factory="TER"),
    MetricSpec("dbleu", "d-BLEU", "d-BLEU: BLEU over documents, each joined into one line", level="document",
               factory="BLEU"),
):
    register(_spec)

__all__ = ["MetricSpec", "MetricUnavailable", "REGISTRY", "register", "unregister", "spec", "keys"]
