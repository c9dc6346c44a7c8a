"""``python -m scoring meta`` on every kind of HUMAN file: rubric results, reader exports, MQM by document."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import kendalltau, pearsonr, spearmanr

from tests.support.realdata import ENDE_TSV, require, system_segments

from .test_meta_levels import READER_EXPORT, RUBRIC

ROOT = Path(__file__).resolve().parents[2]


def _run(*args):
    return subprocess.run([sys.executable, "-m", "scoring", "meta", *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


def _metrics_file(path: Path, systems: dict[str, dict[str, float]], *, segments=None, keys=None,
                  higher_is_better=True, metric="judge") -> Path:
    obj = {"testset": "t", "systems": [
        {"name": f"out/{name}.txt", "scores": {metric: {"metric": metric, "name": metric.upper(), "score": score,
                                                        "higher_is_better": higher_is_better,
                                                        **({"segments": segments[name]} if segments else {})}}}
        for name, score in systems.items()]}
    if keys is not None:
        obj["segment_keys"] = keys
    path.write_text(json.dumps(obj))
    return path


def test_rubric_file_every_dimension_and_the_contract_keys(tmp_path):
    human = tmp_path / "rubric.json"
    human.write_text(json.dumps(RUBRIC))
    metrics = _metrics_file(tmp_path / "m.json", {"a": 30.0, "b": 10.0, "c": 20.0},
                            segments={"a": [0.5], "b": [0.1], "c": [0.2]}, keys=[["d", 0]])   # rubric segment 1
    out = _run("--human", human, "--metrics", metrics, "--json", "--n-boot", "100")
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert res["human"]["kind"] == "rubric" and res["human"]["higher_is_better"] is True
    block = res["metrics"]["judge"]
    for key in ("pearson", "spearman", "kendall", "pairwise_accuracy"):
        assert set(block[key]) >= {"value", "ci"}
    h, m = [0.9, 0.5, 0.7], [30.0, 10.0, 20.0]
    assert block["pearson"]["value"] == pytest.approx(pearsonr(h, m).statistic)
    assert block["spearman"]["value"] == pytest.approx(1.0) and block["pairwise_accuracy"]["value"] == 1.0
    assert [s["key"] for s in res["sources"]] == ["rubric", "rubric:idiom", "rubric:tense"]
    idiom = res["sources"][1]["metrics"]["judge"]
    assert idiom["kendall"]["value"] == pytest.approx(kendalltau([0.8, 0.6, 0.2], m).statistic)
    # one item only: the item level says why it is not computed
    assert res["sources"][0]["item_level"]["metrics"]["judge"]["available"] is False


def test_reader_export_chunk_level_from_segment_scores(tmp_path):
    lines = []
    for line in READER_EXPORT.read_text().splitlines():
        rec = json.loads(line)
        if rec["record"] == "chunk":      # what the platform's export says: the chunk's segments
            rec["testset_document"], rec["segments"] = rec["document"], [2 * rec["chunk"], 2 * rec["chunk"] + 2]
        lines.append(json.dumps(rec))
    export = tmp_path / "export.jsonl"
    export.write_text("\n".join(lines) + "\n")
    keys = [["d1", p] for p in range(4)] + [["d2", p] for p in range(2)]
    segs = {"HT": [0.7, 0.7, 0.2, 0.2, 0.5, 0.5], "gpt4": [0.8, 0.8, 0.9, 0.9, None, None],
            "deepl": [None, None, None, None, 0.9, 0.7]}
    metrics = _metrics_file(tmp_path / "m.json", {"HT": None, "gpt4": 1.0, "deepl": 2.0}, segments=segs, keys=keys)
    out = _run("--human", export, "--metrics", metrics, "--json")
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    src = res["sources"][0]
    assert src["kind"] == "reader" and src["chunk_level"]["available"]
    ch = src["chunk_level"]["metrics"]["judge"]
    # per judgement (d1/0 r1, r2; d1/1 r1, r2; d2/0 r1, r2): HT - other
    diffs = [-0.1, -0.1, -0.7, -0.7, -0.3, -0.3]
    signed = [1, 1, -1, 1, 1, -1]
    assert ch["n"] == 6 and ch["kendall"] == pytest.approx(kendalltau(diffs, signed).statistic)
    assert ch["agreements"] == 2 and ch["agreement"] == pytest.approx(2 / 6)
    text = _run("--human", export, "--metrics", metrics)
    assert text.returncode == 0 and "chunk level" in text.stdout and "2/6" in text.stdout, text.stdout


def test_reader_export_without_segments_says_why(tmp_path):
    # two systems with a score (the reference has none) and no segment scores: nothing to correlate
    metrics = _metrics_file(tmp_path / "m.json", {"gpt4": 1.0, "deepl": 2.0})
    out = _run("--human", READER_EXPORT, "--metrics", metrics, "--json")
    assert out.returncode == 1 and "nothing to correlate" in out.stderr and str(metrics) in out.stderr


def test_mismatched_system_names_are_named(tmp_path):
    human = tmp_path / "h.json"
    human.write_text(json.dumps({"higher_is_better": True, "scores": {"alpha": 1, "beta": 2, "gamma": 3}}))
    metrics = _metrics_file(tmp_path / "m.json", {"alpha": 1.0, "beta": 2.0, "delta": 3.0})
    out = _run("--human", human, "--metrics", metrics)
    assert out.returncode == 1
    assert "'gamma'" in out.stderr and "'alpha', 'beta'" in out.stderr, out.stderr
    metrics = _metrics_file(tmp_path / "m.json", {"alpha": 1.0, "beta": 2.0, "gamma": 3.0, "delta": 3.0})
    out = _run("--human", human, "--metrics", metrics)
    assert out.returncode == 0 and "metric scores but no human score: delta" in out.stdout


@pytest.mark.parametrize("content, what", [
    ('{"protocol": "rubric", "systems": {}}', "'systems' list"),
    ('{"protocol": "rubric", "systems": [{"overall": 1}], "items": []}', "systems[0] needs a 'system'"),
    ('[1, 2]', "not a human score file"),
    ('{"record": "chunk", "study": "s"}\n{"record": ', "h.json:1: missing field 'document'"),
    ('{"scores": {"a": 1}}\n{"scores": {"a": 1}}', "invalid JSON"),
    ('{"higher_is_better": "yes", "scores": {"a": 1}}', "'higher_is_better' must be true or false"),
    ('{"by": "doc", "scores": {"a": 1}}', "not an object of documents"),
])
def test_malformed_human_files_exit_1_naming_the_file(tmp_path, content, what):
    human = tmp_path / "h.json"
    human.write_text(content)
    metrics = _metrics_file(tmp_path / "m.json", {"a": 1.0, "b": 2.0, "c": 3.0})
    out = _run("--human", human, "--metrics", metrics)
    assert out.returncode == 1 and str(human) in out.stderr and what in out.stderr, out.stderr


def test_usage_errors_exit_2(tmp_path):
    assert _run("--human", "h", "--metrics", "m", "--confidence", "1.5").returncode == 2
    assert _run("--human", "h", "--metrics", "m", "--n-boot", "0").returncode == 2


def test_real_ted_mqm_by_document_against_sentence_chrf(tmp_path):
    """Real WMT21 TED en-de MQM by document (python -m mqm score --by doc --json) against per-segment chrF."""
    import sacrebleu

    tsv = require(ENDE_TSV)
    keys, _source, targets = system_segments(tsv)
    ref = targets.pop("ref")
    human = subprocess.run([sys.executable, "-m", "mqm", "score", str(tsv), "--scheme", "google-mqm", "--by", "doc",
                            "--json"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert human.returncode == 0, human.stderr
    (tmp_path / "human.json").write_text(human.stdout)
    chrf = sacrebleu.CHRF()
    segs = {s: [chrf.sentence_score(t[k], [ref[k]]).score for k in keys] for s, t in sorted(targets.items())}
    metrics = _metrics_file(tmp_path / "m.json", {s: float(np.mean(v)) for s, v in segs.items()}, segments=segs,
                            keys=[[d, i] for d, i in keys], metric="chrf")
    out = _run("--human", tmp_path / "human.json", "--metrics", metrics, "--json", "--n-boot", "200")
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    items = res["segment_level"]
    assert items["available"] and items["unit"] == "document"
    got = items["metrics"]["chrf"]
    by_doc = json.loads(human.stdout)["scores"]
    h, m = [], []
    for system, docs in by_doc.items():
        if system not in segs:
            continue
        per_doc = defaultdict(list)
        for (d, _i), v in zip(keys, segs[system], strict=True):
            per_doc[d].append(v)
        for d, row in docs.items():
            if row["score"] is not None and d in per_doc:
                h.append(-row["score"])                     # google-mqm: lower is better
                m.append(float(np.mean(per_doc[d])))
    assert got["n"] == len(h) > 50
    assert got["pearson"]["value"] == pytest.approx(pearsonr(h, m).statistic, abs=1e-12)
    assert got["spearman"]["value"] == pytest.approx(spearmanr(h, m).statistic, abs=1e-12)
    assert got["kendall"]["value"] == pytest.approx(kendalltau(h, m).statistic, abs=1e-12)
    assert got["spearman"]["value"] > 0          # chrF agrees with the raters more often than not
    print("TED en-de, MQM by document vs chrF:", {k: round(got[k]["value"], 4) for k in ("pearson", "spearman",
                                                                                          "kendall")}, got["n"])


def test_score_segments_flag_writes_segment_keys(tmp_path):
    out = subprocess.run([sys.executable, "-m", "scoring", "score", "data/demo/testset", "data/demo/systems/strong-mt",
                          "-m", "chrf", "--json", "--segments"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    from scoring.testset import load_testset

    ts = load_testset(ROOT / "data" / "demo" / "testset")
    assert res["segment_keys"] == [[d.name, i] for d in ts.documents for i in range(len(d.source))]
    # chrF has per-segment values now (sacrebleu's sentence_score), one per segment key
    chrf = res["systems"][0]["scores"]["chrf"]
    assert len(chrf["segments"]) == len(res["segment_keys"]) and chrf["segment_signature"].startswith("level:segment|")
    plain = json.loads(subprocess.run([sys.executable, "-m", "scoring", "score", "data/demo/testset",
                                       "data/demo/systems/strong-mt", "-m", "chrf", "--json"], cwd=ROOT,
                                      capture_output=True, text=True, timeout=300).stdout)
    assert "segment_keys" not in plain and "segments" not in plain["systems"][0]["scores"]["chrf"]


def test_metricalign_for_bleu_and_chrf_on_the_phenomenon_set(tmp_path):
    """DITING's MetricAlign (item-level Spearman, rho^2 x 100) for BLEU and chrF on data/demo/phenomena, against a
    rubric annotation of its 17 phenomena made by hand for this test (one rater: fixtures/phenomena_rubric_by_hand.json;
    15 segments, two of them with two phenomena, x 3 systems = 45 items)."""
    from scipy.stats import spearmanr

    systems = [f"data/demo/phenomena/systems/{s}" for s in ("careful-mt", "literal-mt", "chatty-llm")]
    out = subprocess.run([sys.executable, "-m", "scoring", "score", "data/demo/phenomena/testset", *systems,
                          "-m", "bleu", "chrf", "--json", "--segments"], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    metrics = tmp_path / "metrics.json"
    metrics.write_text(out.stdout, encoding="utf-8")
    human = Path(__file__).parent / "fixtures" / "phenomena_rubric_by_hand.json"
    meta = subprocess.run([sys.executable, "-m", "scoring", "meta", "--human", str(human), "--metrics", str(metrics),
                           "--json"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert meta.returncode == 0, meta.stderr
    items = json.loads(meta.stdout)["segment_level"]["metrics"]
    scored = json.loads(out.stdout)
    keys = [tuple(k) for k in scored["segment_keys"]]
    rubric = json.loads(human.read_text(encoding="utf-8"))["items"]
    by_item = defaultdict(list)
    for it in rubric:
        by_item[(it["system"], it["document"], it["segment"] - 1)].append(it["sigma"])
    for key in ("bleu", "chrf"):
        got = items[key]
        assert got["available"] and got["n"] == 45
        seg = {Path(s["name"]).name: s["scores"][key]["segments"] for s in scored["systems"]}
        pairs = [(sum(v) / len(v), seg[sys_][keys.index((doc, pos))]) for (sys_, doc, pos), v in by_item.items()]
        want = spearmanr([h for h, _ in pairs], [m for _, m in pairs]).statistic
        assert got["spearman"]["value"] == pytest.approx(want, abs=1e-12)
        assert got["spearman"]["variance_explained"] == pytest.approx(100 * want ** 2, abs=1e-9)
        print(f"MetricAlign {key}: rho = {want:.3f}, rho^2 x 100 = {100 * want ** 2:.1f}")
