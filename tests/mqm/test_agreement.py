"""Agreement: Tables 4 and 5 of the WMT 2023 literary findings, by hand and from the paper."""

from math import sqrt
from pathlib import Path

import pytest

import mqm
from mqm.agreement import agreement_from_table, error_counts, interval_alpha, krippendorff_alpha

FIXTURES = Path(__file__).parent / "fixtures"
LIT = mqm.load_scheme("wmt23-literary")

# Table 4 of the paper: four annotators' scores of ten systems on one 601-word document.
TABLE4 = {
    "GPT-4": [95.84, 73.38, 76.71, 87.52], "Llama-MT": [94.18, 65.06, 78.37, 83.36],
    "Google": [85.02, 42.60, 59.23, 21.13], "MAKE-NMT-VIZ": [97.50, 83.36, 92.51, 91.68],
    "MaxLab": [86.69, 61.73, 71.71, 74.21], "TJUNLP": [88.02, 55.07, 20.97, 69.22],
    "HW-TSC": [91.68, 83.36, 83.36, 91.68], "DLUT": [95.01, 69.22, 84.19, 90.02],
    "NTU": [85.02, 39.27, 28.45, 62.56], "HITer-WMT": [57.57, 21.80, 0.00, 31.78],
}


def test_table_5_reproduced_from_table_4():
    table = {s: {str(i + 1): v for i, v in enumerate(row)} for s, row in TABLE4.items()}
    res = agreement_from_table(table)
    p = res["pearson"]
    # Table 5, lower triangle
    assert round(p["2"]["1"], 3) == 0.858
    assert round(p["3"]["1"], 3) == 0.824
    assert round(p["3"]["2"], 3) == 0.878
    assert round(p["4"]["1"], 3) == 0.752
    assert round(p["4"]["2"], 3) == 0.875
    assert round(p["4"]["3"], 3) == 0.676
    # Table 5 "Average" row: correlation with the mean of all four annotators (self included)
    assert [round(res["pearson_vs_mean"][r], 3) for r in "1234"] == [0.902, 0.976, 0.927, 0.891]
    # ...which is not the mean of the other three
    assert round(res["pearson_vs_others"]["4"], 3) == 0.788
    # Table 4 "Average" column (the paper rounds 51.995 up)
    assert res["average"]["Google"] == pytest.approx(52.00, abs=0.0051)
    assert res["average"]["HITer-WMT"] == pytest.approx(27.79, abs=0.005)


def test_one_page_of_annotations_gives_tables_4_and_5_by_hand():
    """literary_small.tsv: per-annotator scores (see test_mqm_scores) and their agreement.

    Table 4:      r1     r2      r3      average
          A       75     50       0      125/3
          B      100     50      50      200/3
          C        0     25    175/3     250/9

    Pearson r1,r2: deviations (50/3, 125/3, -175/3) and (25/3, 25/3, -50/3):
    sxy = 4375/3, sxx = 16250/3, syy = 1250/3 -> r = 4375 / sqrt(16250 * 1250) = 0.97073.
    r1,r3: sxy = -11875/9, syy(r3) = 53750/27 -> -0.40181; r2,r3: sxy = -5000/9 -> -0.60999.
    vs mean (average column): r1 0.90282, r2 0.77310, r3 0.03103.
    Kendall tau-b: r1 ranks B > A > C, r2 A = B > C, r3 C > B > A:
    r1,r2 = 2 / sqrt(3 * 2) = 0.8165; r1,r3 = (1 - 2) / 3; r2,r3 = -2 / sqrt(6).
    Krippendorff alpha (interval, systems as units): D_o = 2(..)/n, D_e over all 9 values:
    1 - D_o / D_e = 15/559.
    Segment-level alpha (each rater's summed penalty per system-segment, units with >= 2
    raters: [5,10,25] [0,0,5] [0,5,0] [0,5,10] [10,10,5] [10,5]) = 53/213.
    """
    data = mqm.load(FIXTURES / "literary_small.tsv", scheme=LIT)
    res = mqm.agreement(data, LIT)
    assert res["raters"] == ["r1", "r2", "r3"] and res["systems"] == ["A", "B", "C"]
    assert res["scores"]["A"] == {"r1": 75.0, "r2": 50.0, "r3": 0.0}
    assert res["scores"]["C"]["r3"] == pytest.approx(175 / 3)
    assert res["average"]["C"] == pytest.approx(250 / 9)
    p = res["pearson"]
    assert p["r1"]["r2"] == pytest.approx(4375 / sqrt(16250 * 1250))
    assert p["r1"]["r2"] == pytest.approx(0.970725, abs=1e-6)
    assert p["r1"]["r3"] == pytest.approx(-0.401807, abs=1e-6)
    assert p["r2"]["r3"] == pytest.approx(-0.609994, abs=1e-6)
    assert p["r2"]["r1"] == p["r1"]["r2"] and p["r3"]["r3"] == 1.0
    assert res["pearson_vs_mean"] == pytest.approx({"r1": 0.902817, "r2": 0.773099, "r3": 0.031025}, abs=1e-6)
    k = res["kendall"]
    assert k["r1"]["r2"] == pytest.approx(2 / sqrt(6))
    assert k["r1"]["r3"] == pytest.approx(-1 / 3)
    assert k["r2"]["r3"] == pytest.approx(-2 / sqrt(6))
    assert res["krippendorff_alpha"] == pytest.approx(15 / 559)
    assert res["krippendorff_alpha_segments"] == pytest.approx(53 / 213)


def test_missing_and_degenerate_cells():
    table = {"A": {"r1": 1.0, "r2": 5.0}, "B": {"r1": 2.0, "r2": 5.0}, "C": {"r1": 3.0}}
    res = agreement_from_table(table)
    assert res["pearson"]["r1"]["r2"] is None  # r2 is constant on the shared systems
    assert res["scores"]["C"] == {"r1": 3.0}
    assert res["average"]["C"] == 3.0
    assert agreement_from_table({"A": {"r1": 1.0}})["pearson"]["r1"] == {"r1": 1.0}
    assert krippendorff_alpha([[1.0, None], [None, 2.0]]) is None  # no unit has two values
    assert krippendorff_alpha([[1.0, 3.0, 2.0], [1.0, 3.0, 2.0]]) == pytest.approx(1.0)


def test_error_counts_per_category_and_severity():
    data = mqm.load(FIXTURES / "literary_small.tsv", scheme=LIT)
    counts = error_counts(data, LIT)
    assert counts["A"] == {"Accuracy": {"Major": 1, "Critical": 1, "Minor": 1},
                           "Style": {"Minor": 1, "Neutral": 1}}
    assert counts["C"] == {"Accuracy": {"Major": 1}, "Fluency": {"Major": 1},
                           "Locale convention": {"Major": 1}, "Others": {"Minor": 1}, "Style": {"Minor": 1}}
    assert sum(n for cats in counts.values() for sev in cats.values() for n in sev.values()) == len(data.errors)


def test_closed_form_alpha_equals_the_krippendorff_package():
    import random

    rng = random.Random(7)
    for _ in range(5):
        matrix = [[rng.choice([None, 0.0, 0.1, 1.0, 5.0, 6.0, 25.0]) for _ in range(40)] for _ in range(4)]
        units = [[row[u] for row in matrix if row[u] is not None] for u in range(40)]
        assert interval_alpha(units) == pytest.approx(krippendorff_alpha(matrix), abs=1e-12)
    assert interval_alpha([[1.0], [2.0]]) is None  # nothing pairable
    assert interval_alpha([[3.0, 3.0], [3.0, 3.0]]) is None  # no variation
