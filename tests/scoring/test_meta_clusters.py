"""Clusters of the metrics against one human source (the page's and meta_from_files' ``clusters``)."""

from __future__ import annotations

import numpy as np

from scoring.meta import HumanSource, MetricScores, evaluate_source
from scoring.meta import clusters as cl
from scoring.meta.permutation import PermutationParams

SYSTEMS = [f"s{i}" for i in range(6)]
ITEMS = [("doc", i) for i in range(60)]


def source_and_metrics():
    rng = np.random.default_rng(0)
    quality = {s: i * 0.5 for i, s in enumerate(SYSTEMS)}
    human_items = {s: {k: quality[s] + rng.normal(scale=0.5) for k in ITEMS} for s in SYSTEMS}
    human = HumanSource("mqm", "MQM", "mqm", True, {s: float(np.mean(list(v.values()))) for s, v in human_items.items()},
                        human_items, "segment")

    def metric(key, noise):
        segs = {s: {k: v + rng.normal(scale=noise) for k, v in human_items[s].items()} for s in SYSTEMS}
        return MetricScores(key, {s: float(np.mean(list(v.values()))) for s, v in segs.items()}, True, key.upper(),
                            segs)

    return human, {"good": metric("good", 0.1), "bad": metric("bad", 5.0)}


def test_clusters_rank_a_clearly_better_metric_first():
    human, metrics = source_and_metrics()
    out = cl.source_clusters(human, metrics, PermutationParams(k=300))
    assert out["systems"] == SYSTEMS and out["left_out"] == []
    assert set(out["statistics"]) == {"pearson", "pairwise_accuracy", "soft_pairwise_accuracy", "acc_eq"}
    for stat in ("soft_pairwise_accuracy", "acc_eq"):
        rows = out["statistics"][stat]["rows"]
        assert [r["metric"] for r in rows] == ["good", "bad"] and [r["rank"] for r in rows] == [1, 2], stat


def test_soft_pairwise_accuracy_clusters_have_a_size_limit(monkeypatch):
    human, metrics = source_and_metrics()
    monkeypatch.setattr(cl, "SPA_CLUSTER_MAX_SCORES", 100)
    out = cl.source_clusters(human, metrics, PermutationParams(k=100))
    assert "soft_pairwise_accuracy" not in out["statistics"]
    assert "360 (system, segment) scores" in out["skipped"]["soft_pairwise_accuracy"]


def test_evaluate_source_has_spa_acc_eq_and_clusters():
    human, metrics = source_and_metrics()
    res = evaluate_source(human, metrics, n_boot=50, cluster_permutations=100)
    assert res["metrics"]["good"]["soft_pairwise_accuracy"]["n_items"] == 60
    assert res["item_level"]["metrics"]["good"]["acc_eq"]["groups"] == 60
    assert res["clusters"]["statistics"]["pearson"]["rows"][0]["rank"] == 1
    assert "clusters" not in evaluate_source(human, metrics, n_boot=20, cluster_permutations=0)
    one = evaluate_source(human, {"good": metrics["good"]}, n_boot=20)
    assert "clusters" not in one
