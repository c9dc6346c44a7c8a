"""``python -m humaneval esa SCORES.csv [--json]``: the contract on small exports, via subprocess."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SPANS_A = '"[{""start_i"":0,""end_i"":3,""severity"":""minor"",""error_type"":null}]"'
SPANS_B = ('"[{""start_i"":""missing"",""end_i"":""missing"",""severity"":""major"",""error_type"":null},'
           '{""start_i"":5,""end_i"":5,""severity"":""undecided""}]"')
# Two annotators, two systems, a BAD row, a tutorial row and a #duplicate row.
EXPORT = "\n".join([
    f"ann1,sysA,1,TGT,eng,deu,80,doc1#sysA,False,{SPANS_A},100.0,110.5",
    "ann1,sysB,2,TGT,eng,deu,40,doc1#sysB,False,[],110.5,120.0",
    f"ann1,sysB,3,BAD,eng,deu,10,doc1#sysB#bad1,False,{SPANS_B},120.0,130.0",
    "ann2,sysA,1,TGT,eng,deu,70,doc2#sysA,False,[],100.0,101.0",
    f"ann2,sysB,2,TGT,eng,deu,70,doc2#sysB,False,{SPANS_B},101.0,102.0",
    "ann2,ende-tutorial1,3,TGT,eng,deu,0,ende-tutorial1,False,[],102.0,103.0",
    "ann3,sysA,4,TGT,eng,deu,5,doc2#sysA#duplicate1,False,[],103.0,104.0",
]) + "\n"


def run(*args) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "humaneval", "esa", *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def write(tmp_path, text, name="scores.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_json_contract(tmp_path):
    out = run(write(tmp_path, EXPORT), "--json")
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert list(got) == ["systems", "annotators", "attention_checks"]
    # ann1: scores 80, 40 -> mean 60, population sd 20 -> z +1, -1; ann2: 70, 70 -> sd 0 -> z 0, 0
    assert got == {"systems": {
        "sysA": {"score": 75.0, "items": 2, "z": 0.5, "spans": {"minor": 1}},
        "sysB": {"score": 55.0, "items": 2, "z": -0.5, "spans": {"major": 1, "undecided": 1}}},
        "annotators": 2, "attention_checks": 1}
    assert list(got["systems"]["sysA"]) == ["score", "items", "z", "spans"]


def test_table_without_json(tmp_path):
    out = run(write(tmp_path, EXPORT))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].split() == ["#", "system", "score", "z", "items", "minor", "major", "undecided"]
    assert lines[2].split() == ["1", "sysA", "75.00", "+0.500", "2", "1", "0", "0"]
    assert lines[3].split() == ["2", "sysB", "55.00", "-0.500", "2", "0", "1", "1"]
    assert "2 annotators, 1 attention-check (BAD) rows" in out.stdout


def test_tutorial_in_the_document_id_and_bad_rows_never_count(tmp_path):
    text = ("a,sysA,1,TGT,eng,deu,90,x-tutorial-2,False,[],1,2\n"
            "a,sysA,2,BAD,eng,deu,0,d#sysA#bad,False,[],1,2\n"
            "a,sysA,3,TGT,eng,deu,50,d#sysA,False,[],1,2\n")
    got = json.loads(run(write(tmp_path, text), "--json").stdout)
    assert got["systems"] == {"sysA": {"score": 50.0, "items": 1, "z": 0.0, "spans": {}}}
    assert got["attention_checks"] == 1


def test_crlf_bom_and_blank_lines_are_read(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_bytes(b"\xef\xbb\xbf" + EXPORT.replace("\n", "\r\n\r\n").encode())
    out = run(path, "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["systems"]["sysA"]["score"] == 75.0


@pytest.mark.parametrize("line, problem", [
    ("a,s,1,TGT,eng,deu,80,d,False,[]", "expected 12 columns"),
    ("a,s,1,REF,eng,deu,80,d,False,[],1,2", "item type must be TGT"),
    ("a,s,1,TGT,eng,deu,eighty,d,False,[],1,2", "score must be a number"),
    ("a,s,1,TGT,eng,deu,nan,d,False,[],1,2", "score must be a number"),
    ("a,s,1,TGT,eng,deu,101,d,False,[],1,2", "between 0 and 100"),
    ("a,s,1,TGT,eng,deu,80,d,maybe,[],1,2", "document flag"),
    ("a,s,1,TGT,eng,deu,80,d,False,[{],1,2", "not JSON"),
    ('a,s,1,TGT,eng,deu,80,d,False,"{""start_i"":1}",1,2', "JSON list"),
    ('a,s,1,TGT,eng,deu,80,d,False,"[{""start_i"":1,""severity"":""minor""}]",1,2', 'no "end_i"'),
    ('a,s,1,TGT,eng,deu,80,d,False,"[{""start_i"":5,""end_i"":2,""severity"":""minor""}]",1,2', "ends (2) before"),
    ('a,s,1,TGT,eng,deu,80,d,False,"[{""start_i"":-1,""end_i"":2,""severity"":""minor""}]",1,2', "character offset"),
    ('a,s,1,TGT,eng,deu,80,d,False,"[{""start_i"":""missing"",""end_i"":2,""severity"":""minor""}]",1,2',
     'both be "missing"'),
    ('a,s,1,TGT,eng,deu,80,d,False,"[{""start_i"":1,""end_i"":2,""severity"":""""}]",1,2', "severity"),
    ("a,s,1,TGT,eng,deu,80,d,False,[],soon,2", "start time must be a number"),
    (",s,1,TGT,eng,deu,80,d,False,[],1,2", "annotator is empty"),
])
def test_bad_input_names_the_file_and_line(tmp_path, line, problem):
    path = write(tmp_path, EXPORT + line + "\n")
    out = run(path, "--json")
    assert out.returncode == 1
    assert out.stdout == ""
    assert f"{path}:8: " in out.stderr
    assert problem in out.stderr


