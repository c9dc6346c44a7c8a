"""Soft pairwise accuracy and significance clusters of the metrics against one human source (Enface's files).

For :func:`~scoring.meta.evaluate.evaluate_source`: the same statistics :mod:`~scoring.meta.mtme_eval` computes on the
toolkit's layout, on HumanSource / MetricScores. Clusters are computed over the systems every
clustered metric scores (the metrics that score the most systems the humans scored); the
permutation tests are :mod:`~scoring.meta.permutation`'s (the toolkit's).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np

from . import toolkit as tk
from .human import HumanSource
from .metric_files import MetricScores
from .permutation import (
    Clusters,
    PermutationParams,
    metric_clusters,
    pair_outcomes,
    pairs_permutation_test,
    permutation_test,
    rows_stat,
)
from .stats import agreement_rows, clean, orient, pearson_rows

DEFINITIONS = {
    "pearson": "system-level Pearson r",
    "pairwise_accuracy": "system-level pairwise accuracy (mt-metrics-eval: every pair counts)",
    "soft_pairwise_accuracy": "system-level soft pairwise accuracy (Thompson et al. 2024)",
    "acc_eq": "segment-level acc_eq, grouped by item, tie-calibrated (Deutsch et al. 2023)",
}
P_VALUE = 0.05
#: soft pairwise accuracy's clusters redo its 1000-permutation test for every draw: only up to this many
#: (system, segment) scores (beyond, ``skipped`` says so; ``python -m scoring meta --mtme --clusters`` has none)
SPA_CLUSTER_MAX_SCORES = 20_000


def segment_matrix(per_system: Mapping[str, Mapping[Hashable, float]], systems: Sequence[str],
                   items: Sequence[Hashable], higher_is_better: bool) -> np.ndarray:
    """systems x items, oriented, NaN where a score is missing."""
    return orient([[per_system.get(s, {}).get(i, np.nan) for i in items] for s in systems], higher_is_better)


def common_items(source: HumanSource, ms: MetricScores, systems: Sequence[str]) -> list[Hashable]:
    if not systems:
        return []
    first = systems[0]
    return [i for i in source.items.get(first, {})
            if all(i in source.items.get(s, {}) and i in ms.segments.get(s, {}) for s in systems)]


def soft_pairwise_accuracy(source: HumanSource, ms: MetricScores, systems: Sequence[str]) -> dict[str, Any] | None:
    """On the items every system has both scores for; None without segment scores on both sides."""
    if source.item_unit != "segment" or not source.items or not ms.segments or len(systems) < 2:
        return None
    items = common_items(source, ms, systems)
    if not items:
        return None
    G = segment_matrix(source.items, systems, items, source.higher_is_better)
    M = segment_matrix(ms.segments, systems, items, ms.higher_is_better)
    return {"value": clean(tk.soft_pairwise_accuracy(G, M)), "n_items": len(items)}


def acc_eq(source: HumanSource, ms: MetricScores, systems: Sequence[str]) -> dict[str, Any] | None:
    if source.item_unit != "segment" or not source.items or not ms.segments:
        return None
    items = sorted({i for s in systems for i in source.items.get(s, {})}, key=repr)
    G = segment_matrix(source.items, systems, items, source.higher_is_better)
    M = segment_matrix(ms.segments, systems, items, ms.higher_is_better)
    res = tk.acc_eq(G, M, "item")
    return None if res.groups == 0 else {"value": res.value, "threshold": res.threshold, "grouping": "item",
                                         "groups": res.groups}


def _as_dict(cl: Clusters, names: Mapping[str, str], statistic: str, n_systems: int) -> dict[str, Any]:
    return {"statistic": statistic, "definition": DEFINITIONS[statistic], "n_systems": n_systems,
            "rows": [{"metric": m, "name": names.get(m, m), "value": cl.values[m], "rank": cl.ranks[m]}
                     for m in cl.order],
            "p_values": cl.sig_matrix}


def source_clusters(source: HumanSource, metrics: Mapping[str, MetricScores],
                    params: PermutationParams = PermutationParams()) -> dict[str, Any]:
    """``{"systems": [...], "left_out": [...], "statistics": {name: {rows: [{metric, value, rank}], ...}}}``."""
    coverage = {k: [s for s in source.systems if s in ms.scores] for k, ms in metrics.items()}
    best = max((len(v) for v in coverage.values()), default=0)
    chosen = [k for k, v in coverage.items() if len(v) == best]
    systems = coverage[chosen[0]] if chosen else []
    out: dict[str, Any] = {"systems": systems, "left_out": sorted(set(metrics) - set(chosen)), "statistics": {},
                           "p_value": P_VALUE, "permutations": params.k}
    if len(chosen) < 2 or len(systems) < 3:
        out["reason"] = "clusters need two metrics that score the same three or more systems"
        return out
    names = {k: metrics[k].name for k in chosen}
    h = orient([source.systems[s] for s in systems], source.higher_is_better)
    vec = {k: orient([metrics[k].scores[s] for s in systems], metrics[k].higher_is_better) for k in chosen}
    for stat, rows, single in (("pearson", pearson_rows, tk.pearson),
                               ("pairwise_accuracy", agreement_rows, tk.pairwise_accuracy)):
        batch = rows_stat(rows, h)
        cl = metric_clusters({k: single(h, vec[k]) for k in chosen},
                             lambda a, b, batch=batch: permutation_test(batch, vec[a], vec[b], params), P_VALUE)
        out["statistics"][stat] = _as_dict(cl, names, stat, len(systems))
    with_seg = [k for k in chosen if metrics[k].segments and source.items and source.item_unit == "segment"]
    if len(with_seg) >= 2:
        items = [i for i in source.items.get(systems[0], {})
                 if all(i in source.items.get(s, {}) and all(i in metrics[k].segments.get(s, {}) for k in with_seg)
                        for s in systems)]
        if items:
            G = segment_matrix(source.items, systems, items, source.higher_is_better)
            mats = {k: segment_matrix(metrics[k].segments, systems, items, metrics[k].higher_is_better)
                    for k in with_seg}
            hp = tk.pairwise_p_values(G)
            shape = G.shape
            out["skipped"] = {}

            def spa_rows(rows: np.ndarray) -> np.ndarray:
                return np.array([tk.soft_pairwise_accuracy_from_p(hp, tk.pairwise_p_values(r.reshape(shape)))
                                 for r in rows])

            flat = {k: M.ravel() for k, M in mats.items()}
            if G.size <= SPA_CLUSTER_MAX_SCORES:
                cl = metric_clusters({k: float(spa_rows(flat[k][None, :])[0]) for k in with_seg},
                                     lambda a, b: permutation_test(spa_rows, flat[a], flat[b], params), P_VALUE)
                out["statistics"]["soft_pairwise_accuracy"] = _as_dict(cl, names, "soft_pairwise_accuracy",
                                                                       len(systems))
            else:
                out["skipped"]["soft_pairwise_accuracy"] = (
                    f"{G.size} (system, segment) scores: clusters of soft pairwise accuracy are computed up to "
                    f"{SPA_CLUSTER_MAX_SCORES} here (python -m scoring meta --mtme ... --clusters computes them)")
            eps = {k: tk.acc_eq(G, M, "item") for k, M in mats.items()}
            outcomes = pair_outcomes(G, {k: (M, eps[k].threshold) for k, M in mats.items()}, "item")
            cl = metric_clusters({k: eps[k].value for k in with_seg},
                                 lambda a, b: pairs_permutation_test(outcomes, a, b, params), P_VALUE)
            out["statistics"]["acc_eq"] = _as_dict(cl, names, "acc_eq", len(systems))
    return out
