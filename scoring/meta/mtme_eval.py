"""``python -m scoring meta --mtme ROOT``: every metric of a root in mt-metrics-eval's layout against one human score.

System level (``sys``): ``pearson``, ``spearman``, ``kendall`` (tau-b by default, ``variant``
says which) and ``pairwise_accuracy`` (the toolkit's: every pair counts, ties agree only with
ties), each ``{"value", "ci"}`` with a percentile bootstrap interval over systems; beside them
``pairwise_accuracy_untied`` (today's Enface variant: pairs the humans tie left out) and
``soft_pairwise_accuracy`` (needs segment scores of both the humans and the metric; None
otherwise). Segment level (``seg``): ``pearson`` (no grouping), ``acc_eq`` (grouped by item,
tie-calibrated: ``{"value", "threshold"}``), and for reference ``pearson_by_item``,
``pearson_by_sys`` and WMT20's ``kendall_like`` (grouped by item).

A system takes part when its human score is not None (at ``seg`` level: any segment) and it
is not a human translation (``include_human`` keeps those); a metric is compared on the
systems it scored.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import toolkit as tk
from .errors import MetaInputError
from .mtme import LEVELS, MtmeSet
from .permutation import (
    Clusters,
    PermutationParams,
    metric_clusters,
    pair_outcomes,
    pairs_permutation_test,
    permutation_test,
    rows_stat,
)
from .stats import (
    DEFAULT_BOOT,
    DEFAULT_CONFIDENCE,
    DEFAULT_SEED,
    accuracy_stat,
    agreement_rows,
    bootstrap_ci,
    clean,
    kendall,
    kendall_rows,
    pairwise_accuracy_untied,
    pearson,
    pearson_rows,
    spearman,
    spearman_rows,
)

SYS_STATS = ("pearson", "spearman", "kendall", "pairwise_accuracy", "soft_pairwise_accuracy")
SEG_STATS = ("pearson", "acc_eq")
MIN_SYSTEMS = 3
KENDALL_LIKE_THRESHOLD = 25.0    # WMT20 DA points; the toolkit's default


def participants(ms: MtmeSet, human: str, level: str, include_human: bool) -> list[str]:
    gold = ms.human.get((human, level))
    if gold is None:
        have = ms.human_names(level)
        raise MetaInputError(f"no human-scores/{ms.lp}.{human}.{level}.score (human scores at {level} level: "
                             f"{', '.join(have) or 'none'})", ms.root)
    excluded = set() if include_human else ms.human_translations
    return sorted(s for s, v in gold.items() if any(x is not None for x in v) and s not in excluded)


def _matrix(scores: dict[str, list[float | None]], systems: Sequence[str]) -> np.ndarray:
    return np.array([[math.nan if v is None else v for v in scores[s]] for s in systems], dtype=np.float64)


def _interval(stat, h: np.ndarray, m: np.ndarray, n_boot: int, seed: int | None, confidence: float) -> dict:
    low, high, _ = bootstrap_ci(stat, h, m, n_boot=n_boot, seed=seed, confidence=confidence)
    return {"value": clean(stat(h, m)), "ci": [low, high]}


def _sys_metric(ms: MtmeSet, human: str, metric: str, systems: list[str], *, kendall_variant: str, n_boot: int,
                seed: int | None, confidence: float, human_p: dict) -> dict[str, Any] | None:
    scores = ms.metrics[(metric, "sys")]
    used = [s for s in systems if s in scores and scores[s][0] is not None]
    if len(used) < MIN_SYSTEMS:
        return None
    h = np.array([ms.human[(human, "sys")][s][0] for s in used], dtype=np.float64)
    m = np.array([scores[s][0] for s in used], dtype=np.float64)
    kw = {"n_boot": n_boot, "seed": seed, "confidence": confidence}
    out: dict[str, Any] = {"n_systems": len(used)}
    if len(used) < len(systems):
        out["missing"] = sorted(set(systems) - set(used))
    out["pearson"] = _interval(pearson, h, m, **kw)
    out["spearman"] = _interval(spearman, h, m, **kw)
    out["kendall"] = {**_interval(kendall(kendall_variant), h, m, **kw), "variant": f"tau-{kendall_variant}"}
    out["pairwise_accuracy"] = _interval(accuracy_stat, h, m, **kw)
    untied, n_untied = pairwise_accuracy_untied(h, m)
    out["pairwise_accuracy_untied"] = {"value": clean(untied), "pairs": n_untied}
    out["soft_pairwise_accuracy"] = _spa(ms, human, metric, used, human_p)
    return out


def _spa(ms: MtmeSet, human: str, metric: str, systems: list[str], human_p: dict) -> float | None:
    gold, seg = ms.human.get((human, "seg")), ms.metrics.get((metric, "seg"))
    if gold is None or seg is None or any(s not in seg or s not in gold for s in systems):
        return None
    G, M = tk.complete_columns(_matrix(gold, systems), _matrix(seg, systems))
    if G.shape[1] == 0:
        return None
    key = (tuple(systems), G.shape[1])
    if key not in human_p:
        human_p[key] = tk.pairwise_p_values(G)
    return clean(tk.soft_pairwise_accuracy_from_p(human_p[key], tk.pairwise_p_values(M)))


def _seg_metric(G: np.ndarray, M: np.ndarray) -> dict[str, Any]:
    acc = tk.acc_eq(G, M, "item")
    return {"pearson": clean(tk.grouped(tk.pearson, G, M, "none")[0]),
            "acc_eq": {"value": clean(acc.value), "threshold": acc.threshold, "grouping": "item",
                       "groups": acc.groups},
            "pearson_by_item": clean(tk.grouped(tk.pearson, G, M, "item")[0]),
            "pearson_by_sys": clean(tk.grouped(tk.pearson, G, M, "sys")[0]),
            "kendall_like": {"value": clean(tk.kendall_like_grouped(G, M, "item", KENDALL_LIKE_THRESHOLD)),
                             "threshold": KENDALL_LIKE_THRESHOLD, "grouping": "item"}}


def _value(entry: Any) -> float | None:
    return entry.get("value") if isinstance(entry, dict) else entry


def evaluate_mtme(ms: MtmeSet, human: str, *, level: str = "sys", metrics: Sequence[str] | None = None,
                  include_human: bool = False, kendall_variant: str = "b", n_boot: int = DEFAULT_BOOT,
                  seed: int | None = DEFAULT_SEED, confidence: float = DEFAULT_CONFIDENCE,
                  clusters: PermutationParams | None = None, pval: float = 0.05) -> dict[str, Any]:
    """The command line's JSON object: ``{"lp", "human", "level", "systems", "metrics"}``."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}")
    systems = participants(ms, human, level, include_human)
    available = ms.metric_names(level)
    if metrics is None:
        chosen = available
    else:
        unknown = [m for m in metrics if m not in available]
        if unknown:
            raise MetaInputError(f"no {level}-level score file for {', '.join(unknown)} in "
                                 f"metric-scores/{ms.lp}/ (there are {len(available)}: "
                                 f"{', '.join(available[:10])}{', ...' if len(available) > 10 else ''})", ms.root)
        chosen = list(dict.fromkeys(metrics))
    if len(systems) < MIN_SYSTEMS:
        raise MetaInputError(f"{len(systems)} system(s) with a {human} score that are not human translations; "
                             f"correlations need at least {MIN_SYSTEMS}", ms.root)
    result: dict[str, Any] = {"lp": ms.lp, "human": human, "level": level, "systems": systems, "metrics": {}}
    if level == "sys":
        human_p: dict = {}
        for metric in chosen:
            block = _sys_metric(ms, human, metric, systems, kendall_variant=kendall_variant, n_boot=n_boot,
                                seed=seed, confidence=confidence, human_p=human_p)
            if block is not None:
                result["metrics"][metric] = block
        if clusters is not None:
            _add_ranks(result, sys_clusters(ms, human, list(result["metrics"]), systems, clusters, pval))
        return result
    for metric in chosen:
        scores = ms.metrics[(metric, "seg")]
        used = [s for s in systems if s in scores]
        if len(used) < 2:
            continue
        block = _seg_metric(_matrix(ms.human[(human, "seg")], used), _matrix(scores, used))
        block["n_systems"] = len(used)
        if len(used) < len(systems):
            block["missing"] = sorted(set(systems) - set(used))
        result["metrics"][metric] = block
    if clusters is not None:
        _add_ranks(result, seg_clusters(ms, human, result, systems, clusters, pval))
    return result


