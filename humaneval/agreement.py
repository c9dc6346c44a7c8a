"""Chance-corrected agreement: Gwet's AC1 and AC2, Cohen's kappa, percent agreement.

Ratings come as a table of items by raters, either a mapping
``{item: {rater: value}}`` or rows of values, one row per item and one column
per rater (a pandas DataFrame's ``.values`` works). A missing rating is
``None``, NaN, or simply absent from the mapping: items rated by fewer than all
raters are allowed.

Gwet's AC1 (nominal) and AC2 (weighted) follow Gwet, *Handbook of Inter-Rater
Reliability* (4th ed., 2014), with his treatment of missing ratings. With
``r_ik`` raters putting item ``i`` in category ``k``, ``r_i`` raters of item
``i``, weights ``w_kl`` and ``q`` categories:

* ``pa`` = mean over the items rated at least twice of
  ``sum_k r_ik (sum_l w_kl r_il - 1) / (r_i (r_i - 1))``;
* ``pi_k`` = mean over every rated item of ``r_ik / r_i``;
* ``pe`` = ``sum(w) / (q (q - 1)) * sum_k pi_k (1 - pi_k)``;
* AC = ``(pa - pe) / (1 - pe)``.

Weights, on the category values ``x`` (or on their positions 1..q in the
``categories`` given, for labels): identity; linear ``1 - |x_k - x_l| / (max - min)``;
quadratic ``1 - (x_k - x_l)^2 / (max - min)^2``; ordinal (Gwet's, on the ranks
only: with ``n = |k - l| + 1``, ``1 - n (n - 1) / 2`` over its largest value).
AC1 is AC2 with identity weights. These are irrCAC's weights, and the tests
compare every coefficient with irrCAC.

Cohen's kappa (:func:`cohen_kappa`) takes the same weights on the same
categories, so the library, ``python -m humaneval agreement --coefficient
kappa`` and the rubric tables agree: on equally spaced numbers (a 0-2 or 1-5
scale) value and rank weights are the same thing, and scikit-learn's
``cohen_kappa_score`` gives the same number; on unequally spaced numbers
(1, 2, 5) the weights follow the values, as irrCAC's do.

Standard errors and intervals are Gwet's linearised variance with a t
interval (n - 1 degrees of freedom): :func:`gwet_interval` computes it here
(tested against irrCAC's), :func:`kappa_interval` asks irrCAC itself (Conger's
kappa, which is Cohen's for two raters; irrCAC must be installed).

Categories are the observed ratings unless ``categories`` lists them; a
category nobody used still changes ``q`` and so the chance agreement. With a
single category every pair of ratings agrees and the coefficient is 1.0 by
convention (``pe`` is reported as 0).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Union

WEIGHTS = ("identity", "linear", "quadratic", "ordinal")

RatingTable = Union[Mapping[Hashable, Mapping[Hashable, Any]], Sequence[Sequence[Any]]]


@dataclass(frozen=True)
class Agreement:
    """One coefficient and what it was computed from."""

    coefficient: str  # "ac1" (identity weights) or "ac2"
    weights: str
    value: float
    pa: float  # (weighted) observed agreement
    pe: float  # chance agreement
    items: int  # items with at least one rating
    raters: int  # raters with at least one rating
    categories: list

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def is_missing(value: Any) -> bool:
    """None and NaN are missing ratings."""
    return value is None or (isinstance(value, numbers.Real) and value != value)


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def rating_table(rows: Iterable[tuple[Hashable, Hashable, Any]]) -> dict[Hashable, dict[Hashable, Any]]:
    """``{item: {rater: value}}`` from ``(item, rater, value)`` rows; a conflicting repeat is a ValueError."""
    table: dict[Hashable, dict[Hashable, Any]] = {}
    for item, rater, value in rows:
        if is_missing(value):
            continue
        seen = table.setdefault(item, {})
        if rater in seen and seen[rater] != value:
            raise ValueError(f"rater {rater!r} rated item {item!r} twice: {seen[rater]!r} and {value!r}")
        seen[rater] = value
    return table


def _items(ratings: RatingTable) -> tuple[list[list[Any]], int]:
    """The non-missing ratings of each rated item, and the number of raters who rated anything."""
    items: list[list[Any]] = []
    raters: set[Hashable] = set()
    rows: Iterable[tuple[Iterable[Hashable], Iterable[Any]]]
    if isinstance(ratings, Mapping):
        rows = ((row.keys(), row.values()) for row in ratings.values())
    elif hasattr(ratings, "to_numpy"):  # a DataFrame iterates over its column names, not its rows
        rows = ((range(len(row)), row) for row in ratings.to_numpy().tolist())
    else:
        rows = ((range(len(row)), row) for row in ratings)
    for names, values in rows:
        kept = [(n, v) for n, v in zip(names, values) if not is_missing(v)]
        if kept:
            items.append([v for _, v in kept])
            raters.update(n for n, _ in kept)
    return items, len(raters)


def _category_list(observed: set[Any], categories: Sequence[Any] | None, weights: str) -> list[Any]:
    """The categories, in the order the weights need (numeric values ascending)."""
    if weights not in WEIGHTS:
        raise ValueError(f"unknown weights {weights!r}: use one of {', '.join(WEIGHTS)}")
    if categories is not None:
        cats = list(categories)
        if len(set(cats)) != len(cats):
            raise ValueError(f"categories repeat a value: {cats}")
        allowed = set(cats)
        unknown = [v for v in observed if v not in allowed]
        if unknown:
            raise ValueError(f"rating {sorted(unknown, key=str)[0]!r} is not among the categories {cats}")
    else:
        cats = list(observed)
        if weights != "identity" and not all(_is_number(c) for c in cats):
            raise ValueError(f"{weights} weights need numeric ratings or an ordered list of categories")
    if all(_is_number(c) for c in cats):
        return sorted(cats)
    # Labels: keep the order given (their ranks carry the weights); observed labels are
    # only compared for equality, so any stable order will do.
    return cats if categories is not None else sorted(cats, key=str)


def weight_matrix(categories: Sequence[Any], weights: str = "identity") -> list[list[float]]:
    """``w[k][l]`` for the categories in the order given (see the module doc for the formulas)."""
    if weights not in WEIGHTS:
        raise ValueError(f"unknown weights {weights!r}: use one of {', '.join(WEIGHTS)}")
    q = len(categories)
    x = [float(c) for c in categories] if all(_is_number(c) for c in categories) else list(range(1, q + 1))
    span = max(x) - min(x) if q else 0.0
    if weights == "identity" or span == 0 or q < 2:
        return [[1.0 if k == m else 0.0 for m in range(q)] for k in range(q)]
    if weights == "ordinal":   # Gwet's: ranks only, whatever the values
        top = q * (q - 1) / 2
        return [[1.0 - (abs(k - m) + 1) * abs(k - m) / 2 / top for m in range(q)] for k in range(q)]
    power = 1 if weights == "linear" else 2
    return [[1.0 - (abs(x[k] - x[m]) / span) ** power for m in range(q)] for k in range(q)]


def _category_counts(items: list[list[Any]], cats: list[Any]) -> list[list[int]]:
    """``r_ik``: per item, how many of its raters chose each category."""
    index = {c: k for k, c in enumerate(cats)}
    counts = []
    for item in items:
        row = [0] * len(cats)
        for v in item:
            row[index[v]] += 1
        counts.append(row)
    return counts


def gwet(ratings: RatingTable, weights: str = "identity", categories: Sequence[Any] | None = None) -> Agreement:
    """Gwet's AC1 (``weights="identity"``) or AC2, for any number of raters, with missing ratings."""
    items, raters = _items(ratings)
    if not items:
        raise ValueError("no ratings")
    cats = _category_list({v for item in items for v in item}, categories, weights)
    w = weight_matrix(cats, weights)
    q = len(cats)
    counts = _category_counts(items, cats)
    paired = [row for row in counts if sum(row) >= 2]
    if not paired:
        raise ValueError("no item is rated by two or more raters")
    pa = math.fsum(_item_pa(row, w) for row in paired) / len(paired)
    name = "ac1" if weights == "identity" else "ac2"
    if q < 2:
        return Agreement(name, weights, 1.0, pa, 0.0, len(items), raters, cats)
    pi = [math.fsum(row[k] / sum(row) for row in counts) / len(counts) for k in range(q)]
    pe = math.fsum(map(math.fsum, w)) / (q * (q - 1)) * math.fsum(p * (1 - p) for p in pi)
    return Agreement(name, weights, (pa - pe) / (1 - pe), pa, pe, len(items), raters, cats)


