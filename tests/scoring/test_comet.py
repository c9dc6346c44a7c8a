"""COMET metric: local-checkpoint loading, ×100 scores, multi-system embedding reuse, warnings.

Runs offline on a tiny randomly initialised COMET built by tests/support/tiny_comet.py (same classes and
code path as Unbabel/wmt22-comet-da, a 2-layer XLM-R encoder of width 32).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from scoring.metrics.comet import (
    ENV_VAR,
    CometScorer,
    CometUnavailable,
    comet_score,
    resolve_model_path,
)
from tests.support import ROOT
from tests.support.tiny_comet import offline_one_thread, synthetic_sentences

N = 24
LONG = " ".join(["the old house stood at the end of a long road"] * 80)  # > 510 tokens


@pytest.fixture(scope="module", autouse=True)
def offline():
    with offline_one_thread() as mp:
        yield mp


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory, offline) -> Path:
    from tests.support.tiny_comet import build_tiny_comet

    return build_tiny_comet(tmp_path_factory.mktemp("comet"))


@pytest.fixture(scope="module")
def scorer(model_dir) -> CometScorer:
    return CometScorer(str(model_dir), batch_size=4, device="cpu")


@pytest.fixture(scope="module")
def data():
    sources = synthetic_sentences(N, seed=1)
    references = synthetic_sentences(N, seed=2)
    systems = {f"sys{i}": synthetic_sentences(N, seed=10 + i) for i in range(3)}
    # Realistic overlaps: a system copying the source, two systems agreeing on a line.
    systems["sys1"][3] = sources[3]
    systems["sys2"][5] = systems["sys0"][5]
    return sources, systems, references


def predict_x100(scorer: CometScorer, sources, hypotheses, references, batch_size=4) -> list[float]:
    """comet's own per-system path (what comet-score does, in float32)."""
    samples = [{"src": s, "mt": h, "ref": r} for s, h, r in zip(sources, hypotheses, references)]
    out = scorer.model.predict(samples, batch_size=batch_size, gpus=0, progress_bar=False, num_workers=0)
    return [s * 100 for s in out.scores]


# ----------------------------------------------------------------------------- model location


def test_module_import_does_not_import_torch():
    code = "import sys, scoring.metrics.comet; assert 'torch' not in sys.modules and 'comet' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


def test_resolve_nothing_configured(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert resolve_model_path(None) is None
    assert resolve_model_path("") is None


def test_resolve_accepts_dir_ckpt_and_env(model_dir, monkeypatch):
    ckpt = model_dir / "checkpoints" / "model.ckpt"
    assert resolve_model_path(str(model_dir)) == ckpt
    assert resolve_model_path(model_dir / "checkpoints") == ckpt
    assert resolve_model_path(str(ckpt)) == ckpt
    monkeypatch.setenv(ENV_VAR, str(model_dir))
    assert resolve_model_path(None) == ckpt


def test_no_model_configured_is_unavailable(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    with pytest.raises(CometUnavailable) as err:
        CometScorer()
    msg = str(err.value)
    assert "no COMET model configured" in msg
    assert ENV_VAR in msg and "--comet-model" in msg and "checkpoints/model.ckpt" in msg


def test_nonexistent_path_is_unavailable(tmp_path):
    with pytest.raises(CometUnavailable, match="does not exist"):
        CometScorer(str(tmp_path / "nowhere" / "wmt22-comet-da"))
    with pytest.raises(CometUnavailable, match="does not exist"):
        resolve_model_path(str(tmp_path / "model.ckpt"))


def test_directory_without_checkpoint_is_unavailable(tmp_path):
    with pytest.raises(CometUnavailable, match="no checkpoints/model.ckpt"):
        resolve_model_path(tmp_path)


def test_checkpoint_without_hparams_is_unavailable(model_dir, tmp_path):
    (tmp_path / "m" / "checkpoints").mkdir(parents=True)
    shutil.copy(model_dir / "checkpoints" / "model.ckpt", tmp_path / "m" / "checkpoints" / "model.ckpt")
    with pytest.raises(CometUnavailable, match="hparams.yaml"):
        resolve_model_path(tmp_path / "m")


def test_hub_id_not_in_local_cache_is_unavailable(tmp_path, monkeypatch):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path))
    with pytest.raises(CometUnavailable) as err:
        resolve_model_path("Unbabel/wmt22-comet-da")
    assert "neither an existing path nor present in the Hugging Face cache" in str(err.value)
    assert ENV_VAR in str(err.value)


def _fake_hub_cache(cache: Path, repo: str, model_dir: Path) -> Path:
    """The layout huggingface_hub writes: snapshot files are symlinks into blobs/."""
    repo_dir = cache / ("models--" + repo.replace("/", "--"))
    commit = "0123456789abcdef0123456789abcdef01234567"
    snap = repo_dir / "snapshots" / commit
    for rel in ("hparams.yaml", "checkpoints/model.ckpt"):
        blob = repo_dir / "blobs" / rel.replace("/", "_")
        blob.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(model_dir / rel, blob)
        (snap / rel).parent.mkdir(parents=True, exist_ok=True)
        (snap / rel).symlink_to(blob)
    (repo_dir / "refs").mkdir()
    (repo_dir / "refs" / "main").write_text(commit)
    return snap


