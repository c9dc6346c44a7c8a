"""The statistics every level shares: orientation, correlations, pairwise accuracy, the bootstrap.

Scores are *oriented* before anything is computed: a lower-is-better score (TER,
google-mqm, MetricX) is negated, so that on both sides higher means better and a
positive correlation always means "the metric agrees with the humans".
Correlations are scipy's (imported inside the functions: scipy is slow to import
and the command line's --help should not wait for it).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from itertools import combinations

import numpy as np

DEFAULT_BOOT = 1000
DEFAULT_SEED = 12345
DEFAULT_CONFIDENCE = 0.95
KENDALL_VARIANTS = ("b", "c")

Stat = Callable[[np.ndarray, np.ndarray], float]


def orient(values: Sequence[float], higher_is_better: bool) -> np.ndarray:
    """Scores with higher = better (lower-is-better scores are negated)."""
    arr = np.asarray(values, dtype=np.float64)
    return arr if higher_is_better else -arr


def _constant(h: np.ndarray, m: np.ndarray) -> bool:
    return len(h) < 2 or np.ptp(h) == 0 or np.ptp(m) == 0


def pearson(h: np.ndarray, m: np.ndarray) -> float:
    from scipy.stats import pearsonr

    return math.nan if _constant(h, m) else float(pearsonr(h, m).statistic)


def spearman(h: np.ndarray, m: np.ndarray) -> float:
    from scipy.stats import spearmanr

    return math.nan if _constant(h, m) else float(spearmanr(h, m).statistic)


def kendall(variant: str = "b") -> Stat:
    """Kendall's tau of the given scipy variant ("b": adjusted for ties on either side; "c": Stuart's)."""
    if variant not in KENDALL_VARIANTS:
        raise ValueError(f"kendall_variant must be one of {KENDALL_VARIANTS}, not {variant!r}")

    def tau(h: np.ndarray, m: np.ndarray) -> float:
        from scipy.stats import kendalltau

        return math.nan if _constant(h, m) else float(kendalltau(h, m, variant=variant).statistic)

    tau.rows = lambda H, M: kendall_rows(variant, H, M)    # type: ignore[attr-defined]
    tau.pairs = True                                       # type: ignore[attr-defined]
    return tau


def p_value(name: str, h: np.ndarray, m: np.ndarray, variant: str = "b") -> float | None:
    """scipy's two-sided p-value of pearson, spearman or kendall (None when undefined)."""
    from scipy.stats import kendalltau, pearsonr, spearmanr

    if _constant(h, m) or len(h) < 3:
        return None
    if name == "pearson":
        p = pearsonr(h, m).pvalue
    elif name == "spearman":
        p = spearmanr(h, m).pvalue
    else:
        p = kendalltau(h, m, variant=variant).pvalue
    return float(p) if math.isfinite(p) else None


def pairwise_accuracy_untied(human: Sequence[float], metric: Sequence[float]) -> tuple[float, int]:
    """(accuracy, pairs counted) on oriented scores. Human ties are left out; metric ties count as wrong.

    Enface's first definition, kept under its own name; ``pairwise_accuracy`` is the toolkit's
    (:func:`~scoring.meta.toolkit.pairwise_accuracy`: every pair counts, a tie agrees only with a tie).
    """
    h = np.asarray(human, dtype=np.float64)
    m = np.asarray(metric, dtype=np.float64)
    agree = counted = 0
    for i, j in combinations(range(len(h)), 2):
        dh = np.sign(h[i] - h[j])
        if dh == 0:
            continue
        counted += 1
        agree += int(np.sign(m[i] - m[j]) == dh)
    return (agree / counted if counted else math.nan), counted


def accuracy_untied_stat(h: np.ndarray, m: np.ndarray) -> float:
    return pairwise_accuracy_untied(h, m)[0]


def accuracy_stat(h: np.ndarray, m: np.ndarray) -> float:
    """The toolkit's pairwise accuracy: every pair counts; a pair agrees when both differences have the same sign."""
    i, j = np.triu_indices(len(h), 1)
    return float(np.mean(np.sign(h[i] - h[j]) == np.sign(m[i] - m[j]))) if len(i) else math.nan