def _item_pa(row: list[int], w: list[list[float]]) -> float:
    r = sum(row)
    q = len(row)
    total = math.fsum(row[k] * (math.fsum(w[k][m] * row[m] for m in range(q)) - 1) for k in range(q) if row[k])
    return total / (r * (r - 1))


def gwet_ac1(ratings: RatingTable, categories: Sequence[Any] | None = None) -> float:
    """Gwet's AC1: nominal categories, any number of raters, missing ratings allowed."""
    return gwet(ratings, "identity", categories).value


def gwet_ac2(ratings: RatingTable, weights: str = "quadratic",
             categories: Sequence[Any] | None = None) -> float:
    """Gwet's AC2: ordinal categories with linear, quadratic (default) or ordinal weights."""
    return gwet(ratings, weights, categories).value


def percent_agreement(ratings: RatingTable) -> float:
    """Share of agreeing rater pairs per item, averaged over items rated at least twice.

    For two raters this is the share of items both put in the same category.
    """
    return gwet(ratings, "identity").pa


def cohen_kappa(rater1: Sequence[Any], rater2: Sequence[Any], weights: str = "identity",
                categories: Sequence[Any] | None = None) -> float:
    """Cohen's kappa (unweighted, or linear/quadratic weighted) between two raters.

    ``rater1[i]`` and ``rater2[i]`` rate the same item; items missing from either
    are left out (Cohen's kappa is defined on complete pairs). NaN when chance
    agreement is 1 (both raters used one and the same category throughout).
    """
    if len(rater1) != len(rater2):
        raise ValueError(f"the two raters rated {len(rater1)} and {len(rater2)} items")
    pairs = [(a, b) for a, b in zip(rater1, rater2) if not is_missing(a) and not is_missing(b)]
    if not pairs:
        raise ValueError("no item is rated by both raters")
    cats = _category_list({v for pair in pairs for v in pair}, categories, weights)
    w = weight_matrix(cats, weights)
    index = {c: k for k, c in enumerate(cats)}
    q, n = len(cats), len(pairs)
    joint = [[0] * q for _ in range(q)]
    for a, b in pairs:
        joint[index[a]][index[b]] += 1
    row = [sum(joint[k]) / n for k in range(q)]
    col = [sum(joint[k][m] for k in range(q)) / n for m in range(q)]
    pa = math.fsum(w[k][m] * joint[k][m] / n for k in range(q) for m in range(q))
    pe = math.fsum(w[k][m] * row[k] * col[m] for k in range(q) for m in range(q))
    if pe >= 1:
        return math.nan
    return (pa - pe) / (1 - pe)


