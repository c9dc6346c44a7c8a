"""mt-metrics-eval's statistics against the toolkit's own test cases and values (its stats_test.py,
data_test.py and pce_test.py; the inputs and expected numbers are the toolkit's)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import kendalltau, pearsonr

from scoring.meta import toolkit as tk
from scoring.meta.permutation import (
    PermutationParams,
    assign_ranks,
    metric_clusters,
    pair_outcomes,
    pairs_permutation_test,
    permutation_test,
    rows_stat,
)
from scoring.meta.stats import pearson_rows

N = math.nan


def packed(num_sys: int, values) -> np.ndarray:
    """The toolkit's packed vector (systems' scores one after the other) as a systems x items matrix."""
    return np.array([N if v is None else v for v in values], dtype=float).reshape(num_sys, -1)


G6, M6 = packed(2, [1, 2, 3, 4, 5, 6]), packed(2, [2, 1, 4, 3, 3, 7])


def test_grouped_pearson_toolkit_values():
    assert tk.grouped(tk.pearson, G6, M6, "none")[0] == pytest.approx(0.776, abs=5e-4)
    assert tk.grouped(tk.pearson, G6, M6, "sys")[0] == pytest.approx(0.760, abs=5e-4)
    assert tk.grouped(tk.pearson, G6, M6, "item")[0] == pytest.approx(1.00, abs=5e-4)


def test_grouped_kendall_toolkit_values():
    assert tk.grouped(tk.kendall("b"), G6, M6, "none")[0] == pytest.approx(0.552, abs=5e-4)
    assert tk.grouped(tk.kendall("b"), G6, M6, "sys")[0] == pytest.approx(0.575, abs=5e-4)
    assert tk.grouped(tk.kendall("b"), G6, M6, "item")[0] == pytest.approx(1.00, abs=5e-4)
    assert tk.grouped(tk.kendall("c"), G6, M6, "none")[0] == pytest.approx(0.556, abs=5e-4)
    assert tk.grouped(tk.kendall("c"), G6, M6, "sys")[0] == pytest.approx(0.611, abs=5e-4)
    assert tk.grouped(tk.kendall("c"), G6, M6, "item")[0] == pytest.approx(1.00, abs=5e-4)


def test_grouping_leaves_out_missing_gold_and_nan_groups():
    g, m = packed(2, [1, None, 3, 4, 5, 6]), packed(2, [2, 1, 8, 3, 5, 6])
    expected = (pearsonr([1, 4], [2, 3])[0] + pearsonr([3, 6], [8, 6])[0]) / 2
    assert tk.grouped(tk.pearson, g, m, "item")[0] == pytest.approx(expected)
    assert tk.grouped(tk.pearson, g, m, "none")[0] == pytest.approx(pearsonr([1, 3, 4, 5, 6], [2, 8, 3, 5, 6])[0])
    # a constant metric row gives NaN, left out of the mean: only the second system counts
    assert tk.grouped(tk.pearson, packed(2, [1, 2, 3, 4, 5, 6]), packed(2, [2, 2, 2, 4, 5, 6]), "sys")[0] == \
        pytest.approx(1.0)


def test_kendall_like_toolkit_values():
    assert tk.kendall_like(np.array([10, 11, 100, 150.]), np.array([2, 1, 4, 3.])) == (3 / 5, 5)
    assert tk.kendall_like(np.array([10, 11, 100, 150.]), np.array([2, 1, 4, 3.]), 1) == (2 / 6, 6)
    assert tk.kendall_like_grouped(packed(1, [10, None, 100, 150]), packed(1, [2, 1, 4, 3]), "none", 1) == 1 / 3
    assert tk.kendall_like_grouped(packed(2, [10, 11, 100, 150]), packed(2, [2, 1, 4, 3]), "item", 1) == 1
    assert tk.kendall_like_grouped(packed(2, [10, None, 100, 150]), packed(2, [2, 1, 4, 3]), "item", 1) == 1


def test_agreement_toolkit_value():
    assert tk.agreement(np.array([1, 2, 3, 3, 4.]), np.array([1, 1, 2, 1, 2.])) == (5, 10)
    assert tk.pairwise_accuracy(np.array([1, 2, 3, 3, 4.]), np.array([1, 1, 2, 1, 2.])) == 0.5


def test_pairwise_accuracy_counts_human_ties_unlike_the_untied_variant():
    from scoring.meta.stats import pairwise_accuracy_untied

    human, metric = np.array([2, 2, 1.]), np.array([5, 3, 1.])
    assert tk.pairwise_accuracy(human, metric) == pytest.approx(2 / 3)       # the tie (a, b) counts, disagrees
    assert pairwise_accuracy_untied(human, metric) == (1.0, 2)                 # left out


def test_kendall_variants_toolkit_values():
    g, m = np.array([1, 2, 2, 3, 4.]), np.array([2, 1, 1.5, 5, 3])
    assert tk.kendall_variants(g, m, "b") == pytest.approx(0.316227766)
    assert tk.kendall_variants(g, m, "c") == pytest.approx(0.32)
    assert tk.kendall_variants(g, m, "23") == pytest.approx(0.2)
    assert tk.kendall_variants(g, m, "acc23") == pytest.approx(0.6)
    assert tk.kendall_variants(g, m, "acc23", epsilon=2) == pytest.approx(0.4)


def test_kendall_variants_b_c_match_scipy():
    g, m = np.array([7, 1, 2, 7, 4, 3, 2.]), np.array([4, 1, 3, 6, 1, 5, 6.])
    for variant in ("b", "c"):
        assert tk.kendall_variants(g, m, variant) == pytest.approx(kendalltau(g, m, variant=variant)[0])


def test_kendall_variants_23_counts():
    # the toolkit's argument order: gold x, metric y
    x, y = np.array([1, 1, 1, 2, 2, 3, 4.]), np.array([1, 1, 2, 2, 4, 3, 3.])
    assert tk.kendall_variants(x, y, "23") == pytest.approx((14 - 7) / 21)
    assert tk.kendall_variants(x, y, "acc23") == pytest.approx((13 + 1) / 21)
    assert tk.kendall_variants(x, y, "23", epsilon=0.1) == pytest.approx((14 - 7) / 21)


def test_kendall_variants_with_epsilon_introduces_metric_ties():
    # the toolkit's case: ties in the *metric* side within epsilon=1 (its x is the metric there)
    metric, gold = np.array([1, 1, 1, 2, 2, 3, 4.]), np.array([1, 1, 2, 2, 4, 3, 3.])
    c = tk.tau_counts(gold, metric, epsilon=1.0)
    assert (c.ties_metric + c.ties_both, c.ties_gold + c.ties_both, c.ties_both, c.dis) == (13, 3, 3, 1)
    con = 21 - 1 - 10 - 0 - 3
    assert tk.kendall_variants(gold, metric, "23", epsilon=1.0) == pytest.approx((con + 3 - 1 - 10) / 21)


def test_acc_eq_tie_calibration_toolkit_values():
    res = tk.acc_eq(packed(1, [1, 2, 2, 3, 4]), packed(1, [2, 1, 1.5, 5, 3]), "none")
    assert res.value == pytest.approx(0.7)
    gold, metric = [1, 2, 2, 3, 3, 4], [2, 1, 1.5, 5, 3, 2]
    for by, rows in (("none", [(gold, metric)]),
                     ("sys", [(gold[:3], metric[:3]), (gold[3:], metric[3:])]),
                     ("item", [(gold[i::3], metric[i::3]) for i in range(3)])):
        num_sys = 1 if by == "none" else 2
        res = tk.acc_eq(packed(num_sys, gold), packed(num_sys, metric), by)
        expected = np.mean([tk.kendall_variants(np.array(g, float), np.array(m, float), "acc23", res.threshold)
                            for g, m in rows])
        assert res.value == pytest.approx(expected), by
        # no threshold does better
        for eps in (0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0):
            other = np.mean([tk.kendall_variants(np.array(g, float), np.array(m, float), "acc23", eps)
                             for g, m in rows])
            assert other <= res.value + 1e-12


def test_acc_eq_skips_missing_gold():
    res = tk.acc_eq(packed(2, [1, 2, 3, 4, None, 6]), packed(2, [2, 1, 8, 3, 5, 6]), "sys")
    eps = res.threshold
    r1 = tk.kendall_variants(np.array([1, 2, 3.]), np.array([2, 1, 8.]), "acc23", eps)
    r2 = tk.kendall_variants(np.array([4, 6.]), np.array([3, 6.]), "acc23", eps)
    assert res.value == pytest.approx((r1 + r2) / 2)


def test_soft_pairwise_accuracy_toolkit_value():
    assert tk.soft_pairwise_accuracy(packed(2, [1, 2, 3, 2, 3, 4]), packed(2, [2, 2, 4, 1, 3, 5])) == \
        pytest.approx(0.872, abs=5e-4)


def test_pairwise_p_values_are_deterministic_and_sensible():
    scores = np.random.default_rng(0).random((5, 100))
    scores[0] += 0.5                                     # system 0 clearly better
    p1, p2 = tk.pairwise_p_values(scores), tk.pairwise_p_values(scores)
    np.testing.assert_array_equal(p1, p2)
    assert np.all(p1[0, 1:] < 0.01)
    assert np.isnan(p1[1, 0]) and np.isnan(np.diag(p1)).all()


def test_assign_ranks_toolkit_values():
    sig = np.array([0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0.]).reshape(4, 4)
    assert assign_ranks(sig, 0.5) == [1, 1, 1, 1]
    assert assign_ranks(sig, 1.0) == [1, 2, 3, 4]
    sig = np.array([0, 1, 0, 1, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0.]).reshape(4, 4)
    assert assign_ranks(sig, 0.5) == [1, 1, 2, 2]
    sig = np.array([0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0.]).reshape(4, 4)
    assert assign_ranks(sig, 0.5) == [1, 2, 2, 3]


GOLD8 = np.array([1, 2, 3, 4, 5, 5, 7, 8.])
METRIC1 = np.array([1, 2, 3, 3, 7, 3, 5, 5.])
METRIC2 = np.array([2, 1, 2, 6, 8, 8, 7, 6.])


def test_permutation_test_toolkit_properties():
    stat = rows_stat(pearson_rows, GOLD8)
    delta = pearsonr(METRIC2, GOLD8)[0] - pearsonr(METRIC1, GOLD8)[0]
    res = permutation_test(stat, METRIC2, METRIC1, PermutationParams(k=1000, block_size=1000))
    assert res.p_value > 0 and res.draws == 1000
    assert res.delta == pytest.approx(delta)
    early = permutation_test(stat, METRIC2, METRIC1, PermutationParams(k=1000, block_size=50, early_max=0.2))
    assert early.draws < 1000 and early.delta == pytest.approx(delta)
    # symmetric: p(A beats B) + p(B beats A) is about 1
    back = permutation_test(stat, METRIC1, METRIC2, PermutationParams(k=1000, block_size=1000))
    assert res.p_value + back.p_value == pytest.approx(1.0, abs=0.1)


def test_permutation_test_finds_a_clearly_better_metric():
    rng = np.random.default_rng(3)
    gold = rng.normal(size=400)
    good, bad = gold + rng.normal(scale=0.3, size=400), gold + rng.normal(scale=3.0, size=400)
    stat = rows_stat(pearson_rows, gold)
    assert permutation_test(stat, good, bad).p_value < 0.02
    assert permutation_test(stat, bad, good).p_value > 0.5
    clusters = metric_clusters({"good": pearsonr(gold, good)[0], "bad": pearsonr(gold, bad)[0],
                                "good2": pearsonr(gold, good)[0] - 1e-9},
                               lambda a, b: permutation_test(stat, {"good": good, "good2": good, "bad": bad}[a],
                                                             {"good": good, "good2": good, "bad": bad}[b]))
    assert clusters.order == ["good", "good2", "bad"] and clusters.ranks == {"good": 1, "good2": 1, "bad": 2}


def test_pairs_permutation_test_keeps_each_threshold():
    gold = packed(4, [1, 3, 3, 3, 1, 2, 1, 2])
    m1, m2 = packed(4, [2, 4, 6, 6, 2, 6, 3, 7]), packed(4, [1, 5, 4, 4, 4, 3, 2, 1])
    a1, a2 = tk.acc_eq(gold, m1, "item"), tk.acc_eq(gold, m2, "item")
    outcomes = pair_outcomes(gold, {"m1": (m1, a1.threshold), "m2": (m2, a2.threshold)}, "item")
    res = pairs_permutation_test(outcomes, "m2", "m1", PermutationParams(k=10, block_size=10))
    assert res.delta == pytest.approx(a2.value - a1.value) and res.draws == 10 and 0 <= res.p_value <= 1
