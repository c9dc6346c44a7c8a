"""BLEU, chrF, TER and d-BLEU through sacrebleu, computed in parallel and bit-identical to its CLI.

sacrebleu scores a corpus by summing per-segment sufficient statistics
(``_compute_segment_statistics``) in order and computing the score from the sum
(``_aggregate_and_compute``). We compute the same per-segment statistics in
worker processes, chunk by chunk, and hand them back to sacrebleu's own
aggregation in the parent, so the result is the CLI's to the last bit. The
reference side (n-grams, TER words) is cached per test set and reused for every
later system.
"""

from __future__ import annotations

import multiprocessing as mp
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import lru_cache

from .base import Score, library_versions


@dataclass(frozen=True)
class SacrebleuMetric:
    key: str            # registry name
    display: str        # name shown in tables
    factory: str        # sacrebleu class
    document_level: bool = False
    higher_is_better: bool = True


SACREBLEU_METRICS = {
    "bleu": SacrebleuMetric("bleu", "BLEU", "BLEU"),
    "chrf": SacrebleuMetric("chrf", "chrF2", "CHRF"),
    "ter": SacrebleuMetric("ter", "TER", "TER", higher_is_better=False),
    "dbleu": SacrebleuMetric("dbleu", "d-BLEU", "BLEU", document_level=True),
}


@lru_cache(maxsize=None)
def make_metric(key: str, tgt_lang: str = ""):
    """A sacrebleu metric object configured exactly like ``sacrebleu -m bleu chrf ter``.

    BLEU takes the default tokenizer of the target language (13a for English,
    zh for Chinese, ...), as sacrebleu does when given ``-l src-tgt``.
    """
    from sacrebleu.metrics import BLEU, CHRF, TER

    spec = SACREBLEU_METRICS[key]
    if spec.factory == "BLEU":
        return BLEU(trg_lang=tgt_lang or "")
    if spec.factory == "CHRF":
        return CHRF()
    return TER()


def signature(key: str, tgt_lang: str, num_refs: int) -> str:
    metric = make_metric(key, tgt_lang)
    metric.num_refs = num_refs
    sig = metric.get_signature().format()
    if SACREBLEU_METRICS[key].document_level:
        sig = "level:document|" + sig
    return sig


def join_document(segments: Sequence[str]) -> str:
    """d-BLEU's unit: a document's segments joined by one space into one line."""
    return " ".join(segments).rstrip()


# ---------------------------------------------------------------------------
# Worker side. Reference caches reach forked workers through this module
# global (inherited copy-on-write), so they are never pickled per task.
_SHARED_REF_CACHES: dict[tuple[str, str], list] = {}


def _segment_stats(key: str, tgt_lang: str, hyps: list[str], refs: list[list[str]] | None,
                   cache_id: str | None, start: int) -> tuple[list, list | None]:
    metric = make_metric(key, tgt_lang)
    if refs is not None:
        ref_cache = metric._cache_references(refs)
        returned = ref_cache
    else:
        ref_cache = _SHARED_REF_CACHES[(cache_id, key)][start:start + len(hyps)]
        returned = None
    stats = [metric._compute_segment_statistics(metric._preprocess_segment(h), r)
             for h, r in zip(hyps, ref_cache)]
    return stats, returned


def _cost(text: str) -> int:
    # TER's beam edit distance grows with the square of the length.
    n = text.count(" ") + 1
    return n * n + 1


def _chunks(hyps: Sequence[str], n_chunks: int) -> list[tuple[int, int]]:
    """Contiguous [start, end) ranges of roughly equal estimated cost."""
    if not hyps:
        return []
    costs = [_cost(h) for h in hyps]
    target = sum(costs) / max(1, n_chunks)
    ranges, start, acc = [], 0, 0
    for i, c in enumerate(costs):
        acc += c
        if acc >= target and i + 1 < len(hyps):
            ranges.append((start, i + 1))
            start, acc = i + 1, 0
    ranges.append((start, len(hyps)))
    return ranges


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


@dataclass
class PendingStats:
    hyps: list[str]
    futures: list
    first: bool


