"""System level: one metric against the human scores over the systems both score.

* ``pearson``: Pearson's r (``scipy.stats.pearsonr``);
* ``spearman``: Spearman's rho (``scipy.stats.spearmanr``) with ``variance_explained`` =
  rho² x 100 (DITING's "variance explained");
* ``kendall``: Kendall's tau, **tau-b** by default (``scipy.stats.kendalltau(variant="b")``,
  adjusted for ties on either side), tau-c on request; the variant is in the output;
* ``pairwise_accuracy``: the share of system pairs the metric orders as the humans do
  (Kocmi et al. 2021) in mt-metrics-eval's definition: every pair counts, and a pair agrees
  when the signs of both differences are equal (a tie agrees only with a tie);
* ``pairwise_accuracy_untied``: Enface's first variant: pairs the humans tie are left out, a
  pair the humans order but the metric ties counts as not agreeing; ``n_pairs`` pairs counted;
* each with a percentile bootstrap interval over systems (:func:`~scoring.meta.stats.bootstrap_ci`);
* ``rank_flips``: the systems whose rank differs, largest difference first, and the
  discordant pairs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

import numpy as np

from .errors import MetaInputError
from .stats import (
    DEFAULT_BOOT,
    DEFAULT_CONFIDENCE,
    DEFAULT_SEED,
    accuracy_stat,
    accuracy_untied_stat,
    correlations,
    kendall,
    orient,
    pairwise_accuracy_untied,
    ranks,
    with_interval,
)

MIN_SYSTEMS = 3
PAIRWISE_TIES = ("pairwise_accuracy: mt-metrics-eval's (every pair counts; a tie agrees only with a tie); "
                 "pairwise_accuracy_untied: human ties left out, metric ties on human-ordered pairs count as wrong")


def rank_flips(systems: Sequence[str], human: Sequence[float], metric: Sequence[float]) -> dict[str, Any]:
    """Systems ranked differently by the metric (largest absolute difference first) and the discordant pairs.

    ``human`` and ``metric`` are oriented (higher = better); ranks are 1 = best, ties share the average.
    """
    hr, mr = ranks(human), ranks(metric)
    flips = [{"system": s, "human_rank": a, "metric_rank": b, "difference": b - a}
             for s, a, b in zip(systems, hr, mr, strict=True) if a != b]
    flips.sort(key=lambda r: (-abs(r["difference"]), r["human_rank"], r["system"]))
    pairs = []
    for i, j in combinations(range(len(systems)), 2):
        dh, dm = np.sign(human[i] - human[j]), np.sign(metric[i] - metric[j])
        if dh and dm and dh != dm:
            hi, lo = (i, j) if dh > 0 else (j, i)
            pairs.append({"human_prefers": systems[hi], "metric_prefers": systems[lo]})
    return {"systems": flips, "discordant_pairs": pairs}


def system_level(human: Mapping[str, float], metric: Mapping[str, float], *, human_higher_is_better: bool = True,
                 metric_higher_is_better: bool = True, n_boot: int = DEFAULT_BOOT, seed: int | None = DEFAULT_SEED,
                 confidence: float = DEFAULT_CONFIDENCE, kendall_variant: str = "b") -> dict[str, Any]:
    """Every system-level statistic of one metric against the human scores, on the systems both have."""
    kendall(kendall_variant)     # an unknown variant fails before anything is computed
    systems = [s for s in human if s in metric]
    if len(systems) < MIN_SYSTEMS:
        raise MetaInputError(f"{len(systems)} system(s) in common; correlations need at least {MIN_SYSTEMS}")
    h = orient([human[s] for s in systems], human_higher_is_better)
    m = orient([metric[s] for s in systems], metric_higher_is_better)
    boot = {"n_boot": n_boot, "seed": seed, "confidence": confidence, "over": "systems"}
    out: dict[str, Any] = {"systems": systems, "n_systems": len(systems), "oriented": True,
                           "human_higher_is_better": human_higher_is_better,
                           "metric_higher_is_better": metric_higher_is_better, "bootstrap": boot,
                           "points": [{"system": s, "human": float(human[s]), "metric": float(metric[s])}
                                      for s in systems]}
    out.update(correlations(h, m, kendall_variant=kendall_variant, n_boot=n_boot, seed=seed, confidence=confidence))
    boot_kw = {"n_boot": n_boot, "seed": seed, "confidence": confidence}
    out["pairwise_accuracy"] = with_interval(accuracy_stat, h, m, **boot_kw)
    out["pairwise_accuracy"].update(n_pairs=len(systems) * (len(systems) - 1) // 2,
                                    ties="every pair counts; a tie agrees only with a tie (mt-metrics-eval)")
    out["pairwise_accuracy_untied"] = with_interval(accuracy_untied_stat, h, m, **boot_kw)
    out["pairwise_accuracy_untied"].update(n_pairs=pairwise_accuracy_untied(h, m)[1],
                                           ties="human ties left out; metric ties on human-ordered pairs count as wrong")
    out["rank_flips"] = rank_flips(systems, list(h), list(m))
    return out
