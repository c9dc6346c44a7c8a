"""Paired significance tests between MT systems, for every metric and every pair of systems.

Two tests, both sacrebleu's (``sacrebleu --paired-bs`` / ``--paired-ar``):

* ``"bs"``: paired bootstrap resampling (Koehn 2004, as in Moses'
  ``bootstrap-hypothesis-difference-significance.pl``), 1000 resamples by default;
* ``"ar"``: paired approximate randomisation (Riezler & Maxwell 2005, as in
  multeval), 10000 trials by default.

What this module adds to sacrebleu's ``PairedTest``
---------------------------------------------------

* **All pairs**, not only baseline-vs-others, plus WMT-style rank ranges and
  clusters built from the significant pairwise wins and losses.
* **Bounded memory.** sacrebleu materialises ``n_samples x n_units x k`` floats
  (chrF on 17k segments: 1.2 GB of float32 per system, 1.4 GB peak RSS for one
  pair; see bench/significance.py). Here the resampled corpus statistics are
  built block by block: a block of ``b`` resamples is turned into a ``(b, n_units)``
  matrix of resample counts (``np.bincount``) or coin flips and multiplied with
  the ``(n_units, k * n_systems)`` statistics, so the peak is
  ``O(b * n_units + n_units * k * n_systems)``; ``b`` is chosen so that a block
  holds about one million cells (``block_size`` overrides it). The products are
  float32 when that is provably exact (integer statistics, every possible sum
  below 2**24), float64 otherwise.
* **Same random stream as sacrebleu.** For a given seed and sample count the
  resamples (and the coin flips) are exactly sacrebleu's: sacrebleu draws
  ``rng.choice(n, size=(n_samples, n))`` from ``np.random.default_rng(seed)``
  (bootstrap) or ``rng.integers(2, size=(n_samples, n), dtype=bool)``
  (randomisation), once per compared system with the same seed. Drawing the same
  array block by block yields the same numbers (for the bool draws the blocks
  must hold a multiple of 32 rows, which the block size is rounded to), and every
  pair uses the same draws. Hence with ``pairs="baseline"`` the p-values equal
  sacrebleu's, and in the all-pairs mode every pair (a, b) has the p-value that
  ``sacrebleu -i a b --paired-..`` would give.
* Every arithmetic detail that can move a p-value is sacrebleu's: bootstrap
  statistics are cast to float32 before summing (``MetricStats.resample_dtype``),
  the randomisation test sums the native (int64 / float64) statistics, scores come
  from the metric's own ``_compute_score_from_stats`` (or a vectorised copy that
  is bit-identical to it, see ``_bleu_batch`` etc.), the bootstrap statistic is
  ``|d*| - mean(|d*|)``, and ``p = (#{stat > |d|} + 1) / (n + 1)``.
  Our sums are exact for integer statistics (BLEU, chrF) and for TER with one,
  two or four references (multiples of 1/2, 1/4), so the p-values are equal to
  the last bit. Caveats: for statistics that are not such dyadic numbers (TER
  averaged over three references) sums can differ from sacrebleu's in the last
  unit of precision, which moves a p-value only if a resample ties the observed
  difference to within rounding (not seen in testing); sacrebleu's float32
  running sums stop being exact beyond 2**24 (a chrF count above 16.7M
  characters), where ours stay exact; and sacrebleu treats ``SACREBLEU_SEED=0``
  as "no seed", where ``seed=0`` here is the seed 0.

Deliberate difference
---------------------
Two systems with identical per-unit statistics get ``p = 1.0``. sacrebleu
reports ``1 / (n + 1)`` for them (every resample reproduces the zero difference
exactly and its strict ``>`` does not count ties), i.e. "significant". And a pair
whose observed scores are exactly equal is never a significant win for either side.

Known limitation kept from sacrebleu: ties with the observed difference are not
counted (strict ``>``), so two systems that differ in only a handful of segments
can get small p-values from either test (e.g. 3 of 300 segments, all better:
p ~ 0.03 from both, where an exact randomisation test gives 0.25). Such
near-identical pairs should be read with care.

Clusters
--------
Systems are ordered by score (best first; equal scores keep the input order).
``wins``/``losses`` count significant pairwise wins and losses at ``alpha``
(p < alpha and the score favours the winner). The rank range of a system is
``losses + 1 .. N - wins``. Ranges and clusters come from :mod:`scoring.ranking`
(shared with ``mqm.significance``); each ranking row also carries
``cluster_rank_range``, the positions its cluster spans. Clusters (``cluster_method``):

* ``"wmt"`` (default), the WMT findings convention since WMT20: "clusters are
  identified by grouping systems together according to which systems
  significantly outperform all others in lower ranking clusters". A cluster
  boundary falls between score positions k and k+1 exactly when every one of the
  top k systems is significantly better than every one of the remaining N-k.
* ``"rank_range"``: a boundary falls between k and k+1 when the rank ranges of
  the top k do not overlap those of the rest (max rank_high above < min rank_low
  below), the older (WMT13-16) convention. Every "wmt" boundary is also a
  "rank_range" boundary, so these clusters are the same or finer.

With ``pairs="baseline"`` only pairs with the baseline are tested; untested
pairs count as not significant in wins, losses, ranges and clusters.

This module is pure: numpy only (sacrebleu for ``sacrebleu_stats``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from .metrics.batch_scores import BatchScoreFn, batch_score_fn_for  # noqa: F401  (re-exported: the paired tests' fast path)
from .ranking import CLUSTER_METHODS, rank_and_cluster

DEFAULT_SAMPLES = {"bs": 1000, "ar": 10000}
#: sacrebleu's default seed (``SACREBLEU_SEED`` unset)
DEFAULT_SEED = 12345
DEFAULT_ALPHA = 0.05
#: cells (resamples x units) per block; about 8 MB per float64 matrix
BLOCK_CELLS = 1 << 20
#: the bool coin flips are drawn from 32-bit words: blocks of whole words keep the stream
_AR_ROW_MULTIPLE = 32

TESTS = ("bs", "ar")


def sacrebleu_seed(env: Mapping[str, str] | None = None) -> int | None:
    """The seed sacrebleu's paired tests use: ``SACREBLEU_SEED`` (default 12345), ``none`` = OS entropy.

    (sacrebleu also treats a seed of 0 as "no seed" in its paired tests; here 0 is the seed 0.)
    """
    value = (os.environ if env is None else env).get("SACREBLEU_SEED", str(DEFAULT_SEED))
    return None if value.lower() == "none" else int(value)


# ---------------------------------------------------------------------------
# Inputs


ScoreFn = Callable[[np.ndarray], float]


@dataclass
class MetricStats:
    """Per-unit sufficient statistics of one metric for several systems.

    ``stats[system]`` is an ``(n_units, k)`` array, the same ``n_units`` (segments,
    or documents for d-BLEU) and ``k`` for every system. ``score_fn`` turns summed
    statistics ``(k,)`` into the corpus score. ``batch_score_fn``, if given, scores
    many summed rows ``(m, k) -> (m,)`` at once and must agree with ``score_fn``
    bit for bit; it may return None for inputs it cannot do exactly (the engine
    then falls back to ``score_fn`` row by row).

    ``resample_dtype``: the bootstrap casts per-unit statistics to this dtype and
    hands the resampled sums to the score function in it (``"float32"`` is what
    sacrebleu does). ``None`` keeps the native dtype. The randomisation test
    always uses the native dtype, as sacrebleu does.

    ``scores``: the observed corpus scores, if they are computed some other way
    than ``score_fn(stats.sum(0))`` (sacrebleu sums Python lists).
    """

    metric: str
    stats: dict[str, np.ndarray]
    score_fn: ScoreFn
    higher_is_better: bool = True
    batch_score_fn: BatchScoreFn | None = None
    resample_dtype: str | None = None
    scores: dict[str, float] | None = None

    def __post_init__(self) -> None:
        if not self.stats:
            raise ValueError(f"{self.metric}: no systems")
        arrays = {}
        shape = None
        for name, value in self.stats.items():
            arr = np.asarray(value)
            if arr.ndim == 1:
                arr = arr[:, None]
            if arr.ndim != 2:
                raise ValueError(f"{self.metric}: statistics of {name!r} must be 2-D (n_units, k), got {arr.shape}")
            if shape is None:
                shape = arr.shape
            elif arr.shape != shape:
                raise ValueError(f"{self.metric}: statistics of {name!r} have shape {arr.shape}, "
                                 f"expected {shape} like the other systems")
            arrays[name] = arr
        if shape[0] == 0:
            raise ValueError(f"{self.metric}: no units to resample")
        self.stats = arrays

    @property
    def systems(self) -> list[str]:
        return list(self.stats)

    @property
    def n_units(self) -> int:
        return next(iter(self.stats.values())).shape[0]

    @property
    def k(self) -> int:
        return next(iter(self.stats.values())).shape[1]

    def observed(self) -> dict[str, float]:
        if self.scores is not None:
            missing = set(self.stats) - set(self.scores)
            if missing:
                raise ValueError(f"{self.metric}: no observed score for {sorted(missing)}")
            return {s: self.scores[s] for s in self.stats}
        return {s: self.score_fn(a.sum(axis=0)) for s, a in self.stats.items()}


def sacrebleu_stats(key: str, tgt_lang: str, stats_by_system: Mapping[str, Sequence]) -> MetricStats:
    """Wrap per-segment statistics from sacrebleu (``metric._compute_segment_statistics``).

    ``key`` is one of our sacrebleu metric keys (bleu, chrf, ter, dbleu); the
    metric is configured by ``make_metric(key, tgt_lang)``. The observed scores
    are sacrebleu's ``_aggregate_and_compute`` over the lists, i.e. the CLI's.
    """
    from .metrics.sacrebleu_metrics import SACREBLEU_METRICS, make_metric

    metric = make_metric(key, tgt_lang)
    spec = SACREBLEU_METRICS[key]
    lists = {s: (v.tolist() if isinstance(v, np.ndarray) else [list(r) for r in v])
             for s, v in stats_by_system.items()}
    stats = {s: np.asarray(v) for s, v in lists.items()}
    scores = {s: metric._aggregate_and_compute([list(r) for r in v]).score for s, v in lists.items()}

    def score_fn(summed: np.ndarray) -> float:
        return metric._compute_score_from_stats(summed).score

    return MetricStats(metric=key, stats=stats, score_fn=score_fn, higher_is_better=spec.higher_is_better,
                       batch_score_fn=batch_score_fn_for(metric), resample_dtype="float32", scores=scores)


def metric_stats(key: str, tgt_lang: str, stats_by_system: Mapping[str, Sequence]) -> MetricStats:
    """A registered metric's statistics for the paired tests: sacrebleu's sufficient statistics, or, for a
    model metric, its segment scores (already on the corpus score's scale, e.g. COMET x100), averaged."""
    from .metrics.registry import spec

    metric = spec(key)
    if metric.engine == "sacrebleu":
        return sacrebleu_stats(key, tgt_lang, stats_by_system)
    return mean_stats(key, stats_by_system, higher_is_better=metric.higher_is_better)


def mean_stats(metric: str, segment_scores_by_system: Mapping[str, Sequence[float]], scale: float = 1.0,
               higher_is_better: bool = True) -> MetricStats:
    """Statistics of a metric whose corpus score is the mean of segment scores times ``scale`` (COMET x100)."""
    stats = {s: np.asarray(v, dtype=np.float64).reshape(-1, 1) for s, v in segment_scores_by_system.items()}
    n = len(next(iter(stats.values()))) if stats else 0

    def score_fn(summed: np.ndarray) -> float:
        return float(summed[0]) / n * scale

    def batch(summed: np.ndarray) -> np.ndarray:
        return np.asarray(summed[:, 0], dtype=np.float64) / n * scale

    return MetricStats(metric=metric, stats=stats, score_fn=score_fn, higher_is_better=higher_is_better,
                       batch_score_fn=batch)


# ---------------------------------------------------------------------------
# Results


@dataclass
class PairResult:
    system_a: str
    system_b: str
    metric: str
    score_a: float
    score_b: float
    delta: float                 # score_a - score_b
    p_value: float
    significant: bool            # p < alpha and the scores differ
    winner: str | None = None    # the significantly better system, if any


@dataclass
class SignificanceResult:
    metric: str
    test: str
    n_samples: int
    seed: int | None
    alpha: float
    pairs: list[PairResult]
    ranking: list[dict]
    higher_is_better: bool = True
    pairs_mode: str = "all"
    baseline: str | None = None
    cluster_method: str = "wmt"
    n_units: int = 0

    def pair(self, a: str, b: str) -> PairResult:
        for p in self.pairs:
            if (p.system_a, p.system_b) in ((a, b), (b, a)):
                return p
        raise KeyError(f"{a!r} and {b!r} were not compared")

    def p_value(self, a: str, b: str) -> float:
        return self.pair(a, b).p_value

    def clusters(self) -> list[list[str]]:
        out: list[list[str]] = []
        for row in self.ranking:
            if len(out) < row["cluster"]:
                out.append([])
            out[row["cluster"] - 1].append(row["system"])
        return out

    def to_dict(self) -> dict:
        return _jsonable({
            "metric": self.metric, "test": self.test, "n_samples": self.n_samples, "seed": self.seed,
            "alpha": self.alpha, "higher_is_better": self.higher_is_better, "pairs_mode": self.pairs_mode,
            "baseline": self.baseline, "cluster_method": self.cluster_method, "n_units": self.n_units,
            "pairs": [asdict(p) for p in self.pairs],
            "ranking": [dict(r) for r in self.ranking],
        })

    def format_text(self, width: int = 2) -> str:
        test = {"bs": "paired bootstrap resampling", "ar": "paired approximate randomisation"}[self.test]
        direction = "higher is better" if self.higher_is_better else "lower is better"
        lines = [f"{self.metric} ({direction}): {test}, {self.n_samples} samples, seed {self.seed}, "
                 f"alpha {self.alpha}, {self.n_units} units, clusters: {self.cluster_method}"]
        name_w = max([len("system")] + [len(r["system"]) for r in self.ranking])
        has_ci = any(r.get("bs_mean") is not None for r in self.ranking)
        header = f"{'cl':>3} {'rank':>7}  {'system':<{name_w}}  {'score':>{width + 5}}"
        if has_ci:
            header += f"  {'mean ± 95% CI':>{2 * width + 12}}"
        header += "  wins losses"
        lines += [header, "-" * len(header)]
        prev = None
        for r in self.ranking:
            if prev is not None and r["cluster"] != prev:
                lines.append(" " * 3 + " " + "·" * (len(header) - 4))
            prev = r["cluster"]
            rank = f"{r['rank_low']}" if r["rank_low"] == r["rank_high"] else f"{r['rank_low']}-{r['rank_high']}"
            line = f"{r['cluster']:>3} {rank:>7}  {r['system']:<{name_w}}  {r['score']:>{width + 5}.{width}f}"
            if has_ci:
                ci = (f"{r['bs_mean']:.{width}f} ± {r['bs_ci']:.{width}f}" if r.get("bs_mean") is not None else "")
                line += f"  {ci:>{2 * width + 12}}"
            line += f"  {r['wins']:>4} {r['losses']:>6}"
            lines.append(line)
        if self.pairs:
            lines += ["", "pairs (p-value; * = significant):"]
            a_w = max(len(p.system_a) for p in self.pairs)
            b_w = max(len(p.system_b) for p in self.pairs)
            for p in self.pairs:
                mark = "*" if p.significant else " "
                lines.append(f"  {p.system_a:<{a_w}} vs {p.system_b:<{b_w}}  "
                             f"delta {p.delta:+.{width}f}  p = {p.p_value:.4f}{mark}")
        return "\n".join(lines)


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


# ---------------------------------------------------------------------------
# The engine


def _score_rows(ms: MetricStats, sums: np.ndarray) -> np.ndarray:
    """Scores of summed statistics rows, as sacrebleu builds them: ``np.array([score(row) ...])``."""
    if ms.batch_score_fn is not None:
        out = ms.batch_score_fn(sums)
        if out is not None:
            return np.asarray(out, dtype=np.float64)
    score_fn = ms.score_fn
    return np.array([score_fn(row) for row in sums], dtype=np.float64)


def _to_dtype(sums: np.ndarray, dtype: np.dtype) -> np.ndarray:
    if dtype.kind in "iu":
        return np.rint(sums).astype(dtype)
    return sums.astype(dtype, copy=False)


def _block_rows(n_units: int, n_samples: int, block_size: int | None, multiple: int = 1) -> int:
    rows = block_size if block_size else max(1, BLOCK_CELLS // max(1, n_units))
    rows = max(multiple, -(-rows // multiple) * multiple)
    return max(1, min(rows, -(-n_samples // multiple) * multiple))


class _Stacked:
    """The systems' statistics side by side, ``(n_units, n_systems * k)``, ready for block products.

    ``sum_dtype``: the dtype the summed rows are handed to the score function in.
    ``gemm``: the dtype of the matrix products. Products of 0/1 or count matrices
    with integer statistics are exact in float32 as long as no sum can reach 2**24
    (checked as ``n_units * max|x| <= 2**24``: the largest count-weighted sum), in
    float64 below 2**53; anything else is float64 (and is only as exact as float64).
    """

    def __init__(self, ms: MetricStats, systems: Sequence[str], dtype):
        arrays = [ms.stats[s] if dtype is None else ms.stats[s].astype(dtype) for s in systems]
        sum_dtype = arrays[0].dtype
        self.sum_dtype = np.dtype(np.int64) if sum_dtype.kind == "b" else sum_dtype
        x = np.concatenate([a.astype(np.float64) for a in arrays], axis=1)
        n = x.shape[0]
        bound = n * float(np.abs(x).max()) if x.size else 0.0
        self.integral = bool(np.all(x == np.rint(x))) and bound <= 2.0 ** 53
        self.gemm = np.dtype(np.float32 if self.integral and bound <= 2.0 ** 24 else np.float64)
        self.x = x.astype(self.gemm, copy=False)
        self.colsum = x.sum(axis=0)           # exact when integral
        self.k = ms.k
        self.n_systems = len(arrays)

    def product(self, weights: np.ndarray) -> np.ndarray:
        """``weights @ x`` in float64 (weights: counts or 0/1 flags, (b, n_units))."""
        return (weights.astype(self.gemm, copy=False) @ self.x).astype(np.float64, copy=False)


def bootstrap_sample_scores(ms: MetricStats, systems: Sequence[str], n_samples: int,
                            rng: np.random.Generator, block_size: int | None = None) -> np.ndarray:
    """Scores of every system on the same ``n_samples`` bootstrap resamples: ``(n_systems, n_samples)``.

    The resamples are sacrebleu's ``rng.choice(n, size=(n_samples, n))``, drawn in
    blocks; each block becomes a matrix of per-unit resample counts.
    """
    n, k = ms.n_units, ms.k
    st = _Stacked(ms, systems, ms.resample_dtype)
    rows = _block_rows(n, n_samples, block_size)
    out = np.empty((len(systems), n_samples), dtype=np.float64)
    for start in range(0, n_samples, rows):
        b = min(rows, n_samples - start)
        idx = rng.choice(n, size=(b, n), replace=True)
        idx += (np.arange(b, dtype=idx.dtype) * n)[:, None]
        counts = np.bincount(idx.ravel(), minlength=b * n).reshape(b, n)
        del idx
        sums = st.product(counts)             # (b, n_systems * k)
        del counts
        scores = _score_rows(ms, _to_dtype(sums.reshape(b * st.n_systems, k), st.sum_dtype))
        out[:, start:start + b] = scores.reshape(b, st.n_systems).T
    return out


def _estimate_ci(scores: np.ndarray) -> tuple[float, float]:
    """sacrebleu's ``estimate_ci``: mean and half the central 95% interval."""
    scores = np.sort(scores)
    n = len(scores)
    lower_idx = n // 40
    upper_idx = n - lower_idx - 1
    return float(scores.mean()), float(0.5 * (scores[upper_idx] - scores[lower_idx]))


def _p_value(stats: np.ndarray, real_difference: float) -> float:
    c = np.sum(stats > real_difference).item()
    return (c + 1) / (len(stats) + 1)


def _pair_list(systems: list[str], pairs: str, baseline: str | None) -> tuple[list[tuple[int, int]], str | None]:
    if pairs == "all":
        if baseline is not None and baseline not in systems:
            raise ValueError(f"baseline {baseline!r} is not one of the systems")
        first = systems.index(baseline) if baseline is not None else 0
        out = []
        # pairs with the baseline put the baseline first, as sacrebleu does
        for j in range(len(systems)):
            if j != first:
                out.append((first, j))
        for i in range(len(systems)):
            for j in range(i + 1, len(systems)):
                if first not in (i, j):
                    out.append((i, j))
        return out, systems[first] if baseline is not None else None
    if pairs == "baseline":
        baseline = systems[0] if baseline is None else baseline
        if baseline not in systems:
            raise ValueError(f"baseline {baseline!r} is not one of the systems")
        b = systems.index(baseline)
        return [(b, j) for j in range(len(systems)) if j != b], baseline
    raise ValueError(f"pairs must be 'all' or 'baseline', not {pairs!r}")


def paired_test(ms: MetricStats, *, test: str = "bs", n_samples: int | None = None,
                seed: int | None = DEFAULT_SEED, pairs: str = "all", baseline: str | None = None,
                alpha: float = DEFAULT_ALPHA, block_size: int | None = None,
                cluster_method: str = "wmt") -> SignificanceResult:
    """Paired significance test between systems on one metric.

    ``test``: "bs" (bootstrap, 1000 resamples by default) or "ar" (approximate
    randomisation, 10000 trials). ``seed``: for ``np.random.default_rng`` (None
    draws from the OS); 12345 is sacrebleu's default (see ``sacrebleu_seed``).
    ``pairs``: "all" pairs of systems, or "baseline" vs each other system
    (``baseline`` defaults to the first system, as in sacrebleu). ``block_size``:
    resamples per block (default: about 1M cells per block); for "ar" it is
    rounded up to a multiple of 32 so the random stream stays sacrebleu's.
    """
    if test not in TESTS:
        raise ValueError(f"unknown test {test!r}; use 'bs' or 'ar'")
    if cluster_method not in CLUSTER_METHODS:
        raise ValueError(f"unknown cluster method {cluster_method!r}; use one of {CLUSTER_METHODS}")
    if n_samples is None or n_samples <= 0:
        n_samples = DEFAULT_SAMPLES[test]
    if not 0 < alpha < 1:
        raise ValueError("alpha must be between 0 and 1")

    systems = ms.systems
    observed = ms.observed()
    pair_idx, baseline_name = _pair_list(systems, pairs, baseline)
    p_values: dict[tuple[int, int], float] = {}

    identical = {(i, j): np.array_equal(ms.stats[systems[i]], ms.stats[systems[j]]) for i, j in pair_idx}
    todo = [(i, j) for i, j in pair_idx if not identical[(i, j)]]
    diffs = {(i, j): abs(observed[systems[i]] - observed[systems[j]]) for i, j in pair_idx}

    ci: dict[str, tuple[float, float]] = {}
    if test == "bs":
        rng = np.random.default_rng(seed)
        sample_scores = bootstrap_sample_scores(ms, systems, n_samples, rng, block_size)
        for i, s in enumerate(systems):
            ci[s] = _estimate_ci(sample_scores[i])
        for i, j in todo:
            sample_diffs = np.abs(sample_scores[j] - sample_scores[i])
            stats = sample_diffs - sample_diffs.mean()
            p_values[(i, j)] = _p_value(stats, diffs[(i, j)])
    elif todo:
        p_values.update(_approximate_randomisation(ms, systems, todo, diffs, n_samples, seed, block_size))

    results, better = [], []
    for i, j in pair_idx:
        a, b = systems[i], systems[j]
        p = 1.0 if identical[(i, j)] else p_values[(i, j)]
        delta = observed[a] - observed[b]
        significant = bool(p < alpha and delta != 0)
        winner = None
        if significant:
            winner = a if (delta > 0) == ms.higher_is_better else b
            better.append((winner, b if winner == a else a))
        results.append(PairResult(system_a=a, system_b=b, metric=ms.metric, score_a=float(observed[a]),
                                  score_b=float(observed[b]), delta=float(delta), p_value=float(p),
                                  significant=significant, winner=winner))

    ranking = rank_and_cluster({s: float(observed[s]) for s in systems}, better,
                               higher_is_better=ms.higher_is_better, method=cluster_method)
    for row in ranking:
        mean_ci = ci.get(row["system"])
        row["bs_mean"], row["bs_ci"] = mean_ci if mean_ci else (None, None)

    return SignificanceResult(metric=ms.metric, test=test, n_samples=n_samples, seed=seed, alpha=alpha,
                              pairs=results, ranking=ranking, higher_is_better=ms.higher_is_better,
                              pairs_mode=pairs, baseline=baseline_name, cluster_method=cluster_method,
                              n_units=ms.n_units)


def _approximate_randomisation(ms: MetricStats, systems: list[str], pairs: list[tuple[int, int]],
                               diffs: dict[tuple[int, int], float], n_samples: int, seed: int | None,
                               block_size: int | None) -> dict[tuple[int, int], float]:
    """sacrebleu's ``_paired_ar_test`` for many pairs on one stream of coin flips.

    sacrebleu: ``shuf_a = pos @ A + neg @ B``, ``shuf_b = neg @ A + pos @ B`` with
    ``pos = rng.integers(2, size=(n_samples, n), dtype=bool)``; A is the baseline.
    """
    n, k = ms.n_units, ms.k
    used = sorted({i for p in pairs for i in p})
    col = {s: c for c, s in enumerate(used)}
    st = _Stacked(ms, [systems[i] for i in used], None)
    rows = _block_rows(n, n_samples, block_size, multiple=_AR_ROW_MULTIPLE)
    # score the pairs in groups of at most ~64k rows per call
    group = max(1, (1 << 16) // rows)
    groups = [pairs[g:g + group] for g in range(0, len(pairs), group)]
    rng = np.random.default_rng(seed)
    counts = np.zeros(len(pairs), dtype=np.int64)
    for start in range(0, n_samples, rows):
        b = min(rows, n_samples - start)
        pos = rng.integers(2, size=(b, n), dtype=bool)
        pos_x = st.product(pos)
        if st.integral:                       # exact: neg @ x = column sums - pos @ x
            neg_x = st.colsum - pos_x
        else:
            np.logical_not(pos, out=pos)
            neg_x = st.product(pos)
        del pos
        pos_x = pos_x.reshape(b, st.n_systems, k)
        neg_x = neg_x.reshape(b, st.n_systems, k)
        offset = 0
        for chunk in groups:
            ia = [col[i] for i, _ in chunk]
            jb = [col[j] for _, j in chunk]
            shuf_a = (pos_x[:, ia] + neg_x[:, jb]).reshape(-1, k)
            shuf_b = (neg_x[:, ia] + pos_x[:, jb]).reshape(-1, k)
            scores_a = _score_rows(ms, _to_dtype(shuf_a, st.sum_dtype)).reshape(b, len(chunk))
            scores_b = _score_rows(ms, _to_dtype(shuf_b, st.sum_dtype)).reshape(b, len(chunk))
            diff = np.array([diffs[p] for p in chunk])
            counts[offset:offset + len(chunk)] += np.sum(np.abs(scores_a - scores_b) > diff, axis=0)
            offset += len(chunk)
    return {p: (int(c) + 1) / (n_samples + 1) for p, c in zip(pairs, counts, strict=True)}
