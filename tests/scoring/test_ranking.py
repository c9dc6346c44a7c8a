"""The one ranking module: WMT clusters, significance rank ranges and cluster rank ranges, on known answers."""

import pytest

from mqm.significance import clusters as mqm_clusters
from mqm.significance import rank_ranges as mqm_rank_ranges
from scoring import significance
from scoring.ranking import (
    cluster_boundaries,
    cluster_rank_ranges,
    clusters,
    format_range,
    order_by_score,
    rank_and_cluster,
    significance_rank_ranges,
    wins_losses,
)

ORDER = ["A", "B", "C", "D"]
# A > B, A > C, A > D, B > D, C > D significant; B ~ C
BEATS = {("A", "B"), ("A", "C"), ("A", "D"), ("B", "D"), ("C", "D")}


def test_four_systems_known_clusters_and_ranges():
    assert wins_losses(ORDER, BEATS) == {"A": (3, 0), "B": (1, 1), "C": (1, 1), "D": (0, 3)}
    # best = 1 + #significantly better, worst = N - #significantly worse
    assert significance_rank_ranges(ORDER, BEATS) == {"A": (1, 1), "B": (2, 3), "C": (2, 3), "D": (4, 4)}
    assert cluster_boundaries(ORDER, BEATS) == [True, False, True]
    assert clusters(ORDER, BEATS) == [["A"], ["B", "C"], ["D"]]
    assert cluster_rank_ranges(clusters(ORDER, BEATS)) == {"A": (1, 1), "B": (2, 3), "C": (2, 3), "D": (4, 4)}


def test_the_two_rank_ranges_differ_when_wmt_does_not_cut():
    # A > B, A > C, B > C, B > D, C > D; A ~ D: WMT puts everyone in one cluster
    beats = {("A", "B"), ("A", "C"), ("B", "C"), ("B", "D"), ("C", "D")}
    assert clusters(ORDER, beats) == [ORDER]
    assert cluster_rank_ranges([ORDER]) == {s: (1, 4) for s in ORDER}
    assert significance_rank_ranges(ORDER, beats) == {"A": (1, 2), "B": (2, 2), "C": (3, 3), "D": (3, 4)}
    # the older rank-range rule cuts where the significance ranges do not overlap
    assert clusters(ORDER, beats, method="rank_range") == [["A", "B"], ["C", "D"]]


def test_rank_and_cluster_rows_keep_the_old_fields_and_add_the_cluster_span():
    rows = rank_and_cluster({"D": 1.0, "B": 3.0, "A": 4.0, "C": 2.0}, BEATS)
    assert [(r["system"], r["rank"], r["rank_low"], r["rank_high"], r["cluster"], r["cluster_rank_range"])
            for r in rows] == [("A", 1, 1, 1, 1, [1, 1]), ("B", 2, 2, 3, 2, [2, 3]),
                               ("C", 3, 2, 3, 2, [2, 3]), ("D", 4, 4, 4, 3, [4, 4])]
    assert significance.rank_and_cluster is rank_and_cluster   # no second copy
    with pytest.raises(ValueError, match="unknown system"):
        rank_and_cluster({"A": 1.0}, {("A", "Z")})
    with pytest.raises(ValueError, match="cluster method"):
        clusters(ORDER, BEATS, method="nope")


def test_order_and_format_helpers():
    assert order_by_score({"x": 2.0, "y": 1.0, "z": 2.0}) == ["x", "z", "y"]
    assert order_by_score({"x": 2.0, "y": 1.0}, higher_is_better=False) == ["y", "x"]
    assert format_range(2, 2) == "2" and format_range(2, 4) == "2–4" and format_range(1, 3, "-") == "1-3"
    assert clusters([], set()) == [] and clusters(["solo"], set()) == [["solo"]]


def test_mqm_uses_the_same_rule():
    pairs = [{"a": a, "b": b, "better": w, "significant": (w, b if w == a else a) in BEATS}
             for a, b, w in [("A", "B", "A"), ("A", "C", "A"), ("A", "D", "A"), ("B", "C", "B"),
                             ("B", "D", "B"), ("C", "D", "C")]]
    assert mqm_clusters(ORDER, pairs) == clusters(ORDER, BEATS)
    rows = mqm_rank_ranges(ORDER, pairs)
    assert [(r["system"], r["rank_low"], r["rank_high"], r["cluster_rank_range"]) for r in rows] == [
        ("A", 1, 1, [1, 1]), ("B", 2, 3, [2, 3]), ("C", 2, 3, [2, 3]), ("D", 4, 4, [4, 4])]
    # pairs naming systems outside the ranking are ignored, as before
    assert mqm_clusters(["A", "B"], pairs) == [["A"], ["B"]]


def test_mqm_wilcoxon_json_carries_both_rank_ranges():
    import json
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    tsv = root / "tests" / "mqm" / "fixtures" / "google_small.tsv"
    out = subprocess.run([sys.executable, "-m", "mqm", "wilcoxon", str(tsv), "--scheme", "google-mqm", "--unit",
                          "segment", "--json"], cwd=root, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    wx = json.loads(out.stdout)
    assert wx["clusters"] == [["Y", "X"]]
    assert [(r["system"], r["rank"], r["cluster"], r["cluster_rank_range"], r["rank_low"], r["rank_high"])
            for r in wx["ranks"]] == [("Y", 1, 1, [1, 2], 1, 2), ("X", 2, 1, [1, 2], 1, 2)]
