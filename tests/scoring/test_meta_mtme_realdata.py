"""WMT23 en-de in mt-metrics-eval's layout (../shared/data/wmt23-mtme): ``python -m scoring meta --mtme``
against the toolkit's definitions computed here independently, with scipy and numpy, from the raw files.

Skips when the data is absent; strict in CI (ENFACE_STRICT_SERVICES=1).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from collections import defaultdict
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import pearsonr

from tests.support import ROOT, SHARED_DATA
from tests.support.realdata import require

WMT23 = SHARED_DATA / "wmt23-mtme" / "wmt23"
SEG_METRICS = ("BLEU-refA", "chrF-refA", "COMET-refA", "XCOMET-XL-refA", "MetricX-23-refA", "CometKiwi-src")
HUMAN_TRANSLATIONS = {"refA", "synthetic_ref"}


def raw(path: Path) -> dict[str, list[float | None]]:
    out: dict[str, list[float | None]] = defaultdict(list)
    for line in path.read_text(encoding="utf-8").splitlines():
        system, value = line.split("\t")
        out[system].append(None if value == "None" else float(value))
    return out


def run_cli(*args: str) -> dict:
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'platform'}"}
    proc = subprocess.run([sys.executable, "-m", "scoring", "meta", "--mtme", str(WMT23), "--lp", "en-de",
                           "--human", "mqm", "--json", *args], capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def sys_result() -> dict:
    require(WMT23)
    return run_cli("--level", "sys", "--n-boot", "200")


@pytest.fixture(scope="module")
def seg_result() -> dict:
    require(WMT23)
    return run_cli("--level", "seg", "--metrics", ",".join(SEG_METRICS))


def systems() -> list[str]:
    gold = raw(WMT23 / "human-scores" / "en-de.mqm.sys.score")
    return sorted(s for s, v in gold.items() if v[0] is not None and s not in HUMAN_TRANSLATIONS)


def p_values(seg: np.ndarray) -> np.ndarray:
    """Thompson et al.'s paired permutation test as the toolkit draws it: 1000 float32 sign flips, seed 4."""
    signs = np.rint(np.random.default_rng(4).random((1000, seg.shape[1]), dtype=np.float32)) * 2 - 1
    seg = seg.astype(np.float32)
    n = seg.shape[0]
    p = np.zeros((n, n))
    for i, j in combinations(range(n), 2):
        observed = seg[i].sum() - seg[j].sum()
        null = signs @ seg[i] - signs @ seg[j]
        p[i, j] = np.mean(null >= observed)
    return p


def seg_matrix(path: Path, names: list[str]) -> np.ndarray:
    scores = raw(path)
    return np.array([[math.nan if v is None else v for v in scores[s]] for s in names])


def test_participants_are_the_mqm_systems_without_human_translations(sys_result):
    assert sys_result["systems"] == systems() and len(systems()) == 12
    assert set(sys_result) == {"lp", "human", "level", "systems", "metrics"}
    assert (sys_result["lp"], sys_result["human"], sys_result["level"]) == ("en-de", "mqm", "sys")
    # every METRIC-REF with a sys score file, references of either kind
    files = sorted(p.name[:-len(".sys.score")] for p in (WMT23 / "metric-scores" / "en-de").glob("*.sys.score"))
    assert sorted(sys_result["metrics"]) == files and len(files) > 60


def test_system_level_pearson_and_pairwise_accuracy(sys_result):
    names = systems()
    gold = raw(WMT23 / "human-scores" / "en-de.mqm.sys.score")
    h = np.array([gold[s][0] for s in names])
    for path in sorted((WMT23 / "metric-scores" / "en-de").glob("*.sys.score")):
        metric = path.name[:-len(".sys.score")]
        scores = raw(path)
        m = np.array([scores[s][0] for s in names])
        block = sys_result["metrics"][metric]
        assert block["pearson"]["value"] == pytest.approx(pearsonr(h, m)[0], abs=1e-9), metric
        low, high = block["pearson"]["ci"]
        assert low <= block["pearson"]["value"] <= high
        agree = sum(np.sign(h[i] - h[j]) == np.sign(m[i] - m[j]) for i, j in combinations(range(12), 2))
        assert block["pairwise_accuracy"]["value"] == pytest.approx(agree / 66), metric