class SacrebleuScorer:
    """Scores many systems against one set of references, reusing the reference side.

    ``references`` holds one stream per reference, each as long as the units
    (segments, or documents for d-BLEU) that will be scored.
    """

    #: below this many units the pool costs more than it saves
    PARALLEL_THRESHOLD = 400

    def __init__(self, key: str, references: list[list[str]], tgt_lang: str = "", *,
                 workers: int | None = None, cache_id: str | None = None):
        self.key = key
        self.spec = SACREBLEU_METRICS[key]
        self.tgt_lang = tgt_lang or ""
        self.references = [[r.rstrip() for r in stream] for stream in references]
        self.num_refs = len(references)
        self.workers = workers or default_workers()
        self.cache_id = cache_id or f"{id(self)}"
        self._ref_cache: list | None = None

    @property
    def metric(self):
        return make_metric(self.key, self.tgt_lang)

    def segment_stats(self, hyps: Sequence[str], pool: ProcessPoolExecutor | None = None,
                      progress: Callable[[int], None] | None = None) -> list:
        """Per-unit sufficient statistics, exactly as sacrebleu computes them."""
        return self.collect(self.submit(hyps, pool), progress)

    def submit(self, hyps: Sequence[str], pool: ProcessPoolExecutor | None = None) -> PendingStats:
        """Start computing statistics; several metrics' chunks can then share the pool."""
        hyps = [h.rstrip() for h in hyps]
        n = len(hyps)
        if n != len(self.references[0]):
            raise ValueError(f"{self.spec.display}: {n} hypothesis lines but {len(self.references[0])} reference lines")
        if pool is None or n < self.PARALLEL_THRESHOLD:
            return PendingStats(hyps, [], False)
        first = self._ref_cache is None and (self.cache_id, self.key) not in _SHARED_REF_CACHES
        ranges = _chunks(hyps, self.workers * 6)
        futures = [((a, b), pool.submit(_segment_stats, self.key, self.tgt_lang, hyps[a:b],
                                        [s[a:b] for s in self.references] if first else None,
                                        self.cache_id, a))
                   for a, b in ranges]
        return PendingStats(hyps, futures, first)

    def collect(self, pending: PendingStats, progress: Callable[[int], None] | None = None) -> list:
        if not pending.futures:
            if self._ref_cache is None:
                self._ref_cache = self.metric._cache_references(self.references)
            metric = self.metric
            stats = [metric._compute_segment_statistics(metric._preprocess_segment(h), r)
                     for h, r in zip(pending.hyps, self._ref_cache)]
            if progress:
                progress(len(stats))
            return stats
        stats, caches = [], []
        for (a, b), fut in pending.futures:
            chunk_stats, chunk_cache = fut.result()
            stats.extend(chunk_stats)
            if pending.first:
                caches.extend(chunk_cache)
            if progress:
                progress(b - a)
        if pending.first:
            self._ref_cache = caches
            _SHARED_REF_CACHES[(self.cache_id, self.key)] = caches
        return stats

    def score_from_stats(self, stats: list) -> Score:
        metric = self.metric
        metric.num_refs = self.num_refs
        result = metric._aggregate_and_compute(stats)
        details = {}
        if self.spec.factory == "BLEU":
            details = {"precisions": list(result.precisions), "bp": result.bp, "ratio": result.ratio,
                       "sys_len": result.sys_len, "ref_len": result.ref_len}
        elif self.spec.factory == "TER":
            details = {"num_edits": result.num_edits, "ref_length": result.ref_length}
        return Score(self.key, self.spec.display, float(result.score),
                     signature=signature(self.key, self.tgt_lang, self.num_refs),
                     versions=library_versions("sacrebleu"),
                     higher_is_better=self.spec.higher_is_better, details=details)


def make_pool(workers: int) -> ProcessPoolExecutor | None:
    """A process pool of forked workers (None when one worker is asked for or fork is unavailable)."""
    if workers <= 1 or "fork" not in mp.get_all_start_methods():
        return None
    return ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("fork"))
