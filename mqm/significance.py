"""Paired Wilcoxon signed-rank tests between systems, and the clusters of a human ranking.

WMT ranks systems by MQM and groups into one cluster the systems that are not
significantly different. The test pairs two systems on the units both were
scored on (documents or segments) and runs ``scipy.stats.wilcoxon`` on the
differences.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from itertools import combinations
from statistics import fmean
from typing import Any

from scoring.ranking import clusters as ranking_clusters
from scoring.ranking import ranking_rows

from .model import MQMData
from .schemes import Scheme
from .scores import prepare, unit_scores
from .words import WordCounter

UnitScores = Mapping[str, Mapping[Hashable, float]]  # {system: {unit: score}}


def _units(data: MQMData | UnitScores, scheme: Scheme | None, unit: str,
           words: WordCounter | None) -> tuple[UnitScores, bool]:
    if isinstance(data, MQMData):
        if scheme is None:
            raise ValueError("give a scheme to test an MQMData")
        return unit_scores(prepare(data, scheme, words), unit), scheme.higher_is_better
    return data, scheme.higher_is_better if scheme is not None else True


def wilcoxon_pairs(data: MQMData | UnitScores, scheme: Scheme | None = None, *, unit: str = "doc",
                   systems: list[str] | None = None, words: WordCounter | None = None,
                   higher_is_better: bool | None = None, alpha: float = 0.05) -> list[dict[str, Any]]:
    """One two-sided paired Wilcoxon signed-rank test per pair of systems.

    ``data`` is an :class:`MQMData` (scored with ``scheme`` per ``unit``: "doc" or
    "segment") or ready unit scores ``{system: {unit: score}}``. Each result has
    ``a``, ``b``, ``n`` (paired units), ``mean_a``, ``mean_b``, ``statistic``,
    ``p_value``, ``better`` (the system with the better mean on the paired units,
    None on a tie) and ``significant`` (p < alpha).
    """
    from scipy.stats import wilcoxon  # lazy: scipy takes ~0.3 s to import

    scores, hib = _units(data, scheme, unit, words)
    if higher_is_better is not None:
        hib = higher_is_better
    names = systems if systems is not None else sorted(scores)
    results = []
    for a, b in combinations(names, 2):
        common = [u for u in scores.get(a, {}) if u in scores.get(b, {})]
        xs = [scores[a][u] for u in common]
        ys = [scores[b][u] for u in common]
        row: dict[str, Any] = {"a": a, "b": b, "n": len(common), "mean_a": fmean(xs) if xs else None,
                               "mean_b": fmean(ys) if ys else None, "statistic": None, "p_value": None,
                               "better": None, "significant": False}
        if xs:
            diff = fmean(xs) - fmean(ys)
            if diff:
                row["better"] = a if (diff > 0) == hib else b
        if len(common) >= 2 and any(x != y for x, y in zip(xs, ys, strict=True)):
            res = wilcoxon(xs, ys)
            row["statistic"], row["p_value"] = float(res.statistic), float(res.pvalue)
            row["significant"] = row["p_value"] < alpha
        elif common:
            row["p_value"] = 1.0  # identical scores on every unit
        results.append(row)
    return results


def significant_pairs(pairs: list[dict[str, Any]]) -> set[tuple[str, str]]:
    """``(winner, loser)`` for every significant pair of :func:`wilcoxon_pairs` that has a better side."""
    return {(r["better"], r["b"] if r["better"] == r["a"] else r["a"])
            for r in pairs if r["significant"] and r["better"] is not None}


def clusters(ranking: list[str], pairs: list[dict[str, Any]]) -> list[list[str]]:
    """Split a best-first ranking into clusters.

    A boundary falls between two neighbours only when every system above it is
    significantly better than every system below it; systems inside a cluster are
    therefore not separable by the test. The rule is :func:`scoring.ranking.clusters`
    (method "wmt"), the one the automatic metrics use.
    """
    return ranking_clusters(ranking, significant_pairs(pairs), method="wmt", strict=False)


def rank_ranges(ranking: list[str], pairs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per system of a best-first ranking: :func:`scoring.ranking.ranking_rows`.

    ``rank`` (position), ``cluster`` (1-based), ``cluster_rank_range`` ([first, last]
    positions of its cluster), ``wins``, ``losses``, ``rank_low``/``rank_high`` (= losses + 1
    .. N - wins, the significance rank range) and ``rank_range`` (its text).
    """
    return ranking_rows(ranking, significant_pairs(pairs), method="wmt", strict=False)
