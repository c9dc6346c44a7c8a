"""Best–Worst Scaling scores: the counting score, its bootstrap interval, split-half reliability, the ranking.

The counting score of a version (Orme 2009; Kiritchenko and Mohammad 2016, 2017) is
``(#best - #worst) / #appearances``: from -1 (always worst) to +1 (always best).

Split-half reliability (Kiritchenko and Mohammad 2017, §4): the judgments are split at
random into two halves, each half gives its own counting scores, and the halves' scores
are correlated over the versions; this is repeated ``n_splits`` times. The judgments of
one tuple (the same item and the same versions) are dealt alternately into the two halves,
so that every tuple judged twice or more is in both (their "annotations of each tuple split
into two bins"). The correlation is Spearman's rank correlation (the ranking is what BWS
is for); ``"pearson"`` is available. The mean correlation over the splits, ``r``, is
corrected to the full number of judgments by the Spearman–Brown formula ``2r / (1 + r)``.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from .judgments import Judgment

DEFAULT_SPLITS = 100
DEFAULT_SEED = 12345
DEFAULT_RESAMPLES = 1000
CONFIDENCE = 0.95
CORRELATIONS = ("spearman", "pearson")


@dataclass(frozen=True)
class VersionScore:
    """A version's counts and counting score; ``low``/``high`` the bootstrap interval when computed."""

    version: str
    best: int
    worst: int
    appearances: int
    low: float | None = None
    high: float | None = None

    @property
    def score(self) -> float:
        return (self.best - self.worst) / self.appearances

    def to_dict(self) -> dict[str, Any]:
        """The contract's fields: score, best, worst, appearances."""
        return {"score": self.score, "best": self.best, "worst": self.worst, "appearances": self.appearances}


@dataclass(frozen=True)
class SplitHalf:
    """Split-half reliability: ``value`` is ``2r / (1 + r)`` of ``mean_r``, the mean correlation of the
    ``defined`` splits out of ``splits`` (a split is undefined when a half's scores are constant or
    fewer than two versions appear in both halves); None when no split was defined."""

    value: float | None
    mean_r: float | None
    splits: int
    defined: int
    correlation: str
    seed: int | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def counts(judgments: Sequence[Judgment]) -> dict[str, VersionScore]:
    """Per version: how often it was chosen best, worst, and shown; sorted by version name."""
    best: dict[str, int] = defaultdict(int)
    worst: dict[str, int] = defaultdict(int)
    shown: dict[str, int] = defaultdict(int)
    for j in judgments:
        best[j.best] += 1
        worst[j.worst] += 1
        for v in j.versions:
            shown[v] += 1
    return {v: VersionScore(v, best[v], worst[v], shown[v]) for v in sorted(shown)}


def counting_scores(judgments: Sequence[Judgment]) -> dict[str, float]:
    """``{version: (best - worst) / appearances}``."""
    return {v: s.score for v, s in counts(judgments).items()}


def scores_with_intervals(judgments: Sequence[Judgment], n_resamples: int = DEFAULT_RESAMPLES,
                          seed: int | None = DEFAULT_SEED) -> dict[str, VersionScore]:
    """:func:`counts` with a 95 % percentile bootstrap interval of each counting score
    (``scipy.stats.bootstrap``): the counting score is the mean, over the judgments that show the
    version, of +1 (chosen best), -1 (chosen worst) or 0, and those judgments are resampled."""
    import numpy as np
    from scipy.stats import bootstrap

    table = counts(judgments)
    out = {}
    for v, s in table.items():
        mine = [j for j in judgments if v in j.versions]   # judgments without v add nothing to its ratio
        points = np.array([(j.best == v) - (j.worst == v) for j in mine], dtype=float)
        if len(mine) < 2 or len(set(points.tolist())) == 1:
            low = high = s.score if len(mine) >= 2 else None
        else:
            result = bootstrap((points,), np.mean, n_resamples=n_resamples, confidence_level=CONFIDENCE,
                               method="percentile", rng=np.random.default_rng(seed))
            low, high = float(result.confidence_interval.low), float(result.confidence_interval.high)
        out[v] = VersionScore(v, s.best, s.worst, s.appearances, low, high)
    return out


