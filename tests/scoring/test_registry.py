"""The metric registry: one entry per metric, and a new metric flows through scorer, CLI table and significance."""

from __future__ import annotations

from pathlib import Path

import pytest

from scoring import Scorer, load_system_output, load_testset
from scoring.metrics import DISPLAY, HIGHER_IS_BETTER, REGISTRY, MetricSpec
from scoring.metrics.registry import register, spec
from tests.support.toy_metric import toy_metric as toy_metric_registered

DEMO = Path(__file__).resolve().parents[2] / "data" / "demo"


@pytest.fixture
def toy_metric():
    with toy_metric_registered() as key:
        yield key


def test_builtin_specs():
    assert list(REGISTRY) == ["bleu", "chrf", "comet", "ter", "dbleu"]
    assert spec("ter").higher_is_better is False and HIGHER_IS_BETTER["ter"] is False
    assert spec("comet").queue == "gpu" and spec("comet").engine == "model" and "torch" in spec("comet").heavy_deps
    assert spec("dbleu").document_level and not spec("dbleu").line_aligned
    assert DISPLAY["chrf"] == "chrF2" and spec("chrf").title == "chrF"


def test_bad_specs_are_refused():
    with pytest.raises(ValueError, match="level"):
        MetricSpec("x", "X", "x", level="word")
    with pytest.raises(ValueError, match="module:callable"):
        MetricSpec("x", "X", "x", engine="model")
    with pytest.raises(ValueError, match="lower-case"):
        MetricSpec("Bad Key", "X", "x")
    with pytest.raises(ValueError, match="registered already"):
        register(MetricSpec("bleu", "BLEU", "again"))
    with pytest.raises(ValueError, match="unknown metric 'nope'"):
        spec("nope")


def test_a_new_metric_is_one_entry(toy_metric):
    from scoring.cli import format_table
    from scoring.significance import metric_stats, paired_test

    ts = load_testset(DEMO / "testset")
    outputs = {n: load_system_output(ts, DEMO / "systems" / n) for n in ("strong-mt", "weak-mt")}
    with Scorer(ts, ["bleu", "toylen"], workers=1) as scorer:
        results = scorer.score_many(outputs)
    toy = results["strong-mt"].scores["toylen"]
    refs = ts.references()[0]
    hyps = [s for d in ts.doc_names for s in outputs["strong-mt"][d]]
    assert toy.value == pytest.approx(sum(100.0 - abs(len(h) - len(r)) for h, r in zip(hyps, refs)) / len(refs))
    assert "ToyLen↑" in format_table(results, ["bleu", "toylen"])
    assert DISPLAY["toylen"] == "ToyLen" and "toylen" in HIGHER_IS_BETTER
    sig = paired_test(metric_stats("toylen", ts.tgt_lang, {n: r.stats["toylen"] for n, r in results.items()}),
                      n_samples=100)
    assert {r["system"] for r in sig.ranking} == {"strong-mt", "weak-mt"}
    assert sig.ranking[0]["score"] == pytest.approx(max(r.scores["toylen"].value for r in results.values()))


def test_heavy_deps_versions_are_recorded():
    from scoring.metrics.registry import unregister
    from tests.support.toy_metric import KEY

    register(MetricSpec(KEY, "ToyLen", "toy", level="segment", engine="model", factory="tests.support.toy_metric:engine",
                        heavy_deps=("sacrebleu",)))
    try:
        ts = load_testset(DEMO / "testset")
        with Scorer(ts, [KEY], workers=1) as scorer:
            score = scorer.score(load_system_output(ts, DEMO / "systems" / "weak-mt")).scores[KEY]
        assert set(score.versions) == {"sacrebleu"} and score.versions["sacrebleu"][0].isdigit()
    finally:
        unregister(KEY)


def test_an_unavailable_model_metric_is_na_with_its_reason(toy_metric):
    ts = load_testset(DEMO / "testset")
    out = load_system_output(ts, DEMO / "systems" / "strong-mt")
    with Scorer(ts, ["toylen"], workers=1, engine_options={"toylen": {"fail": True}}) as scorer:
        score = scorer.score(out).scores["toylen"]
    assert score.value is None and score.reason == "toy model not loaded"


def test_comet_significance_uses_the_corpus_scale():
    """COMET's segment scores are already x100: the paired test's observed score is the corpus score."""
    from scoring.significance import metric_stats

    ms = metric_stats("comet", "en", {"a": [80.0, 90.0], "b": [70.0, 70.0]})
    assert ms.observed() == {"a": pytest.approx(85.0), "b": pytest.approx(70.0)}