def test_hub_id_from_local_cache_loads_offline(model_dir, scorer, data, tmp_path, monkeypatch):
    from huggingface_hub import constants

    snap = _fake_hub_cache(tmp_path, "Enface/tiny-comet-da", model_dir)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path))
    assert resolve_model_path("Enface/tiny-comet-da") == snap / "checkpoints" / "model.ckpt"
    cached = CometScorer("Enface/tiny-comet-da", batch_size=4, device="cpu")
    assert cached.model_id == "Enface/tiny-comet-da"
    assert CometScorer(str(snap), batch_size=4, device="cpu").model_id == "Enface/tiny-comet-da"
    sources, systems, references = data
    a = cached.score(sources, systems["sys0"], references)
    b = scorer.score(sources, systems["sys0"], references)
    assert a.segments == b.segments


def test_corrupt_checkpoint_is_unavailable(model_dir, tmp_path):
    bad = tmp_path / "broken"
    shutil.copytree(model_dir, bad)
    ckpt = bad / "checkpoints" / "model.ckpt"
    for content in (b"this is not a checkpoint", (model_dir / "checkpoints" / "model.ckpt").read_bytes()[:5000]):
        ckpt.write_bytes(content)
        with pytest.raises(CometUnavailable) as err:
            CometScorer(str(bad), device="cpu")
        msg = str(err.value)
        assert msg.startswith(f"cannot load COMET checkpoint '{ckpt}'")
        assert "corrupt" in msg and "Traceback" not in msg and "\n" not in msg
        assert err.value.__cause__ is not None  # the original error stays available for debugging


def _copy_with_encoder(model_dir: Path, dst: Path, encoder: str) -> Path:
    """A copy of the model whose checkpoint (and hparams.yaml) name another pretrained_model."""
    import torch

    shutil.copytree(model_dir, dst)
    ckpt = dst / "checkpoints" / "model.ckpt"
    state = torch.load(ckpt, weights_only=True)
    state["hyper_parameters"]["pretrained_model"] = encoder
    torch.save(state, ckpt)
    hparams = dst / "hparams.yaml"
    hparams.write_text(re.sub(r"pretrained_model: .*", f"pretrained_model: {encoder}", hparams.read_text()))
    return dst


def test_missing_encoder_files_is_unavailable(model_dir, tmp_path, monkeypatch):
    """The real wmt22-comet-da names `xlm-roberta-large`; without it in the local cache, say so."""
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    bad = _copy_with_encoder(model_dir, tmp_path / "needs-xlmr", "xlm-roberta-large")
    with pytest.raises(CometUnavailable) as err:
        CometScorer(str(bad), device="cpu")
    msg = str(err.value)
    assert "encoder files not found" in msg and "'xlm-roberta-large'" in msg and "Hugging Face cache" in msg


def test_broken_encoder_files_is_unavailable(model_dir, tmp_path):
    encoder = tmp_path / "encoder"
    shutil.copytree(model_dir / "encoder", encoder)
    bad = _copy_with_encoder(model_dir, tmp_path / "m", str(encoder))
    (encoder / "tokenizer.json").unlink()
    with pytest.raises(CometUnavailable, match="encoder files not found"):
        CometScorer(str(bad), device="cpu")
    (encoder / "tokenizer.json").write_text("{ not json")  # present, so only loading finds out
    with pytest.raises(CometUnavailable) as err:
        CometScorer(str(bad), device="cpu")
    assert "tokenizer and config of its encoder" in str(err.value) and "corrupt" not in str(err.value)


# ----------------------------------------------------------------------------- scoring


def test_score_fields(scorer, data):
    sources, systems, references = data
    score = scorer.score(sources, systems["sys0"], references)
    assert (score.metric, score.name, score.higher_is_better) == ("comet", "COMET", True)
    assert score.available
    assert len(score.segments) == N
    assert all(0.0 <= s <= 100.0 for s in score.segments)
    assert score.value == pytest.approx(sum(score.segments) / N, abs=1e-9)
    assert re.fullmatch(r"model:tiny-comet-da\|ref:1\|batch:4\|comet:2\.\d+\.\d+", score.signature)
    assert set(score.versions) == {"unbabel-comet", "torch"}
    assert score.details["truncated_segments"] == 0 and score.warnings == []
    assert score.to_dict()["score"] == score.value


def test_scores_are_deterministic(scorer, model_dir, data):
    sources, systems, references = data
    first = scorer.score(sources, systems["sys1"], references)
    again = scorer.score(sources, systems["sys1"], references)
    reloaded = CometScorer(str(model_dir / "checkpoints" / "model.ckpt"), batch_size=4, device="cpu")
    third = reloaded.score(sources, systems["sys1"], references)
    assert first.segments == again.segments == third.segments
    assert first.value == again.value == third.value
    assert len(set(first.segments)) > 1  # not a constant model


