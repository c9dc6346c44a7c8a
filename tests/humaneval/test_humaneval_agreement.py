"""Gwet's AC1/AC2, Cohen's kappa and percent agreement: published values, hand computations, irrCAC."""

import math
import random

import pytest

from humaneval import cohen_kappa, gwet, gwet_ac1, gwet_ac2, percent_agreement, rating_table, weight_matrix
from tests.support.services import require_module

# LAIT paper, Table 21: two readers' binary judgments (human or machine translation)
# as printed: items, both said HT, both said MT, they differed, and Gwet's AC1.
LAIT_TABLE_21 = [
    (15, 2, 4, 9, -0.179),
    (15, 5, 1, 9, -0.120),
    (386, 191, 55, 140, 0.355),
    (194, 116, 24, 54, 0.546),
    (44, 28, 7, 9, 0.667),
]


def _two_raters(both_ht: int, both_mt: int, ht_mt: int, mt_ht: int) -> list[list[str]]:
    return ([["HT", "HT"]] * both_ht + [["MT", "MT"]] * both_mt + [["HT", "MT"]] * ht_mt
            + [["MT", "HT"]] * mt_ht)


@pytest.mark.parametrize("n, both_ht, both_mt, different, printed", LAIT_TABLE_21)
def test_lait_table_21(n, both_ht, both_mt, different, printed):
    # The table prints only how many items the readers disagreed on, not which reader
    # said HT. Gwet's AC1 does not need it: its chance agreement uses the two raters'
    # pooled category shares, in which each disagreement adds half an item to HT and
    # half to MT whichever way it goes. So every split of the disagreements, the even
    # one included, gives the printed value (Cohen's kappa, by contrast, would change).
    values = []
    for ht_mt in range(different + 1):
        table = _two_raters(both_ht, both_mt, ht_mt, different - ht_mt)
        assert len(table) == n
        values.append(gwet_ac1(table))
    assert round(values[different // 2], 3) == printed
    assert max(values) - min(values) < 1e-12
    kappas = {round(cohen_kappa(*zip(*_two_raters(both_ht, both_mt, b, different - b))), 12)
              for b in range(different + 1)}
    assert len(kappas) > 1


def test_ac1_by_hand_with_missing_ratings():
    ratings = {"i1": {"r1": "a", "r2": "a", "r3": "a"}, "i2": {"r1": "a", "r2": "b"},
               "i3": {"r1": "b", "r2": "b", "r3": "b"}, "i4": {"r3": "a"}}
    # pa over the items rated at least twice: (1 + 0 + 1) / 3 = 2/3.
    # pi_a = (1 + 1/2 + 0 + 1) / 4 = 5/8 (i4 counts here); pe = 2/(2*1) * 2 * 5/8 * 3/8 = 15/32.
    result = gwet(ratings)
    assert result.pa == pytest.approx(2 / 3, abs=1e-15)
    assert result.pe == pytest.approx(15 / 32, abs=1e-15)
    assert result.value == pytest.approx(19 / 51, abs=1e-15)
    assert (result.coefficient, result.items, result.raters) == ("ac1", 4, 3)
    # The same table as rows of values, with None for a missing rating.
    rows = [["a", "a", "a"], ["a", "b", None], ["b", "b", "b"], [None, None, "a"]]
    assert gwet_ac1(rows) == pytest.approx(19 / 51, abs=1e-15)
    assert percent_agreement(ratings) == pytest.approx(2 / 3, abs=1e-15)


def test_unused_category_changes_chance_agreement():
    rows = [[1, 1], [2, 2], [1, 2]]
    assert gwet_ac1(rows) != gwet_ac1(rows, categories=[1, 2, 3])
    # pi = (1/2, 1/2, 0), sum pi(1-pi) = 1/2; pe = sum(w)/(q(q-1)) * 1/2: 2/2 * 1/2 with the
    # two categories seen, 3/6 * 1/2 with three.
    assert gwet(rows).pe == pytest.approx(1 / 2, abs=1e-15)
    assert gwet(rows, categories=[1, 2, 3]).pe == pytest.approx(1 / 4, abs=1e-15)


def test_weights():
    w = weight_matrix([1, 2, 3, 4, 5], "quadratic")
    assert w[0][2] == pytest.approx(0.75) and w[0][4] == 0 and w[2][2] == 1
    assert weight_matrix([1, 2, 3, 4, 5], "linear")[0][2] == pytest.approx(0.5)
    assert weight_matrix([1, 2, 3], "identity") == [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    # Labels take their positions in the order given.
    assert weight_matrix(["low", "mid", "high"], "linear")[0][1] == pytest.approx(0.5)
    assert gwet_ac2([["low", "mid"], ["high", "high"]], "linear", ["low", "mid", "high"]) == pytest.approx(
        gwet_ac2([[1, 2], [3, 3]], "linear", [1, 2, 3]))
    with pytest.raises(ValueError, match="numeric ratings or an ordered list"):
        gwet_ac2([["low", "mid"], ["high", "high"]], "linear")
    with pytest.raises(ValueError, match="unknown weights"):
        gwet([[1, 2]], "cubic")


def test_ac2_identity_is_ac1_and_default_is_quadratic():
    rows = [[1, 2, 3], [4, 4, 5], [2, 2, None], [5, 3, 1]]
    assert gwet(rows, "identity").value == gwet_ac1(rows)
    assert gwet_ac2(rows) == gwet(rows, "quadratic").value
    assert gwet(rows, "quadratic").coefficient == "ac2"


def test_degenerate_inputs():
    assert gwet_ac1([[1, 1], [1, 1]]) == 1.0  # one category: every pair agrees
    with pytest.raises(ValueError, match="two or more raters"):
        gwet_ac1([[1, None], [None, 2]])
    with pytest.raises(ValueError, match="no ratings"):
        gwet_ac1([[None, None]])
    with pytest.raises(ValueError, match="not among the categories"):
        gwet_ac1([[1, 7]], categories=[1, 2, 3])
    with pytest.raises(ValueError, match="twice"):
        rating_table([("i", "r", 1), ("i", "r", 2)])
    assert rating_table([("i", "r", 1), ("i", "r", 1), ("i", "s", None)]) == {"i": {"r": 1}}


def test_cohen_kappa_by_hand():
    # 50 items: both "yes" 20, both "no" 15, yes/no 5, no/yes 10.
    a = ["yes"] * 25 + ["no"] * 25
    b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    # pa = 35/50 = 0.7; pe = 25/50 * 30/50 + 25/50 * 20/50 = 0.5; kappa = 0.4.
    assert cohen_kappa(a, b) == pytest.approx(0.4, abs=1e-15)
    # Items missing from either rater are left out.
    assert cohen_kappa([*a, None, "yes"], [*b, "no", None]) == pytest.approx(0.4, abs=1e-15)
    assert math.isnan(cohen_kappa(["x", "x"], ["x", "x"]))
    with pytest.raises(ValueError, match="rated 2 and 1"):
        cohen_kappa([1, 2], [1])


def test_cohen_kappa_weighted_by_hand():
    # Three categories, linear weights (1, .5, 0): pairs (1,1) (2,3) (3,3) (1,2).
    a, b = [1, 2, 3, 1], [1, 3, 3, 2]
    # pa = (1 + .5 + 1 + .5) / 4 = .75; marginals a = (.5, .25, .25), b = (.25, .25, .5);
    # pe = sum w_kl a_k b_l = .5*(.25 + .5*.25 + 0) + .25*(.5*.25 + .25 + .5*.5) + .25*(0 + .5*.25 + .5) = .5
    assert cohen_kappa(a, b, "linear") == pytest.approx(0.5, abs=1e-15)


# irrCAC 0.4.4 (Gwet's coefficients in Python), run once on these data sets: both to 1e-12.
# Each data set: random.Random(seed), 5-25 items, 2-5 raters, 3-5 categories, a quarter missing.
IRRCAC_GWET = [  # seed, AC1, AC2 linear, AC2 quadratic (categories 1..q given)
    (0, -0.03345101081260776, 0.03591613229652978, 0.10491476605759388),
    (1, -0.30997304582210244, -0.33966309341500756, -0.33439306358381526),
    (2, 0.136, 0.18490566037735837, 0.22857142857142837),
    (3, -0.042461367116803636, -0.15059111292295158, -0.26907502977372066),
    (4, 0.03596609928067795, 0.14300629937702294, 0.24530356656683933),
    (5, 0.01636930018565285, 0.07869765152796829, 0.17480993685629873),
]
IRRCAC_COHEN = [  # seed, kappa, linear, quadratic (irrCAC's Conger kappa, which is Cohen's for 2 raters)
    (100, 0.7647058823529413, 0.8823529411764705, 0.95),
    (101, 0.19290465631929052, 0.3724137931034483, 0.5656324582338905),
    (102, 0.37500000000000006, 0.6666666666666667, 0.8484848484848487),
    (103, 0.3043478260869565, 0.5811518324607332, 0.7911227154047006),
]


def _random_ratings(seed: int) -> tuple[list[list[int | None]], int]:
    rng = random.Random(seed)
    n, r, q = rng.randint(5, 25), rng.randint(2, 5), rng.randint(3, 5)
    return [[rng.randint(1, q) if rng.random() > 0.25 else None for _ in range(r)] for _ in range(n)], q


def _random_pairs(seed: int) -> tuple[list[int], list[int], int]:
    rng = random.Random(seed)
    n, q = rng.randint(8, 30), rng.randint(3, 5)
    a = [rng.randint(1, q) for _ in range(n)]
    return a, [min(q, max(1, x + rng.choice([-1, 0, 0, 1]))) for x in a], q


@pytest.mark.parametrize("seed, ac1, linear, quadratic", IRRCAC_GWET)
def test_gwet_matches_recorded_irrcac(seed, ac1, linear, quadratic):
    rows, q = _random_ratings(seed)
    cats = list(range(1, q + 1))
    for weights, expected in (("identity", ac1), ("linear", linear), ("quadratic", quadratic)):
        assert gwet(rows, weights, cats).value == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("seed, kappa, linear, quadratic", IRRCAC_COHEN)
def test_cohen_matches_recorded_irrcac(seed, kappa, linear, quadratic):
    a, b, q = _random_pairs(seed)
    for weights, expected in (("identity", kappa), ("linear", linear), ("quadratic", quadratic)):
        assert cohen_kappa(a, b, weights, list(range(1, q + 1))) == pytest.approx(expected, abs=1e-12)


@pytest.mark.filterwarnings("ignore::Warning")
def test_against_irrcac_live():
    """Many random tables against irrCAC itself, when it is installed.

    irrCAC 0.4.4 pins scipy==1.12.0 and pandas<3, so it is not a dependency of
    this project (``pip install --no-deps irrCAC==0.4.4`` to run this). Under
    pandas 3 it counts NaN as a category when it infers the categories, so they
    are always passed explicitly here.
    """
    irr = require_module("irrCAC.raw", "irrCAC not installed (pip install --no-deps irrCAC==0.4.4)")
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(150):
        n, r, q = int(rng.integers(2, 30)), int(rng.integers(2, 6)), int(rng.integers(2, 6))
        m = rng.integers(1, q + 1, size=(n, r)).astype(float)
        m[rng.random((n, r)) < 0.25] = np.nan
        for weights in ("identity", "linear", "quadratic"):
            try:
                mine = gwet(m.tolist(), weights)
            except ValueError:
                continue  # no item rated twice
            ref = irr.CAC(pd.DataFrame(m), weights=weights, categories=[float(c) for c in mine.categories],
                          digits=20).gwet()["est"]["coefficient_value"]
            assert mine.value == pytest.approx(float(ref), abs=1e-12)
            checked += 1
        if r == 2:
            complete = m[~np.isnan(m).any(axis=1)]
            cats = list(range(1, q + 1))
            df = pd.DataFrame(complete)
            for weights in ("identity", "linear", "quadratic"):
                if len(complete) < 2:  # irrCAC's variance divides by n - 1
                    continue
                mine_k = cohen_kappa(complete[:, 0].tolist(), complete[:, 1].tolist(), weights, cats)
                if math.isnan(mine_k):
                    continue
                ref = irr.CAC(df, weights=weights, categories=[float(c) for c in cats],
                              digits=20).conger()["est"]["coefficient_value"]
                assert mine_k == pytest.approx(float(ref), abs=1e-12)
                checked += 1
    # Labels, not numbers: AC1 compares them for equality only.
    labels = [["a", "b", None], ["b", "b", "b"], ["c", None, "a"], ["a", "a", "a"]]
    ref = irr.CAC(pd.DataFrame(labels).fillna(np.nan), categories=["a", "b", "c"], digits=20).gwet()
    assert gwet_ac1(labels) == pytest.approx(float(ref["est"]["coefficient_value"]), abs=1e-12)
    assert checked > 300


def test_dataframe_rows_are_items():
    import pandas as pd

    rows = [[1, 2, None], [3, 3, 3], [2, None, 2]]
    frame = pd.DataFrame(rows, columns=["r1", "r2", "r3"])  # NaN where None was
    assert gwet(frame, "quadratic").value == gwet(rows, "quadratic").value
