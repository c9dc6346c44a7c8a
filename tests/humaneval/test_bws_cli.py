"""``python -m humaneval bws JUDGMENTS.csv [--splits N] [--seed S] [--json]``: the contract, via subprocess."""

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Two paragraphs, four versions, two annotators; an extra column that must be ignored.
SMALL = """item,annotator,versions,best,worst,comment
p1,ann1,A|B|C|D,A,D,
p1,ann2,A|B|C|D,A,C,"a, quoted comment"
p2,ann1,A|B|C|D,B,D,
p2,ann2,A|B|C|D,A,D,
"""


def run(*args) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "humaneval", "bws", *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def write(tmp_path, text, name="judgments.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_json_contract_known_answer(tmp_path):
    result = run(write(tmp_path, SMALL), "--json", "--splits", "50", "--seed", "7")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert set(out) == {"versions", "split_half", "judgments"}
    assert out["judgments"] == 4
    # A: best 3 of 4; B: best once; C: worst once; D: worst 3 times; every version shown 4 times.
    assert out["versions"] == {
        "A": {"score": 0.75, "best": 3, "worst": 0, "appearances": 4},
        "B": {"score": 0.25, "best": 1, "worst": 0, "appearances": 4},
        "C": {"score": -0.25, "best": 0, "worst": 1, "appearances": 4},
        "D": {"score": -0.75, "best": 0, "worst": 3, "appearances": 4},
    }
    assert set(out["split_half"]) == {"value", "splits"}
    assert out["split_half"]["splits"] == 50
    # Every split gives r = 8/9 or 1/sqrt(2) (see test_bws_scores): the mean lies between them.
    lo, hi = 2 * (1 / math.sqrt(2)) / (1 + 1 / math.sqrt(2)), 2 * (8 / 9) / (1 + 8 / 9)
    assert lo - 1e-12 <= out["split_half"]["value"] <= hi + 1e-12


def test_seed_makes_it_reproducible(tmp_path):
    path = write(tmp_path, SMALL)
    a, b = run(path, "--json", "--seed", "3"), run(path, "--json", "--seed", "3")
    assert a.returncode == b.returncode == 0
    assert a.stdout == b.stdout
    assert json.loads(a.stdout)["split_half"]["splits"] == 100   # the default


def test_table_without_json(tmp_path):
    result = run(write(tmp_path, SMALL))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split()[:2] == ["version", "score"]
    assert [line.split()[0] for line in lines[1:5]] == ["A", "B", "C", "D"]   # best first
    assert "+0.750" in lines[1]
    assert "split-half reliability" in result.stdout and "of 100 splits" in result.stdout


@pytest.mark.parametrize(("text", "line", "words"), [
    ("item,annotator,versions,best,worst\np1,a,A|B|C,A,D\n", 2, "worst 'D' is not one"),
    ("item,annotator,versions,best,worst\np1,a,A|B|C,A,B\np1,b,A|B|C,E,B\n", 3, "best 'E' is not one"),
    ("item,annotator,versions,best,worst\np1,a,A|B|C,B,B\n", 2, "the same version"),
    ("item,annotator,versions,best,worst\np1,a,A|B|A,A,B\n", 2, "appears twice"),
    ("item,annotator,versions,best,worst\np1,a,A,A,A\n", 2, "at least two versions"),
    ("item,annotator,versions,best,worst\np1,a,A||B,A,B\n", 2, "empty entry"),
    ("item,annotator,versions,best,worst\np1,,A|B,A,B\n", 2, "empty annotator"),
    ("item,annotator,versions,best,worst\np1,a,A|B\n", 2, "expected at least 5 columns"),
    ("item,annotator,versions,best\np1,a,A|B,A\n", 1, "missing column worst"),
    ("item,annotator,versions,best,worst,best\np1,a,A|B,A,B,A\n", 1, "twice"),
])
def test_bad_input_names_file_and_line(tmp_path, text, line, words):
    path = write(tmp_path, text)
    result = run(path, "--json")
    assert result.returncode == 1
    assert f"{path}:{line}:" in result.stderr
    assert words in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize(("text", "words"), [
    ("", "empty file"),
    ("item,annotator,versions,best,worst\n", "no judgments"),
    (b"\xff\xfe".decode("latin-1"), "UTF-8"),
])
def test_empty_or_unreadable(tmp_path, text, words):
    path = tmp_path / "judgments.csv"
    path.write_bytes(text.encode("latin-1"))
    result = run(path)
    assert result.returncode == 1
    assert str(path) in result.stderr and words in result.stderr


def test_missing_file(tmp_path):
    result = run(tmp_path / "nope.csv")
    assert result.returncode == 1 and "nope.csv" in result.stderr


@pytest.mark.parametrize("args", [[], ["--splits", "0"], ["--splits", "x"], ["--seed", "-1"], ["--bogus"],
                                  ["a.csv", "b.csv"]])
def test_usage_errors_exit_2(tmp_path, args):
    assert run(*args).returncode == 2


def test_split_half_undefined_is_null(tmp_path):
    # One judgment: a half is empty, no correlation can be computed.
    path = write(tmp_path, "item,annotator,versions,best,worst\np1,a,A|B|C,A,C\n")
    result = run(path, "--json", "--splits", "5")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["split_half"] == {"value": None, "splits": 5}
