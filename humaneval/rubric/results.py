"""Rubric results: per-system means per sub-criterion, Σ per dimension and the overall average Σ.

As DITING's Table 7 is built:

* a sub-criterion's mean is on the 0-2 scale: first the mean over an item's raters, then the mean
  over the items (phenomenon × system), so an item scored by three raters weighs as much as one
  scored by one;
* a dimension's Σ = S + G1 + G2 of those means (0-6);
* the overall average Σ is the unweighted mean of the dimension Σs (DITING: the six), whatever
  the number of items per dimension. A system with no scores in some dimension gets the mean of
  the dimensions it has, and ``complete`` false.

Response rows are ``{item, document, segment, system, rater, dimension, sp, g_1, g_2}`` (plus
optional ``refusal`` and ``comment``); :func:`rubric_results` returns the results JSON::

    {"protocol": "rubric", "rubric": NAME,
     "systems": [{"system", "overall", "complete", "dimensions": {dim: {"sp", "g_1", "g_2", "sigma", "n"}}}],
     "items": [{"item", "document", "segment", "system", "rater", "dimension", "sp", "g_1", "g_2", "sigma"}],
     "agreement": {criterion: {...}}}      (see :mod:`~humaneval.rubric.agreement`)

Systems come best first (overall, then name); ``n`` counts a dimension's items.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .agreement import rubric_agreement
from .model import CRITERION_KEYS, Rubric, load_rubric

ITEM_FIELDS = ("item", "document", "segment", "system", "rater", "dimension", *CRITERION_KEYS)


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def dimension_means(rows: Iterable[Mapping[str, Any]]) -> dict[str, float | int]:
    """{sp, g_1, g_2, sigma, n} of one system's rows in one dimension (item means first)."""
    by_item: dict[Any, list[Mapping[str, Any]]] = {}
    for row in rows:
        by_item.setdefault(row["item"], []).append(row)
    out: dict[str, float | int] = {}
    for key in CRITERION_KEYS:
        out[key] = _mean([_mean([r[key] for r in item_rows]) for item_rows in by_item.values()])
    out["sigma"] = sum(out[k] for k in CRITERION_KEYS)
    out["n"] = len(by_item)
    return out


def overall(dimensions: Mapping[str, Mapping[str, float]]) -> float:
    """The unweighted mean of the dimension Σs."""
    return _mean([d["sigma"] for d in dimensions.values()])


def system_tables(rows: Iterable[Mapping[str, Any]], rubric: Rubric | None = None) -> list[dict[str, Any]]:
    """One table per system (best first): its dimension means, Σs and overall average Σ."""
    rubric = rubric or load_rubric()
    grouped: dict[str, dict[str, list[Mapping[str, Any]]]] = {}
    for row in rows:
        grouped.setdefault(row["system"], {}).setdefault(row["dimension"], []).append(row)
    tables = []
    for system, dims in grouped.items():
        ordered = [k for k in rubric.keys if k in dims] + sorted(k for k in dims if k not in rubric.keys)
        means = {k: dimension_means(dims[k]) for k in ordered}
        tables.append({"system": system, "overall": overall(means),
                       "complete": all(k in dims for k in rubric.keys), "dimensions": means})
    tables.sort(key=lambda t: (-t["overall"], t["system"]))
    return tables


def item_rows(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The response rows in the results JSON's item shape (with Σ)."""
    out = []
    for row in rows:
        item = {k: row.get(k) for k in ITEM_FIELDS}
        item["sigma"] = sum(row[k] for k in CRITERION_KEYS)
        out.append(item)
    return out


def rubric_results(rows: Sequence[Mapping[str, Any]], rubric: Rubric | None = None, *,
                   with_agreement: bool = True) -> dict[str, Any]:
    """The results JSON (module doc) from response rows."""
    rubric = rubric or load_rubric()
    rows = list(rows)
    out: dict[str, Any] = {"protocol": "rubric", "rubric": rubric.name,
                           "systems": system_tables(rows, rubric), "items": item_rows(rows)}
    if with_agreement:
        out["agreement"] = rubric_agreement(rows, rubric.scale)
    return out
