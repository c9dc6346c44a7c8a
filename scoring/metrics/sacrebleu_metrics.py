"""BLEU, chrF, TER and d-BLEU through sacrebleu, computed in parallel and bit-identical to its CLI.

sacrebleu scores a corpus by summing per-segment sufficient statistics
(``_compute_segment_statistics``) in order and computing the score from the sum
(``_aggregate_and_compute``). We compute the same per-segment statistics in
worker processes, chunk by chunk, and hand them back to sacrebleu's own
aggregation in the parent, so the result is the CLI's to the last bit.

The reference side (n-grams, TER words) is costly: for chrF it takes longer
than the hypothesis side, and shipping it between processes costs more than
computing it. So units are pinned to workers (chunk c always goes to worker
c mod W) and each worker keeps the reference statistics of its own units for
every later system.
"""

from __future__ import annotations

import multiprocessing as mp
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
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
    from sacrebleu.metrics import BLEU, CHRF

    from .fast_ter import CompiledTER

    spec = SACREBLEU_METRICS[key]
    if spec.factory == "BLEU":
        return BLEU(trg_lang=tgt_lang or "")
    if spec.factory == "CHRF":
        return CHRF()
    return CompiledTER()  # sacrebleu's TER, its edit distance compiled (fast_ter.py)


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
# Worker side: each worker process keeps the reference statistics of the units
# pinned to it, keyed by (test-set fingerprint, metric), then unit index.
_WORKER_REF_CACHE: dict[tuple[str, str], dict[int, dict]] = {}


def _segment_stats(key: str, tgt_lang: str, cache_id: str, indices: list[int], hyps: list[str],
                   new_refs: list[list[str]] | None) -> list:
    """Statistics of some units; ``new_refs`` carries the references of units new to this worker."""
    metric = make_metric(key, tgt_lang)
    cache = _WORKER_REF_CACHE.setdefault((cache_id, key), {})
    if new_refs is not None:
        for i, info in zip(indices, metric._cache_references(new_refs)):
            cache[i] = info
    return [metric._compute_segment_statistics(metric._preprocess_segment(h), cache[i])
            for i, h in zip(indices, hyps)]


class WorkerPool:
    """W single-process executors, so that a unit always goes to the same process."""

    def __init__(self, workers: int):
        context = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
        self.executors = [ProcessPoolExecutor(max_workers=1, mp_context=context) for _ in range(workers)]
        self.id = f"{os.getpid()}-{id(self)}"

    def __len__(self) -> int:
        return len(self.executors)

    def submit(self, slot: int, fn, *args):
        return self.executors[slot % len(self.executors)].submit(fn, *args)

    def close(self) -> None:
        for executor in self.executors:
            executor.shutdown(wait=True, cancel_futures=True)


def make_pool(workers: int) -> WorkerPool | None:
    """A pool of pinned worker processes, or None to score in-process."""
    if workers <= 1 or mp.current_process().daemon:
        # Daemonic processes (some job-queue workers) may not have children: score in-process.
        return None
    return WorkerPool(workers)


def _cost(text: str) -> int:
    # With TER compiled, the Python work left (tokenising, BLEU and chrF n-grams) grows with
    # the length of the line; the constant stands for the per-line overhead.
    return len(text) + 40


