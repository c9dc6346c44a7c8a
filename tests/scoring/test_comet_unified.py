"""COMET-family checkpoints beyond wmt22-comet-da: CometKiwi (reference-free) and xCOMET, by local path.

Runs offline on tiny randomly initialised ``UnifiedMetric`` checkpoints built by
tests/support/tiny_comet.py (``build_tiny_unified``), the class of Unbabel/wmt22-cometkiwi-da and XCOMET.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from scoring.cli import main
from scoring.metrics.base import ReferenceRequired
from scoring.metrics.comet import CometScorer
from scoring.scorer import Scorer
from scoring.testset import load_flat
from tests.support.tiny_comet import offline_one_thread, synthetic_sentences

N = 10


@pytest.fixture(scope="module", autouse=True)
def offline():
    with offline_one_thread() as mp:
        yield mp


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> dict[str, Path]:
    from tests.support.tiny_comet import build_tiny_comet, build_tiny_unified

    out = tmp_path_factory.mktemp("unified")
    return {"kiwi": build_tiny_unified(out, kind="kiwi"), "xcomet": build_tiny_unified(out, kind="xcomet"),
            "da": build_tiny_comet(out)}


@pytest.fixture(scope="module")
def kiwi(models) -> CometScorer:
    return CometScorer(str(models["kiwi"]), batch_size=4, device="cpu")


@pytest.fixture(scope="module")
def xcomet(models) -> CometScorer:
    return CometScorer(str(models["xcomet"]), batch_size=4, device="cpu")


@pytest.fixture(scope="module")
def data():
    sources = synthetic_sentences(N, seed=1)
    references = synthetic_sentences(N, seed=2)
    systems = {f"sys{i}": synthetic_sentences(N, seed=10 + i) for i in range(2)}
    return sources, systems, references


def predict_x100(scorer, sources, hyps, references=None):
    if references is None:
        samples = [{"src": s, "mt": h} for s, h in zip(sources, hyps)]
    else:
        samples = [{"src": s, "mt": h, "ref": r} for s, h, r in zip(sources, hyps, references)]
    out = scorer.model.predict(samples, batch_size=4, gpus=0, progress_bar=False, num_workers=0)
    return [s * 100 for s in out.scores]


def test_kiwi_scores_without_reference(kiwi, data):
    sources, systems, references = data
    assert (kiwi.takes_references, kiwi.needs_references, kiwi.reuses_embeddings) == (False, False, False)
    many = kiwi.score_many(sources, systems)
    for name, hyps in systems.items():
        score = many[name]
        assert re.fullmatch(r"model:tiny-kiwi\|ref:none\|batch:4\|comet:2\.\d+\.\d+", score.signature)
        assert score.details["reference_free"] is True and "error_spans" not in score.details
        assert len(score.segments) == N and len(set(score.segments)) > 1
        assert score.segments == pytest.approx(predict_x100(kiwi, sources, hyps), abs=1e-4)
        assert score.value == pytest.approx(sum(score.segments) / N)
    # A reference given to a model that takes none is ignored, not fed in.
    with_refs = kiwi.score(sources, systems["sys0"], references)
    assert with_refs.segments == many["sys0"].segments and "ref:none" in with_refs.signature
    assert kiwi.signature == many["sys0"].signature


def test_reference_based_model_refuses_no_reference(models, data):
    sources, systems, _ = data
    da = CometScorer(str(models["da"]), batch_size=4, device="cpu")
    with pytest.raises(ReferenceRequired, match="tiny-comet-da.*reference-based"):
        da.score(sources, systems["sys0"])


def test_xcomet_with_and_without_reference(xcomet, data):
    sources, systems, references = data
    assert (xcomet.takes_references, xcomet.needs_references) == (True, False)
    hyps = systems["sys1"]
    with_ref = xcomet.score(sources, hyps, references)
    assert "|ref:1|" in with_ref.signature and with_ref.details["reference_free"] is False
    assert with_ref.segments == pytest.approx(predict_x100(xcomet, sources, hyps, references), abs=1e-4)
    spans = with_ref.details["error_spans"]  # xCOMET's predicted spans, counted by severity
    assert set(spans) <= {"minor", "major", "critical"} and sum(spans.values()) > 0
    free = xcomet.score(sources, hyps)
    assert "|ref:none|" in free.signature and free.details["reference_free"] is True
    assert free.segments == pytest.approx(predict_x100(xcomet, sources, hyps), abs=1e-4)
    assert free.segments != with_ref.segments


def _flat(tmp_path: Path, data, *, refs: bool):
    sources, systems, references = data
    (tmp_path / "src.txt").write_text("\n".join(sources) + "\n", encoding="utf-8")
    (tmp_path / "ref.txt").write_text("\n".join(references) + "\n", encoding="utf-8")
    for name, hyps in systems.items():
        (tmp_path / f"{name}.txt").write_text("\n".join(hyps) + "\n", encoding="utf-8")
    return load_flat(tmp_path / "src.txt", [tmp_path / "ref.txt"] if refs else [])


def test_scorer_without_references(models, kiwi, data, tmp_path):
    sources, systems, _ = data
    testset = _flat(tmp_path, data, refs=False)
    with Scorer(testset, ["comet"], comet_model=str(models["kiwi"]), comet_batch_size=4,
                comet_device="cpu") as scorer:
        got = scorer.score_many(systems)
    assert got["sys0"].scores["comet"].segments == kiwi.score(sources, systems["sys0"]).segments
    assert got["sys0"].stats["comet"] == got["sys0"].scores["comet"].segments  # segment scores kept for tests
    with pytest.raises(ReferenceRequired, match="bleu, chrf need one"):
        Scorer(testset, ["comet", "bleu", "chrf"], comet_model=str(models["kiwi"]))
    with Scorer(testset, ["comet"], comet_model=str(models["da"]), comet_device="cpu") as scorer:
        with pytest.raises(ReferenceRequired, match="reference-based"):
            scorer.score_many(systems)


def test_cli_scores_a_test_set_without_references(models, data, tmp_path, capsys):
    _flat(tmp_path, data, refs=False)
    hyps = [str(tmp_path / "sys0.txt"), str(tmp_path / "sys1.txt")]
    base = ["score", "--src", str(tmp_path / "src.txt"), *hyps, "--comet-batch-size", "4", "--comet-device", "cpu"]
    assert main([*base, "--comet-model", str(models["kiwi"]), "--json", "--segments"]) == 0
    out = json.loads(capsys.readouterr().out)
    comet = out["systems"][0]["scores"]["comet"]
    assert "ref:none" in comet["signature"] and len(comet["segments"]) == N
    assert main([*base, "--comet-model", str(models["da"])]) == 1
    assert "reference-based" in capsys.readouterr().err
    assert main([*base, "--comet-model", str(models["kiwi"]), "-m", "comet", "bleu"]) == 1
    assert "has no reference, and bleu need one" in capsys.readouterr().err


def test_cli_test_set_directory_without_references(models, data, tmp_path, capsys):
    """The directory layout with no ref*/ folder: validated and scored by a QE checkpoint only."""
    sources, systems, _ = data
    (tmp_path / "ts" / "source").mkdir(parents=True)
    (tmp_path / "ts" / "testset.json").write_text(json.dumps({"name": "qe", "src_lang": "en", "tgt_lang": "de"}))
    (tmp_path / "ts" / "source" / "d1.txt").write_text("\n".join(sources) + "\n", encoding="utf-8")
    (tmp_path / "run" / "sys0").mkdir(parents=True)
    (tmp_path / "run" / "sys0" / "d1.txt").write_text("\n".join(systems["sys0"]) + "\n", encoding="utf-8")
    args = ["score", str(tmp_path / "ts"), str(tmp_path / "run" / "sys0"), "--comet-model", str(models["kiwi"]),
            "--comet-device", "cpu", "--comet-batch-size", "4"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "ref:none" in out and "COMET" in out and "BLEU" not in out
    assert main([*args, "-m", "comet", "ter"]) == 1
    assert "ter need one" in capsys.readouterr().err
