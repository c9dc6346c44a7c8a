"""The worker pool behind BLEU/chrF/TER: shared per process, pinned references, and a worker's death.

Runs on the demo test set with the parallel threshold lowered, so every
scoring goes through the pool.
"""

from __future__ import annotations

import gc
import multiprocessing as mp
import os
import signal
import time

import pytest

from scoring import Scorer, load_system_output, load_testset
from scoring.metrics import sacrebleu_metrics
from scoring.metrics.sacrebleu_metrics import SacrebleuScorer, shared_pool
from tests.support import DEMO

METRICS = ["bleu", "chrf", "ter", "dbleu"]

# Evaluated in a worker process: the stores whose references it holds.
WORKER_STORES = "sorted(__import__('scoring.metrics.sacrebleu_metrics', fromlist=['_'])._WORKER_REF_CACHE)"


@pytest.fixture
def demo(monkeypatch):
    monkeypatch.setattr(SacrebleuScorer, "PARALLEL_THRESHOLD", 1)
    testset = load_testset(DEMO / "testset")
    outputs = {name: load_system_output(testset, DEMO / "systems" / name)
               for name in ("strong-mt", "literal-mt", "weak-mt")}
    return testset, outputs


def values(result) -> dict:
    return {k: (s.value, s.details) for k, s in result.scores.items()}


def worker_pids(pool) -> list[int]:
    return [pool.submit(slot, os.getpid).result(timeout=60) for slot in range(len(pool))]


def wait_until_gone(pid: int, timeout: float = 30) -> None:
    """Until the pool has reaped the process (it marks its executor broken before that)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"process {pid} is still there")
        time.sleep(0.02)


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX signals")
def test_a_killed_worker_is_replaced_and_sent_its_references_again(demo):
    testset, outputs = demo
    with Scorer(testset, METRICS, workers=2) as scorer:
        scorer.score(outputs["strong-mt"], name="first")
        pool = shared_pool(2)
        pids = worker_pids(pool)
        os.kill(pids[1], signal.SIGKILL)
        wait_until_gone(pids[1])
        again = scorer.score(outputs["literal-mt"], name="after the kill")
        later = scorer.score(outputs["weak-mt"], name="later")
        new_pids = worker_pids(pool)
    assert new_pids[0] == pids[0] and new_pids[1] != pids[1]
    fresh = Scorer(testset, METRICS, workers=1)
    assert values(again) == values(fresh.score(outputs["literal-mt"]))
    assert values(later) == values(fresh.score(outputs["weak-mt"]))


def test_scorers_share_one_pool_and_close_keeps_it(demo):
    testset, outputs = demo
    pool = shared_pool(2)
    assert shared_pool(2) is pool and shared_pool(3) is not pool
    pids = worker_pids(pool)
    a, b = Scorer(testset, METRICS, workers=2), Scorer(testset, ["bleu", "chrf"], workers=2)
    a.score(outputs["strong-mt"])
    b.score(outputs["strong-mt"])
    a.close()
    after_close = b.score(outputs["weak-mt"])   # the pool still runs for the other scorer
    a_again = a.score(outputs["weak-mt"])       # and for the closed one, which sends its references again
    b.close()
    assert shared_pool(2) is pool and worker_pids(pool) == pids
    fresh = Scorer(testset, METRICS, workers=1).score(outputs["weak-mt"])
    assert values(after_close) == {k: v for k, v in values(fresh).items() if k in ("bleu", "chrf")}
    assert values(a_again) == values(fresh)


def test_close_drops_the_references_from_the_workers(demo):
    testset, outputs = demo
    pool = shared_pool(2)
    scorer = Scorer(testset, METRICS, workers=2)
    scorer.score(outputs["strong-mt"])
    stores = {sb._store for sb in scorer._sacrebleu.values()}
    held = [set(map(tuple, pool.submit(slot, eval, WORKER_STORES).result(timeout=60))) for slot in range(2)]
    assert all(stores <= h for h in held)
    scorer.close()
    held = [set(map(tuple, pool.submit(slot, eval, WORKER_STORES).result(timeout=60))) for slot in range(2)]
    assert not any(stores & h for h in held)


def test_a_collected_scorer_drops_its_references(demo):
    testset, outputs = demo
    pool = shared_pool(2)
    scorer = Scorer(testset, ["chrf"], workers=2)
    scorer.score(outputs["strong-mt"])
    store = scorer._sacrebleu["chrf"]._store
    del scorer
    gc.collect()
    held = [set(map(tuple, pool.submit(slot, eval, WORKER_STORES).result(timeout=60))) for slot in range(2)]
    assert not any(store in h for h in held)


def test_no_pool_in_a_daemonic_process_or_for_one_worker(monkeypatch):
    assert shared_pool(1) is None
    monkeypatch.setitem(mp.current_process()._config, "daemon", True)
    assert shared_pool(4) is None


def test_shutdown_stops_the_shared_workers_and_a_later_scoring_starts_new_ones(demo):
    testset, outputs = demo
    pool = shared_pool(2)
    pids = worker_pids(pool)
    sacrebleu_metrics.shutdown_pools()
    for pid in pids:
        wait_until_gone(pid)
    with Scorer(testset, METRICS, workers=2) as scorer:
        result = scorer.score(outputs["strong-mt"])
    assert shared_pool(2) is not pool
    assert values(result) == values(Scorer(testset, METRICS, workers=1).score(outputs["strong-mt"]))
