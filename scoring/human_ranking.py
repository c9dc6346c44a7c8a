"""The official ranking from human scores (MQM, rubric, reader study), the WMT way.

Input: per system, its score on each unit (a segment, a document, an item) of the
human evaluation, ``{system: {unit: score}}``; optionally the system-level scores
that order the ranking (MQM's are error points per words, not a mean of units),
else the mean of each system's units. Every pair of systems is compared by a
selectable two-sided test. The paired ones compare the units both were scored on:

* ``"wilcoxon"``: the Wilcoxon signed-rank test (``scipy.stats.wilcoxon``), what
  WMT uses for its human rankings (the default);
* ``"ar"``: paired approximate randomisation: the signs of the per-unit
  differences are flipped at random ``n_samples`` times, and
  ``p = (#{|mean d*| >= |mean d|} + 1) / (n_samples + 1)``.

The unpaired one compares all units of one system with all units of the other
(they need not share a unit: ESA campaigns give each annotator different documents):

* ``"mannwhitney"``: the Wilcoxon rank-sum / Mann-Whitney U test
  (``scipy.stats.mannwhitneyu``, two-sided), the test of the ESA analyses
  (Kocmi et al. 2024) and of Appraise's WMT results. They state it one-sided
  (``alternative="greater"`` for the better-scoring system) at 0.05; where the
  better mean also has the higher ranks that p is half the two-sided one, so their
  clusters are this module's at ``alpha=0.10``.

A pair is a significant win for the better-scoring side when ``p < alpha``. Rank
ranges (``losses + 1 .. N - wins``) and clusters come from :mod:`scoring.ranking`,
the same rules as the automatic metrics'. All systems are ranked together
(primary systems, baselines, human references): ``kinds`` only labels them.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from statistics import fmean
from typing import Any

from .ranking import CLUSTER_METHODS, order_by_score, ranking_rows

PAIRED_TESTS = {"wilcoxon": "paired Wilcoxon signed-rank test", "ar": "paired approximate randomisation"}
UNPAIRED_TESTS = {"mannwhitney": "unpaired Wilcoxon rank-sum (Mann–Whitney U) test"}
#: the paired tests, what the MQM and rubric campaign settings offer (their units are shared by all systems)
TESTS = PAIRED_TESTS
#: every test :func:`rank_systems` takes
ALL_TESTS = {**PAIRED_TESTS, **UNPAIRED_TESTS}
DEFAULT_TEST = "wilcoxon"
DEFAULT_ALPHA = 0.05
DEFAULT_AR_SAMPLES = 10000
DEFAULT_SEED = 12345

UnitScores = Mapping[str, Mapping[Hashable, float]]


def paired_p_value(xs: list[float], ys: list[float], *, test: str = DEFAULT_TEST,
                   n_samples: int = DEFAULT_AR_SAMPLES, seed: int | None = DEFAULT_SEED) -> float | None:
    """Two-sided p-value of a paired test on ``xs`` vs ``ys``; 1.0 when they are equal on every unit,
    None with fewer than two units."""
    if test not in PAIRED_TESTS:
        raise ValueError(f"unknown paired test {test!r}; use one of {', '.join(PAIRED_TESTS)}")
    if len(xs) != len(ys):
        raise ValueError(f"paired test: {len(xs)} scores against {len(ys)}")
    if len(xs) < 2:
        return None
    if all(x == y for x, y in zip(xs, ys)):
        return 1.0
    if test == "wilcoxon":
        from scipy.stats import wilcoxon  # lazy: scipy takes ~0.3 s to import

        return float(wilcoxon(xs, ys).pvalue)
    return _approximate_randomisation(xs, ys, n_samples, seed)


def unpaired_p_value(xs: list[float], ys: list[float], *, test: str = "mannwhitney") -> float | None:
    """Two-sided p-value of the Wilcoxon rank-sum / Mann-Whitney U test of ``xs`` against ``ys``
    (``scipy.stats.mannwhitneyu``: exact for small samples without ties, else the normal approximation
    with tie and continuity corrections); 1.0 when every value is one and the same, None when either
    side is empty."""
    if test not in UNPAIRED_TESTS:
        raise ValueError(f"unknown unpaired test {test!r}; use one of {', '.join(UNPAIRED_TESTS)}")
    if not xs or not ys:
        return None
    if len(set(xs) | set(ys)) == 1:
        return 1.0
    from scipy.stats import mannwhitneyu  # lazy, as above

    return float(mannwhitneyu(xs, ys, alternative="two-sided").pvalue)


def _approximate_randomisation(xs: list[float], ys: list[float], n_samples: int, seed: int | None) -> float:
    import numpy as np

    if n_samples < 1:
        raise ValueError("n_samples must be at least 1")
    diffs = np.asarray(xs, dtype=np.float64) - np.asarray(ys, dtype=np.float64)
    observed = abs(diffs.mean())
    rng = np.random.default_rng(seed)
    hits, done = 0, 0
    # Blocks of about a million coin flips: memory stays bounded for long evaluations.
    block = max(1, (1 << 20) // len(diffs))
    while done < n_samples:
        b = min(block, n_samples - done)
        signs = rng.integers(0, 2, size=(b, len(diffs)), dtype=np.int8) * 2 - 1
        means = np.abs(signs @ diffs) / len(diffs)
        # a resample as extreme as the observed one counts (>=), up to rounding of the sums
        hits += int(np.count_nonzero(means >= observed - 1e-12 * max(1.0, observed)))
        done += b
    return (hits + 1) / (n_samples + 1)


def rank_systems(units: UnitScores, *, scores: Mapping[str, float] | None = None, higher_is_better: bool = True,
                 test: str = DEFAULT_TEST, alpha: float = DEFAULT_ALPHA, n_samples: int = DEFAULT_AR_SAMPLES,
                 seed: int | None = DEFAULT_SEED, method: str = "wmt",
                 kinds: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The ranking of every system with unit scores, with clusters and rank ranges.

    Returns ``{"test", "test_name", "alpha", "higher_is_better", "method", "rows", "pairs"}``:
    ``rows`` best first (:func:`scoring.ranking.ranking_rows` plus ``score``, ``units`` and
    ``kind``), ``pairs`` one per pair (``a``, ``b``, ``n`` units tested: the paired units of a
    paired test, all units of both sides for the unpaired one, ``mean_a``, ``mean_b`` over them,
    ``p_value``, ``significant``, ``better``: the better side by the system scores, or None on a tie).
    """
    if test not in ALL_TESTS:
        raise ValueError(f"unknown significance test {test!r}; use one of {', '.join(ALL_TESTS)}")
    if method not in CLUSTER_METHODS:
        raise ValueError(f"unknown cluster method {method!r}; use one of {CLUSTER_METHODS}")
    if not 0 < alpha < 1:
        raise ValueError("alpha must be between 0 and 1")
    systems = [s for s in units if units[s]]
    if scores is None:
        scores = {s: fmean(units[s].values()) for s in systems}
    else:
        missing = [s for s in systems if scores.get(s) is None]
        if missing:
            raise ValueError(f"no system score for {', '.join(map(str, missing))}")
        systems = [s for s in systems if s in scores]
    order = order_by_score({s: scores[s] for s in systems}, higher_is_better)
    pairs, beats = [], []
    for i, a in enumerate(order):
        for b in order[i + 1:]:
            if test in UNPAIRED_TESTS:
                xs = [float(v) for v in units[a].values()]
                ys = [float(v) for v in units[b].values()]
                p, n = unpaired_p_value(xs, ys, test=test), len(xs) + len(ys)
            else:
                common = [u for u in units[a] if u in units[b]]
                xs = [float(units[a][u]) for u in common]
                ys = [float(units[b][u]) for u in common]
                p, n = paired_p_value(xs, ys, test=test, n_samples=n_samples, seed=seed), len(common)
            better = None
            if scores[a] != scores[b]:
                better = a if (scores[a] > scores[b]) == higher_is_better else b
            significant = p is not None and p < alpha and better is not None
            if significant:
                beats.append((better, b if better == a else a))
            pairs.append({"a": a, "b": b, "n": n, "mean_a": fmean(xs) if xs else None,
                          "mean_b": fmean(ys) if ys else None, "p_value": p, "significant": significant,
                          "better": better})
    rows = ranking_rows(order, beats, method=method)
    for row in rows:
        row["score"] = scores[row["system"]]
        row["units"] = len(units[row["system"]])
        row["kind"] = (kinds or {}).get(row["system"], "")
    return {"test": test, "test_name": ALL_TESTS[test], "alpha": alpha, "higher_is_better": higher_is_better,
            "method": method, "rows": rows, "pairs": pairs}