def _add_ranks(result: dict, found: dict[str, Clusters]) -> None:
    for stat, cl in found.items():
        for metric, rank in cl.ranks.items():
            result["metrics"][metric].setdefault("ranks", {})[stat] = rank


def sys_clusters(ms: MtmeSet, human: str, metrics: list[str], systems: list[str], params: PermutationParams,
                 pval: float = 0.05) -> dict[str, Clusters]:
    """Significance clusters of the metrics that scored every system, for each system-level statistic."""
    full = [m for m in metrics if all(ms.metrics[(m, "sys")].get(s, [None])[0] is not None for s in systems)]
    h = np.array([ms.human[(human, "sys")][s][0] for s in systems], dtype=np.float64)
    vec = {m: np.array([ms.metrics[(m, "sys")][s][0] for s in systems], dtype=np.float64) for m in full}
    batch = {"pearson": rows_stat(pearson_rows, h), "spearman": rows_stat(spearman_rows, h),
             "kendall": rows_stat(lambda H, M: kendall_rows("b", H, M), h),
             "pairwise_accuracy": rows_stat(agreement_rows, h)}
    single = {"pearson": tk.pearson, "spearman": tk.spearman, "kendall": tk.kendall("b"),
              "pairwise_accuracy": tk.pairwise_accuracy}
    out = {}
    for stat, fn in batch.items():
        values = {m: single[stat](h, vec[m]) for m in full}
        out[stat] = metric_clusters(values, lambda a, b, fn=fn: permutation_test(fn, vec[a], vec[b], params), pval)
    spa = _spa_clusters(ms, human, full, systems, params, pval)
    if spa is not None:
        out["soft_pairwise_accuracy"] = spa
    return out