# -- standard errors and intervals (irrCAC) ------------------------------------------------------------


@dataclass(frozen=True)
class AgreementInterval:
    """A coefficient with Gwet's standard error, its t interval and the p-value of "no agreement"."""

    coefficient: str      # "ac1", "ac2" or "kappa"
    weights: str
    value: float | None
    se: float | None      # None (with the reason) below two items or two categories: no variance to estimate
    low: float | None
    high: float | None    # capped at 1, as irrCAC does
    confidence: float
    p_value: float | None
    items: int
    method: str
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _irrcac(rows: list[list[Any]], weights: str, cats: list[Any], confidence: float):
    import warnings

    import numpy as np
    import pandas as pd

    try:
        from irrCAC.raw import CAC
    except ImportError:
        raise RuntimeError("kappa_interval needs irrCAC: pip install --no-deps irrCAC==0.4.4") from None

    if not 0.9 <= confidence <= 0.99:
        raise ValueError(f"confidence must be between 0.90 and 0.99 (irrCAC's range), not {confidence}")
    frame = pd.DataFrame([[np.nan if is_missing(v) else v for v in row] for row in rows], dtype=object)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # pandas' downcasting notices inside irrCAC
        return CAC(frame, weights=weights, categories=list(cats), confidence_level=confidence, digits=15)


