"""``python -m mqm``: the JSON contract, exit codes and error messages, via subprocess."""

import gzip
import io
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from tests.support import ROOT, realdata

FIXTURES = Path(__file__).parent / "fixtures"
GOOGLE_SMALL = FIXTURES / "google_small.tsv"
LITERARY_SMALL = FIXTURES / "literary_small.tsv"
SHARED = ROOT.parent / "shared" / "data" / "google-mqm"
TED = SHARED / "mqm_ted_ende.tsv.gz"
ZHEN = SHARED / "sxs_mqm_generalMT2023_zhen.3ratingsPerSegment.tsv.tar.gz"
HEADER = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\tcomment\n"


def run(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "mqm", *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def ok_json(*args: str):
    proc = run(*args)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_score_json_contract():
    out = ok_json("score", GOOGLE_SMALL, "--scheme", "google-mqm", "--json")
    assert out["scheme"] == "google-mqm"
    assert set(out["scores"]) == {"X", "Y"}
    x = out["scores"]["X"]
    assert set(x) == {"score", "segments", "source_words", "errors"}
    assert x["score"] == pytest.approx((2.55 + 25 + 3) / 3)
    assert isinstance(x["segments"], int) and x["segments"] == 3
    assert isinstance(x["source_words"], int) and x["source_words"] == 20
    assert x["errors"] == {"Major": 3, "Minor": 2, "Neutral": 1}
    assert out["attention_checks"] == {"r2": {"found": 0, "missed": 1}, "r3": {"found": 1, "missed": 0}}


def test_score_json_by_rater_and_doc():
    by_rater = ok_json("score", GOOGLE_SMALL, "--scheme", "google-mqm", "--by", "rater", "--json")["scores"]
    assert set(by_rater["X"]) == {"r1", "r2", "r3"}
    assert by_rater["X"]["r1"]["score"] == pytest.approx(15.05)
    assert set(by_rater["X"]["r1"]) == {"score", "segments", "source_words", "errors"}
    by_doc = ok_json("score", GOOGLE_SMALL, "--scheme", "google-mqm", "--by", "doc", "--json")["scores"]
    assert by_doc["X"]["d2"] == {"score": 3.0, "segments": 1, "source_words": 7,
                                 "errors": {"Major": 1, "Minor": 1, "Neutral": 1}}


def test_score_default_scheme_is_literary_and_text_is_best_first():
    out = ok_json("score", LITERARY_SMALL, "--json", "--source-words", "whitespace")
    assert out["scheme"] == "wmt23-literary"
    assert out["scores"]["B"]["score"] == pytest.approx(200 / 3)
    text = run("score", LITERARY_SMALL).stdout
    order = [line.split()[1] for line in text.splitlines() if line.strip()[:1].isdigit()]
    assert order == ["B", "A", "C"]
    assert "higher is better" in text and "attention checks" in text
    google_text = run("score", GOOGLE_SMALL, "--scheme", "google-mqm").stdout
    assert [line.split()[1] for line in google_text.splitlines() if line.strip()[:1].isdigit()] == ["Y", "X"]


def test_agreement_json_contract():
    out = ok_json("agreement", LITERARY_SMALL, "--json")
    assert out["raters"] == ["r1", "r2", "r3"] and out["systems"] == ["A", "B", "C"]
    assert out["scores"]["B"] == {"r1": 100.0, "r2": 50.0, "r3": 50.0}
    assert set(out["pearson"]) == {"r1", "r2", "r3"} and set(out["pearson"]["r1"]) == {"r1", "r2", "r3"}
    assert out["pearson"]["r1"]["r2"] == pytest.approx(0.970725, abs=1e-6)
    assert out["pearson_vs_mean"]["r3"] == pytest.approx(0.031025, abs=1e-6)
    assert out["kendall"]["r1"]["r2"] == pytest.approx(0.816497, abs=1e-6)
    assert out["krippendorff_alpha"] == pytest.approx(15 / 559)
    text = run("agreement", LITERARY_SMALL).stdout
    assert "Pearson" in text and "0.971" in text and "average" in text


def test_convert_round_trip(tmp_path):
    js, back = tmp_path / "a.json", tmp_path / "a.tsv"
    assert run("convert", GOOGLE_SMALL, js).returncode == 0
    assert json.loads(js.read_text(encoding="utf-8"))["segments"][0]["system"] == "X"
    assert run("convert", js, back).returncode == 0
    assert back.read_text(encoding="utf-8") == GOOGLE_SMALL.read_text(encoding="utf-8")
    # the JSON form is accepted by score as well
    assert ok_json("score", js, "--scheme", "google-mqm", "--json")["scores"]["Y"]["score"] == 1.0


def test_convert_real_ted_file(tmp_path):
    realdata.require(TED)
    js, back = tmp_path / "ted.json", tmp_path / "ted.tsv.gz"
    proc = run("convert", TED, js)
    assert proc.returncode == 0 and "warning" in proc.stderr and ":6444:" in proc.stderr
    assert run("convert", js, back).returncode == 0
    assert gzip.decompress(back.read_bytes()) == gzip.decompress(TED.read_bytes())


def test_ted_scores_via_cli():
    realdata.require(TED)
    scores = ok_json("score", TED, "--scheme", "google-mqm", "--json")["scores"]
    assert round(scores["ref"]["score"], 2) == 0.91 and round(scores["Nemo"]["score"], 2) == 2.14
    assert round(scores["HuaweiTSC"]["score"], 2) == 1.50 and scores["UEdin"]["segments"] == 529


def test_zhen_tar_gz_via_cli():
    realdata.require(ZHEN)
    out = ok_json("score", ZHEN, "--scheme", "google-mqm", "--json")
    assert len(out["scores"]) == 10 and out["attention_checks"]["rater7"] == {"found": 62, "missed": 1}
    assert out["source_words_method"].startswith("jieba")


def write(tmp_path: Path, *rows: str, name: str = "bad.tsv") -> Path:
    path = tmp_path / name
    path.write_text(HEADER + "S\td\t1\t1\tr1\tA\tB\tNo-error\tNo-error\t\n" + "".join(r + "\n" for r in rows),
                    encoding="utf-8")
    return path


@pytest.mark.parametrize("row, message", [
    ("S\td\t2\t2\tr1\tA\tB\tOther", "malformed row"),
    ("S\td\t2\t2\tr1\tA\t<v>B</v>\tOther\tSevere\t", "unknown severity 'Severe'"),
    ("S\td\t2\t2\tr1\tA\tB</v> x <v>\tOther\tMinor\t", "unbalanced <v> tags in target"),
    ("S\td\t2\t2\tr1\t<v>A<v>\tB\tOther\tMinor\t", "unbalanced <v> tags in source"),
])
@pytest.mark.parametrize("command", ["score", "agreement", "convert"])
def test_bad_input_exits_1_naming_file_and_line(tmp_path, row, message, command):
    path = write(tmp_path, row)
    extra = [tmp_path / "out.json"] if command == "convert" else []
    proc = run(command, path, *extra)
    assert proc.returncode == 1
    assert f"{path}:3: " in proc.stderr and message in proc.stderr
    assert "Traceback" not in proc.stderr and not (tmp_path / "out.json").exists()


def test_unknown_severity_depends_on_scheme(tmp_path):
    path = write(tmp_path, "S\td\t2\t2\tr1\tA\t<v>B</v>\tOther\tCritical\t")
    assert run("score", path, "--json").returncode == 0  # Critical exists in wmt23-literary
    proc = run("score", path, "--scheme", "google-mqm")
    assert proc.returncode == 1 and "unknown severity 'Critical' for scheme google-mqm" in proc.stderr


def test_unclosed_tag_warns_unless_strict(tmp_path):
    path = write(tmp_path, "S\td\t2\t2\tr1\tA\tB <v>C\tOther\tMinor\t")
    proc = run("score", path, "--json")
    assert proc.returncode == 0 and f"warning: {path}:3: unbalanced <v> tags" in proc.stderr
    strict = run("score", path, "--strict")
    assert strict.returncode == 1 and f"{path}:3: unbalanced" in strict.stderr


def test_missing_file_bad_json_and_bad_archive(tmp_path):
    proc = run("score", tmp_path / "nope.tsv")
    assert proc.returncode == 1 and "nope.tsv: no such file" in proc.stderr
    bad = tmp_path / "x.json"
    bad.write_text('{"segments": [', encoding="utf-8")
    proc = run("score", bad)
    assert proc.returncode == 1 and "x.json:1: not valid JSON" in proc.stderr
    tgz = tmp_path / "empty.tar.gz"
    with tarfile.open(tgz, "w:gz") as tar:
        info = tarfile.TarInfo("readme.txt")
        info.size = 2
        tar.addfile(info, io.BytesIO(b"hi"))
    proc = run("score", tgz)
    assert proc.returncode == 1 and "exactly one .tsv" in proc.stderr
    empty = tmp_path / "empty.tsv"
    empty.write_text(HEADER, encoding="utf-8")
    proc = run("score", empty)
    assert proc.returncode == 1 and "empty.tsv: no annotation rows" in proc.stderr
    for proc in (run("score", tmp_path / "nope.tsv"), run("score", bad), run("score", tgz)):
        assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("args", [
    [], ["score"], ["score", "f.tsv", "--by", "team"], ["score", "f.tsv", "--source-words", "spaces"],
    ["score", "f.tsv", "--scheme", "nonexistent"], ["frobnicate"], ["convert", "only-one-arg"],
])
def test_usage_errors_exit_2(args):
    proc = run(*args)
    assert proc.returncode == 2 and "usage:" in proc.stderr and "Traceback" not in proc.stderr


def test_errors_wilcoxon_and_schemes_commands():
    counts = ok_json("errors", LITERARY_SMALL, "--json")["counts"]
    assert counts["B"] == {"Fluency": {"Minor": 2}, "Terminology": {"Major": 1}}
    wx = ok_json("wilcoxon", GOOGLE_SMALL, "--scheme", "google-mqm", "--unit", "segment", "--json")
    assert wx["ranking"] == ["Y", "X"] and wx["clusters"] == [["Y", "X"]]
    assert wx["pairs"][0]["p_value"] == pytest.approx(0.5)
    assert "wmt23-literary" in ok_json("schemes", "--json")
    shown = ok_json("schemes", "wmt23-literary", "--json")
    assert [s["weight"] for s in shown["severities"]] == [0, 5, 10, 25]
    shown_text = run("schemes", "wmt23-literary").stdout
    assert "cultivator" in shown_text
    assert "Accuracy/Omission [source]:" in shown_text and "Others [target, source]:" in shown_text
    assert "Minor (Mi) 5" in shown_text