def test_score_many_equals_comet_predict_per_system(scorer, data):
    sources, systems, references = data
    many = scorer.score_many(sources, systems, references)
    assert list(many) == list(systems)
    for name, hyps in systems.items():
        expected = predict_x100(scorer, sources, hyps, references)
        got = many[name].segments
        assert len(got) == N
        # 1e-6 on COMET's 0-1 scale; float rounding only (padding to other lengths).
        assert max(abs(a - b) for a, b in zip(got, expected)) <= 1e-4
        assert many[name].value == pytest.approx(sum(expected) / N, abs=1e-4)
        alone = scorer.score(sources, hyps, references)
        assert max(abs(a - b) for a, b in zip(got, alone.segments)) <= 1e-4


def test_each_distinct_sentence_is_encoded_once(scorer, data, monkeypatch):
    sources, systems, references = data
    encoded: list[str] = []
    rows = []
    prepare = scorer.model.encoder.prepare_sample
    embed = scorer.model.get_sentence_embedding

    def spy_prepare(sample, *args, **kwargs):
        encoded.extend(sample)
        return prepare(sample, *args, **kwargs)

    def spy_embed(input_ids, attention_mask, *args, **kwargs):
        rows.append(input_ids.shape[0])
        return embed(input_ids, attention_mask, *args, **kwargs)

    monkeypatch.setattr(scorer.model.encoder, "prepare_sample", spy_prepare)
    monkeypatch.setattr(scorer.model, "get_sentence_embedding", spy_embed)
    scorer.score_many(sources, systems, references)

    counts = Counter(encoded)
    assert max(counts.values()) == 1  # nothing encoded twice
    distinct = set(sources) | set(references) | {h for hyps in systems.values() for h in hyps}
    assert set(counts) == distinct
    assert sum(rows) == len(distinct) < 3 * 3 * N  # comet-score: 3 sentences × 3 systems × N
    assert len(rows) == -(-len(distinct) // scorer.batch_size)


def test_truncation_is_warned(scorer, data):
    sources, systems, references = data
    sources, hyps, refs = list(sources), list(systems["sys0"]), list(references)
    sources[0] = LONG
    hyps[1] = LONG
    refs[1] = LONG  # same segment as the long hypothesis: counted once
    refs[2] = LONG + " again"
    assert scorer.max_tokens == 510
    score = scorer.score(sources, hyps, refs)
    assert score.details["truncated_segments"] == 3
    assert (score.details["truncated_sources"], score.details["truncated_hypotheses"],
            score.details["truncated_references"]) == (1, 1, 2)
    assert any("3 of 24 segments" in w and "510 tokens" in w for w in score.warnings)
    expected = predict_x100(scorer, sources, hyps, refs)
    assert max(abs(a - b) for a, b in zip(score.segments, expected)) <= 1e-4


def test_empty_lines_do_not_crash(scorer, data):
    sources, systems, references = data
    sources, hyps, refs = list(sources), list(systems["sys2"]), list(references)
    hyps[0] = ""
    hyps[1] = "   "
    refs[2] = ""
    sources[3] = ""
    score = scorer.score(sources, hyps, refs)
    assert len(score.segments) == N and score.available
    assert score.details["empty_hypotheses"] == 2
    assert any("2 of 24 hypotheses are empty" in w for w in score.warnings)
    expected = predict_x100(scorer, sources, hyps, refs)
    assert max(abs(a - b) for a, b in zip(score.segments, expected)) <= 1e-4


def test_fallback_without_reuse_matches(scorer, data, monkeypatch):
    """Models that encode inputs jointly go through model.predict per system."""
    sources, systems, references = data
    reused = scorer.score(sources, systems["sys0"], references)
    monkeypatch.setattr(scorer, "reuses_embeddings", False)
    plain = scorer.score(sources, systems["sys0"], references)
    assert plain.details["reused_embeddings"] is False
    assert max(abs(a - b) for a, b in zip(plain.segments, reused.segments)) <= 1e-4


def test_input_validation(scorer):
    with pytest.raises(ValueError, match="2 hypotheses for 3 sources"):
        scorer.score(["a", "b", "c"], ["a", "b"], ["a", "b", "c"])
    with pytest.raises(ValueError, match="references"):
        scorer.score(["a", "b"], ["a", "b"], ["a"])
    with pytest.raises(TypeError):
        scorer.score(["a"], [None], ["a"])
    assert scorer.score_many(["a"], {}, ["a"]) == {}
    empty = scorer.score([], [], [])
    assert not empty.available and empty.reason == "no segments to score"


def test_comet_score_convenience(model_dir, scorer, data, monkeypatch):
    sources, systems, references = data
    monkeypatch.delenv(ENV_VAR, raising=False)
    na = comet_score(sources, systems["sys0"], references)
    assert not na.available and ENV_VAR in na.reason
    assert na.format().startswith("COMET = n/a (no COMET model configured")
    monkeypatch.setenv(ENV_VAR, str(model_dir))
    got = comet_score(sources, systems["sys0"], references, batch_size=4, device="cpu")
    assert got.segments == scorer.score(sources, systems["sys0"], references).segments
