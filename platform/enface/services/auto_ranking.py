"""The automatic metrics' significance clusters of a leaderboard, computed in a job and stored per scores_version.

For every registered metric, the systems of the leaderboard are compared pair by pair
with the scoring library's paired bootstrap (:func:`scoring.significance.paired_test`,
sacrebleu's ``--paired-bs``, all pairs, 1000 resamples, seed 12345) on the metric's
per-unit statistics: the sacrebleu metrics' sufficient statistics, recomputed from the
stored outputs by the same scorer that produced the scores (so the observed scores are
the leaderboard's to the last bit), and the model metrics' stored segment scores. Rank
ranges (``losses + 1 .. N - wins``) and clusters come from :mod:`scoring.ranking`.

The ``rank`` job stores the result with the ``scores_version`` it was computed for;
the leaderboard (:mod:`~enface.services.leaderboard`) shows it while that version is current.
"""

from __future__ import annotations

import logging

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from scoring.metrics import REGISTRY
from scoring.significance import metric_stats, paired_test

from ..extensions import db
from ..models import AutoRanking, Submission, TestSet, utcnow
from .testsets import note_leaderboard_change

log = logging.getLogger(__name__)

TEST, SAMPLES, SEED = "bs", 1000, 12345
JOB = "rank"


def on_leaderboard():
    """The SQL condition of a submission on its test set's leaderboard: scored, not withdrawn, primary or baseline."""
    return ((Submission.state == "scored") & Submission.withdrawn_at.is_(None)
            & ((Submission.slot.is_not(None)) | (Submission.label == "baseline")))


def _statistics(ts: TestSet, subs: list[Submission]) -> dict[str, dict[int, list]]:
    """{metric: {submission id: per-unit statistics}} of every registered metric the submissions have."""
    from .pipeline import output_by_document, scorer_for

    out: dict[str, dict[int, list]] = {k: {} for k in REGISTRY}
    sacrebleu_keys = [k for k, spec in REGISTRY.items() if spec.engine == "sacrebleu"]
    if sacrebleu_keys and subs:
        scorer = scorer_for(ts, sacrebleu_keys)
        results = scorer.score_many({str(s.id): output_by_document(s) for s in subs},
                                    document_level={str(s.id): s.document_level for s in subs})
        for sid, res in results.items():
            for key, stats in res.stats.items():
                out[key][int(sid)] = stats
    for sub in subs:
        for row in sub.scores:
            spec = REGISTRY.get(row.metric)
            if spec is not None and spec.engine == "model" and row.scope != "corpus" and row.values:
                out[row.metric][sub.id] = row.values
    return out


def compute(testset_id: int) -> dict:
    """The clusters of every metric for the test set's current leaderboard systems."""
    ts = db.session.get(TestSet, testset_id)
    subs = list(db.session.scalars(select(Submission).options(selectinload(Submission.scores))
                                   .where(Submission.testset_id == testset_id, on_leaderboard())
                                   .order_by(Submission.id)))
    metrics: dict[str, dict] = {}
    scored = {(row.submission_id, row.metric) for sub in subs for row in sub.scores
              if row.scope == "corpus" and row.value is not None}
    for key, stats in _statistics(ts, subs).items():
        # only the systems the leaderboard shows a score of this metric for
        by_sub = {sid: v for sid, v in stats.items() if (sid, key) in scored}
        if len(by_sub) < 2:
            metrics[key] = {"reason": "fewer than two systems have this score"}
            continue
        result = paired_test(metric_stats(key, ts.tgt_lang, {str(s): v for s, v in by_sub.items()}),
                             test=TEST, n_samples=SAMPLES, seed=SEED)
        metrics[key] = {
            "rows": {r["system"]: {"rank_range": r["rank_range"], "rank_low": r["rank_low"],
                                   "rank_high": r["rank_high"], "cluster": r["cluster"], "rank": r["rank"],
                                   "score": r["score"]} for r in result.ranking},
            "order": [int(r["system"]) for r in result.ranking],
            "pairs": [[int(p.system_a), int(p.system_b), p.p_value, int(p.winner) if p.winner else None]
                      for p in result.pairs],
            "n_units": result.n_units}
    return {"test": TEST, "n_samples": SAMPLES, "seed": SEED, "alpha": 0.05, "metrics": metrics}


def run(testset_id: int) -> str | None:
    """The ``rank`` job: computes and stores the clusters unless they are current already."""
    ts = db.session.get(TestSet, testset_id)
    if ts is None:
        return None
    version = ts.scores_version
    stored = db.session.get(AutoRanking, testset_id)
    if stored is not None and stored.scores_version == version:
        return "current"
    try:
        results = compute(testset_id)
    except Exception:   # visible in the log; the leaderboard keeps saying the clusters are pending
        log.exception("automatic clusters of test set %s failed", testset_id)
        return "failed"
    with db.write():
        row = db.session.get(AutoRanking, testset_id, populate_existing=True)
        if row is None:
            row = AutoRanking(testset_id=testset_id)
            db.session.add(row)
        row.scores_version, row.results, row.computed_at = version, results, utcnow()
        note_leaderboard_change(db.session, testset_id)   # this process's leaderboard sees it at once
    return "stored"


def request(testset_id: int) -> None:
    """Queue the ``rank`` job (eager in tests: computed at once)."""
    from .. import job_queue

    job_queue.enqueue(JOB, testset_id)


def stored(testset_id: int) -> AutoRanking | None:
    return db.session.get(AutoRanking, testset_id)
