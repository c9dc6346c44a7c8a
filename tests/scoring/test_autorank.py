"""WMT24's AutoRank, hand-computed."""

import pytest

from scoring.autorank import autorank


def test_autorank_scales_each_metric_to_1_n_and_averages():
    scores = {"comet": {"a": 80.0, "b": 70.0, "c": 60.0, "d": 75.0},
              "metricx": {"a": 2.0, "b": 4.0, "c": 8.0, "d": 5.0}}          # lower is better
    got = autorank(scores, {"comet": True, "metricx": False})
    # comet: a 1, d 1 + 3*5/20 = 1.75, b 1 + 3*10/20 = 2.5, c 4; metricx: a 1, b 2, d 2.5, c 4
    assert got.scaled["comet"] == {"a": 1.0, "b": 2.5, "c": 4.0, "d": 1.75}
    assert got.scaled["metricx"] == {"a": 1.0, "b": 2.0, "c": 4.0, "d": 2.5}
    assert got.autorank == {"a": 1.0, "b": 2.25, "c": 4.0, "d": 2.125}
    assert got.systems == ["a", "d", "b", "c"]


def test_autorank_refuses_what_it_cannot_scale():
    with pytest.raises(ValueError, match="no score for b"):
        autorank({"m": {"a": 1.0, "b": None}}, {"m": True})
    with pytest.raises(ValueError, match="same score"):
        autorank({"m": {"a": 1.0, "b": 1.0}}, {"m": True})
    with pytest.raises(ValueError, match="direction"):
        autorank({"m": {"a": 1.0, "b": 2.0}}, {})
    with pytest.raises(ValueError, match="two systems"):
        autorank({"m": {"a": 1.0}}, {"m": True})
