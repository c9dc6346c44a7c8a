"""The statistics of mt-metrics-eval (the WMT Metrics task's toolkit), as it defines them.

Scores are vectors (system level) or ``systems x items`` matrices (segment level) with NaN
where a score is missing; every statistic leaves out a pair or an element whose gold
(human) score is missing, as the toolkit does. Higher is better on both sides (the
toolkit's layout stores lower-is-better metrics negated).

* :func:`agreement` / :func:`pairwise_accuracy`: system-level pairwise accuracy (Kocmi et
  al. 2021) in the toolkit's definition: **every** pair of systems counts, and a pair agrees
  when the signs of the human and the metric differences are equal, so a pair both tie agrees
  and a pair only one side ties does not;
* :func:`kendall_variants`: tau-b, tau-c, and Deutsch et al. (2023)'s tau_eq ("23") and
  acc_eq ("acc23"), with metric differences up to ``epsilon`` counted as ties;
* :func:`acc_eq`: acc_eq with the tie-calibration threshold that maximises it (the toolkit's
  ``KendallWithTiesOpt``), averaged over groups;
* :func:`kendall_like`: WMT20's Kendall-like tau (pairs whose gold scores differ by at least
  ``thresh``);
* :func:`grouped`: a vector statistic under the toolkit's three segment-level groupings
  (``none``: one vector of everything; ``item``: per item across systems, then averaged;
  ``sys``: per system across items, then averaged);
* :func:`pairwise_p_values` / :func:`soft_pairwise_accuracy`: Thompson et al. (2024)'s soft
  pairwise accuracy, 1 - mean ``|p_human - p_metric|`` over system pairs, where p is the paired
  permutation test's p-value (1000 sign flips from ``numpy.random.default_rng(4)``, in float32,
  as the toolkit draws them) that system i beats system j on summed segment scores.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

GROUPINGS = ("none", "item", "sys")
KENDALL_TOOLKIT_VARIANTS = ("b", "c", "23", "acc23")
PCE_PERMUTATIONS = 1000
PCE_SEED = 4

VectorStat = Callable[[np.ndarray, np.ndarray], float]


def _constant(x: np.ndarray) -> bool:
    return bool(np.all(x == x[0]))


def pearson(g: np.ndarray, m: np.ndarray) -> float:
    """Pearson's r; NaN when either side is constant (the toolkit's rule, whatever scipy's version says)."""
    from scipy.stats import pearsonr

    return math.nan if len(g) < 2 or _constant(g) or _constant(m) else float(pearsonr(g, m)[0])


def spearman(g: np.ndarray, m: np.ndarray) -> float:
    from scipy.stats import spearmanr

    return math.nan if len(g) < 2 or _constant(g) or _constant(m) else float(spearmanr(g, m)[0])


def kendall(variant: str = "b") -> VectorStat:
    """scipy's Kendall tau of the given variant (``b`` or ``c``)."""
    def tau(g: np.ndarray, m: np.ndarray) -> float:
        from scipy.stats import kendalltau

        return float(kendalltau(g, m, variant=variant)[0])
    return tau


def agreement(gold: np.ndarray, metric: np.ndarray) -> tuple[int, int]:
    """(agreeing pairs, pairs): pairs with a missing gold score are left out, every other pair counts."""
    g = np.asarray(gold, dtype=np.float64)
    m = np.asarray(metric, dtype=np.float64)
    i, j = np.triu_indices(len(g), 1)
    ok = ~(np.isnan(g[i]) | np.isnan(g[j]))
    agree = np.sign(g[i] - g[j]) == np.sign(m[i] - m[j])
    return int((agree & ok).sum()), int(ok.sum())


def pairwise_accuracy(gold: np.ndarray, metric: np.ndarray) -> float:
    agree, pairs = agreement(gold, metric)
    return agree / pairs if pairs else math.nan


@dataclass(frozen=True)
class TauCounts:
    """Kendall's sufficient statistics: concordant, discordant, ties in the metric only, in the gold only, in both."""
    con: int
    dis: int
    ties_metric: int
    ties_gold: int
    ties_both: int

    @property
    def pairs(self) -> int:
        return self.con + self.dis + self.ties_metric + self.ties_gold + self.ties_both


def tau_counts(gold: np.ndarray, metric: np.ndarray, epsilon: float = 0.0) -> TauCounts:
    """Counts over all pairs; a metric difference of at most ``epsilon`` (in absolute value) is a tie."""
    g = np.asarray(gold, dtype=np.float64)
    m = np.asarray(metric, dtype=np.float64)
    i, j = np.triu_indices(len(g), 1)
    dg = g[i] - g[j]
    dm = m[i] - m[j]
    tie_m = np.abs(dm) <= epsilon
    tie_g = dg == 0
    both = tie_m & tie_g
    con = (~tie_m & ~tie_g & (np.sign(dg) == np.sign(dm))).sum()
    dis = (~tie_m & ~tie_g).sum() - con
    return TauCounts(int(con), int(dis), int((tie_m & ~tie_g).sum()), int((tie_g & ~tie_m).sum()), int(both.sum()))


