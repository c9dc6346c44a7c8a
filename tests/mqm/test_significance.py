"""Paired Wilcoxon signed-rank tests between systems and the clusters of a human ranking."""

from pathlib import Path

import pytest

import mqm
from mqm.significance import clusters, wilcoxon_pairs

FIXTURES = Path(__file__).parent / "fixtures"


def test_exact_p_values_by_hand():
    base = {f"doc{i}": float(i) for i in range(6)}
    # A beats B on all 6 documents: W- = 0, exact two-sided p = 2 / 2**6 = 0.03125
    up = {u: v + 10 + i for i, (u, v) in enumerate(base.items())}
    # differences 1, -2, 3, 4, 5, 6: W- = 2; P(W <= 2) = |{}, {1}, {2}| / 64 -> p = 6/64
    mixed = {u: v + d for (u, v), d in zip(base.items(), [1, -2, 3, 4, 5, 6], strict=True)}
    res = {(r["a"], r["b"]): r for r in wilcoxon_pairs({"A": up, "B": base, "C": mixed}, higher_is_better=True)}
    ab = res[("A", "B")]
    assert (ab["n"], ab["statistic"], ab["better"], ab["significant"]) == (6, 0.0, "A", True)
    assert ab["p_value"] == pytest.approx(2 / 64)
    bc = res[("B", "C")]
    assert bc["statistic"] == 2.0 and bc["p_value"] == pytest.approx(6 / 64)
    assert bc["better"] == "C" and not bc["significant"]


def test_only_shared_units_are_paired_and_ties_give_p_1():
    res = wilcoxon_pairs({"A": {"u1": 1.0, "u2": 2.0, "x": 9.0}, "B": {"u1": 1.0, "u2": 2.0, "y": 0.0}})
    assert res[0]["n"] == 2 and res[0]["p_value"] == 1.0 and res[0]["better"] is None


def test_lower_is_better_direction_on_mqm_data():
    data = mqm.load(FIXTURES / "google_small.tsv")
    (row,) = wilcoxon_pairs(data, mqm.load_scheme("google-mqm"), unit="segment")
    # per-segment X - Y: 2.55 - 3, 25 - 0, 3 - 0 -> ranks 1-, 3+, 2+: W = 1, p = 2 * 2/8
    assert (row["a"], row["b"], row["n"]) == ("X", "Y", 3)
    assert row["statistic"] == 1.0 and row["p_value"] == pytest.approx(0.5)
    assert row["better"] == "Y"  # lower MQM is better under google-mqm


def test_clusters_split_only_where_every_pair_across_is_significant():
    pairs = [
        {"a": "A", "b": "B", "better": "A", "significant": True},
        {"a": "A", "b": "C", "better": "A", "significant": True},
        {"a": "B", "b": "C", "better": "B", "significant": False},
        {"a": "A", "b": "D", "better": "A", "significant": True},
        {"a": "B", "b": "D", "better": "B", "significant": True},
        {"a": "C", "b": "D", "better": "C", "significant": True},
    ]
    assert clusters(["A", "B", "C", "D"], pairs) == [["A"], ["B", "C"], ["D"]]
    pairs[4]["significant"] = False  # B ~ D: C and D can no longer be split from B
    assert clusters(["A", "B", "C", "D"], pairs) == [["A"], ["B", "C", "D"]]
