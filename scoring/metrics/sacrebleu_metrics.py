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
                   cache_id: str | None, indices: list[int]) -> tuple[list, list | None]:
    """Statistics of some units; with ``refs`` (first system) the chunk's reference cache too."""
    metric = make_metric(key, tgt_lang)
    if refs is not None:
        ref_cache = metric._cache_references(refs)
        returned = ref_cache
    else:
        shared = _SHARED_REF_CACHES[(cache_id, key)]
        ref_cache = [shared[i] for i in indices]
        returned = None
    stats = [metric._compute_segment_statistics(metric._preprocess_segment(h), r)
             for h, r in zip(hyps, ref_cache)]
    return stats, returned


def _cost(text: str) -> int:
    # TER's beam edit distance grows with the square of the length.
    n = text.count(" ") + 1
    return n * n + 1


def _chunks(hyps: Sequence[str], n_chunks: int) -> list[tuple[int, int]]:
    """Contiguous [start, end) ranges of ``hyps`` of roughly equal estimated cost."""
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
    stats: list                 # filled from the memo; None where still to compute
    todo: list[int]             # unit indices to compute
    futures: list               # (indices, future) per chunk sent to the pool
    first: bool                 # the chunks also build the reference cache


class SacrebleuScorer:
    """Scores many systems against one set of references, reusing the reference side.

    ``references`` holds one stream per reference, each as long as the units
    (segments, or documents for d-BLEU) that will be scored. Statistics of a
    (unit, hypothesis) pair already seen are remembered, so re-scoring a
    system, or a contrastive run that shares most lines with its primary,
    only computes what changed.
    """

    #: below this many units to compute, the pool costs more than it saves
    PARALLEL_THRESHOLD = 400
    #: remembered hypotheses per unit, on average, before the memo is dropped
    MEMO_PER_UNIT = 20

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
        self._memo: list[dict[str, list]] = [{} for _ in self.references[0]]
        self._memo_size = 0

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
        stats = [self._memo[i].get(h) for i, h in enumerate(hyps)]
        todo = [i for i, st in enumerate(stats) if st is None]
        if pool is None or len(todo) < self.PARALLEL_THRESHOLD:
            return PendingStats(hyps, stats, todo, [], False)
        first = self._ref_cache is None and (self.cache_id, self.key) not in _SHARED_REF_CACHES
        futures = []
        for a, b in _chunks([hyps[i] for i in todo], self.workers * 6):
            indices = todo[a:b]
            refs = [[s[i] for i in indices] for s in self.references] if first else None
            futures.append((indices, pool.submit(_segment_stats, self.key, self.tgt_lang,
                                                 [hyps[i] for i in indices], refs, self.cache_id, indices)))
        return PendingStats(hyps, stats, todo, futures, first)

    def collect(self, pending: PendingStats, progress: Callable[[int], None] | None = None) -> list:
        stats, hyps = pending.stats, pending.hyps
        if progress and len(pending.todo) < len(hyps):
            progress(len(hyps) - len(pending.todo))
        if not pending.futures:
            if self._ref_cache is None:
                self._ref_cache = self.metric._cache_references(self.references)
                _SHARED_REF_CACHES[(self.cache_id, self.key)] = self._ref_cache
            metric = self.metric
            for i in pending.todo:
                stats[i] = metric._compute_segment_statistics(metric._preprocess_segment(hyps[i]),
                                                              self._ref_cache[i])
            if progress and pending.todo:
                progress(len(pending.todo))
        else:
            caches = []
            for indices, fut in pending.futures:
                chunk_stats, chunk_cache = fut.result()
                for i, st in zip(indices, chunk_stats):
                    stats[i] = st
                if pending.first:
                    caches.extend(chunk_cache)
                if progress:
                    progress(len(indices))
            if pending.first:  # the first system's chunks cover every unit, in order
                self._ref_cache = caches
                _SHARED_REF_CACHES[(self.cache_id, self.key)] = caches
        self._remember(hyps, stats, pending.todo)
        return stats

    def _remember(self, hyps: list[str], stats: list, todo: list[int]) -> None:
        if self._memo_size + len(todo) > self.MEMO_PER_UNIT * max(1, len(hyps)):
            self._memo = [{} for _ in hyps]
            self._memo_size = 0
        for i in todo:
            self._memo[i][hyps[i]] = stats[i]
        self._memo_size += len(todo)

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
    if workers <= 1 or "fork" not in mp.get_all_start_methods() or mp.current_process().daemon:
        # Daemonic processes (some job-queue workers) may not have children: score in-process.
        return None
    return ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("fork"))
