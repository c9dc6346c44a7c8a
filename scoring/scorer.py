"""Score system outputs against a test set: every metric, every system, references cached."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from .metrics import DEFAULT_METRICS, REGISTRY
from .metrics.base import MetricUnavailable, ReferenceRequired, Score
from .metrics.sacrebleu_metrics import (
    SACREBLEU_METRICS,
    SacrebleuScorer,
    default_workers,
    join_document,
    shared_pool,
)
from .testset import TestSet, split_by_documents


def segment_metrics() -> list[str]:
    """Metrics that need line-aligned output (n/a for document-level submissions), from the registry."""
    return [k for k, spec in REGISTRY.items() if spec.line_aligned]


@dataclass
class SystemScores:
    """All scores of one system, plus the per-unit statistics significance tests need."""

    name: str
    scores: dict[str, Score]
    stats: dict[str, list] = field(default_factory=dict, repr=False)

    def to_dict(self, with_segments: bool = False) -> dict:
        return {"name": self.name,
                "scores": {k: s.to_dict(with_segments=with_segments) for k, s in self.scores.items()}}


class Scorer:
    """Scores any number of systems against one test set.

    Reference statistics are computed once and reused for every later system;
    segment statistics are computed on all cores.
    """

    def __init__(self, testset: TestSet, metrics: Iterable[str] = DEFAULT_METRICS, *,
                 workers: int | None = None, comet_model: str | None = None,
                 comet_batch_size: int = 16, comet_device: str | None = None,
                 engine_options: Mapping[str, Mapping] | None = None,
                 progress: Callable[[str, int, int], None] | None = None):
        """``engine_options``: keyword arguments of each model metric's factory, by metric key
        (``comet_model``, ``comet_batch_size`` and ``comet_device`` are COMET's)."""
        self.testset = testset
        self.metrics = list(dict.fromkeys(metrics))
        unknown = [m for m in self.metrics if m not in REGISTRY]
        if unknown:
            raise ValueError(f"unknown metric(s): {', '.join(unknown)}; known: {', '.join(REGISTRY)}")
        if testset.num_refs == 0:
            # Only a model metric can do without one (a reference-free COMET checkpoint such as CometKiwi);
            # whether its checkpoint does is known once it is loaded (ReferenceRequired from its engine).
            needing = [m for m in self.metrics if REGISTRY[m].engine != "model"]
            if needing:
                raise ReferenceRequired(
                    f"test set {testset.name!r} has no reference, and {', '.join(needing)} need one; "
                    f"without references only a reference-free COMET checkpoint (-m comet with e.g. "
                    f"CometKiwi) can score")
        self.workers = workers or default_workers()
        self.progress = progress
        self.comet_model = comet_model if comet_model is not None else os.environ.get("ENFACE_COMET_MODEL")
        self.engine_options = {"comet": {"model": self.comet_model, "batch_size": comet_batch_size,
                                         "device": comet_device}} | dict(engine_options or {})
        self._engines: dict[str, object] = {}     # model metrics' engines, built on first use
        self._sacrebleu: dict[str, SacrebleuScorer] = {}
        for key in self.metrics:
            if key in SACREBLEU_METRICS:
                refs = (testset.references() if not SACREBLEU_METRICS[key].document_level else
                        [[join_document(d.refs[i]) for d in testset.documents] for i in range(testset.num_refs)])
                self._sacrebleu[key] = SacrebleuScorer(key, refs, testset.tgt_lang)

    # -- one system -----------------------------------------------------------
    def score(self, output: Mapping[str, Sequence[str]] | Sequence[str], *, name: str = "system",
              document_level: bool = False) -> SystemScores:
        return self.score_many({name: output}, document_level={name: document_level})[name]

    # -- many systems ---------------------------------------------------------
    def score_many(self, outputs: Mapping[str, Mapping[str, Sequence[str]] | Sequence[str]], *,
                   document_level: Mapping[str, bool] | None = None) -> dict[str, SystemScores]:
        """Scores several systems; the reference side is prepared once for all of them."""
        document_level = dict(document_level or {})
        by_doc = {name: self._by_document(out) for name, out in outputs.items()}
        results = {name: SystemScores(name, {}) for name in outputs}
        for name, docs in by_doc.items():
            doc_level = document_level.get(name, False)
            self._score_sacrebleu(results[name], docs, doc_level)
        for key in self.metrics:
            if REGISTRY[key].engine == "model":
                self._score_model(key, results, by_doc, document_level)
        for res in results.values():
            res.scores = {k: res.scores[k] for k in self.metrics if k in res.scores}
        return results

    def _by_document(self, output) -> dict[str, list[str]]:
        if isinstance(output, Mapping):
            missing = [d for d in self.testset.doc_names if d not in output]
            if missing:
                raise ValueError(f"output lacks documents: {', '.join(missing)}")
            return {d: list(output[d]) for d in self.testset.doc_names}
        return split_by_documents(self.testset, list(output))

    def _score_sacrebleu(self, result: SystemScores, docs: dict[str, list[str]], document_level: bool) -> None:
        keys = [k for k in self.metrics if k in self._sacrebleu]
        if not document_level:
            mismatched = [d.name for d in self.testset.documents if len(docs[d.name]) != len(d)]
            if mismatched:
                raise ValueError("line counts differ from the source in "
                                 f"{', '.join(mismatched)}; score it as a document-level submission")
        runnable = []
        for key in keys:
            if document_level and not SACREBLEU_METRICS[key].document_level:
                result.scores[key] = Score.not_available(
                    key, SACREBLEU_METRICS[key].display, "document-level submission: not line-aligned",
                    higher_is_better=SACREBLEU_METRICS[key].higher_is_better)
            else:
                runnable.append(key)
        if not runnable:
            return
        segments = [s for d in self.testset.doc_names for s in docs[d]]
        documents = [join_document(docs[d]) for d in self.testset.doc_names]
        total = sum(len(documents if SACREBLEU_METRICS[k].document_level else segments) for k in runnable)
        done = 0

        def tick(n: int) -> None:
            nonlocal done
            done += n
            if self.progress:
                self.progress(result.name, done, total)

        # The process's pool, shared with other scorers; its workers keep this scorer's references.
        pool = shared_pool(self.workers) if len(segments) >= SacrebleuScorer.PARALLEL_THRESHOLD else None
        # Longest work first (TER), so the cores stay busy to the end.
        order = sorted(runnable, key=lambda k: k != "ter")
        pending = {k: self._sacrebleu[k].submit(documents if SACREBLEU_METRICS[k].document_level else segments,
                                                pool) for k in order}
        for key in order:
            stats = self._sacrebleu[key].collect(pending[key], tick)
            result.stats[key] = stats
            result.scores[key] = self._sacrebleu[key].score_from_stats(stats, with_units=True)

    def document_scores(self, result: SystemScores) -> dict[str, list[float | None]]:
        """{metric: [its corpus score restricted to each document]} for the sacrebleu metrics of ``result``.

        Summed from the per-segment statistics the scoring already kept (``result.stats``): nothing is
        scored again, and each value equals that metric (same signature) on that document alone.
        """
        sizes = [len(d) for d in self.testset.documents]
        out: dict[str, list[float | None]] = {}
        for key, stats in result.stats.items():
            scorer = self._sacrebleu.get(key)
            if scorer is None:
                continue
            if SACREBLEU_METRICS[key].document_level:
                units = [[st] for st in stats]
            elif len(stats) == sum(sizes):
                units, start = [], 0
                for n in sizes:
                    units.append(stats[start:start + n])
                    start += n
            else:
                continue
            values = [scorer.score_from_stats(u) if u else None for u in units]
            out[key] = [v.value if v is not None and v.available else None for v in values]
        return out

    def close(self) -> None:
        """Drop this test set's reference statistics from the worker processes.

        The processes are shared with the process's other scorers and stay;
        ``scoring.metrics.sacrebleu_metrics.shutdown_pools()`` stops them (done at exit).
        """
        for sb in self._sacrebleu.values():
            sb.release()

    def __enter__(self) -> Scorer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _score_model(self, key: str, results: dict[str, SystemScores], by_doc: dict[str, dict[str, list[str]]],
                     document_level: Mapping[str, bool]) -> None:
        """A model metric (COMET, ...): its engine is built once, then scores every line-aligned system."""
        spec = REGISTRY[key]

        def na(reason: str) -> Score:
            return Score.not_available(key, spec.display, reason, higher_is_better=spec.higher_is_better)

        eligible = {n: [s for d in self.testset.doc_names for s in docs[d]]
                    for n, docs in by_doc.items() if not document_level.get(n, False)}
        for name in by_doc:
            if name not in eligible:
                results[name].scores[key] = na("document-level submission: not line-aligned")
        if not eligible:
            return
        try:
            if key not in self._engines:
                self._engines[key] = spec.load_factory()(**self.engine_options.get(key, {}))
            scores = self._engines[key].score_many(self.testset.sources(), eligible, self.testset.references())
        except MetricUnavailable as exc:
            for name in eligible:
                results[name].scores[key] = na(str(exc))
            return
        for name, score in scores.items():
            if not score.versions and spec.heavy_deps:   # the packages that computed it, for the record
                from .metrics.base import library_versions

                score.versions = library_versions(*spec.heavy_deps)
            results[name].scores[key] = score
            if score.segments is not None:
                results[name].stats[key] = list(score.segments)
