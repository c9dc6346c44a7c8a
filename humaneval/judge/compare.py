"""A judge against human raters, per criterion: against each human, and against the human mean.

Against each human the figures are those of :func:`humaneval.rubric.agreement.rubric_agreement`
on the items both scored (simple agreement, Cohen's κ unweighted/linear/quadratic, ICC(3,1)).
Against the mean of the humans on each item (not an integer score, so no κ) they are
Spearman's ρ (how DITING correlates metrics with experts) and ICC(3,1).
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any, Hashable, Mapping, Sequence

from ..rubric.agreement import AGREEMENT_CRITERIA, icc3, rubric_agreement
from ..rubric.model import CRITERION_KEYS


def _value(row: Mapping[str, Any], key: str) -> float:
    return sum(row[k] for k in CRITERION_KEYS) if key == "sigma" else row[key]


def _spearman(xs: list[float], ys: list[float]) -> float | None:
    if len(xs) < 3 or len(set(xs)) < 2 or len(set(ys)) < 2:
        return None
    # scipy is imported here: only the comparison page needs it
    from scipy.stats import spearmanr

    rho = spearmanr(xs, ys).statistic
    return None if rho is None or not math.isfinite(rho) else float(rho)


def judge_vs_humans(rows: Sequence[Mapping[str, Any]], judge: Hashable) -> dict[str, Any]:
    """``rows``: ``{item, rater, sp, g_1, g_2}`` of the judge (rater ``judge``) and of humans."""
    humans = sorted({r["rater"] for r in rows if r["rater"] != judge}, key=str)
    judge_items = {r["item"] for r in rows if r["rater"] == judge}
    per_human = {}
    for human in humans:
        pair = [r for r in rows if r["rater"] in (judge, human) and r["item"] in judge_items]
        per_human[human] = rubric_agreement(pair)
    by_item: dict[Hashable, list[Mapping[str, Any]]] = defaultdict(list)
    judged: dict[Hashable, Mapping[str, Any]] = {}
    for r in rows:
        if r["rater"] == judge:
            judged[r["item"]] = r
        else:
            by_item[r["item"]].append(r)
    shared = [i for i in judged if by_item.get(i)]
    mean = {}
    for key in AGREEMENT_CRITERIA:
        xs = [float(_value(judged[i], key)) for i in shared]
        ys = [math.fsum(_value(h, key) for h in by_item[i]) / len(by_item[i]) for i in shared]
        icc, _ = icc3({i: {"judge": x, "humans": y} for i, x, y in zip(shared, xs, ys)})
        mean[key] = {"items": len(shared), "spearman": _spearman(xs, ys), "icc": icc}
    return _tidy({"humans": humans, "per_human": per_human, "human_mean": mean})


def _tidy(obj: Any) -> Any:
    """Floats rounded to 12 places with -0.0 made 0.0 (a page printing "-0.000" helps nobody)."""
    if isinstance(obj, float):
        return round(obj, 12) + 0.0
    if isinstance(obj, dict):
        return {k: _tidy(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_tidy(v) for v in obj]
    return obj
