"""Reader-study tests that respect clustering, Gwet's ordinal weights, and intervals, against statsmodels and irrCAC."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from irrCAC.raw import CAC

from humaneval.agreement import WEIGHTS, cohen_kappa, gwet, gwet_interval, kappa_interval, weight_matrix
from humaneval.clustered import Judgment, clustered_preference_test
from humaneval.preference import binomial_test

ROOT = Path(__file__).resolve().parents[2]


def disagreeing_study(seed: int = 7) -> list[Judgment]:
    """30 readers on 15 documents, 4 chunks each; readers lean very differently (some prefer the system)."""
    rng = random.Random(seed)
    out = []
    for r in range(30):
        lean = rng.choice([0.95, 0.9, 0.85, 0.3, 0.2, 0.6])
        for d in range(15):
            if rng.random() < 0.5:
                continue
            for _ in range(4):
                out.append(Judgment(f"r{r}", f"d{d}", rng.random() < lean, rng.random() < 0.5))
    return out


def test_clustered_p_is_far_larger_than_binomial_when_readers_disagree():
    js = disagreeing_study()
    k = sum(j.chose_reference for j in js)
    binomial = binomial_test(k, len(js)).p_value
    clustered = clustered_preference_test(js)
    assert binomial < 1e-15
    assert 1e-4 < clustered.p_value < 0.2          # still a preference, but nothing like 1e-21
    assert clustered.readers == 30 and clustered.documents == 15 and clustered.n == len(js)
    assert clustered.estimate > 0 and 0.5 < clustered.share < 1


def test_clustered_equals_statsmodels_two_way_cluster_sandwich():
    """The standard error is Cameron-Gelbach-Miller's two-way cluster sandwich (statsmodels' own routine)."""
    import statsmodels.api as sm
    from scipy.stats import t
    from statsmodels.stats.sandwich_covariance import cov_cluster_2groups

    js = disagreeing_study(3)
    y = np.array([float(j.chose_reference) for j in js])
    x = np.column_stack([np.ones(len(js)), [0.5 if j.reference_first else -0.5 for j in js]])
    readers = pd.factorize(np.array([j.reader for j in js]))[0]
    docs = pd.factorize(np.array([j.document for j in js]))[0]
    fit = sm.GLM(y, x, family=sm.families.Binomial()).fit()
    cov, _, _ = cov_cluster_2groups(fit, readers, docs)
    got = clustered_preference_test(js)
    assert got.estimate == pytest.approx(fit.params[0], rel=1e-9)
    assert got.order_effect == pytest.approx(fit.params[1], rel=1e-9)
    # statsmodels' small-sample correction on the two-way sandwich: same order as the raw one
    assert got.se == pytest.approx(np.sqrt(cov[0, 0]), rel=0.1)
    assert got.p_value == pytest.approx(2 * t.sf(abs(got.estimate / got.se), min(30, 15) - 1), rel=1e-9)


def test_clustered_is_unavailable_with_a_reason():
    few = [Judgment("a", "d", True), Judgment("b", "d", False)]
    assert clustered_preference_test(few).p_value is None and "at least" in clustered_preference_test(few).reason
    same = [Judgment(f"r{i % 4}", f"d{i % 5}", True) for i in range(40)]
    result = clustered_preference_test(same)
    assert result.estimate is None and "separation" in result.reason


def test_reader_json_has_clustered_beside_the_binomial_test(tmp_path):
    rng = random.Random(5)
    lines = []
    versions = {"1": {"label": "HT", "kind": "reference"}, "2": {"label": "mt", "kind": "system"}}
    for r in range(8):
        lean = [0.9, 0.2, 0.8, 0.7][r % 4]
        for d in range(6):
            first = rng.choice(["1", "2"])
            lines.append({"record": "excerpt", "study": "s", "document": f"d{d}", "reader": f"r{r}",
                          "versions": versions, "first": first,
                          "continue_choice": {"version": "1" if rng.random() < lean else "2"}})
            for c in range(3):
                shown = rng.choice([["1", "2"], ["2", "1"]])
                lines.append({"record": "chunk", "study": "s", "document": f"d{d}", "reader": f"r{r}", "chunk": c,
                              "versions": versions, "texts": {"1": "a b", "2": "c d"}, "displayed": shown,
                              "preference": "1" if rng.random() < lean else "2", "difficulty": "better"})
    path = tmp_path / "export.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "humaneval", "reader", str(path), "--json"], cwd=ROOT,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    study = json.loads(proc.stdout)["studies"]["s"]
    chunk = study["chunk_preference"]["by_kind"]
    assert {"method", "estimate", "p_value"} <= set(chunk["clustered"])
    assert chunk["clustered"]["n"] == chunk["n"] == 8 * 6 * 3
    assert "test" in chunk and chunk["clustered"]["p_value"] > chunk["test"]["p_value"]
    excerpt = study["excerpt_preference"]["by_kind"]["clustered"]
    assert excerpt["n"] == 48 and {"method", "estimate", "p_value"} <= set(excerpt)


# -- Gwet's ordinal weights and the intervals, against irrCAC -------------------------------------------


def _frame(rows):
    return pd.DataFrame(rows, dtype=object).replace({None: np.nan})


@pytest.mark.parametrize("categories", [[1, 2, 3, 4, 5], [0, 1, 4, 9]])
def test_ordinal_weights_are_irrcacs(categories):
    from irrCAC.weights import Weights

    assert np.allclose(weight_matrix(categories, "ordinal"), Weights(categories).ordinal(), atol=1e-15)


@pytest.mark.parametrize("weights", WEIGHTS)
def test_gwet_value_se_and_interval_equal_irrcac(weights):
    rng = random.Random(11)
    rows = [[rng.choice([1, 2, 3, 4, 5, None]) for _ in range(4)] for _ in range(50)]
    rows = [r for r in rows if any(v is not None for v in r)]
    ref = CAC(_frame(rows), weights=weights, categories=[1, 2, 3, 4, 5], digits=15).gwet()["est"]
    got = gwet_interval(rows, weights, [1, 2, 3, 4, 5])
    assert gwet(rows, weights, [1, 2, 3, 4, 5]).value == pytest.approx(ref["coefficient_value"], abs=1e-13)
    assert got.value == pytest.approx(ref["coefficient_value"], abs=1e-13)
    assert got.se == pytest.approx(ref["se"], abs=1e-13) and got.se > 0
    assert (got.low, got.high) == pytest.approx(ref["confidence_interval"], abs=1e-13)
    assert got.low < got.value < got.high


def test_ordinal_differs_from_linear_and_quadratic_on_unequal_spacing():
    rows = [[0, 1], [1, 4], [4, 4], [9, 4], [0, 0], [9, 9], [1, 0]]
    values = {w: gwet(rows, w).value for w in ("linear", "quadratic", "ordinal")}
    assert len({round(v, 12) for v in values.values()}) == 3


@pytest.mark.parametrize("weights", WEIGHTS)
def test_kappa_interval_equals_irrcac(weights):
    rng = random.Random(2)
    a = [rng.choice([1, 2, 3]) for _ in range(40)]
    b = [x if rng.random() < 0.6 else rng.choice([1, 2, 3]) for x in a]
    ref = CAC(_frame(list(zip(a, b))), weights=weights, categories=[1, 2, 3], digits=15).conger()["est"]
    got = kappa_interval(a, b, weights, [1, 2, 3])
    assert got.value == pytest.approx(cohen_kappa(a, b, weights, [1, 2, 3]), abs=1e-13)
    assert got.value == pytest.approx(ref["coefficient_value"], abs=1e-13)
    assert got.se == pytest.approx(ref["se"], abs=1e-13)
    assert (got.low, got.high) == pytest.approx(ref["confidence_interval"], abs=1e-13)


def test_interval_needs_two_items():
    got = gwet_interval([[1, 1]], "identity")
    assert got.se is None and "two items" in got.reason