def _interval(coefficient: str, weights: str, est: dict, confidence: float, items: int,
              method: str) -> AgreementInterval:
    low, high = est["confidence_interval"]
    return AgreementInterval(coefficient, weights, float(est["coefficient_value"]), float(est["se"]), float(low),
                             float(high), confidence, float(est["p_value"]), items, method)


def _no_interval(coefficient: str, weights: str, confidence: float, items: int, categories: int) -> AgreementInterval:
    return AgreementInterval(coefficient, weights, None, None, None, None, confidence, None, items, "",
                             f"{items} item(s) in {categories} categor(ies): a standard error needs two items "
                             "and two categories")


def gwet_interval(ratings: RatingTable, weights: str = "identity", categories: Sequence[Any] | None = None,
                  confidence: float = 0.95) -> AgreementInterval:
    """Gwet's AC1/AC2 with its standard error and interval.

    Gwet's linearised variance (Handbook, 4th ed., ch. 5), for an infinite population: each item's
    contribution ``ac_i = (n / n2) (pa_i - pe [r_i >= 2]) / (1 - pe)``, corrected for the chance part,
    ``ac*_i = ac_i - 2 (1 - ac) (pe_i - pe) / (1 - pe)`` with ``pe_i = sum(w) / (q (q - 1)) *
    sum_k r_ik (1 - pi_k) / r_i``; ``var = sum (ac*_i - ac)^2 / (n (n - 1))``; a t interval on n - 1
    degrees of freedom, its top capped at 1. The tests compare with irrCAC's ``CAC.gwet``.
    """
    from scipy.stats import t as student

    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, not {confidence}")
    items, _ = _items(ratings)
    if not items:
        raise ValueError("no ratings")
    cats = _category_list({v for item in items for v in item}, categories, weights)
    name = "ac1" if weights == "identity" else "ac2"
    n, q = len(items), len(cats)
    if n < 2 or q < 2:
        return _no_interval(name, weights, confidence, n, q)
    result = gwet(ratings, weights, categories)
    w = weight_matrix(cats, weights)
    counts = _category_counts(items, cats)
    pe, ac = result.pe, result.value
    pi = [math.fsum(row[k] / sum(row) for row in counts) / n for k in range(q)]
    n2 = sum(1 for row in counts if sum(row) >= 2)
    chance = math.fsum(map(math.fsum, w)) / (q * (q - 1))
    spread = []
    for row in counts:
        r = sum(row)
        pa_i = _item_pa(row, w) if r >= 2 else 0.0
        ac_i = (n / n2) * (pa_i - (pe if r >= 2 else 0.0)) / (1 - pe)
        pe_i = chance * math.fsum(row[k] * (1 - pi[k]) for k in range(q)) / r
        spread.append(ac_i - 2 * (1 - ac) * (pe_i - pe) / (1 - pe) - ac)
    se = math.sqrt(math.fsum(d * d for d in spread) / (n * (n - 1)))
    half = float(student.ppf(0.5 + confidence / 2, n - 1)) * se
    p_value = float(2 * student.sf(abs(ac / se), n - 1)) if se > 0 else 0.0
    return AgreementInterval(name, weights, ac, se, ac - half, min(1.0, ac + half), confidence, p_value, n,
                             "Gwet's linearised variance, t interval on n - 1 df")


def kappa_interval(rater1: Sequence[Any], rater2: Sequence[Any], weights: str = "identity",
                   categories: Sequence[Any] | None = None, confidence: float = 0.95) -> AgreementInterval:
    """Cohen's kappa with its standard error and interval (irrCAC's Conger kappa: Cohen's for two raters)."""
    if len(rater1) != len(rater2):
        raise ValueError(f"the two raters rated {len(rater1)} and {len(rater2)} items")
    pairs = [[a, b] for a, b in zip(rater1, rater2) if not is_missing(a) and not is_missing(b)]
    if not pairs:
        raise ValueError("no item is rated by both raters")
    cats = _category_list({v for pair in pairs for v in pair}, categories, weights)
    if len(pairs) < 2 or len(cats) < 2:
        return _no_interval("kappa", weights, confidence, len(pairs), len(cats))
    est = _irrcac(pairs, weights, cats, confidence).conger()["est"]
    return _interval("kappa", weights, est, confidence, len(pairs),
                     "Conger's kappa (Cohen's for two raters), linearised variance, t interval (irrCAC)")