def kendall_variants(gold: np.ndarray, metric: np.ndarray, variant: str = "b", epsilon: float = 0.0) -> float:
    """Kendall's tau-b, tau-c, tau_eq ("23") or acc_eq ("acc23") from the pair counts."""
    if variant not in KENDALL_TOOLKIT_VARIANTS:
        raise ValueError(f"variant must be one of {KENDALL_TOOLKIT_VARIANTS}, not {variant!r}")
    if epsilon < 0:
        raise ValueError("epsilon must be non-negative")
    if epsilon > 0 and variant == "c":
        raise ValueError("tau-c is not defined with a tie threshold")
    c = tau_counts(gold, metric, epsilon)
    tot = c.pairs
    ties_metric, ties_gold = c.ties_metric + c.ties_both, c.ties_gold + c.ties_both
    if tot == 0:
        return math.nan
    if variant in ("b", "c") and (ties_metric == tot or ties_gold == tot):
        return math.nan
    if variant == "b":
        return (c.con - c.dis) / math.sqrt(tot - ties_metric) / math.sqrt(tot - ties_gold)
    if variant == "c":
        n = len(gold)
        classes = min(len(set(np.asarray(gold).tolist())), len(set(np.asarray(metric).tolist())))
        return 2 * (c.con - c.dis) / (n * n * (classes - 1) / classes)
    if variant == "23":
        return (c.con + c.ties_both - c.dis - c.ties_metric - c.ties_gold) / tot
    return (c.con + c.ties_both) / tot


def kendall_like(gold: np.ndarray, metric: np.ndarray, thresh: float = 25.0) -> tuple[float, int]:
    """WMT20's Kendall-like tau and the pairs it counts.

    A pair counts when its gold scores differ by at least ``thresh``; it is concordant when the
    metric orders it the same way strictly, else discordant (a metric tie is discordant).
    """
    g = np.asarray(gold, dtype=np.float64)
    m = np.asarray(metric, dtype=np.float64)
    i, j = np.triu_indices(len(g), 1)
    ok = ~(np.isnan(g[i]) | np.isnan(g[j]))
    dg = (g[i] - g[j])[ok]
    dm = (m[i] - m[j])[ok]
    counted = np.abs(dg) >= thresh
    con = int((counted & (((dg > 0) & (dm > 0)) | ((dg < 0) & (dm < 0)))).sum())
    pairs = int(counted.sum())
    return ((2 * con - pairs) / pairs if pairs else 0.0), pairs


def _rows(G: np.ndarray, M: np.ndarray, by: str) -> tuple[np.ndarray, np.ndarray]:
    if by == "none":
        return G.reshape(1, -1), M.reshape(1, -1)
    if by == "sys":
        return G, M
    if by == "item":
        return G.T, M.T
    raise ValueError(f"grouping must be one of {GROUPINGS}, not {by!r}")


def grouped(stat: VectorStat, G: np.ndarray, M: np.ndarray, by: str = "none") -> tuple[float, int]:
    """(average, groups averaged) of ``stat`` under a grouping; NaN groups are left out of the mean.

    Elements whose gold score is missing are left out of each group; a group left with fewer
    than two elements is skipped. None when no group has a value (the toolkit gives 0 there).
    """
    values = []
    for g, m in zip(*_rows(np.asarray(G, dtype=np.float64), np.asarray(M, dtype=np.float64), by), strict=True):
        ok = ~(np.isnan(g) | np.isnan(m))
        if ok.sum() < 2:
            continue
        v = stat(g[ok], m[ok])
        if not math.isnan(v):
            values.append(v)
    return (float(np.mean(values)) if values else math.nan), len(values)


def kendall_like_grouped(G: np.ndarray, M: np.ndarray, by: str = "item", thresh: float = 25.0) -> float:
    """Kendall-like tau per group, averaged with each group weighted by its counted pairs (as the toolkit does)."""
    total = weight = 0.0
    for g, m in zip(*_rows(np.asarray(G, dtype=np.float64), np.asarray(M, dtype=np.float64), by), strict=True):
        ok = ~(np.isnan(g) | np.isnan(m))
        if ok.sum() < 2:
            continue
        tau, pairs = kendall_like(g[ok], m[ok], thresh)
        total += tau * pairs
        weight += pairs
    return total / weight if weight else math.nan


@dataclass(frozen=True)
class AccEq:
    value: float
    threshold: float
    groups: int


