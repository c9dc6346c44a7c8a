"""Agreement between raters on rubric scores: DITING's Tables 4 and 6, per sub-criterion.

For each criterion (sp, g_1, g_2, and Σ = their sum) over the items two or more raters scored:

* ``simple_agreement``: the share of identical scores;
* ``kappa``, ``kappa_linear``, ``kappa_quadratic``: Cohen's κ, unweighted and linear/quadratic
  weighted (the library's one definition, :func:`humaneval.agreement.cohen_kappa`: weights on the
  category values, as irrCAC's; on the rubric's equally spaced scale the same as scikit-learn's
  rank weights), with the rubric's scale as the categories, so an unused score still counts;
* ``icc``: ICC(3,1), two-way mixed, consistency, single rater (as pingouin's ``intraclass_corr``
  ICC3, which the tests compare with), over the items every rater scored.

With more than two raters, simple agreement and the κs are averaged over the rater pairs (each
pair over the items both scored). A κ is None when it is undefined (chance agreement 1: both raters
gave one and the same score throughout); ICC is None with fewer than two complete items or two raters.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from itertools import combinations
from typing import Any

from .model import CRITERION_KEYS

KAPPA_WEIGHTS = ("identity", "linear", "quadratic", "ordinal")
AGREEMENT_CRITERIA = (*CRITERION_KEYS, "sigma")


def _finite(value: float) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def kappa(a: Sequence[Any], b: Sequence[Any], weights: str = "identity",
          labels: Sequence[Any] | None = None) -> float | None:
    """Cohen's κ of two raters' paired scores (:func:`humaneval.agreement.cohen_kappa`); None when undefined."""
    from ..agreement import cohen_kappa

    if weights not in KAPPA_WEIGHTS:
        raise ValueError(f"weights must be one of {', '.join(KAPPA_WEIGHTS)}, not {weights!r}")
    if len(a) != len(b) or not a:
        raise ValueError("kappa needs two equally long, non-empty lists of scores")
    return _finite(cohen_kappa(list(a), list(b), weights, list(labels) if labels is not None else None))


def icc3(table: Mapping[Hashable, Mapping[Hashable, float]]) -> tuple[float | None, list[Hashable]]:
    """ICC(3,1) over the items every rater scored, and the items left out as incomplete.

    Shrout and Fleiss's two-way mixed, consistency, single-rater form from the two-way ANOVA:
    ``(MS_items - MS_error) / (MS_items + (k - 1) MS_error)``; the same as pingouin's ``ICC3``
    (the tests compare), without its import cost or its five-rating minimum.
    """
    raters = sorted({r for row in table.values() for r in row}, key=str)
    complete = [i for i, row in table.items() if all(r in row for r in raters)]
    left_out = [i for i in table if i not in set(complete)]
    n, k = len(complete), len(raters)
    if k < 2 or n < 2:
        return None, left_out
    x = [[float(table[i][r]) for r in raters] for i in complete]
    grand = math.fsum(v for row in x for v in row) / (n * k)
    row_means = [math.fsum(row) / k for row in x]
    col_means = [math.fsum(x[i][j] for i in range(n)) / n for j in range(k)]
    ss_rows = k * math.fsum((m - grand) ** 2 for m in row_means)
    ss_cols = n * math.fsum((m - grand) ** 2 for m in col_means)
    ss_total = math.fsum((v - grand) ** 2 for row in x for v in row)
    ms_rows = ss_rows / (n - 1)
    ms_error = (ss_total - ss_rows - ss_cols) / ((n - 1) * (k - 1))
    denominator = ms_rows + (k - 1) * ms_error
    if denominator <= 1e-12:  # no variance at all: 0/0
        return None, left_out
    return (ms_rows - ms_error) / denominator, left_out


def pairwise(table: Mapping[Hashable, Mapping[Hashable, Any]]) -> list[tuple[Hashable, Hashable, list, list]]:
    """(rater a, rater b, a's scores, b's scores) over the items both scored, for every pair of raters."""
    raters = sorted({r for row in table.values() for r in row}, key=str)
    pairs = []
    for a, b in combinations(raters, 2):
        both = [row for row in table.values() if a in row and b in row]
        if both:
            pairs.append((a, b, [row[a] for row in both], [row[b] for row in both]))
    return pairs


def criterion_agreement(table: Mapping[Hashable, Mapping[Hashable, Any]],
                        labels: Sequence[Any] | None = None) -> dict[str, Any]:
    """Every figure for one criterion's ``{item: {rater: score}}``; see the module doc."""
    shared = {i: row for i, row in table.items() if len(row) >= 2}
    pairs = pairwise(shared)
    out: dict[str, Any] = {"items": len(shared), "raters": len({r for row in shared.values() for r in row}),
                           "pairs": sum(len(p[2]) for p in pairs)}
    if not pairs:
        return {**out, "simple_agreement": None, "kappa": None, "kappa_linear": None, "kappa_quadratic": None,
                "icc": None}

    def mean(values: list[float | None]) -> float | None:
        defined = [v for v in values if v is not None]
        return sum(defined) / len(defined) if defined else None

    out["simple_agreement"] = mean([sum(x == y for x, y in zip(xs, ys)) / len(xs) for _, _, xs, ys in pairs])
    for name, weights in (("kappa", "identity"), ("kappa_linear", "linear"), ("kappa_quadratic", "quadratic")):
        out[name] = mean([kappa(xs, ys, weights, labels) for _, _, xs, ys in pairs])
    out["icc"], _ = icc3(shared)
    return out


def rubric_agreement(rows: Sequence[Mapping[str, Any]], scale: Sequence[int] = (0, 1, 2)) -> dict[str, Any]:
    """Agreement per criterion (sp, g_1, g_2, sigma) from response rows ``{item, rater, sp, g_1, g_2}``.

    ``item`` identifies what was scored (a phenomenon in one system's translation); Σ's labels are
    every possible sum.
    """
    out = {}
    sums = sorted({a + b + c for a in scale for b in scale for c in scale})
    for key in AGREEMENT_CRITERIA:
        table: dict[Hashable, dict[Hashable, Any]] = {}
        for row in rows:
            value = sum(row[k] for k in CRITERION_KEYS) if key == "sigma" else row[key]
            table.setdefault(row["item"], {})[row["rater"]] = value
        out[key] = criterion_agreement(table, sums if key == "sigma" else list(scale))
    return out
