"""Known answers for the BWS counting scores, split-half reliability, intervals and the ranking."""

import math

import numpy as np
import pytest

from humaneval.bws import (
    Judgment,
    bws_ranking,
    counts,
    item_scores,
    scores_with_intervals,
    spearman_brown,
    split_half,
)
from humaneval.bws.scores import split_halves

V = ("A", "B", "C", "D")
SMALL = [Judgment("p1", "ann1", V, "A", "D"), Judgment("p1", "ann2", V, "A", "C"),
         Judgment("p2", "ann1", V, "B", "D"), Judgment("p2", "ann2", V, "A", "D")]
# Each split puts one judgment of p1 and one of p2 in each half, so it is one of two partitions:
#   {p1/ann1, p2/ann1} | {p1/ann2, p2/ann2}: halves' (best - worst) A,B,C,D = 1,1,0,-2 and 2,0,-1,-1;
#     ranks 3.5,3.5,2,1 and 4,3,1.5,1.5, Spearman r = 4 / 4.5 = 8/9;
#   {p1/ann1, p2/ann2} | {p1/ann2, p2/ann1}: 2,0,0,-2 and 1,1,-1,-1; r = 3 / sqrt(4.5 * 4) = 1/sqrt(2).
R1, R2 = 8 / 9, 1 / math.sqrt(2)


def test_counting_scores():
    table = counts(SMALL)
    assert {v: (s.best, s.worst, s.appearances, s.score) for v, s in table.items()} == {
        "A": (3, 0, 4, 0.75), "B": (1, 0, 4, 0.25), "C": (0, 1, 4, -0.25), "D": (0, 3, 4, -0.75)}


def test_unequal_appearances():
    js = [Judgment("x", "a", ("A", "B"), "A", "B"), Judgment("y", "a", ("A", "B", "C"), "C", "A")]
    table = counts(js)
    assert table["A"].score == 0.0 and table["B"].score == -0.5 and table["C"].score == 1.0
    assert table["C"].appearances == 1


def test_spearman_brown():
    assert spearman_brown(0.5) == pytest.approx(2 / 3)
    assert spearman_brown(1.0) == 1.0
    with pytest.raises(ValueError):
        spearman_brown(-1.0)


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 12345])
def test_split_half_known_answer(seed):
    n = 40
    result = split_half(SMALL, n_splits=n, seed=seed)
    assert (result.splits, result.defined, result.correlation) == (n, n, "spearman")
    total = result.mean_r * n   # = k * R1 + (n - k) * R2 for a whole number k of first partitions
    k = (total - n * R2) / (R1 - R2)
    assert k == pytest.approx(round(k), abs=1e-9) and 0 <= round(k) <= n
    assert result.value == pytest.approx(2 * result.mean_r / (1 + result.mean_r))


def test_split_half_converges_to_the_mean_of_both_partitions():
    result = split_half(SMALL, n_splits=4000, seed=1)
    mean = (R1 + R2) / 2
    assert result.mean_r == pytest.approx(mean, abs=0.01)
    assert result.value == pytest.approx(2 * mean / (1 + mean), abs=0.01)


def test_split_half_perfect_agreement_is_one():
    js = [Judgment(f"p{i}", f"a{k}", V, "A", "D") for i in range(3) for k in range(2)]
    js += [Judgment(f"q{i}", f"a{k}", ("B", "C", "D"), "B", "C") for i in range(3) for k in range(2)]
    result = split_half(js, n_splits=10, seed=0)
    assert result.value == pytest.approx(1.0) and result.defined == 10


def test_split_halves_deals_each_tuple_into_both_halves():
    rng = np.random.default_rng(0)
    js = [Judgment(f"p{i}", f"a{k}", V, "A", "D") for i in range(5) for k in range(3)]
    a, b = split_halves(js, rng)
    assert abs(len(a) - len(b)) <= 1 and sorted(a + b, key=id) == sorted(js, key=id)
    for i in range(5):
        assert any(j.item == f"p{i}" for j in a) and any(j.item == f"p{i}" for j in b)


def test_split_half_undefined_with_one_judgment():
    result = split_half(SMALL[:1], n_splits=3)
    assert result.value is None and result.defined == 0 and result.splits == 3


def test_split_half_pearson_and_bad_options():
    assert split_half(SMALL, n_splits=5, correlation="pearson").correlation == "pearson"
    with pytest.raises(ValueError):
        split_half(SMALL, n_splits=0)
    with pytest.raises(ValueError):
        split_half(SMALL, correlation="kendall")


def test_intervals_contain_the_score():
    table = scores_with_intervals(SMALL, n_resamples=500, seed=1)
    for s in table.values():
        assert s.low <= s.score <= s.high
    assert table["A"].high <= 1.0 and table["D"].low >= -1.0
    assert scores_with_intervals(SMALL[:1])["A"].low is None   # one judgment: no interval


def test_item_scores_and_ranking():
    assert item_scores(SMALL)["A"] == {"p1": 1.0, "p2": 0.5}
    js = [Judgment(f"p{i}", f"a{k}", V, "A", "D") for i in range(8) for k in range(2)]
    ranking = bws_ranking(js)
    assert [r["system"] for r in ranking["rows"]][0] == "A" and ranking["rows"][-1]["system"] == "D"
    assert ranking["rows"][0]["score"] == 1.0 and ranking["rows"][0]["units"] == 8
    a_vs_d = next(p for p in ranking["pairs"] if {p["a"], p["b"]} == {"A", "D"})
    assert a_vs_d["significant"] and a_vs_d["n"] == 8   # paired on the eight items
    b_vs_c = next(p for p in ranking["pairs"] if {p["a"], p["b"]} == {"B", "C"})
    assert not b_vs_c["significant"]    # both always 0: one cluster