def _chunks(costs: Sequence[int], n_chunks: int) -> list[tuple[int, int]]:
    """Contiguous [start, end) ranges of roughly equal total cost."""
    if not costs:
        return []
    target = sum(costs) / max(1, n_chunks)
    ranges, start, acc = [], 0, 0
    for i, c in enumerate(costs):
        acc += c
        if acc >= target and i + 1 < len(costs):
            ranges.append((start, i + 1))
            start, acc = i + 1, 0
    ranges.append((start, len(costs)))
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
    #: chunks per worker: enough for balance, few enough to keep per-task overhead small
    CHUNKS_PER_WORKER = 16

    def __init__(self, key: str, references: list[list[str]], tgt_lang: str = "", *,
                 workers: int | None = None, cache_id: str | None = None):
        self.key = key
        self.spec = SACREBLEU_METRICS[key]
        self.tgt_lang = tgt_lang or ""
        self.references = [[r.rstrip() for r in stream] for stream in references]
        self.num_refs = len(references)
        self.workers = workers or default_workers()
        self.cache_id = cache_id or f"{id(self)}"
        self._ref_cache: list | None = None          # in-process path only
        self._sent: dict[str, set[int]] = {}          # pool id -> units whose references a worker holds
        self._chunk_maps: dict[int, list[int]] = {}
        self._memo: list[dict[str, list]] = [{} for _ in self.references[0]]
        self._memo_size = 0

    @property
    def metric(self):
        return make_metric(self.key, self.tgt_lang)

    def segment_stats(self, hyps: Sequence[str], pool: WorkerPool | None = None,
                      progress: Callable[[int], None] | None = None) -> list:
        """Per-unit sufficient statistics, exactly as sacrebleu computes them."""
        return self.collect(self.submit(hyps, pool), progress)

    def _chunk_map(self, slots: int) -> list[int]:
        """Unit index -> chunk number, fixed per test set so that units stay with their worker."""
        if slots not in self._chunk_maps:
            costs = [max(_cost(s[i]) for s in self.references) for i in range(len(self.references[0]))]
            chunk_of = [0] * len(costs)
            for c, (a, b) in enumerate(_chunks(costs, slots * self.CHUNKS_PER_WORKER)):
                chunk_of[a:b] = [c] * (b - a)
            self._chunk_maps[slots] = chunk_of
        return self._chunk_maps[slots]

    def submit(self, hyps: Sequence[str], pool: WorkerPool | None = None) -> PendingStats:
        """Start computing statistics; several metrics' chunks can then share the pool."""
        hyps = [h.rstrip() for h in hyps]
        n = len(hyps)
        if n != len(self.references[0]):
            raise ValueError(f"{self.spec.display}: {n} hypothesis lines but {len(self.references[0])} reference lines")
        stats = [self._memo[i].get(h) for i, h in enumerate(hyps)]
        todo = [i for i, st in enumerate(stats) if st is None]
        if pool is None or len(todo) < self.PARALLEL_THRESHOLD:
            return PendingStats(hyps, stats, todo, [])
        chunk_of = self._chunk_map(len(pool))
        chunks: dict[int, list[int]] = {}
        for i in todo:
            chunks.setdefault(chunk_of[i], []).append(i)
        sent = self._sent.setdefault(pool.id, set())
        futures = []
        # Costliest chunks first, so the workers finish together.
        for c, indices in sorted(chunks.items(), key=lambda item: -sum(_cost(hyps[i]) for i in item[1])):
            new = [i for i in indices if i not in sent]
            # Units new to the worker come first, with their references, so it can cache them.
            order = new + [i for i in indices if i in sent]
            new_refs = [[s[i] for i in new] for s in self.references] if new else None
            futures.append((order, pool.submit(c, _segment_stats, self.key, self.tgt_lang, self.cache_id, order,
                                               [hyps[i] for i in order], new_refs)))
            sent.update(new)
        return PendingStats(hyps, stats, todo, futures)

    def collect(self, pending: PendingStats, progress: Callable[[int], None] | None = None) -> list:
        stats, hyps = pending.stats, pending.hyps
        if progress and len(pending.todo) < len(hyps):
            progress(len(hyps) - len(pending.todo))
        if not pending.futures:
            for i, st in zip(pending.todo, self._in_process(hyps, pending.todo)):
                stats[i] = st
            if progress and pending.todo:
                progress(len(pending.todo))
        else:
            for indices, fut in pending.futures:
                try:
                    chunk = fut.result()
                except (KeyError, BrokenProcessPool):
                    # A worker died (and with it its references): compute this chunk here.
                    self._sent.clear()
                    chunk = self._in_process(hyps, indices)
                for i, st in zip(indices, chunk):
                    stats[i] = st
                if progress:
                    progress(len(indices))
        self._remember(hyps, stats, pending.todo)
        return stats

    def _in_process(self, hyps: list[str], indices: list[int]) -> list:
        if not indices:
            return []
        if self._ref_cache is None:
            self._ref_cache = self.metric._cache_references(self.references)
        metric = self.metric
        return [metric._compute_segment_statistics(metric._preprocess_segment(hyps[i]), self._ref_cache[i])
                for i in indices]

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
            from .fast_ter import backend
            details = {"num_edits": result.num_edits, "ref_length": result.ref_length, "backend": backend()}
        return Score(self.key, self.spec.display, float(result.score),
                     signature=signature(self.key, self.tgt_lang, self.num_refs),
                     versions=library_versions("sacrebleu"),
                     higher_is_better=self.spec.higher_is_better, details=details)
