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
every later system. One pool of workers per process (and worker count) serves
every scorer; a scorer's references leave the workers when it is closed or
collected, the workers themselves at exit or on ``shutdown_pools()``.
"""

from __future__ import annotations

import atexit
import itertools
import multiprocessing as mp
import os
import threading
import weakref
from collections.abc import Callable, Hashable, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from functools import lru_cache

from .base import Score, library_versions
from .registry import REGISTRY, MetricSpec


class _SacrebleuSpecs(Mapping):
    """The registry's sacrebleu metrics (``engine == "sacrebleu"``), read live: {key: MetricSpec}."""

    def __getitem__(self, key: str) -> MetricSpec:
        spec = REGISTRY[key]
        if spec.engine != "sacrebleu":
            raise KeyError(key)
        return spec

    def __iter__(self):
        return (k for k, s in REGISTRY.items() if s.engine == "sacrebleu")

    def __len__(self) -> int:
        return sum(1 for _ in self)


SACREBLEU_METRICS: Mapping[str, MetricSpec] = _SacrebleuSpecs()


@lru_cache(maxsize=None)
def make_metric(key: str, tgt_lang: str = "", sentence: bool = False):
    """A sacrebleu metric object configured exactly like ``sacrebleu -m bleu chrf ter``.

    BLEU takes the default tokenizer of the target language (13a for English,
    zh for Chinese, ...), as sacrebleu does when given ``-l src-tgt``; the code is
    normalised first (``zh-Hans`` → ``zh``: see scoring/languages.py).
    ``sentence``: the metric of the segment scores, as ``sacrebleu --sentence-level``
    configures it: BLEU with effective order (``eff:yes``); chrF and TER unchanged.
    """
    from sacrebleu.metrics import BLEU, CHRF, TER

    from ..languages import bleu_language
    from .fast_ngrams import CompiledBLEU, CompiledCHRF
    from .fast_ngrams import backend as ngrams_backend
    from .fast_ter import CompiledTER, backend

    spec = SACREBLEU_METRICS[key]
    # BLEU's and chrF's n-gram counting compiled (fast_ngrams.py), unless ENFACE_NGRAMS=sacrebleu or not built.
    compiled = ngrams_backend() == "compiled"
    if spec.factory == "BLEU":
        return (CompiledBLEU if compiled else BLEU)(trg_lang=bleu_language(tgt_lang), effective_order=sentence)
    if spec.factory == "CHRF":
        return CompiledCHRF() if compiled else CHRF()
    # sacrebleu's TER, its edit distance compiled (fast_ter.py), unless ENFACE_TER=sacrebleu or not built.
    return CompiledTER() if backend() == "compiled" else TER()


def signature(key: str, tgt_lang: str, num_refs: int) -> str:
    metric = make_metric(key, tgt_lang)
    metric.num_refs = num_refs
    sig = metric.get_signature().format()
    if SACREBLEU_METRICS[key].document_level:
        sig = "level:document|" + sig
    return sig


def segment_signature(key: str, tgt_lang: str, num_refs: int) -> str:
    """The signature of the per-unit scores: each is the sentence-level metric's ``sentence_score``."""
    metric = make_metric(key, tgt_lang, sentence=True)
    metric.num_refs = num_refs
    unit = "document" if SACREBLEU_METRICS[key].document_level else "segment"
    return f"level:{unit}|score:sentence_score|" + metric.get_signature().format()


def join_document(segments: Sequence[str]) -> str:
    """d-BLEU's unit: a document's segments joined by one space into one line."""
    return " ".join(segments).rstrip()


# ---------------------------------------------------------------------------
# Worker side: each worker process keeps the reference statistics of the units
# pinned to it, per store (one SacrebleuScorer's metric), then unit index.
_WORKER_REF_CACHE: dict[Hashable, dict[int, dict]] = {}


def _segment_stats(key: str, tgt_lang: str, store: Hashable, indices: list[int], hyps: list[str],
                   new_refs: list[list[str]] | None) -> list:
    """Statistics of some units; ``new_refs`` carries the references of units new to this worker."""
    metric = make_metric(key, tgt_lang)
    cache = _WORKER_REF_CACHE.setdefault(store, {})
    if new_refs is not None:
        for i, info in zip(indices, metric._cache_references(new_refs)):
            cache[i] = info
    return [metric._compute_segment_statistics(metric._preprocess_segment(h), cache[i])
            for i, h in zip(indices, hyps)]


