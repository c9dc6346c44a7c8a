"""``python -m humaneval``: the JSON contract, exit codes and error messages, via subprocess."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from humaneval import gwet

ROOT = Path(__file__).resolve().parents[2]
EXPORT = Path(__file__).with_name("reader_export.jsonl")

# Four raters, an item rated by two of them, one by three.
RATINGS = """item,rater,value
1,A,1
1,B,1
1,C,2
2,A,3
2,B,3
2,C,3
2,D,3
3,A,2
3,D,4
4,B,5
4,C,5
4,D,4
"""
TABLE = {"1": {"A": 1, "B": 1, "C": 2}, "2": {"A": 3, "B": 3, "C": 3, "D": 3}, "3": {"A": 2, "D": 4},
         "4": {"B": 5, "C": 5, "D": 4}}


def run(*args) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "humaneval", *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def ok_json(*args):
    proc = run(*args, "--json")
    assert proc.returncode == 0, proc.stderr
    assert len(proc.stdout.strip().splitlines()) == 1
    return json.loads(proc.stdout)


@pytest.fixture
def ratings(tmp_path) -> Path:
    path = tmp_path / "ratings.csv"
    path.write_text(RATINGS, encoding="utf-8")
    return path


def test_ac1_json_contract(ratings):
    out = ok_json("agreement", ratings, "--coefficient", "ac1")
    assert out == {"coefficient": "ac1", "weights": "identity", "value": gwet(TABLE).value, "items": 4, "raters": 4}
    out = ok_json("agreement", ratings, "--coefficient", "ac1", "--categories", "1,2,3,4,5,6")
    assert out["value"] == gwet(TABLE, categories=[1, 2, 3, 4, 5, 6]).value
    assert ok_json("agreement", ratings, "--coefficient", "ac1", "--weights", "identity")["weights"] == "identity"


def test_ac2_json_contract(ratings):
    out = ok_json("agreement", ratings, "--coefficient", "ac2")
    assert out == {"coefficient": "ac2", "weights": "quadratic", "value": gwet(TABLE, "quadratic").value,
                   "items": 4, "raters": 4}
    out = ok_json("agreement", ratings, "--coefficient", "ac2", "--weights", "linear", "--categories", "1,2,3,4,5")
    assert out["weights"] == "linear"
    assert out["value"] == gwet(TABLE, "linear", [1, 2, 3, 4, 5]).value
    assert ok_json("agreement", ratings, "--coefficient", "ac2", "--weights", "identity")["value"] == \
        gwet(TABLE).value


def test_lait_row_through_the_cli(tmp_path):
    # LAIT Table 21, first row: 15 items, both HT 2, both MT 4, 9 different (split 5/4).
    rows = ["item,rater,value"]
    pairs = [("HT", "HT")] * 2 + [("MT", "MT")] * 4 + [("HT", "MT")] * 5 + [("MT", "HT")] * 4
    for i, (a, b) in enumerate(pairs):
        rows += [f"s{i},reader1,{a}", f"s{i},reader2,{b}"]
    path = tmp_path / "lait.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = ok_json("agreement", path, "--coefficient", "ac1")
    assert round(out["value"], 3) == -0.179 and (out["items"], out["raters"]) == (15, 2)


def test_labels_extra_columns_quotes_and_repeats(tmp_path):
    path = tmp_path / "labels.csv"
    path.write_text('\ufeffnote,Value,rater,item\n"a, b",yes,r1,x\n,yes,r2,x\n,no,r1,y\n,yes,r2,y\n'
                    ',no,r1,y\n\n', encoding="utf-8")  # BOM, any column order, a repeated identical row
    out = ok_json("agreement", path, "--coefficient", "ac1")
    assert out["value"] == gwet({"x": {"r1": "yes", "r2": "yes"}, "y": {"r1": "no", "r2": "yes"}}).value
    assert (out["items"], out["raters"]) == (2, 2)


def test_text_output(ratings):
    proc = run("agreement", ratings, "--coefficient", "ac2")
    assert proc.returncode == 0
    assert proc.stdout.startswith("Gwet's AC2 (quadratic weights) = ")
    assert "4 items, 4 raters" in proc.stdout


@pytest.mark.parametrize("content, line, message", [
    (b"", None, "empty file"),
    (b"item,rater\n1,A\n", 1, "missing column value"),
    (b"item,rater,value\n", None, "no ratings"),
    (b"item,rater,value\n1,A,3\n1,B,three\n", 3, "'three' is not a number"),
    (b"item,rater,value\n1,A,3\n1,B,nan\n", 3, "'nan' is not a number"),
    (b"item,rater,value\n1,A,3\n1,B,9\n", 3, "'9' is not one of the categories 1,2,3,4,5"),
    (b"item,rater,value\n1,A,3\n1,B,4\n1,A,4\n", 4, "rater 'A' rated item '1' 3 at line 2 and 4 here"),
    (b"item,rater,value\n1,A,3\n1,B,\xe9\n", 3, "not valid UTF-8"),
    (b"item,rater,value\n1,A,3\n1,,4\n", 3, "empty rater"),
    (b"item,rater,value\n1,A,3\n2\n", 3, "expected at least 3 columns"),
    (b"item,rater,value\n1,A,3\n2,B,4\n", None, "no item is rated by two or more raters"),
])
def test_bad_input_exits_1_naming_file_and_line(tmp_path, content, line, message):
    path = tmp_path / "bad.csv"
    path.write_bytes(content)
    proc = run("agreement", path, "--coefficient", "ac2", "--categories", "1,2,3,4,5", "--json")
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout == ""
    where = f"{path}:{line}: " if line else f"{path}: "
    assert f"humaneval: error: {where}" in proc.stderr
    assert message in proc.stderr


def test_ac1_labels_outside_categories(tmp_path):
    path = tmp_path / "labels.csv"
    path.write_text("item,rater,value\n1,A,HT\n1,B,maybe\n", encoding="utf-8")
    proc = run("agreement", path, "--coefficient", "ac1", "--categories", "HT,MT")
    assert proc.returncode == 1 and f"{path}:3: value 'maybe' is not one of the categories HT,MT" in proc.stderr


def test_unreadable_files(tmp_path):
    for target in (tmp_path / "missing.csv", tmp_path):
        proc = run("agreement", target, "--coefficient", "ac1")
        assert proc.returncode == 1
        assert f"humaneval: error: {target}: cannot read the file" in proc.stderr


@pytest.mark.parametrize("args", [
    ["agreement", "RATINGS"],  # --coefficient is required
    ["agreement", "RATINGS", "--coefficient", "ac3"],
    ["agreement", "RATINGS", "--coefficient", "ac1", "--weights", "quadratic"],
    ["agreement", "RATINGS", "--coefficient", "ac2", "--weights", "cubic"],
    ["agreement", "RATINGS", "--coefficient", "ac2", "--categories", "low,high"],
    ["agreement", "RATINGS", "--coefficient", "ac1", "--categories", "a,,b"],
    ["agreement", "RATINGS", "--coefficient", "ac1", "--categories", "a,b,a"],
    ["reader"],
    [],
])
def test_usage_errors_exit_2(ratings, args):
    proc = run(*[ratings if a == "RATINGS" else a for a in args])
    assert proc.returncode == 2
    assert "usage:" in proc.stderr and proc.stdout == ""


def test_help_documents_the_weights():
    proc = run("agreement", "--help")
    assert proc.returncode == 0
    assert "defaults to quadratic weights" in proc.stdout and "identity weights only" in proc.stdout
    assert "ac1 is Gwet's nominal coefficient" in run("--help").stdout


def test_reader_json_and_text():
    out = ok_json("reader", EXPORT)
    study = out["studies"]["lait-demo"]
    assert study["chunk_preference"]["counts"] == {"1": 4, "2": 2}
    assert study["agreement"]["ratings"]["acceptability"]["weights"] == "quadratic"
    linear = ok_json("reader", EXPORT, "--weights", "linear", "--study", "lait-demo")
    assert linear["studies"]["lait-demo"]["agreement"]["ratings"]["acceptability"]["weights"] == "linear"
    proc = run("reader", EXPORT)
    assert proc.returncode == 0
    assert "Study lait-demo: 2 documents, 2 readers" in proc.stdout
    assert "Machine version identified: 3/4 (75%); p = 0.625" in proc.stdout


def test_reader_bad_input(tmp_path):
    path = tmp_path / "export.jsonl"
    path.write_text('{"record": "post", "study": "s", "reader": "a"}\n{"record": "chunk"}\n', encoding="utf-8")
    proc = run("reader", path, "--json")
    assert proc.returncode == 1 and f"{path}:2: missing field 'study'" in proc.stderr
    proc = run("reader", EXPORT, "--study", "nope")
    assert proc.returncode == 1 and "no study 'nope' (studies: lait-demo)" in proc.stderr
