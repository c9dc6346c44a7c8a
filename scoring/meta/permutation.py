"""Significance between metrics and the clusters (ranks) they give, as mt-metrics-eval computes them.

* :func:`permutation_test` ("scores", PERM-BOTH of Deutsch et al. 2021): both metrics' scores are
  z-scored, then each draw swaps every score between the two metrics with probability 1/2 and
  computes the statistic of both hybrids; p is the share of draws whose difference is at least
  the observed one. Draws run in blocks; after each block the test stops early when p is below
  ``early_min`` or above ``early_max`` (WMT's settings: blocks of 100, 0.02, 0.5).
* :func:`pairs_permutation_test` ("pairs", the toolkit's test for acc_eq): each metric keeps its
  own tie threshold, and each draw swaps the two metrics' outcomes pair by pair.
* :func:`assign_ranks`: metrics sorted by decreasing statistic; a metric starts a new cluster
  when a metric of its current cluster (or the cluster's first metric onwards) beats it with
  p <= ``pval``. This gives the ranks of the WMT23/WMT24 findings tables.

Draws come from ``numpy.random.default_rng(seed)``, so a run is reproducible (the toolkit uses
numpy's global generator; the p-values agree in distribution, not draw by draw).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

#: a statistic of gold scores against each row of a (draws x scores) matrix, one value per row
BatchStat = Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class PermutationParams:
    k: int = 1000
    block_size: int = 100
    early_min: float = 0.02
    early_max: float = 0.5
    seed: int = 12345


@dataclass(frozen=True)
class PermutationResult:
    p_value: float
    delta: float
    draws: int


def zscore(x: np.ndarray) -> np.ndarray:
    from scipy.stats import zscore as scipy_zscore

    return np.asarray(scipy_zscore(np.asarray(x, dtype=np.float64)))


def _run(delta: float, draw_block: Callable[[np.random.Generator, int], np.ndarray],
         params: PermutationParams, check_only_on_hit: bool = False) -> PermutationResult:
    rng = np.random.default_rng(params.seed)
    hits = done = 0
    while done < params.k:
        n = min(params.block_size, params.k - done)
        diffs = draw_block(rng, n)
        hits += int(np.count_nonzero(diffs >= delta))
        done += n
        p = hits / done
        if done % params.block_size == 0 and (p < params.early_min or p > params.early_max):
            # the toolkit's pairs test checks only at blocks that end on a counted draw
            if not check_only_on_hit or diffs[-1] >= delta:
                break
    return PermutationResult(hits / done if done else 1.0, delta, done)


def permutation_test(stat: BatchStat, scores_a: np.ndarray, scores_b: np.ndarray,
                     params: PermutationParams = PermutationParams()) -> PermutationResult:
    """p-value that metric A's statistic beats metric B's (small p: A is significantly better)."""
    a, b = zscore(scores_a), zscore(scores_b)
    delta = float(stat(a[None, :])[0] - stat(b[None, :])[0])

    def block(rng: np.random.Generator, n: int) -> np.ndarray:
        w = rng.integers(0, 2, size=(n, len(a))).astype(bool)
        hybrid_a = np.where(w, b, a)
        hybrid_b = np.where(w, a, b)
        return stat(hybrid_a) - stat(hybrid_b)

    return _run(delta, block, params)


@dataclass
class PairOutcomes:
    """Per pair of systems within each group: whether a metric's order (with its tie threshold) is right."""
    group: np.ndarray           # group index of every pair
    sizes: np.ndarray           # pairs per group
    correct: dict[str, np.ndarray] = field(default_factory=dict)