def _correlation(xs: list[float], ys: list[float], method: str) -> float | None:
    if len(xs) < 2 or len(set(xs)) == 1 or len(set(ys)) == 1:
        return None
    from scipy.stats import pearsonr, spearmanr

    r = float((spearmanr if method == "spearman" else pearsonr)(xs, ys)[0])
    return None if math.isnan(r) else r


def spearman_brown(r: float) -> float:
    """The reliability of the full data from the correlation ``r`` of its two halves."""
    if r <= -1:
        raise ValueError("the Spearman–Brown correction is undefined for r = -1")
    return 2 * r / (1 + r)


def split_halves(judgments: Sequence[Judgment], rng) -> tuple[list[Judgment], list[Judgment]]:
    """One random split: each tuple's judgments shuffled and dealt alternately, the alternation carried
    over from tuple to tuple (so the halves differ in size by at most one)."""
    tuples: dict[tuple[str, frozenset[str]], list[Judgment]] = defaultdict(list)
    for j in judgments:
        tuples[(j.item, frozenset(j.versions))].append(j)
    groups = list(tuples.values())
    halves: tuple[list[Judgment], list[Judgment]] = ([], [])
    turn = int(rng.integers(2))
    for g in rng.permutation(len(groups)):
        group = groups[g]
        for k in rng.permutation(len(group)):
            halves[turn].append(group[k])
            turn = 1 - turn
    return halves


def split_half(judgments: Sequence[Judgment], n_splits: int = DEFAULT_SPLITS, seed: int | None = DEFAULT_SEED,
               correlation: str = "spearman") -> SplitHalf:
    """Split-half reliability of the counting scores over ``n_splits`` random splits (module docstring)."""
    import numpy as np

    if n_splits < 1:
        raise ValueError("n_splits must be at least 1")
    if correlation not in CORRELATIONS:
        raise ValueError(f"unknown correlation {correlation!r}; use one of {', '.join(CORRELATIONS)}")
    rng = np.random.default_rng(seed)
    rs = []
    for _ in range(n_splits):
        a, b = (counting_scores(h) for h in split_halves(judgments, rng))
        common = sorted(set(a) & set(b))
        r = _correlation([a[v] for v in common], [b[v] for v in common], correlation)
        if r is not None:
            rs.append(r)
    if not rs:
        return SplitHalf(None, None, n_splits, 0, correlation, seed)
    mean_r = float(np.mean(rs))
    value = spearman_brown(mean_r) if mean_r > -1 else None
    return SplitHalf(value, mean_r, n_splits, len(rs), correlation, seed)


def item_scores(judgments: Sequence[Judgment]) -> dict[str, dict[str, float]]:
    """``{version: {item: counting score on that item's judgments}}``: the ranking's units."""
    by_item: dict[str, list[Judgment]] = defaultdict(list)
    for j in judgments:
        by_item[j.item].append(j)
    units: dict[str, dict[str, float]] = defaultdict(dict)
    for item, js in by_item.items():
        for v, score in counting_scores(js).items():
            units[v][item] = score
    return dict(units)


def bws_ranking(judgments: Sequence[Judgment], *, test: str = "wilcoxon", alpha: float = 0.05,
                kinds: Mapping[str, str] | None = None, **options: Any) -> dict[str, Any]:
    """The official ranking with clusters (:func:`scoring.human_ranking.rank_systems`).

    The unit is the item (a source paragraph): a version's unit score is its counting score over
    that item's judgments, and versions are ordered by their overall counting score. The default
    paired Wilcoxon test compares two versions on the items where both were shown; ``"mannwhitney"``
    compares all their item scores unpaired."""
    from scoring.human_ranking import rank_systems

    return rank_systems(item_scores(judgments), scores=counting_scores(judgments), test=test, alpha=alpha,
                        kinds=kinds, **options)
