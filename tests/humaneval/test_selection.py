"""Budget-aware item selection (subset2evaluate) and the ranking-stability figure."""

import pytest

from humaneval.bws import Judgment, counting_scores
from humaneval.selection import item_utilities, mean_scores, ranking_stability, select_items
from tests.support.services import require_module

# item -> system -> metric score (higher is better)
SCORES = {"a": {"x": 0.1, "y": 0.9, "z": 0.5}, "b": {"x": 0.5, "y": 0.5, "z": 0.5},
          "c": {"x": 0.9, "y": 0.1, "z": 0.2}, "d": {"x": 0.3, "y": 0.6, "z": 0.4}}



def needs_subset2evaluate():
    require_module("subset2evaluate", "subset2evaluate is installed by `make venv` (--no-deps)")


def test_metric_var_known_answer():
    needs_subset2evaluate()
    utilities = item_utilities(SCORES, "metric_var")
    # population variance across systems: c = var(.9, .1, .2) = (.25 + .09 + .04) / 3
    assert utilities["c"] == pytest.approx(0.38 / 3)
    assert utilities["b"] == 0.0
    assert select_items(SCORES, 2, "metric_var") == ["c", "a"]


def test_metric_cons_prefers_items_that_order_systems_like_the_whole():
    needs_subset2evaluate()
    # Over all items the means order y (0.525) > x (0.45) > z (0.4); item c orders x > z > y.
    utilities = item_utilities(SCORES, "metric_cons")
    assert utilities["c"] < 0 < utilities["a"]
    assert select_items(SCORES, 1, "metric_cons")[0] in ("a", "d")


def test_metric_avg_prefers_hard_items_and_random_is_seeded():
    needs_subset2evaluate()
    assert select_items(SCORES, 1, "metric_avg") == ["c"]   # the lowest mean metric score (0.4)
    first = select_items(SCORES, 4, "random", seed=3)
    assert sorted(first) == sorted(SCORES) and first == select_items(SCORES, 4, "random", seed=3)


@pytest.mark.parametrize(("scores", "budget", "method"), [
    ({}, 1, "metric_var"), (SCORES, 0, "metric_var"), (SCORES, 1, "kmeans"),
    ({"a": {"x": 1.0, "y": 2.0}, "b": {"x": 1.0}}, 1, "metric_var"),
    ({"a": {"x": 1.0, "y": float("nan")}}, 1, "metric_var"),
])
def test_bad_arguments(scores, budget, method):
    needs_subset2evaluate()
    with pytest.raises(ValueError):
        select_items(scores, budget, method)


def test_stability_counts_pairs_that_changed_in_the_last_tenth():
    # 18 early annotations: A 1.0 > B 0.5 > C 0.0; the last two are C's.
    early = [("A", 1.0), ("B", 0.5), ("C", 0.0)] * 6
    late = [("C", 10.0), ("C", 10.0)]
    result = ranking_stability(early + late)
    assert (result.annotations, result.before, result.pairs) == (20, 18, 3)
    # final C = 20 / 8 = 2.5: above A and B, so A-C and B-C changed, A-B did not
    assert result.changed == 2 and result.changed_pairs == [("A", "C"), ("B", "C")]
    assert result.share == pytest.approx(2 / 3)
    assert result.to_dict()["changed_pairs"] == [["A", "C"], ["B", "C"]]


def test_stability_with_bws_judgments_and_edge_cases():
    v = ("A", "B", "C")
    js = [Judgment(f"p{i}", "a", v, "A", "C") for i in range(9)] + [Judgment("p9", "a", v, "C", "A")]
    result = ranking_stability(js, counting_scores)
    assert result.before == 9 and result.pairs == 3 and result.changed == 0
    assert ranking_stability([]).pairs == 0 and ranking_stability([("A", 1.0)]).before == 0
    assert mean_scores([("A", 1), ("A", 2)]) == {"A": 1.5}
    with pytest.raises(ValueError):
        ranking_stability(js, counting_scores, tail=1.0)