def test_system_level_soft_pairwise_accuracy(sys_result):
    names = systems()
    G = seg_matrix(WMT23 / "human-scores" / "en-de.mqm.seg.score", names)
    keep = ~np.isnan(G).any(axis=0)
    human_p = p_values(G[:, keep])
    upper = np.triu_indices(12, 1)
    found = {}
    for metric in SEG_METRICS:
        M = seg_matrix(WMT23 / "metric-scores" / "en-de" / f"{metric}.seg.score", names)[:, keep]
        expected = 1 - np.mean(np.abs(human_p - p_values(M))[upper])
        found[metric] = sys_result["metrics"][metric]["soft_pairwise_accuracy"]
        assert found[metric] == pytest.approx(expected, abs=2e-3), metric
    print("soft pairwise accuracy", {k: round(v, 4) for k, v in found.items()})
    # a metric without segment scores has no soft pairwise accuracy
    assert sys_result["metrics"]["BERTscore-refA"]["soft_pairwise_accuracy"] is None


def acc_eq_by_item(G: np.ndarray, M: np.ndarray) -> tuple[float, float]:
    """Deutsch et al.'s tie calibration, step by step: sort every pair by metric difference, tie them one at a time."""
    pairs, per_item = [], []
    for item in range(G.shape[1]):
        g, m = G[:, item], M[:, item]
        ok = [s for s in range(len(g)) if not math.isnan(g[s])]
        if len(ok) < 2:
            continue
        idx = len(per_item)
        n = len(ok) * (len(ok) - 1) // 2
        correct = 0
        for a, b in combinations(ok, 2):
            dg, dm = g[a] - g[b], m[a] - m[b]
            right = (dg == 0 and dm == 0) or (dg != 0 and dm != 0 and (dg > 0) == (dm > 0))
            correct += right
            pairs.append((abs(dm), idx, (1 if dg == 0 else 0) - right, n))
        per_item.append([correct, n])
    total = sum(c / n for c, n in per_item)
    best_tau, best_eps = total / len(per_item), 0.0
    pairs.sort(key=lambda p: p[0])
    for k, (diff, _idx, change, n) in enumerate(pairs):
        total += change / n
        if k + 1 < len(pairs) and pairs[k + 1][0] == diff:
            continue
        if total / len(per_item) > best_tau:
            best_tau, best_eps = total / len(per_item), diff
    return best_tau, best_eps


def test_segment_level_pearson_and_acc_eq(seg_result):
    names = systems()
    assert seg_result["systems"] == names and seg_result["level"] == "seg"
    G = seg_matrix(WMT23 / "human-scores" / "en-de.mqm.seg.score", names)
    report = {}
    for metric in SEG_METRICS:
        M = seg_matrix(WMT23 / "metric-scores" / "en-de" / f"{metric}.seg.score", names)
        ok = ~np.isnan(G)
        block = seg_result["metrics"][metric]
        assert block["pearson"] == pytest.approx(pearsonr(G[ok], M[ok])[0], abs=1e-9), metric
        value, eps = acc_eq_by_item(G, M)
        assert block["acc_eq"]["value"] == pytest.approx(value, abs=1e-9), metric
        assert block["acc_eq"]["threshold"] == pytest.approx(eps), metric
        report[metric] = (round(block["pearson"], 4), round(value, 4), eps)
    print("seg pearson, acc_eq, threshold", report)
    # the WMT23 findings' order at the segment level: XCOMET-XL and MetricX-23 above COMET, BLEU and chrF last
    acc = {m: seg_result["metrics"][m]["acc_eq"]["value"] for m in SEG_METRICS}
    assert min(acc["XCOMET-XL-refA"], acc["MetricX-23-refA"]) > acc["COMET-refA"] > max(acc["BLEU-refA"],
                                                                                          acc["chrF-refA"])


def test_including_human_translations_adds_the_reference_that_was_scored(sys_result):
    with_human = run_cli("--level", "sys", "--metrics", "CometKiwi-src,BLEU-refA", "--n-boot", "20",
                         "--include-human")
    assert "refA" in with_human["systems"] and len(with_human["systems"]) == 13
    assert with_human["metrics"]["CometKiwi-src"]["n_systems"] == 13
    # BLEU-refA has no score for refA itself: it is compared on the 12 others
    assert with_human["metrics"]["BLEU-refA"]["missing"] == ["refA"]
    seg = run_cli("--level", "seg", "--metrics", "CometKiwi-src,BLEU-refA", "--include-human")
    assert seg["metrics"]["CometKiwi-src"]["n_systems"] == 13 and seg["metrics"]["BLEU-refA"]["missing"] == ["refA"]
