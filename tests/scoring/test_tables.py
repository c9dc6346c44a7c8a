"""The paper's tables from plain rows: LaTeX (booktabs) and CSV, escaping, cluster rules, bad rows."""

from __future__ import annotations

import io

import pandas
import pytest

from scoring.tables import csv_automatic, csv_human, latex_automatic, latex_escape, latex_human

METRICS = [{"key": "bleu", "name": "BLEU", "higher_is_better": True},
           {"key": "ter", "name": "TER", "higher_is_better": False}]
ROWS = [{"system": "big_mt & co", "team": "T%1", "group": "primary-constrained", "constrained": True,
         "scores": {"bleu": 30.456, "ter": 50.0}, "rank_ranges": {"bleu": "1–2", "ter": "1"}},
        {"system": "base", "team": "", "group": "baseline", "scores": {"bleu": 10.0, "ter": None}},
        {"system": "=cmd", "team": "U", "group": "primary-unconstrained", "constrained": False,
         "scores": {"bleu": 29.0, "ter": 55.5}, "rank_ranges": {"bleu": "1–2"}}]
HUMAN = [{"rank_range": "1", "cluster": 1, "system": "ref_1", "kind": "reference", "score": -0.5},
         {"rank_range": "2–3", "cluster": 2, "system": "a", "team": "A", "kind": "primary-constrained", "score": -3.0},
         {"rank_range": "2–3", "cluster": 2, "system": "b", "team": "B", "kind": "primary-unconstrained",
          "constrained": False, "score": -3.5},
         {"rank_range": "4", "cluster": 3, "system": "base", "kind": "baseline", "score": -9.25}]


def test_latex_automatic():
    tex = latex_automatic(ROWS, METRICS)
    assert tex.startswith("\\begin{table}") and "\\toprule" in tex and "\\bottomrule" in tex
    assert "BLEU$\\uparrow$ & TER$\\downarrow$" in tex
    assert "big\\_mt \\& co & T\\%1 & 30.46\\textsubscript{1--2} & 50.00\\textsubscript{1} \\\\" in tex
    assert "base &  & 10.00 & n/a \\\\" in tex
    # groups in the WMT order, whatever the rows' order
    assert tex.index("Baselines") < tex.index("constrained}") < tex.index("unconstrained}")
    assert "=cmd$^\\star$" in tex


def test_csv_automatic_loads_with_numbers():
    frame = pandas.read_csv(io.StringIO(csv_automatic(ROWS, METRICS)))
    assert list(frame["system"]) == ["base", "big_mt & co", "'=cmd"]   # formula-looking cells defused
    assert frame["BLEU"].dtype.kind == "f" and frame["TER"].isna().tolist() == [True, False, False]
    assert list(frame["BLEU rank range"].fillna("")) == ["", "1–2", "1–2"]


def test_latex_human_rules_between_clusters():
    tex = latex_human(HUMAN, name="MQM", higher_is_better=True)
    body = tex.split("\\midrule", 1)[1]
    assert body.count("\\midrule") == 2            # three clusters: two rules between them
    assert "\\textit{ref\\_1}" in tex and "\\textit{base}" in tex and "b$^\\star$" in tex
    assert "2--3 & a & A & primary & -3.00" in tex and "human reference" in tex


def test_csv_human():
    frame = pandas.read_csv(io.StringIO(csv_human(HUMAN, name="MQM")))
    assert list(frame.columns) == ["rank", "rank range", "cluster", "system", "team", "type", "MQM"]
    assert list(frame["rank"]) == [1, 2, 3, 4] and frame["MQM"].dtype.kind == "f"


def test_bad_rows_are_refused_naming_the_row():
    with pytest.raises(ValueError, match="row 2: no 'scores'"):
        latex_automatic([ROWS[0], {"system": "x"}], METRICS)
    with pytest.raises(ValueError, match="unknown group 'secret'"):
        csv_automatic([{**ROWS[0], "group": "secret"}], METRICS)
    with pytest.raises(ValueError, match="no metrics"):
        latex_automatic(ROWS, [])
    with pytest.raises(ValueError, match="human ranking row 1: no 'cluster'"):
        latex_human([{"rank_range": "1", "system": "a", "score": 1.0}])
    assert latex_escape("a\\b~c^d{e}#$") == "a\\textbackslash{}b\\textasciitilde{}c\\textasciicircum{}d\\{e\\}\\#\\$"
