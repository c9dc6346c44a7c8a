"""scoring.meta beyond the system level: chunk level (reader studies), adapters, intervals, SVG."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import kendalltau

from scoring.meta import (
    ChunkJudgement,
    HumanSource,
    MetaInputError,
    MetricScores,
    chunk_level,
    chunk_scores_from_segments,
    human_from_obj,
    meta_evaluate,
    pairwise_accuracy_untied,
    read_human,
    scatter_svg,
    system_level,
)

ROOT = Path(__file__).resolve().parents[2]
READER_EXPORT = ROOT / "tests" / "humaneval" / "reader_export.jsonl"


def _judgements():
    """Two readers on four chunks of one book: HT (version 1) against mt (version 2)."""
    prefs = {("r1", 0): "1", ("r2", 0): "1", ("r1", 1): "2", ("r2", 1): "1",
             ("r1", 2): "1", ("r2", 2): "1", ("r1", 3): "2", ("r2", 3): "2"}
    return [ChunkJudgement("book", c, r, ("HT", "mt"), p, ("book", 2 * c, 2 * c + 2)) for (r, c), p in prefs.items()]


SCORES = {("book", 0, "HT"): 0.70, ("book", 0, "mt"): 0.80, ("book", 1, "HT"): 0.60, ("book", 1, "mt"): 0.65,
          ("book", 2, "HT"): 0.90, ("book", 2, "mt"): 0.50, ("book", 3, "HT"): 0.40, ("book", 3, "mt"): 0.40}


def test_chunk_level_tau_and_agreement_against_scipy_and_by_hand():
    js = _judgements()
    res = chunk_level(js, SCORES)
    diffs = [SCORES[(j.document, j.chunk, "HT")] - SCORES[(j.document, j.chunk, "mt")] for j in js]
    signed = [1 if j.preference == "1" else -1 for j in js]
    assert res["available"] and res["n"] == 8
    assert res["kendall"] == pytest.approx(kendalltau(diffs, signed, variant="b").statistic, abs=1e-12)
    assert res["kendall_p_value"] == pytest.approx(kendalltau(diffs, signed, variant="b").pvalue, abs=1e-12)
    # chunk 0: metric prefers mt, readers HT twice (0/2); chunk 1: mt, readers mt once (1/2);
    # chunk 2: HT, readers HT twice (2/2); chunk 3: a metric tie counts as not agreeing (0/2)
    assert (res["agreements"], res["agreement"]) == (3, 3 / 8) and res["metric_ties"] == 2
    assert res["readers_prefer"] == {"1": 5, "2": 3}
    assert res["metric_prefers"] == {"1": 1, "2": 2, "tie": 1}
    # readers agree on chunks 0, 2 and 3
    sub = [n for n, j in enumerate(js) if j.chunk in (0, 2, 3)]
    agree = res["readers_agree"]
    assert agree["chunks"] == 3 and agree["n"] == 6
    assert agree["kendall"] == pytest.approx(kendalltau([diffs[n] for n in sub], [signed[n] for n in sub]).statistic)
    assert agree["agreements"] == 2


def test_chunk_level_orients_a_lower_is_better_metric():
    js = _judgements()
    lower = {k: -v for k, v in SCORES.items()}      # the same judgement, as a lower-is-better metric
    high = chunk_level(js, SCORES)
    low = chunk_level(js, lower, metric_higher_is_better=False)
    assert low["kendall"] == pytest.approx(high["kendall"]) and low["agreement"] == high["agreement"]
    wrong = chunk_level(js, lower, metric_higher_is_better=True)
    assert wrong["kendall"] == pytest.approx(-high["kendall"])


def test_chunk_level_says_which_version_lacks_scores():
    js = _judgements()
    only_mt = {k: v for k, v in SCORES.items() if k[2] == "mt"}
    res = chunk_level(js, only_mt)
    assert res["available"] is False and "HT" in res["reason"] and "need at least 3" in res["reason"]


def test_chunk_scores_average_the_segments_of_each_chunk():
    js = _judgements()
    segs = {"mt": {("book", p): float(p) for p in range(8)}, "HT": {("book", p): 1.0 for p in range(7)}}
    scores = chunk_scores_from_segments(js, segs)
    assert scores[("book", 0, "mt")] == pytest.approx(0.5) and scores[("book", 3, "mt")] == pytest.approx(6.5)
    assert scores[("book", 2, "HT")] == 1.0
    assert ("book", 3, "HT") not in scores           # segment 7 has no HT score: no chunk score


def test_pairwise_accuracy_constructed_case():
    # humans a > b > c > d; the metric swaps b and c and puts d above a: pairs (a,b) (a,c) agree,
    # (a,d) (b,d) (c,d) disagree (d first), (b,c) disagrees -> 2 of 6
    human = {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}
    metric = {"a": 3.0, "b": 1.0, "c": 2.0, "d": 5.0}
    assert pairwise_accuracy_untied(list(human.values()), list(metric.values())) == (pytest.approx(2 / 6), 6)
    res = system_level(human, metric, n_boot=100)
    assert res["pairwise_accuracy"]["value"] == pytest.approx(1 / 3) and res["pairwise_accuracy"]["n_pairs"] == 6
    assert res["rank_flips"]["systems"][0]["system"] == "d"       # largest flip first: 4 -> 1


def test_intervals_are_seeded_and_contain_the_point_estimate():
    rng = np.random.default_rng(0)
    systems = [f"s{i}" for i in range(12)]
    base = rng.normal(size=12)
    human = dict(zip(systems, base, strict=True))
    metric = dict(zip(systems, base + rng.normal(scale=0.7, size=12), strict=True))
    a = system_level(human, metric, n_boot=500, seed=11)
    b = system_level(human, metric, n_boot=500, seed=11)
    c = system_level(human, metric, n_boot=500, seed=12)
    for key in ("pearson", "spearman", "kendall", "pairwise_accuracy"):
        assert a[key]["ci"] == b[key]["ci"]
        low, high = a[key]["ci"]
        assert low <= a[key]["value"] <= high and a[key]["n_valid"] == 500
    assert any(a[k]["ci"] != c[k]["ci"] for k in ("pearson", "spearman", "kendall"))
    assert a["bootstrap"] == {"n_boot": 500, "seed": 11, "confidence": 0.95, "over": "systems"}


# ---------------------------------------------------------------------------
# adapters


def _dims(**sigmas):
    return {d: {"sp": v / 3, "g_1": v / 3, "g_2": v / 3, "sigma": v, "n": 1} for d, v in sigmas.items()}


# the shape of humaneval.rubric.rubric_results (the rubric branch): dimension Σs, items with their Σ
RUBRIC = {"protocol": "rubric", "rubric": "diting",
          "systems": [{"system": "a", "overall": 0.9, "complete": True, "dimensions": _dims(idiom=0.8, tense=1.0)},
                      {"system": "b", "overall": 0.5, "complete": True, "dimensions": _dims(idiom=0.6, tense=0.4)},
                      {"system": "c", "overall": 0.7, "complete": True, "dimensions": _dims(idiom=0.2, tense=0.9)}],
          "items": [{"item": "d:1:idiom:a", "document": "d", "segment": 1, "system": "a", "rater": "r1",
                     "dimension": "idiom", "sp": 2, "g_1": 1, "g_2": 1, "sigma": 4},
                    {"item": "d:1:idiom:a", "document": "d", "segment": 1, "system": "a", "rater": "r2",
                     "dimension": "idiom", "sp": 1, "g_1": 0, "g_2": 0, "sigma": 1},
                    {"item": "d:1:tense:a", "document": "d", "segment": 1, "system": "a", "rater": "r1",
                     "dimension": "tense", "sp": 0, "g_1": 1, "g_2": 0}],         # no sigma: S + G1 + G2
          "agreement": {}}


def test_rubric_results_give_overall_and_one_source_per_dimension():
    sources = human_from_obj(RUBRIC)
    assert [s.key for s in sources] == ["rubric", "rubric:idiom", "rubric:tense"]
    overall, idiom, tense = sources
    assert overall.higher_is_better and overall.systems == {"a": 0.9, "b": 0.5, "c": 0.7}
    # segment 1 is position 0; overall: Σ over raters and dimensions (4, 1, 1)
    assert overall.items == {"a": {("d", 0): pytest.approx(2.0)}} and overall.item_unit == "segment"
    assert idiom.items == {"a": {("d", 0): 2.5}} and idiom.systems == {"a": 0.8, "b": 0.6, "c": 0.2}
    assert tense.items == {"a": {("d", 0): 1.0}}
    for field, value in (("segment", "zero"), ("segment", 0), ("sigma", "x")):
        bad = json.loads(json.dumps(RUBRIC))
        bad["items"][1][field] = value
        with pytest.raises(MetaInputError, match=r"items\[1\] needs"):
            human_from_obj(bad, "r.json")


def test_reader_export_gives_chunk_judgements_and_preference_shares():
    [source] = read_human(READER_EXPORT)
    assert source.kind == "reader" and source.key == "reader:lait-demo" and len(source.chunks) == 6
    j = source.chunks[0]
    assert (j.document, j.chunk, j.reader, j.versions, j.preference) == ("d1", 0, "reader1", ("HT", "gpt4"), "1")
    # HT chosen 5 times of 6, gpt4 once of 4, deepl once of 2
    assert source.systems == {"HT": pytest.approx(4 / 6), "gpt4": pytest.approx(1 / 4), "deepl": pytest.approx(1 / 2)}


def test_humaneval_results_and_broken_exports_are_refused_clearly(tmp_path):
    results = tmp_path / "results.json"
    results.write_text(json.dumps({"studies": {}}))
    with pytest.raises(MetaInputError, match="EXPORT.jsonl"):
        read_human(results)
    broken = tmp_path / "broken.jsonl"
    lines = READER_EXPORT.read_text().splitlines()
    first_chunk = next(n for n, line in enumerate(lines) if json.loads(line)["record"] == "chunk")
    record = json.loads(lines[first_chunk])
    record["preference"] = "3"
    broken.write_text("\n".join([*lines[:first_chunk], json.dumps(record)]) + "\n")
    with pytest.raises(MetaInputError, match=rf"broken.jsonl:{first_chunk + 1}: .*preference"):
        read_human(broken)


def test_reader_source_meta_evaluates_at_chunk_level():
    [source] = read_human(READER_EXPORT)
    # an LLM judge's chunk scores as segment scores: one segment per chunk
    js = [ChunkJudgement(j.document, j.chunk, j.reader, j.versions, j.preference, (j.document, j.chunk, j.chunk + 1))
          for j in source.chunks]
    source = HumanSource(source.key, source.label, "reader", True, source.systems, chunks=js)
    judge = {"HT": {("d1", 0): 7.0, ("d1", 1): 6.0, ("d2", 0): 8.0}, "gpt4": {("d1", 0): 8.0, ("d1", 1): 9.0},
             "deepl": {("d2", 0): 9.0}}
    res = meta_evaluate(source, {"judge": MetricScores("judge", {}, True, "LLM judge", judge)}, n_boot=10)
    ch = res["sources"][0]["chunk_level"]["metrics"]["judge"]
    diffs = [-1.0, -1.0, -3.0, -3.0, -1.0, -1.0]
    signed = [1, 1, -1, 1, 1, -1]
    assert ch["kendall"] == pytest.approx(kendalltau(diffs, signed).statistic)
    assert ch["agreements"] == 2 and ch["metric_prefers"] == {"1": 0, "2": 3, "tie": 0}
    assert res["metrics"] == {} and "judge" in res["skipped"]     # no system-level scores


# ---------------------------------------------------------------------------
# SVG


def test_scatter_svg_is_valid_xml_with_one_point_per_system_and_escaped_names():
    points = [{"system": "a<b>&c", "human": 1.0, "metric": 30.0}, {"system": "d", "human": 2.0, "metric": 20.0},
              {"system": "e", "human": 3.0, "metric": 40.0}]
    svg = scatter_svg(points, x_label="MQM ↓", y_label="BLEU ↑", flipped=["a<b>&c"])
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    circles = root.findall(f".//{ns}circle")
    assert len(circles) == 3
    assert "a<b>&c" in "".join(root.itertext()) and "<b>" not in svg.replace("&lt;b&gt;", "")
    flipped = [g for g in root.findall(f".//{ns}g") if "flip" in g.get("class", "")]
    assert len(flipped) == 1
    xs = [float(c.get("cx")) for c in circles]
    ys = [float(c.get("cy")) for c in circles]
    assert xs[0] < xs[1] < xs[2] and ys[2] < ys[0] < ys[1]        # higher metric = higher on the page
    assert scatter_svg([{"system": "x", "human": 1.0, "metric": 1.0}], x_label="h", y_label="m")
    assert not math.isnan(float(ET.fromstring(scatter_svg(points * 1, x_label="h", y_label="m"))
                                .find(f".//{ns}circle").get("cx")))


@pytest.mark.parametrize("variant", ["b", "c"])
def test_row_wise_bootstrap_equals_one_scipy_call_per_resample(monkeypatch, variant):
    """The intervals computed on every resample at once are those of one scipy call per resample."""
    import scoring.meta.stats as st

    rng = np.random.default_rng(5)
    h = rng.integers(0, 4, size=7).astype(float)          # ties, and resamples with a constant side
    m = h + rng.integers(0, 3, size=7)
    stats = {"pearson": st.pearson, "spearman": st.spearman, "kendall": st.kendall(variant),
             "pairwise": st.accuracy_stat, "pairwise_untied": st.accuracy_untied_stat}
    fast = {k: st.bootstrap_ci(f, h, m, n_boot=400, seed=9) for k, f in stats.items()}
    monkeypatch.setattr(st, "ROWS_MAX", 0)                   # one call per resample
    slow = {k: st.bootstrap_ci(f, h, m, n_boot=400, seed=9) for k, f in stats.items()}
    for k in stats:
        assert fast[k][2] == slow[k][2], k                          # the same resamples skipped
        assert k.startswith("pairwise") or fast[k][2] < 400, k             # (some: a side is constant)
        assert fast[k][:2] == pytest.approx(slow[k][:2], abs=1e-12), k


def test_malformed_rubric_dimensions_and_segment_lists_are_refused():
    from scoring.meta import metrics_from_obj

    bad = json.loads(json.dumps(RUBRIC))
    bad["systems"][0]["dimensions"] = [1, 2]
    with pytest.raises(MetaInputError, match=r"systems\[0\]\.dimensions must be an object"):
        human_from_obj(bad, "r.json")
    obj = {"segment_keys": [["d", 0], ["d", 1]],
           "systems": [{"name": "a", "scores": {"comet": {"score": 1.0, "segments": [0.5]}}}]}
    with pytest.raises(MetaInputError, match=r"m.json: a: comet: 'segments' must be a list of one value per .*\(2\)"):
        metrics_from_obj(obj, "m.json")
    obj["segment_keys"] = [["d", "zero"]]
    with pytest.raises(MetaInputError, match="segment_keys"):
        metrics_from_obj(obj, "m.json")


def test_reader_chunk_segments_that_make_no_sense_are_left_out(tmp_path):
    lines = []
    for n, line in enumerate(READER_EXPORT.read_text().splitlines()):
        rec = json.loads(line)
        if rec["record"] == "chunk":
            rec["testset_document"] = rec["document"]
            rec["segments"] = [[5, 2], ["0", "1"], [0, 2, 4], True, [-1, 2], [0, 1]][n % 6]
        lines.append(json.dumps(rec))
    path = tmp_path / "export.jsonl"
    path.write_text("\n".join(lines) + "\n")
    [source] = read_human(path)
    kept = [j.segments for j in source.chunks if j.segments is not None]
    assert kept and all(0 <= start < end for _doc, start, end in kept) and len(kept) < len(source.chunks)
