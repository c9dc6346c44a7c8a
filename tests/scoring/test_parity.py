"""Scores must equal what the sacrebleu command line prints, on real WMT outputs.

The references are two real systems' outputs (the MQM files hold no human
reference for zh-en), every seventh reference-2 line is emptied to exercise
null alignments, and the hypotheses are the other real systems.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scoring import Scorer, load_system_output, load_testset
from scoring.metrics.sacrebleu_metrics import SacrebleuScorer, join_document
from tests.support import realdata

CLI_DIGITS = 16


def flat(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def sacrebleu_cli(refs: list[Path], hyp: Path, metrics=("bleu", "chrf", "ter")) -> list[str]:
    cmd = [sys.executable, "-m", "sacrebleu", *map(str, refs), "-i", str(hyp),
           "-m", *metrics, "-w", str(CLI_DIGITS), "-b"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return [x.strip().strip(",") for x in out.strip().strip("[]").split()]


@pytest.fixture(scope="module")
def zhen(tmp_path_factory):
    root = tmp_path_factory.mktemp("zhen")
    ts_dir, outputs, _ = realdata.write_testset(root, realdata.ZHEN_TSV, ("ONLINE-A", "ONLINE-B"),
                                                src_lang="zh", tgt_lang="en", blank_ref2_every=7)
    return root, load_testset(ts_dir), outputs


@pytest.fixture(scope="module")
def zhen_cli(zhen):
    """What the sacrebleu command line prints for three real systems (computed once)."""
    root, testset, outputs = zhen
    refs = [flat(root / f"ref{i}.txt", r) for i, r in enumerate(testset.references())]
    printed = {}
    for system in sorted(outputs)[:3]:
        hyp = flat(root / f"{system}.hyp", [s for d in testset.doc_names
                                            for s in load_system_output(testset, outputs[system])[d]])
        printed[system] = sacrebleu_cli(refs, hyp)
    return printed


@pytest.mark.parametrize("workers", [1, 2])
def test_bleu_chrf_ter_identical_to_cli_on_wmt23_zhen(zhen, zhen_cli, workers, monkeypatch):
    _, testset, outputs = zhen
    # Force the parallel path even on this small set, so chunking is exercised.
    monkeypatch.setattr(SacrebleuScorer, "PARALLEL_THRESHOLD", 10)
    assert "" in testset.references()[1]
    with Scorer(testset, ["bleu", "chrf", "ter"], workers=workers) as scorer:
        results = scorer.score_many({s: load_system_output(testset, outputs[s]) for s in zhen_cli})
    for system, expected in zhen_cli.items():
        got = [f"{results[system].scores[m].value:.{CLI_DIGITS}f}" for m in ("bleu", "chrf", "ter")]
        assert got == expected, system


def test_dbleu_identical_to_cli_on_joined_documents(zhen):
    root, testset, outputs = zhen
    system = sorted(outputs)[0]
    output = load_system_output(testset, outputs[system])
    refs = [flat(root / f"dref{i}.txt", [join_document(d.refs[i]) for d in testset.documents])
            for i in range(2)]
    hyp = flat(root / "d.hyp", [join_document(output[d]) for d in testset.doc_names])
    expected = sacrebleu_cli(refs, hyp, ("bleu",))[0]
    score = Scorer(testset, ["dbleu"], workers=1).score(output).scores["dbleu"]
    assert f"{score.value:.{CLI_DIGITS}f}" == expected
    assert score.signature.startswith("level:document|nrefs:2|")


def test_signatures_match_cli(zhen):
    root, testset, outputs = zhen
    refs = [flat(root / f"sref{i}.txt", r) for i, r in enumerate(testset.references())]
    system = sorted(outputs)[1]
    output = load_system_output(testset, outputs[system])
    hyp = flat(root / "s.hyp", [s for d in testset.doc_names for s in output[d]])
    out = subprocess.run([sys.executable, "-m", "sacrebleu", *map(str, refs), "-i", str(hyp),
                          "-m", "bleu", "chrf", "ter", "-f", "json"], capture_output=True, text=True, check=True)
    cli = {entry["name"]: entry for entry in json.loads(out.stdout)}
    scores = Scorer(testset, ["bleu", "chrf", "ter"], workers=1).score(output).scores
    for key, name in (("bleu", "BLEU"), ("chrf", "chrF2"), ("ter", "TER")):
        assert scores[key].signature == cli[name]["signature"]
        assert round(scores[key].value, 1) == cli[name]["score"]


def test_ende_ted_parity_with_human_reference(tmp_path):
    ts_dir, outputs, _ = realdata.write_testset(tmp_path, realdata.ENDE_TSV, ("ref", "Facebook-AI"),
                                                src_lang="en", tgt_lang="de")
    testset = load_testset(ts_dir)
    refs = [flat(tmp_path / f"ref{i}.txt", r) for i, r in enumerate(testset.references())]
    system = "UEdin"
    output = load_system_output(testset, outputs[system])
    hyp = flat(tmp_path / "h.txt", [s for d in testset.doc_names for s in output[d]])
    expected = sacrebleu_cli(refs, hyp)
    scores = Scorer(testset, ["bleu", "chrf", "ter"], workers=2).score(output).scores
    assert [f"{scores[m].value:.{CLI_DIGITS}f}" for m in ("bleu", "chrf", "ter")] == expected


def test_later_system_reuses_reference_cache(zhen, monkeypatch):
    _, testset, outputs = zhen
    calls = []
    scorer = Scorer(testset, ["bleu", "chrf", "ter"], workers=1)
    for key, sb in scorer._sacrebleu.items():
        original = sb.metric._cache_references
        monkeypatch.setattr(sb.metric, "_cache_references",
                            lambda refs, _o=original, _k=key: calls.append(_k) or _o(refs))
    names = sorted(outputs)[:3]
    scorer.score_many({n: load_system_output(testset, outputs[n]) for n in names})
    assert sorted(calls) == ["bleu", "chrf", "ter"]  # once per metric, not per system


@pytest.mark.parametrize("workers", [1, 2])
def test_rescoring_computes_only_changed_lines(zhen, workers, monkeypatch):
    _, testset, outputs = zhen
    monkeypatch.setattr(SacrebleuScorer, "PARALLEL_THRESHOLD", 10)
    system = sorted(outputs)[2]
    output = load_system_output(testset, outputs[system])
    scorer = Scorer(testset, ["bleu", "chrf", "ter"], workers=workers)
    first = scorer.score(output, name="a").scores

    computed = []
    for key, sb in scorer._sacrebleu.items():
        original = sb.metric._compute_segment_statistics
        monkeypatch.setattr(sb.metric, "_compute_segment_statistics",
                            lambda h, r, _o=original, _k=key: computed.append(_k) or _o(h, r))
    again = scorer.score(output, name="b").scores
    assert computed == []  # everything came from the memo, in-process or not
    assert {k: v.value for k, v in again.items()} == {k: v.value for k, v in first.items()}

    # A contrastive run that changes two lines: only those are computed, and the scores are
    # what a fresh scorer computes from scratch.
    doc = testset.doc_names[0]
    changed = {d: list(lines) for d, lines in output.items()}
    changed[doc][0] = "A completely different first line."
    changed[doc][1] = ""
    workers_before = len(computed)
    contrastive = scorer.score(changed, name="c").scores
    if workers == 1:  # in-process: the spy sees exactly the two changed lines per metric
        assert sorted(computed[workers_before:]) == ["bleu", "bleu", "chrf", "chrf", "ter", "ter"]
    fresh = Scorer(testset, ["bleu", "chrf", "ter"], workers=1).score(changed).scores
    assert {k: v.value for k, v in contrastive.items()} == {k: v.value for k, v in fresh.items()}


def test_workers_keep_their_references_between_systems(zhen, monkeypatch):
    """References travel to a worker once; later systems send hypotheses only."""
    from scoring.metrics.sacrebleu_metrics import WorkerPool

    _, testset, outputs = zhen
    monkeypatch.setattr(SacrebleuScorer, "PARALLEL_THRESHOLD", 10)
    sent = []
    original = WorkerPool.submit

    def spy(self, slot, fn, key, tgt_lang, cache_id, indices, hyps, new_refs):
        sent.append((key, slot % len(self), len(indices), 0 if new_refs is None else len(new_refs[0])))
        return original(self, slot, fn, key, tgt_lang, cache_id, indices, hyps, new_refs)

    monkeypatch.setattr(WorkerPool, "submit", spy)
    names = sorted(outputs)[:3]
    with Scorer(testset, ["bleu", "chrf"], workers=2) as scorer:
        results = scorer.score_many({n: load_system_output(testset, outputs[n]) for n in names})
    per_system = len(sent) // 3
    first, later = sent[:per_system], sent[per_system:]
    assert sum(n_refs for *_, n_refs in first) == 2 * testset.num_segments  # every unit once per metric
    assert all(n_refs == 0 for *_, n_refs in later)
    assert {slot for _, slot, _, _ in sent} == {0, 1}
    single = Scorer(testset, ["bleu", "chrf"], workers=1)
    for n in names:
        alone = single.score(load_system_output(testset, outputs[n])).scores
        assert {k: v.value for k, v in alone.items()} == {k: v.value for k, v in results[n].scores.items()}