def pair_outcomes(G: np.ndarray, metrics: Mapping[str, tuple[np.ndarray, float]], by: str = "item") -> PairOutcomes:
    """acc_eq's per-pair outcomes of every metric (``{name: (scores, threshold)}``) on the same gold."""
    from .toolkit import _rows

    G = np.asarray(G, dtype=np.float64)
    rows_g = _rows(G, G, by)[0]
    groups, sizes, pair_idx = [], [], []
    for r, g in enumerate(rows_g):
        keep = np.flatnonzero(~np.isnan(g))
        if len(keep) < 2:
            continue
        i, j = np.triu_indices(len(keep), 1)
        pair_idx.append((r, keep[i], keep[j]))
        groups.append(np.full(len(i), len(sizes)))
        sizes.append(len(i))
    out = PairOutcomes(np.concatenate(groups) if groups else np.zeros(0, int), np.asarray(sizes))
    for name, (scores, eps) in metrics.items():
        rows_m = _rows(np.asarray(scores, dtype=np.float64), np.asarray(scores, dtype=np.float64), by)[0]
        parts = []
        for r, i, j in pair_idx:
            dg = rows_g[r][i] - rows_g[r][j]
            dm = rows_m[r][i] - rows_m[r][j]
            tie = np.abs(dm) <= eps
            parts.append(((dg == 0) & tie) | ((dg != 0) & ~tie & (np.sign(dg) == np.sign(dm))))
        out.correct[name] = np.concatenate(parts) if parts else np.zeros(0, bool)
    return out


def pairs_permutation_test(outcomes: PairOutcomes, name_a: str, name_b: str,
                           params: PermutationParams = PermutationParams()) -> PermutationResult:
    """p-value that metric A's acc_eq beats metric B's, swapping pairwise outcomes (each keeps its threshold)."""
    ca = outcomes.correct[name_a].astype(np.float64)
    cb = outcomes.correct[name_b].astype(np.float64)
    weight = 1.0 / outcomes.sizes[outcomes.group] / len(outcomes.sizes)
    delta = float(ca @ weight - cb @ weight)

    def block(rng: np.random.Generator, n: int) -> np.ndarray:
        w = rng.integers(0, 2, size=(n, len(ca))).astype(bool)
        return np.where(w, cb, ca) @ weight - np.where(w, ca, cb) @ weight

    return _run(delta, block, params, check_only_on_hit=True)


def assign_ranks(sig_matrix: np.ndarray, pval: float = 0.05) -> list[int]:
    """Cluster ranks from ``sig[i, j]`` (i < j, metrics sorted by decreasing statistic): the p-value that i beats j."""
    sig = np.asarray(sig_matrix, dtype=np.float64)
    ranks, rank, start = [], 1, 0
    for i in range(sig.shape[0]):
        if np.any(sig[start:i, i] <= pval):
            rank += 1
            start = i
        ranks.append(rank)
    return ranks


@dataclass(frozen=True)
class Clusters:
    order: list[str]                  # metrics by decreasing statistic (name breaks ties)
    values: dict[str, float]
    ranks: dict[str, int]
    sig_matrix: list[list[float | None]]


def metric_clusters(values: Mapping[str, float], test: Callable[[str, str], PermutationResult],
                    pval: float = 0.05) -> Clusters:
    """Rank metrics into significance clusters; ``test(a, b)`` gives the p-value that a beats b."""
    order = sorted((m for m in values if values[m] == values[m]), key=lambda m: (-values[m], m))
    n = len(order)
    sig = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            sig[i, j] = test(order[i], order[j]).p_value
    ranks = assign_ranks(sig, pval) if n else []
    matrix = [[float(sig[i, j]) if j > i else None for j in range(n)] for i in range(n)]
    return Clusters(order, {m: float(values[m]) for m in order}, dict(zip(order, ranks, strict=True)), matrix)


def rows_stat(stat: Callable[[np.ndarray, np.ndarray], np.ndarray], gold: Sequence[float]) -> BatchStat:
    """A batch statistic from a row-wise one (``stat(G_rows, M_rows)``) against a fixed gold vector."""
    g = np.asarray(gold, dtype=np.float64)
    return lambda M: stat(np.broadcast_to(g, M.shape), M)