def acc_eq(G: np.ndarray, M: np.ndarray, by: str = "item") -> AccEq:
    """acc_eq with its tie-calibration threshold (Deutsch et al. 2023), averaged over groups.

    Every pair in every group is a candidate: treating metric differences up to a threshold as
    ties, acc_eq = (concordant + ties in both) / pairs per group, averaged over the groups that
    have pairs. The threshold is 0 or one of the pairs' metric differences; the smallest one that
    gives the largest average wins.
    """
    rows_g, rows_m = _rows(np.asarray(G, dtype=np.float64), np.asarray(M, dtype=np.float64), by)
    diffs, deltas, base_parts = [], [], []
    for g, m in zip(rows_g, rows_m, strict=True):
        ok = ~(np.isnan(g) | np.isnan(m))
        g, m = g[ok], m[ok]
        if len(g) < 2:
            continue
        i, j = np.triu_indices(len(g), 1)
        dg, dm = g[i] - g[j], m[i] - m[j]
        n = len(dg)
        correct = ((dg == 0) & (dm == 0)) | ((dg != 0) & (dm != 0) & (np.sign(dg) == np.sign(dm)))
        # made a tie, a pair is right exactly when the gold ties it
        delta = (dg == 0).astype(np.float64) - correct
        base_parts.append(correct.sum() / n)
        diffs.append(np.abs(dm))
        deltas.append(delta / n)
    if not base_parts:
        return AccEq(math.nan, 0.0, 0)
    groups = len(base_parts)
    diff = np.concatenate(diffs)
    order = np.argsort(diff, kind="stable")
    diff = diff[order]
    running = float(np.sum(base_parts)) + np.cumsum(np.concatenate(deltas)[order])
    last = np.r_[diff[1:] != diff[:-1], True]           # the last pair of each distinct difference
    thresholds = np.r_[0.0, diff[last]]
    values = np.r_[float(np.sum(base_parts)), running[last]] / groups
    if thresholds.size > 1 and thresholds[1] == 0.0:     # differences of 0 are already ties
        thresholds, values = thresholds[1:], values[1:]
    best = int(np.nanargmax(values))
    return AccEq(float(values[best]), float(thresholds[best]), groups)


@functools.lru_cache(maxsize=8)
def _flips(n_permutations: int, n_seg: int, seed: int) -> np.ndarray:
    flips = np.random.default_rng(seed).random(size=(n_permutations, n_seg), dtype=np.float32)
    np.rint(flips, out=flips)
    flips *= 2.0
    flips -= 1.0
    flips.setflags(write=False)
    return flips


def pairwise_p_values(seg_scores: np.ndarray, n_permutations: int = PCE_PERMUTATIONS,
                      seed: int = PCE_SEED) -> np.ndarray:
    """``p[i, j]`` (i < j): the paired permutation test's p-value that system i beats system j.

    Each permutation flips, for every segment, which system a score belongs to (the same flips for
    every pair); p is the share of permutations whose difference of summed scores is at least the
    observed one. The flips are float32 uniforms rounded to 0/1, from ``default_rng(seed)``.
    """
    S = np.asarray(seg_scores, dtype=np.float32)
    n_sys, n_seg = S.shape
    totals = np.sum(S, axis=1)
    partial = np.matmul(_flips(n_permutations, n_seg, seed), S.T)
    i, j = np.triu_indices(n_sys, 1)
    p = np.full((n_sys, n_sys), np.nan)
    p[i, j] = np.sum(partial[:, i] - partial[:, j] >= totals[i] - totals[j], axis=0) / n_permutations
    return p


def soft_pairwise_accuracy_from_p(human_p: np.ndarray, metric_p: np.ndarray) -> float:
    upper = np.triu_indices(human_p.shape[0], 1)
    return float(1.0 - np.mean(np.abs(human_p - metric_p)[upper]))


def complete_columns(G: np.ndarray, M: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The items every system has both scores for (soft pairwise accuracy compares systems on the same items)."""
    G = np.asarray(G, dtype=np.float64)
    M = np.asarray(M, dtype=np.float64)
    ok = ~(np.isnan(G) | np.isnan(M)).any(axis=0)
    return G[:, ok], M[:, ok]


def soft_pairwise_accuracy(G: np.ndarray, M: np.ndarray, n_permutations: int = PCE_PERMUTATIONS,
                           seed: int = PCE_SEED) -> float:
    """Soft pairwise accuracy of segment scores ``M`` against gold ``G`` (systems x items)."""
    g, m = complete_columns(G, M)
    if g.shape[0] < 2 or g.shape[1] == 0:
        return math.nan
    return soft_pairwise_accuracy_from_p(pairwise_p_values(g, n_permutations, seed),
                                         pairwise_p_values(m, n_permutations, seed))
