"""Inter-annotator agreement, as in Tables 4 and 5 of the WMT 2023 literary findings.

Table 4 is each annotator's score for each system (plus the average). Table 5 is
the pairwise Pearson correlation between annotators over systems, and an
"Average" row: each annotator's correlation with the Table 4 average, i.e. the
mean of *all* annotators including that one (this reproduces the paper's
0.902/0.976/0.927/0.891; the mean of the others is given too, as
``pearson_vs_others``). Kendall's tau-b follows the same layout; Krippendorff's
alpha (interval) treats annotators as coders and systems (or segments) as units.

Correlations use the systems both annotators scored; they are ``None`` where
fewer than two such systems exist or a vector is constant.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Mapping
from statistics import fmean
from typing import Any

from .model import MQMData
from .schemes import Scheme
from .scores import Prepared, grouped, prepare
from .words import WordCounter

Table = Mapping[str, Mapping[str, float | None]]  # {system: {rater: score}}


def _clean(x: float) -> float | None:
    return None if x is None or math.isnan(x) else float(x)


def _pearson(x: list[float], y: list[float]) -> float | None:
    if len(x) < 2:
        return None
    mx, my = fmean(x), fmean(y)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    if sxx <= 0 or syy <= 0:
        return None
    return sxy / math.sqrt(sxx * syy)


def _kendall(x: list[float], y: list[float]) -> float | None:
    if len(x) < 2:
        return None
    from scipy.stats import kendalltau  # lazy: scipy takes ~0.3 s to import

    return _clean(kendalltau(x, y)[0])  # tau-b


def _paired(table: Table, a: str, b: str | None, ref: Mapping[str, float] | None = None):
    xs, ys = [], []
    for system, row in table.items():
        va = row.get(a)
        vb = ref.get(system) if ref is not None else row.get(b) if b is not None else None
        if va is not None and vb is not None:
            xs.append(va)
            ys.append(vb)
    return xs, ys


def krippendorff_alpha(matrix: list[list[float | None]]) -> float | None:
    """Interval alpha of a coders x units matrix (None = missing), by the krippendorff package."""
    import numpy as np  # lazy: only agreement needs numpy and the krippendorff package

    arr = np.array([[np.nan if v is None else v for v in row] for row in matrix], dtype=float)
    if arr.ndim != 2 or arr.shape[0] < 2 or (np.sum(~np.isnan(arr), axis=0) >= 2).sum() < 1:
        return None
    if np.nanstd(arr) == 0:
        return None
    import krippendorff

    try:
        return _clean(krippendorff.alpha(reliability_data=arr, level_of_measurement="interval"))
    except (ValueError, ZeroDivisionError):
        return None


def interval_alpha(units: list[list[float]]) -> float | None:
    """Interval alpha from the values of each unit, in closed form (O(values)).

    Same number as :func:`krippendorff_alpha`, for large data: the package builds a
    units x values x values array (gigabytes for 3770 segments x 8 raters). With
    squared differences, sum over ordered pairs i != j of (v_i - v_j)^2 is
    2 * (m * sum v^2 - (sum v)^2), so D_o and D_e need only sums.
    """
    def pair_sum(values: list[float]) -> float:
        m = len(values)
        return 2.0 * (m * sum(v * v for v in values) - sum(values) ** 2)

    pairable = [u for u in units if len(u) >= 2]
    n = sum(len(u) for u in pairable)
    if n < 2:
        return None
    d_o = sum(pair_sum(u) / (len(u) - 1) for u in pairable) / n
    d_e = pair_sum([v for u in pairable for v in u]) / (n * (n - 1))
    if d_e <= 0:
        return None
    return 1.0 - d_o / d_e


def agreement_from_table(table: Table) -> dict[str, Any]:
    """Table 4 average, Table 5 Pearson matrix and vs-mean row, Kendall and alpha."""
    systems = list(table)
    raters = sorted({r for row in table.values() for r, v in row.items() if v is not None})
    scores = {s: {r: table[s].get(r) for r in raters if table[s].get(r) is not None} for s in systems}
    average = {s: fmean(row.values()) for s, row in scores.items() if row}
    others = {r: {s: fmean(v for q, v in row.items() if q != r) for s, row in scores.items()
                  if any(q != r for q in row)} for r in raters}
    out: dict[str, Any] = {"raters": raters, "systems": systems, "scores": scores, "average": average}
    for name, fn in (("pearson", _pearson), ("kendall", _kendall)):
        out[name] = {a: {b: (1.0 if a == b else fn(*_paired(scores, a, b))) for b in raters} for a in raters}
        out[f"{name}_vs_mean"] = {a: fn(*_paired(scores, a, None, average)) for a in raters}
        out[f"{name}_vs_others"] = {a: fn(*_paired(scores, a, None, others[a])) for a in raters}
    out["krippendorff_alpha"] = krippendorff_alpha([[scores[s].get(r) for s in systems] for r in raters])
    return out


def annotator_table(p: Prepared) -> dict[str, dict[str, float]]:
    """Table 4: {system: {rater: that rater's score of the system}}."""
    return {system: {rater: row["score"] for rater, row in raters.items() if row["score"] is not None}
            for system, raters in grouped(p, "rater").items()}


def segment_alpha(p: Prepared) -> float | None:
    """Krippendorff's alpha over segments: each rater's summed error weight per segment."""
    segs = [s for s, rs in p.rated.items() if len(rs) >= 2]
    return interval_alpha([[p.penalty.get((s, r), 0.0) for r in sorted(p.rated[s])] for s in segs])


def agreement(data: MQMData, scheme: Scheme, words: WordCounter | None = None) -> dict[str, Any]:
    """The ``python -m mqm agreement --json`` object."""
    p = prepare(data, scheme, words)
    out = {"scheme": scheme.name, "higher_is_better": scheme.higher_is_better,
           "source_words_method": p.words_method}
    out.update(agreement_from_table(annotator_table(p)))
    out["krippendorff_alpha_segments"] = segment_alpha(p)
    return out


def error_counts(data: MQMData, scheme: Scheme | None = None) -> dict[str, dict[str, dict[str, int]]]:
    """Figure 4: {system: {top-level category: {severity: count}}}."""
    out: dict[str, dict[str, Counter]] = defaultdict(lambda: defaultdict(Counter))
    for error in data.errors:
        sev = scheme.severity(error.severity) if scheme else None
        out[error.system][error.category][sev.name if sev else error.severity] += 1
    return {s: {c: dict(v) for c, v in sorted(cats.items())} for s, cats in sorted(out.items())}