def bootstrap_ci(stat: Stat, h: np.ndarray, m: np.ndarray, *, n_boot: int = DEFAULT_BOOT,
                 seed: int | None = DEFAULT_SEED,
                 confidence: float = DEFAULT_CONFIDENCE) -> tuple[float | None, float | None, int]:
    """Percentile bootstrap interval of ``stat`` over the paired units: (low, high, resamples where defined).

    ``n_boot`` resamples of the units with replacement from ``numpy.random.default_rng(seed)``;
    a resample where the statistic is undefined (every drawn unit has the same score) is skipped.
    A statistic with a row-wise twin (``stat.rows``) is computed on every resample at once where
    the resamples fit in memory; the values are the same as one call per resample.
    """
    rng = np.random.default_rng(seed)
    n = len(h)
    idx = rng.integers(0, n, size=(n_boot, n))
    rows = getattr(stat, "rows", None)
    if rows is not None and n_boot * max(n, n * (n - 1) // 2 if getattr(stat, "pairs", False) else n) <= ROWS_MAX:
        computed = rows(np.asarray(h, dtype=np.float64)[idx], np.asarray(m, dtype=np.float64)[idx])
        values = computed[~np.isnan(computed)].tolist()
    else:
        values = [v for v in (stat(h[row], m[row]) for row in idx) if not math.isnan(v)]
    if not values:
        return None, None, 0
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return float(low), float(high), len(values)


# ---------------------------------------------------------------------------
# The same statistics on every row of (resamples x units) arrays at once (NaN where undefined)

#: the most array elements a row-wise computation may use (else one call per resample)
ROWS_MAX = 20_000_000


def _undefined(H: np.ndarray, M: np.ndarray) -> np.ndarray:
    return (np.ptp(H, axis=1) == 0) | (np.ptp(M, axis=1) == 0)


def pearson_rows(H: np.ndarray, M: np.ndarray) -> np.ndarray:
    hc = H - H.mean(axis=1, keepdims=True)
    mc = M - M.mean(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (hc * mc).sum(axis=1) / np.sqrt((hc * hc).sum(axis=1) * (mc * mc).sum(axis=1))
    r = np.clip(r, -1.0, 1.0)
    r[_undefined(H, M)] = np.nan
    return r


def spearman_rows(H: np.ndarray, M: np.ndarray) -> np.ndarray:
    from scipy.stats import rankdata

    r = pearson_rows(rankdata(H, axis=1), rankdata(M, axis=1))
    r[_undefined(H, M)] = np.nan
    return r


def _pair_signs(H: np.ndarray, M: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    i, j = np.triu_indices(H.shape[1], 1)
    return np.sign(H[:, i] - H[:, j]), np.sign(M[:, i] - M[:, j])


def _distinct(X: np.ndarray) -> np.ndarray:
    return (np.diff(np.sort(X, axis=1), axis=1) != 0).sum(axis=1) + 1


def kendall_rows(variant: str, H: np.ndarray, M: np.ndarray) -> np.ndarray:
    """scipy's tau-b ((C - D) / sqrt(pairs untied in h x pairs untied in m)) or tau-c, row by row."""
    dh, dm = _pair_signs(H, M)
    s = (dh * dm).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        if variant == "b":
            tau = s / np.sqrt(np.count_nonzero(dh, axis=1) * np.count_nonzero(dm, axis=1).astype(np.float64))
        else:
            n = H.shape[1]
            classes = np.minimum(_distinct(H), _distinct(M)).astype(np.float64)
            tau = 2 * s / (n * n * (classes - 1) / classes)
    tau = np.clip(tau, -1.0, 1.0)
    tau[_undefined(H, M)] = np.nan
    return tau


def agreement_rows(H: np.ndarray, M: np.ndarray) -> np.ndarray:
    """The toolkit's pairwise accuracy on every row at once."""
    dh, dm = _pair_signs(H, M)
    return (dh == dm).sum(axis=1) / dh.shape[1]


def pairwise_untied_rows(H: np.ndarray, M: np.ndarray) -> np.ndarray:
    dh, dm = _pair_signs(H, M)
    counted = np.count_nonzero(dh, axis=1)
    agree = ((dm == dh) & (dh != 0)).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counted > 0, agree / np.maximum(counted, 1), np.nan)


pearson.rows = pearson_rows                    # type: ignore[attr-defined]
spearman.rows = spearman_rows                  # type: ignore[attr-defined]
accuracy_untied_stat.rows = pairwise_untied_rows    # type: ignore[attr-defined]
accuracy_untied_stat.pairs = True                    # type: ignore[attr-defined]
accuracy_stat.rows = agreement_rows                  # type: ignore[attr-defined]
accuracy_stat.pairs = True                           # type: ignore[attr-defined]


def clean(v: float | None) -> float | None:
    """JSON-safe: NaN (undefined) becomes None."""
    return None if v is None or math.isnan(v) else float(v)


def with_interval(stat: Stat, h: np.ndarray, m: np.ndarray, *, n_boot: int, seed: int | None,
                  confidence: float) -> dict:
    """``{"value", "ci": [low, high], "n_valid"}`` for one statistic."""
    low, high, valid = bootstrap_ci(stat, h, m, n_boot=n_boot, seed=seed, confidence=confidence)
    return {"value": clean(stat(h, m)), "ci": [low, high], "n_valid": valid}


def ranks(values: Sequence[float]) -> list[float]:
    """1 = best (highest oriented score); ties share the average rank."""
    from scipy.stats import rankdata

    return [float(r) for r in rankdata(-np.asarray(values, dtype=np.float64), method="average")]


def correlations(h: np.ndarray, m: np.ndarray, *, kendall_variant: str = "b", n_boot: int = DEFAULT_BOOT,
                 seed: int | None = DEFAULT_SEED, confidence: float = DEFAULT_CONFIDENCE) -> dict:
    """``pearson``, ``spearman`` (with ``variance_explained`` = rho² x 100) and ``kendall`` (with its
    ``variant``), each ``{"value", "ci", "n_valid", "p_value"}``, on oriented paired scores."""
    out = {}
    for name, fn in (("pearson", pearson), ("spearman", spearman), ("kendall", kendall(kendall_variant))):
        out[name] = with_interval(fn, h, m, n_boot=n_boot, seed=seed, confidence=confidence)
        out[name]["p_value"] = p_value(name, h, m, kendall_variant)
    rho = out["spearman"]["value"]
    out["spearman"]["variance_explained"] = None if rho is None else rho * rho * 100
    out["kendall"]["variant"] = f"tau-{kendall_variant}"
    return out