def _spa_clusters(ms, human, metrics, systems, params, pval) -> Clusters | None:
    gold = ms.human.get((human, "seg"))
    with_seg = [m for m in metrics if (m, "seg") in ms.metrics and all(s in ms.metrics[(m, "seg")] for s in systems)]
    if gold is None or len(with_seg) < 2:
        return None
    G = _matrix(gold, systems)
    ok = ~np.isnan(G).any(axis=0)
    mats = {m: _matrix(ms.metrics[(m, "seg")], systems) for m in with_seg}
    for M in mats.values():
        ok &= ~np.isnan(M).any(axis=0)
    G = G[:, ok]
    shape = G.shape
    hp = tk.pairwise_p_values(G)

    def spa_rows(rows: np.ndarray) -> np.ndarray:
        return np.array([tk.soft_pairwise_accuracy_from_p(hp, tk.pairwise_p_values(r.reshape(shape)))
                         for r in rows])

    flat = {m: M[:, ok].ravel() for m, M in mats.items()}
    values = {m: float(spa_rows(flat[m][None, :])[0]) for m in with_seg}
    return metric_clusters(values, lambda a, b: permutation_test(spa_rows, flat[a], flat[b], params), pval)


def seg_clusters(ms: MtmeSet, human: str, result: dict, systems: list[str], params: PermutationParams,
                 pval: float = 0.05) -> dict[str, Clusters]:
    """Clusters for segment-level Pearson (scores test, no grouping) and acc_eq (pairs test, by item)."""
    G = _matrix(ms.human[(human, "seg")], systems)
    mats = {m: _matrix(ms.metrics[(m, "seg")], systems) for m in result["metrics"]
            if "missing" not in result["metrics"][m]}
    ok = ~np.isnan(G)
    for M in mats.values():
        ok &= ~np.isnan(M)
    g = G[ok]
    flat = {m: M[ok] for m, M in mats.items()}
    pearson_values = {m: _value(result["metrics"][m]["pearson"]) for m in mats}
    out = {"pearson": metric_clusters(
        {m: v for m, v in pearson_values.items() if v is not None},
        lambda a, b: permutation_test(rows_stat(pearson_rows, g), flat[a], flat[b], params), pval)}
    eps = {m: result["metrics"][m]["acc_eq"]["threshold"] for m in mats}
    Gm = np.where(ok, G, np.nan)
    outcomes = pair_outcomes(Gm, {m: (M, eps[m]) for m, M in mats.items()}, "item")
    acc_values = {m: _value(result["metrics"][m]["acc_eq"]) for m in mats}
    out["acc_eq"] = metric_clusters({m: v for m, v in acc_values.items() if v is not None},
                                    lambda a, b: pairs_permutation_test(outcomes, a, b, params), pval)
    return out
