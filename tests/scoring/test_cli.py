"""The ``python -m scoring`` contract: exit codes, JSON shape, the flat form, bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import ROOT

DEMO = ROOT / "data" / "demo"
TESTSET = DEMO / "testset"
SYSTEMS = DEMO / "systems"


def run(*args: str, cwd: Path = ROOT, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scoring", *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=300)


def test_validate_clean_submission_exits_0():
    proc = run("validate", str(TESTSET), str(SYSTEMS / "strong-mt"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "accepted" in proc.stdout


def test_validate_broken_submission_exits_1_and_names_file_and_line():
    proc = run("validate", str(TESTSET), str(SYSTEMS / "broken-mt"), "--json")
    assert proc.returncode == 1
    report = json.loads(proc.stdout)
    assert report["ok"] is False
    errors = report["errors"]
    assert [e["file"] for e in errors] == ["jade-lantern.2.txt"]
    assert errors[0]["code"] == "line-count"
    assert "expected 23" in errors[0]["message"] and "got 22" in errors[0]["message"]
    warning_codes = {w["code"] for w in report["warnings"]}
    assert {"untranslated", "line-endings"} <= warning_codes


def test_validate_document_level_accepts_and_lists_na_metrics():
    proc = run("validate", str(TESTSET), str(SYSTEMS / "broken-mt"), "--document-level", "--json")
    assert proc.returncode == 0
    report = json.loads(proc.stdout)
    assert report["document_level"] is True
    assert set(report["na_metrics"]) == {"bleu", "chrf", "ter", "comet"}


def test_usage_errors_exit_2(tmp_path):
    assert run().returncode == 2
    assert run("validate", str(TESTSET)).returncode == 2
    assert run("score", str(TESTSET), str(SYSTEMS / "strong-mt"), "-m", "meteor").returncode == 2
    assert run("score", str(TESTSET)).returncode == 2
    proc = run("score", str(tmp_path / "nope"), str(SYSTEMS / "strong-mt"))
    assert proc.returncode == 2 and "no such test set" in proc.stderr
    proc = run("score", "--src", str(tmp_path / "missing.txt"), "--ref", "x", "h")
    assert proc.returncode == 2 and "no such file" in proc.stderr


def test_invalid_testset_exits_1_with_reason(tmp_path):
    (tmp_path / "testset.json").write_text("{not json")
    proc = run("score", str(tmp_path), str(SYSTEMS / "strong-mt"))
    assert proc.returncode == 1
    assert "testset.json" in proc.stderr and "Traceback" not in proc.stderr


def test_score_json_contract_and_na_comet(monkeypatch):
    env = {k: v for k, v in __import__("os").environ.items() if k != "ENFACE_COMET_MODEL"}
    names = [str(SYSTEMS / s) for s in ("strong-mt", "literal-mt", "weak-mt")]
    proc = run("score", str(TESTSET), *names, "-m", "bleu", "chrf", "ter", "dbleu", "comet", "--json", env=env)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert [s["name"] for s in data["systems"]] == names
    strong = data["systems"][0]["scores"]
    for key in ("bleu", "chrf", "ter", "dbleu"):
        assert isinstance(strong[key]["score"], float)
        assert "version:2.6" in strong[key]["signature"]
    assert strong["comet"]["score"] is None and "ENFACE_COMET_MODEL" in strong["comet"]["reason"]
    bleus = [s["scores"]["bleu"]["score"] for s in data["systems"]]
    assert bleus == sorted(bleus, reverse=True)  # the demo systems are of visibly different quality
    assert data["significance"] is None


def test_score_rejects_invalid_submission_before_scoring():
    proc = run("score", str(TESTSET), str(SYSTEMS / "strong-mt"), str(SYSTEMS / "broken-mt"), "-m", "bleu")
    assert proc.returncode == 1
    assert "broken-mt: invalid submission" in proc.stderr and "jade-lantern.2.txt" in proc.stderr


def test_document_level_submission_scores_dbleu_only():
    proc = run("score", str(TESTSET), str(SYSTEMS / "broken-mt"), "--document-level", "-m", "bleu", "dbleu",
               "--json")
    assert proc.returncode == 0, proc.stderr
    scores = json.loads(proc.stdout)["systems"][0]["scores"]
    assert scores["bleu"]["score"] is None and "document-level" in scores["bleu"]["reason"]
    assert scores["dbleu"]["score"] > 0


def test_flat_form_equals_testset_form(tmp_path):
    from scoring import load_system_output, load_testset

    testset = load_testset(TESTSET)
    out = load_system_output(testset, SYSTEMS / "strong-mt")

    def write(name, lines):
        (tmp_path / name).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        return str(tmp_path / name)

    src = write("src.txt", testset.sources())
    refs = [write(f"ref{i + 1}.txt", r) for i, r in enumerate(testset.references())]
    docs = write("docids.txt", testset.doc_ids())
    hyp = write("hyp.txt", [s for d in testset.doc_names for s in out[d]])
    flat = run("score", "--src", src, "--ref", refs[0], "--ref", refs[1], "--docs", docs, hyp,
               "-m", "bleu", "chrf", "ter", "dbleu", "--json")
    tree = run("score", str(TESTSET), str(SYSTEMS / "strong-mt"), "-m", "bleu", "chrf", "ter", "dbleu", "--json")
    assert flat.returncode == tree.returncode == 0, flat.stderr + tree.stderr
    flat_scores = json.loads(flat.stdout)["systems"][0]["scores"]
    tree_scores = json.loads(tree.stdout)["systems"][0]["scores"]
    for key in ("bleu", "chrf", "ter", "dbleu"):
        assert flat_scores[key]["score"] == tree_scores[key]["score"]
    # The flat layout in a directory loads too.
    proc = run("score", str(tmp_path), hyp, "-m", "bleu", "--json")
    assert proc.returncode == 0, proc.stderr


def test_paired_bootstrap_all_pairs_in_json():
    names = [str(SYSTEMS / s) for s in ("strong-mt", "literal-mt", "weak-mt")]
    proc = run("score", str(TESTSET), *names, "-m", "bleu", "chrf", "--paired-bs", "--paired-n", "200", "--json")
    assert proc.returncode == 0, proc.stderr
    sig = json.loads(proc.stdout)["significance"]
    assert set(sig) == {"bleu", "chrf"}
    pairs = sig["bleu"]["pairs"]
    assert len(pairs) == 3  # every pair, not only baseline-vs-others
    assert all(0.0 <= p["p_value"] <= 1.0 for p in pairs)


def test_text_output_has_table_and_signatures():
    proc = run("score", str(TESTSET), str(SYSTEMS / "strong-mt"), "-m", "bleu", "ter")
    assert proc.returncode == 0
    assert "BLEU↑" in proc.stdout and "TER↓" in proc.stdout
    assert "nrefs:2|case:mixed|eff:no|tok:13a" in proc.stdout


@pytest.mark.parametrize("bad", ["empty-dir", "binary-file"])
def test_score_bad_submission_never_tracebacks(tmp_path, bad):
    target = tmp_path / bad
    if bad == "empty-dir":
        target.mkdir()
    else:
        target.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    proc = run("score", str(TESTSET), str(target), "-m", "bleu")
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr and "invalid submission" in proc.stderr