def _drop_store(store: Hashable) -> None:
    _WORKER_REF_CACHE.pop(store, None)


class WorkerPool:
    """W single-process executors, so that a unit always goes to the same process.

    The pool remembers which units' references each process has been sent, per
    store, so that only new units travel with their references. An executor
    whose process died is replaced at the next submission, and what it held is
    forgotten, so its units are sent again with their references.
    """

    def __init__(self, workers: int):
        self._context = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
        self._executors = [self._new_executor() for _ in range(workers)]
        self._held: list[dict[Hashable, set[int]]] = [{} for _ in range(workers)]  # slot -> store -> units
        self._released: list[Hashable] = []     # stores to drop from the workers at the next chance
        self._lock = threading.Lock()
        self._pid = os.getpid()

    def _new_executor(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=1, mp_context=self._context)

    def __len__(self) -> int:
        return len(self._executors)

    def submit(self, slot: int, fn, *args) -> Future:
        """Run ``fn(*args)`` in the process of ``slot``; raises BrokenProcessPool if that process died."""
        return self._executors[slot % len(self._executors)].submit(fn, *args)

    def submit_units(self, slot: int, key: str, tgt_lang: str, store: Hashable, units: Sequence[int],
                     hyps: Sequence[str], references: Sequence[Sequence[str]]) -> tuple[list[int], Future]:
        """Statistics of ``units`` in the process of ``slot``, sending the references it lacks.

        Returns the units in the order of the future's result (new units first).
        """
        i = slot % len(self._executors)
        with self._lock:
            self._drop_released()
            try:
                return self._send(i, key, tgt_lang, store, units, hyps, references)
            except BrokenProcessPool:
                self._replace(i)    # its process died, and the references it held with it
                return self._send(i, key, tgt_lang, store, units, hyps, references)

    def _send(self, i: int, key: str, tgt_lang: str, store: Hashable, units: Sequence[int],
              hyps: Sequence[str], references: Sequence[Sequence[str]]) -> tuple[list[int], Future]:
        held = self._held[i].setdefault(store, set())
        # Units new to the worker come first, with their references, so it can cache them.
        new = [u for u in units if u not in held]
        order = new + [u for u in units if u in held]
        new_refs = [[stream[u] for u in new] for stream in references] if new else None
        future = self.submit(i, _segment_stats, key, tgt_lang, store, order, [hyps[u] for u in order], new_refs)
        held.update(new)
        return order, future

    def _replace(self, i: int) -> None:
        self._executors[i].shutdown(wait=False, cancel_futures=True)
        self._executors[i] = self._new_executor()
        self._held[i].clear()

    def release(self, store: Hashable) -> None:
        """Drop a store's references from the workers. Safe from a finaliser: it never waits."""
        if os.getpid() != self._pid:
            return   # a forked child's copy: the workers are the parent's
        self._released.append(store)
        if self._lock.acquire(blocking=False):   # otherwise the next submission drops it
            try:
                self._drop_released()
            finally:
                self._lock.release()

    def _drop_released(self) -> None:
        while self._released:
            store = self._released.pop()
            for i, held in enumerate(self._held):
                if held.pop(store, None) is not None:
                    try:
                        self._executors[i].submit(_drop_store, store)
                    except (BrokenProcessPool, RuntimeError):
                        pass    # a dead or stopped process holds nothing

    def close(self) -> None:
        for executor in self._executors:
            executor.shutdown(wait=True, cancel_futures=True)


# One pool per process and worker count, shared by every scorer and created on first use.
_POOLS: dict[int, WorkerPool] = {}
_POOLS_LOCK = threading.Lock()


def shared_pool(workers: int) -> WorkerPool | None:
    """The process's pool of ``workers`` pinned worker processes, or None to score in-process."""
    if workers <= 1 or mp.current_process().daemon:
        # Daemonic processes (some job-queue workers) may not have children: score in-process.
        return None
    with _POOLS_LOCK:
        pool = _POOLS.get(workers)
        if pool is None:
            pool = _POOLS[workers] = WorkerPool(workers)
        return pool


def shutdown_pools() -> None:
    """Stop the shared worker processes (also done at exit); a later scoring starts new ones."""
    with _POOLS_LOCK:
        pools = list(_POOLS.values())
        _POOLS.clear()
    for pool in pools:
        pool.close()


