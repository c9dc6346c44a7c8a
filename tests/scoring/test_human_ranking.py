"""The official human ranking on constructed unit scores with known answers, under both paired tests."""

from __future__ import annotations

import pytest

from scoring.human_ranking import paired_p_value, rank_systems

N = 12
TESTS = ("wilcoxon", "ar")


def _clear_world():
    """A beats everyone on every unit, B and C alternate around each other, D is last on every unit."""
    return {"A": {u: 3.0 for u in range(N)},
            "B": {u: 2.0 + (0.5 if u % 2 else -0.5) for u in range(N)},
            "C": {u: 1.99 + (-0.5 if u % 2 else 0.5) for u in range(N)},
            "D": {u: 0.0 for u in range(N)}}


@pytest.mark.parametrize("test", TESTS)
def test_clusters_and_rank_ranges_known_answer(test):
    out = rank_systems(_clear_world(), test=test)
    rows = [(r["system"], r["wins"], r["losses"], r["rank_low"], r["rank_high"], r["rank_range"], r["cluster"],
             r["cluster_rank_range"]) for r in out["rows"]]
    assert rows == [("A", 3, 0, 1, 1, "1", 1, [1, 1]),
                    ("B", 1, 1, 2, 3, "2–3", 2, [2, 3]),
                    ("C", 1, 1, 2, 3, "2–3", 2, [2, 3]),
                    ("D", 0, 3, 4, 4, "4", 3, [4, 4])]
    bc = next(p for p in out["pairs"] if {p["a"], p["b"]} == {"B", "C"})
    assert not bc["significant"] and bc["p_value"] > 0.1
    assert out["test"] == test


@pytest.mark.parametrize("test", TESTS)
def test_rank_ranges_differ_from_cluster_spans_known_answer(test):
    """A > C significantly, A ~ B and B ~ C: one WMT cluster, but ranges 1–2, 1–3, 2–3 (losses+1 .. N-wins)."""
    units = {"A": {u: 2.0 for u in range(N)},
             "B": {u: 2.0 + (1.0 if u % 2 else -1.6) for u in range(N)},
             "C": {u: 1.4 + (1.0 if u % 3 == 0 else -0.8) for u in range(N)}}
    out = rank_systems(units, test=test)
    assert [(r["system"], r["rank_range"], r["cluster"], r["cluster_rank_range"]) for r in out["rows"]] == [
        ("A", "1–2", 1, [1, 3]), ("B", "1–3", 1, [1, 3]), ("C", "2–3", 1, [1, 3])]
    assert [(p["a"], p["b"], p["significant"]) for p in out["pairs"]] == [
        ("A", "B", False), ("A", "C", True), ("B", "C", False)]
    # the older rank-range rule cuts nowhere either: the ranges overlap
    assert {r["cluster"] for r in rank_systems(units, test=test, method="rank_range")["rows"]} == {1}


def test_p_values_known_answers():
    xs, ys = [float(i + 1) for i in range(8)], [0.0] * 8
    # every difference positive: the exact two-sided p is 2 / 2**8
    assert paired_p_value(xs, ys, test="wilcoxon") == pytest.approx(2 / 256)
    assert paired_p_value(xs, ys, test="ar", n_samples=20000) == pytest.approx(2 / 256, abs=0.002)
    assert paired_p_value([1.0, 2.0], [1.0, 2.0], test="ar") == 1.0
    assert paired_p_value([1.0], [0.0]) is None


def test_lower_is_better_and_given_system_scores():
    """MQM-style: the given system scores order the ranking (lower is better); unit scores decide significance."""
    units = {"good": {u: -0.0 for u in range(N)}, "bad": {u: -5.0 for u in range(N)}}
    out = rank_systems(units, scores={"good": 0.5, "bad": 9.0}, higher_is_better=False,
                       kinds={"good": "reference"})
    assert [r["system"] for r in out["rows"]] == ["good", "bad"]
    assert out["rows"][0]["kind"] == "reference" and out["rows"][0]["score"] == 0.5
    assert out["pairs"][0]["better"] == "good" and out["pairs"][0]["significant"]


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="unknown significance test"):
        rank_systems(_clear_world(), test="t-test")
    with pytest.raises(ValueError, match="no system score for B"):
        rank_systems({"A": {1: 1.0}, "B": {1: 2.0}}, scores={"A": 1.0})
    with pytest.raises(ValueError, match="alpha"):
        rank_systems(_clear_world(), alpha=1.5)
    with pytest.raises(ValueError, match="3 scores against 2"):
        paired_p_value([1.0, 2.0, 3.0], [1.0, 2.0])


def test_unpaired_rank_sum_needs_no_shared_units():
    """Mann-Whitney compares all units of each side: systems scored on disjoint units are still ranked."""
    from scipy.stats import mannwhitneyu

    units = {"A": {("a", u): 80.0 + u for u in range(N)},        # no unit in common with B or C
             "B": {("b", u): 60.0 + u for u in range(N)},
             "C": {("c", u): 59.5 + u for u in range(N)}}
    out = rank_systems(units, test="mannwhitney")
    assert out["test_name"] == "unpaired Wilcoxon rank-sum (Mann–Whitney U) test"
    assert [(r["system"], r["rank_range"], r["cluster"]) for r in out["rows"]] == [
        ("A", "1", 1), ("B", "2–3", 2), ("C", "2–3", 2)]
    ab = next(p for p in out["pairs"] if (p["a"], p["b"]) == ("A", "B"))
    assert ab["n"] == 2 * N and ab["significant"]
    assert ab["p_value"] == pytest.approx(mannwhitneyu(list(units["A"].values()), list(units["B"].values()),
                                                       alternative="two-sided").pvalue)
    # the paired tests find no shared unit, so nothing is significant and one cluster remains
    assert {r["cluster"] for r in rank_systems(units, test="wilcoxon")["rows"]} == {1}


def test_unpaired_p_value_known_answers():
    from scoring.human_ranking import unpaired_p_value

    # 4 against 4, no overlap: the exact two-sided p is 2 / C(8, 4) = 2 / 70
    assert unpaired_p_value([5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0]) == pytest.approx(2 / 70)
    assert unpaired_p_value([3.0, 3.0], [3.0]) == 1.0
    assert unpaired_p_value([], [1.0]) is None
    with pytest.raises(ValueError, match="unknown unpaired test"):
        unpaired_p_value([1.0], [2.0], test="wilcoxon")
    with pytest.raises(ValueError, match="unknown paired test"):
        paired_p_value([1.0, 2.0], [2.0, 3.0], test="mannwhitney")
