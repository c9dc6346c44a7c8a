"""Rubric results: means per sub-criterion, Σ per dimension, overall average Σ (DITING Table 7)."""

import pytest

from humaneval.rubric import rubric_results, system_tables
from humaneval.rubric.results import dimension_means

DIMS = ("idiom", "ambiguity", "terminology", "tense", "zero_pronoun", "cultural_safety")
# Table 7 as printed: (S, G1, G2) per dimension, then the printed Σs and the printed average Σ.
TABLE7 = {
    "GPT-4o": ([(1.62, 1.64, 1.78), (1.82, 1.80, 1.88), (1.44, 1.44, 1.66), (1.68, 1.94, 1.60),
                (1.86, 1.88, 1.82), (1.60, 1.40, 1.70)], [5.04, 5.50, 4.54, 5.22, 5.56, 4.70], 5.09),
    "DeepSeek-v3": ([(1.70, 1.66, 1.78), (1.86, 1.78, 1.88), (1.66, 1.62, 1.84), (1.80, 2.00, 1.66),
                     (1.70, 1.72, 1.64), (1.56, 1.30, 1.80)], [5.14, 5.52, 5.12, 5.46, 5.06, 4.66], 5.16),
    "Google Trans.": ([(1.52, 1.54, 1.66), (1.48, 1.36, 1.68), (1.46, 1.48, 1.60), (1.38, 1.54, 1.32),
                       (1.66, 1.70, 1.46), (1.56, 1.20, 1.76)], [4.72, 4.52, 4.54, 4.24, 4.82, 4.52], 4.56),
    "LLaMA3-8B": ([(0.86, 0.84, 0.94), (0.86, 0.86, 0.84), (0.92, 0.80, 0.98), (1.34, 1.56, 1.08),
                   (0.98, 1.02, 0.84), (1.38, 1.14, 1.52)], [2.64, 2.56, 2.70, 3.98, 2.84, 4.04], 3.13),
}
N = 50  # the printed means are multiples of 1/50: 50 items per dimension reproduce them exactly


def _scores(mean: float) -> list[int]:
    """N scores in 0..2 whose mean is ``mean`` (a multiple of 1/N)."""
    total = round(mean * N)
    twos, rest = divmod(total, 2)
    scores = [2] * twos + [1] * rest
    return scores + [0] * (N - len(scores))


def table7_rows(system: str) -> list[dict]:
    rows = []
    for dim, (s, g1, g2) in zip(DIMS, TABLE7[system][0]):
        for i, (a, b, c) in enumerate(zip(_scores(s), _scores(g1), _scores(g2))):
            rows.append({"item": f"{dim}-{i}-{system}", "document": dim, "segment": i + 1, "system": system,
                         "rater": "agent", "dimension": dim, "sp": a, "g_1": b, "g_2": c})
    return rows


@pytest.mark.parametrize("system", sorted(TABLE7))
def test_table7_sigmas_and_average(system):
    [table] = system_tables(table7_rows(system))
    _, sigmas, average = TABLE7[system]
    assert table["system"] == system and table["complete"]
    for dim, (s, g1, g2), sigma in zip(DIMS, TABLE7[system][0], sigmas):
        got = table["dimensions"][dim]
        assert (got["sp"], got["g_1"], got["g_2"]) == pytest.approx((s, g1, g2))
        assert got["sigma"] == pytest.approx(sigma) and got["n"] == N
    assert round(table["overall"], 2) == average


def test_systems_come_best_first():
    rows = [r for system in TABLE7 for r in table7_rows(system)]
    assert [t["system"] for t in system_tables(rows)] == ["DeepSeek-v3", "GPT-4o", "Google Trans.", "LLaMA3-8B"]


def test_item_means_first_then_dimensions_unweighted():
    rows = [
        # item 1 scored by two raters (means 1.5, 1, 1), item 2 by one (2, 2, 2): item means first
        {"item": 1, "system": "s", "rater": "a", "dimension": "idiom", "sp": 2, "g_1": 1, "g_2": 1},
        {"item": 1, "system": "s", "rater": "b", "dimension": "idiom", "sp": 1, "g_1": 1, "g_2": 1},
        {"item": 2, "system": "s", "rater": "a", "dimension": "idiom", "sp": 2, "g_1": 2, "g_2": 2},
        # one tense item: the dimension counts as much as idiom's two
        {"item": 3, "system": "s", "rater": "a", "dimension": "tense", "sp": 0, "g_1": 0, "g_2": 0},
    ]
    idiom = dimension_means([r for r in rows if r["dimension"] == "idiom"])
    assert idiom == {"sp": 1.75, "g_1": 1.5, "g_2": 1.5, "sigma": 4.75, "n": 2}
    [table] = system_tables(rows)
    assert table["overall"] == pytest.approx((4.75 + 0) / 2) and not table["complete"]
    assert list(table["dimensions"]) == ["idiom", "tense"]


def test_results_json_shape():
    rows = table7_rows("GPT-4o")[:3]
    results = rubric_results(rows)
    assert results["protocol"] == "rubric" and results["rubric"] == "diting"
    assert set(results["systems"][0]) >= {"system", "overall", "dimensions"}
    assert set(results["systems"][0]["dimensions"]["idiom"]) >= {"sp", "g_1", "g_2", "sigma"}
    item = results["items"][0]
    assert list(item) == ["item", "document", "segment", "system", "rater", "dimension", "sp", "g_1", "g_2",
                          "sigma"]
    assert item["sigma"] == item["sp"] + item["g_1"] + item["g_2"]
    assert set(results["agreement"]) == {"sp", "g_1", "g_2", "sigma"}
