"""Agreement per sub-criterion against scikit-learn, pingouin and hand-computed values."""

import os
import random

import pytest

from humaneval import cohen_kappa as own_kappa
from humaneval.rubric import criterion_agreement, icc3, kappa, rubric_agreement

os.environ.setdefault("OUTDATED_IGNORE", "1")

# Two raters, four items: (0,0) (1,2) (2,2) (1,1).
TWO = {1: {"a": 0, "b": 0}, 2: {"a": 1, "b": 2}, 3: {"a": 2, "b": 2}, 4: {"a": 1, "b": 1}}


def test_hand_computed_two_raters():
    got = criterion_agreement(TWO, [0, 1, 2])
    # observed 3/4; margins a = (1/4, 2/4, 1/4), b = (1/4, 1/4, 2/4): pe = 1/16 + 2/16 + 2/16 = 5/16
    assert got["simple_agreement"] == 0.75
    assert got["kappa"] == pytest.approx((0.75 - 5 / 16) / (1 - 5 / 16))
    # linear disagreement weights |i-j|: observed 1/4 (one item one apart), expected 14/16
    assert got["kappa_linear"] == pytest.approx(1 - (1 / 4) / (14 / 16))
    # quadratic (i-j)^2: observed 1/4, expected 1/16 + 4/8 + 1/8 + 1/8 + 2/16 + 1/16 = 20/16
    assert got["kappa_quadratic"] == pytest.approx(1 - (1 / 4) / (20 / 16))
    # ICC(3,1) = (MSR - MSE) / (MSR + (k-1) MSE): MSR = 4.375/3, MSE = 0.375/3
    assert got["icc"] == pytest.approx((4.375 / 3 - 0.125) / (4.375 / 3 + 0.125))
    assert (got["items"], got["raters"], got["pairs"]) == (4, 2, 4)


@pytest.mark.parametrize("seed", range(5))
def test_against_the_libraries(seed):
    from sklearn.metrics import cohen_kappa_score

    rng = random.Random(seed)
    a = [rng.choice((0, 1, 2)) for _ in range(40)]
    b = [x if rng.random() < 0.6 else rng.choice((0, 1, 2)) for x in a]
    table = {i: {"r1": x, "r2": y} for i, (x, y) in enumerate(zip(a, b))}
    got = criterion_agreement(table, [0, 1, 2])
    assert got["kappa"] == pytest.approx(cohen_kappa_score(a, b))
    assert got["kappa_linear"] == pytest.approx(cohen_kappa_score(a, b, weights="linear"))
    assert got["kappa_quadratic"] == pytest.approx(cohen_kappa_score(a, b, weights="quadratic"))
    # the package's own kappa (weights on values: on 0/1/2 the same as on ranks)
    assert got["kappa_quadratic"] == pytest.approx(own_kappa(a, b, "quadratic"))
    assert got["kappa_linear"] == pytest.approx(own_kappa(a, b, "linear"))
    assert got["simple_agreement"] == pytest.approx(sum(x == y for x, y in zip(a, b)) / 40)
    import pandas as pd
    import pingouin

    frame = pd.DataFrame([(i, r, v) for i, row in table.items() for r, v in row.items()],
                         columns=["t", "r", "s"])
    want = pingouin.intraclass_corr(frame, targets="t", raters="r", ratings="s").set_index("Type").loc["ICC3", "ICC"]
    assert got["icc"] == pytest.approx(want)


def test_unused_scale_point_still_a_category():
    # raters used only 1 and 2; with labels 0,1,2 the linear weights see the 0 as a rank
    a, b = [1, 2, 2, 1, 2], [1, 2, 1, 1, 2]
    from sklearn.metrics import cohen_kappa_score

    assert kappa(a, b, "linear", [0, 1, 2]) == pytest.approx(cohen_kappa_score(a, b, weights="linear",
                                                                                 labels=[0, 1, 2]))


def test_three_raters_average_pairs_and_icc_on_complete_items():
    table = {1: {"a": 2, "b": 2, "c": 1}, 2: {"a": 0, "b": 1, "c": 0}, 3: {"a": 1, "b": 1, "c": 1},
             4: {"a": 2, "b": 2}}  # item 4 incomplete: left out of ICC, in the a-b pair
    got = criterion_agreement(table, [0, 1, 2])
    pair_agreements = [3 / 4, 2 / 3, 1 / 3]  # a-b over 4 items, a-c and b-c over 3
    assert got["simple_agreement"] == pytest.approx(sum(pair_agreements) / 3)
    value, left_out = icc3(table)
    assert left_out == [4] and value == got["icc"]
    assert got["pairs"] == 4 + 3 + 3


def test_undefined_figures_are_none():
    same = {1: {"a": 2, "b": 2}, 2: {"a": 2, "b": 2}}
    got = criterion_agreement(same, [0, 1, 2])
    assert got["simple_agreement"] == 1.0 and got["kappa"] is None and got["icc"] is None
    alone = criterion_agreement({1: {"a": 1}}, [0, 1, 2])
    assert alone["items"] == 0 and alone["kappa"] is None and alone["simple_agreement"] is None
    with pytest.raises(ValueError, match="weights"):
        kappa([1], [1], "cubic")


def test_rubric_agreement_includes_sigma():
    rows = [{"item": i, "rater": r, "sp": s, "g_1": g, "g_2": g}
            for i, (r, s, g) in enumerate([("a", 2, 1), ("b", 2, 1), ("a", 1, 1), ("b", 1, 0)])]
    for row in rows:
        row["item"] //= 2
    got = rubric_agreement(rows)
    assert got["sp"]["simple_agreement"] == 1.0
    assert got["sigma"]["simple_agreement"] == 0.5  # sums 4/4 and 3/2


@pytest.mark.parametrize("seed", range(3))
def test_icc_three_raters_against_pingouin(seed):
    import pandas as pd
    import pingouin

    rng = random.Random(seed)
    table = {i: {r: rng.choice((0, 1, 2)) for r in ("a", "b", "c")} for i in range(12)}
    frame = pd.DataFrame([(i, r, v) for i, row in table.items() for r, v in row.items()], columns=["t", "r", "s"])
    want = pingouin.intraclass_corr(frame, targets="t", raters="r", ratings="s").set_index("Type").loc["ICC3", "ICC"]
    value, left_out = icc3(table)
    assert value == pytest.approx(want) and left_out == []
