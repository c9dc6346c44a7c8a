"""``python -m scoring autorank``: from ``score --json`` output or an mt-metrics-eval root; exit codes 0/1/2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring.cli import main

# comet: a 80, b 70, c 60, d 75; ter (lower is better): a 2, b 4, c 8, d 5 (the hand-computed case of
# test_autorank.py): scaled comet a 1, d 1.75, b 2.5, c 4; ter a 1, b 2, d 2.5, c 4.
COMET = {"a": 80.0, "b": 70.0, "c": 60.0, "d": 75.0}
TER = {"a": 2.0, "b": 4.0, "c": 8.0, "d": 5.0}
EXPECTED = {"a": 1.0, "d": 2.125, "b": 2.25, "c": 4.0}


def scores_json(tmp_path: Path, ter=TER) -> Path:
    systems = [{"name": f"runs/{s}.txt", "scores": {
        "comet": {"name": "COMET", "score": COMET[s], "higher_is_better": True},
        "ter": {"name": "TER", "score": ter[s], "higher_is_better": False}}} for s in COMET]
    path = tmp_path / "scores.json"
    path.write_text(json.dumps({"testset": "t", "systems": systems}), encoding="utf-8")
    return path


def mtme_root(tmp_path: Path) -> Path:
    root = tmp_path / "wmt"
    (root / "sources").mkdir(parents=True)
    (root / "sources" / "en-de.txt").write_text("one\ntwo\n", encoding="utf-8")
    (root / "references").mkdir()
    (root / "references" / "en-de.refA.txt").write_text("eins\nzwei\n", encoding="utf-8")
    metric_dir = root / "metric-scores" / "en-de"
    metric_dir.mkdir(parents=True)
    # Stored higher-is-better: TER negated. refA is a human translation, left out unless asked for.
    (metric_dir / "COMET-refA.sys.score").write_text(
        "".join(f"{s}\t{v}\n" for s, v in (COMET | {"refA": 99.0}).items()), encoding="utf-8")
    (metric_dir / "TER-refA.sys.score").write_text(
        "".join(f"{s}\t{-v}\n" for s, v in (TER | {"refA": 0.0}).items()), encoding="utf-8")
    return root


def run(capsys, *args) -> tuple[int, str, str]:
    code = main(["autorank", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_from_score_json(tmp_path, capsys):
    code, out, _ = run(capsys, str(scores_json(tmp_path)), "--json")
    assert code == 0
    got = json.loads(out)
    assert got["metrics"] == ["comet", "ter"] and got["higher_is_better"] == {"comet": True, "ter": False}
    assert [r["system"] for r in got["systems"]] == ["a", "d", "b", "c"]
    assert {r["system"]: r["autorank"] for r in got["systems"]} == pytest.approx(EXPECTED)
    assert got["systems"][1]["scaled"] == {"comet": 1.75, "ter": 2.5} and got["systems"][1]["rank"] == 2
    code, out, _ = run(capsys, str(scores_json(tmp_path)), "--metrics", "comet")
    assert code == 0 and out.splitlines()[2].split()[:3] == ["1", "a", "1.000"]
    assert [line.split()[1] for line in out.splitlines()[2:6]] == ["a", "d", "b", "c"]


def test_from_mtme_root(tmp_path, capsys):
    root = str(mtme_root(tmp_path))
    code, out, _ = run(capsys, "--mtme", root, "--lp", "en-de", "--metrics", "COMET-refA,TER-refA", "--json")
    assert code == 0
    got = json.loads(out)
    assert {r["system"]: r["autorank"] for r in got["systems"]} == pytest.approx(EXPECTED)
    code, out, _ = run(capsys, "--mtme", root, "--lp", "en-de", "--metrics", "COMET-refA", "--include-human",
                       "--json")
    assert code == 0 and json.loads(out)["systems"][0]["system"] == "refA"


def test_bad_input_exits_1_naming_the_file(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{ not json", encoding="utf-8")
    code, _, err = run(capsys, str(bad))
    assert code == 1 and str(bad) in err
    code, _, err = run(capsys, str(tmp_path / "nowhere.json"))
    assert code == 1 and "nowhere.json" in err
    same = scores_json(tmp_path, ter=dict.fromkeys(TER, 3.0))
    code, _, err = run(capsys, str(same), "--metrics", "ter")
    assert code == 1 and str(same) in err and "same score" in err
    root = mtme_root(tmp_path)
    (root / "metric-scores" / "en-de" / "TER-refA.sys.score").write_text("a\t1\nb\n", encoding="utf-8")
    code, _, err = run(capsys, "--mtme", str(root), "--lp", "en-de", "--metrics", "COMET-refA")
    assert code == 1 and "TER-refA.sys.score" in err


@pytest.mark.parametrize("args", [
    [],                                             # no input
    ["SCORES", "--mtme", "ROOT"],                   # both inputs
    ["SCORES", "--metrics", "bleu"],                # a metric not in the file
    ["SCORES", "--metrics", " , "],
    ["SCORES", "--lp", "en-de"],
    ["--mtme", "ROOT", "--metrics", "COMET-refA"],  # no --lp
    ["--mtme", "ROOT", "--lp", "en-de"],            # no --metrics
    ["--mtme", "ROOT", "--lp", "de-en", "--metrics", "COMET-refA"],
    ["--mtme", "ROOT", "--lp", "en-de", "--metrics", "BLEU-refA"],
    ["--bogus"],
])
def test_usage_errors_exit_2(tmp_path, capsys, args):
    paths = {"SCORES": str(scores_json(tmp_path)), "ROOT": str(mtme_root(tmp_path))}
    args = [paths.get(a, a) for a in args]
    if args == ["--bogus"]:
        with pytest.raises(SystemExit) as exc:
            main(["autorank", *args])
        assert exc.value.code == 2
        return
    code, _, err = run(capsys, *args)
    assert code == 2 and "error" in err


def test_help_mentions_autorank(capsys):
    with pytest.raises(SystemExit):
        main(["autorank", "--help"])
    assert "best system gets 1 and its worst N" in capsys.readouterr().out