_INHERITED: list[WorkerPool] = []


def _forget_parent_pools() -> None:
    # A forked child must not use its parent's executors: their processes and threads are the
    # parent's. They stay referenced, never shut down, so that nothing of theirs runs here.
    global _POOLS_LOCK
    _POOLS_LOCK = threading.Lock()
    _INHERITED.extend(_POOLS.values())
    _POOLS.clear()


atexit.register(shutdown_pools)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_parent_pools)


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


_STORES = itertools.count()


def _release_store(pools: set[WorkerPool], store: Hashable) -> None:
    for pool in pools:
        pool.release(store)
    pools.clear()


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

    def __init__(self, key: str, references: list[list[str]], tgt_lang: str = ""):
        self.key = key
        self.spec = SACREBLEU_METRICS[key]
        self.tgt_lang = tgt_lang or ""
        self.references = [[r.rstrip() for r in stream] for stream in references]
        self.num_refs = len(references)
        self._ref_cache: list | None = None          # in-process path only
        self._store = (key, next(_STORES))            # names this scorer's references in the workers
        self._pools: set[WorkerPool] = set()          # pools whose workers were sent them
        # Workers drop them when this scorer is closed, or collected.
        self._finalizer = weakref.finalize(self, _release_store, self._pools, self._store)
        self._finalizer.atexit = False
        self._chunk_of: tuple[int, list[int]] | None = None   # (pool size, unit -> chunk)
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
        if self._chunk_of is None or self._chunk_of[0] != slots:
            costs = [max(_cost(s[i]) for s in self.references) for i in range(len(self.references[0]))]
            chunk_of = [0] * len(costs)
            for c, (a, b) in enumerate(_chunks(costs, slots * self.CHUNKS_PER_WORKER)):
                chunk_of[a:b] = [c] * (b - a)
            self._chunk_of = (slots, chunk_of)
        return self._chunk_of[1]

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
        self._pools.add(pool)
        futures = []
        # Costliest chunks first, so the workers finish together.
        for c, indices in sorted(chunks.items(), key=lambda item: -sum(_cost(hyps[i]) for i in item[1])):
            futures.append(pool.submit_units(c, self.key, self.tgt_lang, self._store, indices, hyps,
                                             self.references))
        return PendingStats(hyps, stats, todo, futures)

    def release(self) -> None:
        """Drop this scorer's references from the worker processes (sent again if it scores again)."""
        _release_store(self._pools, self._store)

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
                chunk = fut.result()
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

    def unit_scores(self, stats: list) -> list[float]:
        """Each unit's score, equal to sacrebleu's ``sentence_score`` of that unit against its references
        (with the sentence-level settings of :func:`make_metric`), from the statistics already computed."""
        import numpy as np

        from .batch_scores import batch_score_fn_for

        metric = make_metric(self.key, self.tgt_lang, sentence=True)
        metric.num_refs = self.num_refs
        batch = batch_score_fn_for(metric)
        if batch is not None and stats:
            values = batch(np.asarray(stats, dtype=np.float64))
            if values is not None:
                return values.tolist()
        return [float(metric._compute_score_from_stats(list(st)).score) for st in stats]

    def score_from_stats(self, stats: list, *, with_units: bool = False) -> Score:
        """The corpus score; ``with_units``: also each unit's sentence score (``segments``, ``segment_signature``)."""
        metric = self.metric
        metric.num_refs = self.num_refs
        result = metric._aggregate_and_compute(stats)
        details = {}
        if self.spec.factory == "BLEU":
            details = {"precisions": list(result.precisions), "bp": result.bp, "ratio": result.ratio,
                       "sys_len": result.sys_len, "ref_len": result.ref_len}
        elif self.spec.factory == "TER":
            from .fast_ter import CompiledTER
            details = {"num_edits": result.num_edits, "ref_length": result.ref_length,
                       "backend": "compiled" if isinstance(metric, CompiledTER) else "sacrebleu"}
        score = Score(self.key, self.spec.display, float(result.score),
                      signature=signature(self.key, self.tgt_lang, self.num_refs),
                      versions=library_versions("sacrebleu"),
                      higher_is_better=self.spec.higher_is_better, details=details)
        if with_units:
            score.segments = self.unit_scores(stats)
            score.segment_signature = segment_signature(self.key, self.tgt_lang, self.num_refs)
        return score