def test_unclosed_quote_and_empty_file(tmp_path):
    out = run(write(tmp_path, EXPORT + 'a,s,1,TGT,eng,deu,80,d,False,"[,1,2\n'))
    assert out.returncode == 1 and ":8: not valid CSV" in out.stderr
    out = run(write(tmp_path, "\n\n", "empty.csv"))
    assert out.returncode == 1 and "no rows" in out.stderr


def test_not_utf8_and_missing_file(tmp_path):
    path = tmp_path / "latin1.csv"
    path.write_bytes(EXPORT.encode() + "a,sÿs,1,TGT,eng,deu,80,d,False,[],1,2\n".encode("latin-1"))
    out = run(path)
    assert out.returncode == 1 and f"{path}:8: not valid UTF-8" in out.stderr
    out = run(tmp_path / "absent.csv")
    assert out.returncode == 1 and "cannot read the file" in out.stderr


@pytest.mark.parametrize("args", [[], ["a.csv", "b.csv"], ["a.csv", "--bogus"]])
def test_usage_errors_exit_2(args):
    out = run(*args)
    assert out.returncode == 2
    assert "usage:" in out.stderr


def _results(*args):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "humaneval", "esa-results", *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


# ann1 scores its BAD copies far below the originals and passes; ann2 scores them higher and fails.
CHECKED = "\n".join(
    [f"ann1,sysA,{i},TGT,eng,deu,{90 - i},d1#sysA,False,[],{i}.0,{i}.5" for i in range(1, 7)]
    + [f"ann1,sysA,{10 + i},BAD,eng,deu,{20 + i},d1#sysA#bad1,False,[],{i}.0,{i}.5" for i in range(1, 7)]
    + [f"ann2,sysB,{i},TGT,eng,deu,{30 + i},d2#sysB,False,[],{i}.0,{i}.5" for i in range(1, 7)]
    + [f"ann2,sysB,{10 + i},BAD,eng,deu,{80 + i},d2#sysB#bad1,False,[],{i}.0,{i}.5" for i in range(1, 7)]) + "\n"


def test_results_json_and_the_exclusion(tmp_path):
    path = write(tmp_path, CHECKED)
    out = _results(path, "--json", "--resamples", "50")
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert list(got) == ["systems", "ranking", "agreement", "timing", "attention", "excluded", "settings"]
    assert got["excluded"] == ["ann2"] and [s["system"] for s in got["systems"]] == ["sysA"]
    assert {a["annotator"]: a["passed"] for a in got["attention"]} == {"ann1": True, "ann2": False}
    assert got["attention"][0]["p_value"] == pytest.approx(1 / 64)
    kept = json.loads(_results(path, "--json", "--keep-failing", "--resamples", "50").stdout)
    assert kept["excluded"] == [] and [s["system"] for s in kept["systems"]] == ["sysA", "sysB"]
    text = _results(path, "--attention-test", "mannwhitney", "--resamples", "50")
    assert text.returncode == 0 and "excluded from the results: ann2" in text.stdout


@pytest.mark.parametrize("args", [["--attention-alpha", "2"], ["--resamples", "0"], ["--ranking-by", "mean"],
                                  ["--ranking-test", "t"]])
def test_results_usage_errors(tmp_path, args):
    out = _results(write(tmp_path, CHECKED), *args)
    assert out.returncode == 2 and "usage:" in out.stderr


def test_results_bad_input(tmp_path):
    out = _results(write(tmp_path, CHECKED + "x,y\n"))
    assert out.returncode == 1 and ":25: expected 12 columns" in out.stderr
