"""Meta-evaluation (scoring.meta, python -m scoring meta): every number against scipy or by hand."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import kendalltau, pearsonr, spearmanr

from scoring.meta import (
    HumanSource,
    MetaInputError,
    MetricScores,
    bootstrap_ci,
    human_from_obj,
    item_level,
    meta_evaluate,
    metrics_from_obj,
    pairwise_accuracy_untied,
    rank_flips,
    system_level,
    system_name,
)
from tests.support.realdata import ENDE_TSV, require, system_segments

ROOT = Path(__file__).resolve().parents[2]
HUMAN = {"s1": 80.0, "s2": 75.0, "s3": 60.0, "s4": 90.0, "s5": 40.0}
METRIC = {"s1": 30.0, "s2": 33.0, "s3": 20.0, "s4": 35.0, "s5": 10.0}


def _vec(d, systems):
    return np.array([d[s] for s in systems])


def test_system_level_numbers_equal_scipy():
    res = system_level(HUMAN, METRIC, n_boot=200)
    systems = res["systems"]
    h, m = _vec(HUMAN, systems), _vec(METRIC, systems)
    assert res["pearson"]["value"] == pytest.approx(pearsonr(h, m).statistic, abs=1e-12)
    assert res["pearson"]["p_value"] == pytest.approx(pearsonr(h, m).pvalue, abs=1e-12)
    rho = spearmanr(h, m).statistic
    assert res["spearman"]["value"] == pytest.approx(rho, abs=1e-12)
    assert res["spearman"]["variance_explained"] == pytest.approx(rho * rho * 100)
    assert res["kendall"]["value"] == pytest.approx(kendalltau(h, m, variant="b").statistic, abs=1e-12)
    assert res["kendall"]["variant"] == "tau-b"
    tau_c = system_level(HUMAN, METRIC, n_boot=50, kendall_variant="c")["kendall"]
    assert tau_c["value"] == pytest.approx(kendalltau(h, m, variant="c").statistic, abs=1e-12)
    assert tau_c["variant"] == "tau-c"
    # 10 pairs; the only discordant one is s1/s2 (humans: s1, metric: s2)
    assert res["pairwise_accuracy"]["value"] == pytest.approx(9 / 10) and res["pairwise_accuracy"]["n_pairs"] == 10
    for key in ("pearson", "spearman", "kendall", "pairwise_accuracy"):
        low, high = res[key]["ci"]
        assert -1 <= low <= high <= 1 and res[key]["n_valid"] > 0


def test_bootstrap_interval_is_the_seeded_percentile_over_resampled_systems():
    h, m = _vec(HUMAN, list(HUMAN)), _vec(METRIC, list(HUMAN))

    def pearson(a, b):
        return math.nan if np.ptp(a) == 0 or np.ptp(b) == 0 else pearsonr(a, b).statistic

    rng = np.random.default_rng(7)
    values = [v for v in (pearson(h[i], m[i]) for i in rng.integers(0, 5, size=(300, 5))) if not math.isnan(v)]
    low, high, n_valid = bootstrap_ci(pearson, h, m, n_boot=300, seed=7)
    assert n_valid == len(values)
    assert (low, high) == pytest.approx(tuple(np.percentile(values, [2.5, 97.5])))
    assert bootstrap_ci(pearson, h, m, n_boot=300, seed=7) == (low, high, n_valid)   # seeded


def test_pairwise_accuracy_by_hand_and_its_tie_rule():
    assert pairwise_accuracy_untied([3, 2, 1], [30, 20, 10]) == (1.0, 3)
    assert pairwise_accuracy_untied([3, 2, 1], [10, 20, 30]) == (0.0, 3)
    assert pairwise_accuracy_untied([3, 2, 1], [30, 10, 20]) == (pytest.approx(2 / 3), 3)
    # human tie (a, b) is left out: 2 pairs counted
    assert pairwise_accuracy_untied([2, 2, 1], [5, 3, 1]) == (1.0, 2)
    # metric tie on a pair the humans order counts as wrong
    assert pairwise_accuracy_untied([3, 2, 1], [5, 5, 1]) == (pytest.approx(2 / 3), 3)
    acc, n = pairwise_accuracy_untied([1, 1], [1, 2])
    assert math.isnan(acc) and n == 0


def test_lower_is_better_scores_are_oriented():
    human = {"a": 0.5, "b": 1.0, "c": 2.0, "d": 3.0}     # google-mqm: lower is better
    ter = {"a": 40.0, "b": 50.0, "c": 60.0, "d": 75.0}    # lower is better, same order
    bleu = {"a": 40.0, "b": 30.0, "c": 20.0, "d": 10.0}   # higher is better, raw values anti-correlated
    r_ter = system_level(human, ter, human_higher_is_better=False, metric_higher_is_better=False, n_boot=50)
    r_bleu = system_level(human, bleu, human_higher_is_better=False, metric_higher_is_better=True, n_boot=50)
    for r in (r_ter, r_bleu):
        assert r["kendall"]["value"] == pytest.approx(1.0) and r["spearman"]["value"] == pytest.approx(1.0)
        assert r["pairwise_accuracy"]["value"] == 1.0 and r["rank_flips"]["systems"] == []
        assert r["oriented"] is True
    assert r_bleu["pearson"]["value"] == pytest.approx(-pearsonr(list(human.values()), list(bleu.values())).statistic)
    wrong = system_level(human, bleu, human_higher_is_better=False, metric_higher_is_better=False, n_boot=50)
    assert wrong["kendall"]["value"] == pytest.approx(-1.0) and wrong["pairwise_accuracy"]["value"] == 0.0


def test_rank_flips_largest_first():
    flips = rank_flips(["a", "b", "c", "d"], [4, 3, 2, 1], [1, 3, 2, 4])
    assert [(f["system"], f["human_rank"], f["metric_rank"], f["difference"]) for f in flips["systems"]] == [
        ("a", 1, 4, 3), ("d", 4, 1, -3)]
    assert {"human_prefers": "a", "metric_prefers": "d"} in flips["discordant_pairs"]
    assert len(flips["discordant_pairs"]) == 5          # every pair with a or d, but not b/c


def test_item_level_pooled_against_scipy():
    human = {"x": {1: 1.0, 2: 0.0, 3: 5.0}, "y": {1: 2.0, 2: 1.0, 4: 9.0}}
    metric = {"x": {1: 0.9, 2: 0.95, 3: 0.2}, "y": {1: 0.8, 2: 0.85, 3: 0.1}}
    res = item_level(human, metric, human_higher_is_better=False, n_boot=200, seed=3)
    h = [-1.0, 0.0, -5.0, -2.0, -1.0]
    m = [0.9, 0.95, 0.2, 0.8, 0.85]
    assert res["n"] == 5 and res["pearson"]["value"] == pytest.approx(pearsonr(h, m).statistic, abs=1e-12)
    assert res["kendall"]["value"] == pytest.approx(kendalltau(h, m).statistic, abs=1e-12)
    rho = spearmanr(h, m).statistic
    assert res["spearman"]["value"] == pytest.approx(rho, abs=1e-12)
    assert res["spearman"]["variance_explained"] == pytest.approx(rho * rho * 100)
    assert res["spearman"]["p_value"] == pytest.approx(spearmanr(h, m).pvalue)
    for key in ("pearson", "spearman", "kendall"):
        low, high = res[key]["ci"]
        assert low <= res[key]["value"] <= high
    assert item_level({"x": {1: 1.0}}, {"x": {1: 1.0}})["available"] is False


def test_readers_and_names():
    assert system_name("data/demo/systems/strong-mt") == "strong-mt"
    assert system_name("out/team1.txt") == "team1" and system_name("dir/sys/") == "sys"
    [human] = human_from_obj({"higher_is_better": False, "scores": {"a": {"score": 1.0}, "b": 2,
                                                                   "c": {"score": None}}})
    assert human.systems == {"a": 1.0, "b": 2.0} and human.higher_is_better is False and human.kind == "mqm"
    with pytest.raises(MetaInputError, match="by 'rater'"):
        human_from_obj({"by": "rater", "scores": {}}, "h.json")
    metrics = metrics_from_obj({"systems": [
        {"name": "x/a.txt", "scores": {"ter": {"score": 50.0, "higher_is_better": False, "name": "TER"},
                                       "comet": {"score": None, "higher_is_better": True}}}]})
    assert metrics["ter"].scores == {"a": 50.0} and metrics["ter"].higher_is_better is False
    assert metrics["comet"].scores == {}
    with pytest.raises(MetaInputError, match="two systems have the name 'a'"):
        metrics_from_obj({"systems": [{"name": "x/a", "scores": {}}, {"name": "y/a.txt", "scores": {}}]}, "m.json")


def test_meta_evaluate_skips_a_metric_with_too_few_systems_and_fails_when_none_is_left():
    human = HumanSource("mqm", "MQM", "mqm", True, {"a": 1.0, "b": 2.0, "c": 3.0})
    metrics = {"bleu": MetricScores("bleu", {"a": 1.0, "b": 3.0, "c": 2.0}, True),
               "comet": MetricScores("comet", {"a": 1.0}, True)}
    res = meta_evaluate(human, metrics, n_boot=20)
    assert list(res["metrics"]) == ["bleu"] and "comet" in res["skipped"]
    assert res["segment_level"]["available"] is False and res["kendall_variant"] == "tau-b"
    with pytest.raises(MetaInputError, match="fewer than 3"):
        meta_evaluate(human, {"comet": metrics["comet"]}, metrics_path="m.json")
    with pytest.raises(MetaInputError, match=r"no systems in common.*'z'.*'a', 'b', 'c'"):
        meta_evaluate(human, {"x": MetricScores("x", {"z": 1.0}, True)}, metrics_path="m.json")


# ---------------------------------------------------------------------------
# The command line


def _run(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "scoring", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


@pytest.fixture(scope="module")
def demo_metrics(tmp_path_factory):
    out = _run("score", "data/demo/testset", "data/demo/systems/strong-mt", "data/demo/systems/literal-mt",
               "data/demo/systems/weak-mt", "-m", "bleu", "chrf", "ter", "--json")
    assert out.returncode == 0, out.stderr
    path = tmp_path_factory.mktemp("meta") / "metrics.json"
    path.write_text(out.stdout)
    return path


def _human(tmp_path, scores, hib=True, name="human.json"):
    path = tmp_path / name
    path.write_text(json.dumps({"scheme": "wmt23-literary", "higher_is_better": hib, "by": "system",
                                "scores": {s: {"score": v} for s, v in scores.items()}}))
    return path


def test_cli_good_input(demo_metrics, tmp_path):
    human = _human(tmp_path, {"strong-mt": 92.0, "literal-mt": 70.0, "weak-mt": 55.0, "other": 10.0})
    out = _run("meta", "--human", human, "--metrics", demo_metrics, "--json", "--n-boot", "200")
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert set(res["metrics"]) == {"bleu", "chrf", "ter"}
    for block in res["metrics"].values():
        assert {"pearson", "spearman", "kendall", "pairwise_accuracy"} <= set(block)
        for key in ("pearson", "spearman", "kendall", "pairwise_accuracy"):
            assert set(block[key]) >= {"value", "ci"}
        assert block["systems"] == ["strong-mt", "literal-mt", "weak-mt"]
    assert res["metrics"]["ter"]["metric_higher_is_better"] is False
    text = _run("meta", "--human", human, "--metrics", demo_metrics, "--n-boot", "50")
    assert text.returncode == 0 and "Kendall tau-b" in text.stdout and "TER (lower is better)" in text.stdout


def test_cli_bad_inputs_exit_1_naming_the_file(demo_metrics, tmp_path):
    good = _human(tmp_path, {"strong-mt": 92.0, "literal-mt": 70.0, "weak-mt": 55.0})
    missing = tmp_path / "missing.json"
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    disjoint = _human(tmp_path, {"x": 1.0, "y": 2.0, "z": 3.0}, name="disjoint.json")
    two = _human(tmp_path, {"strong-mt": 1.0, "weak-mt": 2.0}, name="two.json")
    cases = [(missing, demo_metrics, missing, "no such file"), (good, missing, missing, "no such file"),
             (broken, demo_metrics, broken, "invalid JSON"), (good, broken, broken, "invalid JSON"),
             (disjoint, demo_metrics, demo_metrics, "no systems in common"),
             (two, demo_metrics, demo_metrics, "fewer than 3"),
             (demo_metrics, demo_metrics, demo_metrics, "not a human score file"),
             (good, good, good, "'systems' list")]
    for human, metrics, named, what in cases:
        out = _run("meta", "--human", human, "--metrics", metrics)
        assert out.returncode == 1, (human, metrics, out.stderr)
        assert str(named) in out.stderr and what in out.stderr, out.stderr


def test_cli_usage_exit_2(tmp_path):
    assert _run("meta", "--human", tmp_path / "h.json").returncode == 2
    assert _run("meta", "--metrics", tmp_path / "m.json").returncode == 2
    assert _run("meta", "--human", "h", "--metrics", "m", "--kendall", "z").returncode == 2


# ---------------------------------------------------------------------------
# Real data: the WMT21 TED en-de MQM (google-mqm) against BLEU/chrF/TER of the same outputs


def test_real_ted_ende_mqm_against_sacrebleu_metrics(tmp_path):
    tsv = require(ENDE_TSV)
    keys, source, targets = system_segments(tsv)
    ref = targets.pop("ref")            # the human reference the raters also scored
    (tmp_path / "src.txt").write_text("\n".join(source[k] for k in keys) + "\n")
    (tmp_path / "ref.txt").write_text("\n".join(ref[k] for k in keys) + "\n")
    (tmp_path / "docs.txt").write_text("\n".join(k[0] for k in keys) + "\n")
    hyps = []
    for system, segs in sorted(targets.items()):
        path = tmp_path / f"{system}.txt"
        path.write_text("\n".join(segs[k] for k in keys) + "\n")
        hyps.append(path)
    out = _run("score", "--src", tmp_path / "src.txt", "--ref", tmp_path / "ref.txt", "--tgt-lang", "de",
               *hyps, "-m", "bleu", "chrf", "ter", "--json")
    assert out.returncode == 0, out.stderr
    (tmp_path / "metrics.json").write_text(out.stdout)
    human = subprocess.run([sys.executable, "-m", "mqm", "score", str(tsv), "--scheme", "google-mqm", "--json"],
                           cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert human.returncode == 0, human.stderr
    (tmp_path / "human.json").write_text(human.stdout)
    res = _run("meta", "--human", tmp_path / "human.json", "--metrics", tmp_path / "metrics.json", "--json")
    assert res.returncode == 0, res.stderr
    meta = json.loads(res.stdout)
    hum = json.loads(human.stdout)["scores"]
    met = {Path(s["name"]).stem: s["scores"] for s in json.loads(out.stdout)["systems"]}
    for key, block in meta["metrics"].items():
        assert block["n_systems"] == 13 and "ref" not in block["systems"]
        h = -np.array([hum[s]["score"] for s in block["systems"]])               # google-mqm: lower is better
        sign = -1.0 if key == "ter" else 1.0
        m = sign * np.array([met[s][key]["score"] for s in block["systems"]])
        assert block["pearson"]["value"] == pytest.approx(pearsonr(h, m).statistic, abs=1e-12)
        assert block["kendall"]["value"] == pytest.approx(kendalltau(h, m).statistic, abs=1e-12)
        assert block["spearman"]["value"] == pytest.approx(spearmanr(h, m).statistic, abs=1e-12)
        # the metrics agree with the professional raters more often than not
        assert block["kendall"]["value"] > 0 and block["pairwise_accuracy"]["value"] > 0.5
        print(key, {k: round(block[k]["value"], 4) for k in ("pearson", "spearman", "kendall", "pairwise_accuracy")},
              [round(v, 4) for v in block["kendall"]["ci"]])
