"""``python -m humaneval agreement --coefficient kappa|icc`` and ``python -m humaneval rubric``, via subprocess."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

TWO_RATERS = "item,rater,value\n1,A,0\n1,B,0\n2,A,1\n2,B,2\n3,A,2\n3,B,2\n4,A,1\n4,B,1\n5,A,0\n5,B,1\n"
A, B = [0, 1, 2, 1, 0], [0, 2, 2, 1, 1]


def run(*args) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), OUTDATED_IGNORE="1")
    return subprocess.run([sys.executable, "-m", "humaneval", *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def write(tmp_path, text, name="ratings.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("weights", ["identity", "linear", "quadratic"])
def test_kappa_matches_scikit_learn(tmp_path, weights):
    from sklearn.metrics import cohen_kappa_score

    out = run("agreement", write(tmp_path, TWO_RATERS), "--coefficient", "kappa", "--weights", weights, "--json")
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert list(got) == ["coefficient", "weights", "value", "items", "raters"]
    want = cohen_kappa_score(A, B, weights=None if weights == "identity" else weights)
    assert got == {"coefficient": "kappa", "weights": weights, "value": pytest.approx(want), "items": 5, "raters": 2}


def test_kappa_default_identity_and_text_output(tmp_path):
    path = write(tmp_path, TWO_RATERS)
    got = json.loads(run("agreement", path, "--coefficient", "kappa", "--json").stdout)
    assert got["weights"] == "identity"
    text = run("agreement", path, "--coefficient", "kappa", "--weights", "linear").stdout
    assert text.startswith("Cohen's kappa (linear weights) = ") and "5 items, 2 raters" in text


def test_kappa_on_labels_takes_the_order_of_categories(tmp_path):
    from sklearn.metrics import cohen_kappa_score

    a, b = ["low", "mid", "high", "mid"], ["low", "high", "high", "low"]
    path = write(tmp_path, "item,rater,value\n" + "".join(f"{i},A,{x}\n{i},B,{y}\n"
                                                          for i, (x, y) in enumerate(zip(a, b))))
    got = json.loads(run("agreement", path, "--coefficient", "kappa", "--weights", "linear",
                         "--categories", "low,mid,high", "--json").stdout)
    assert got["value"] == pytest.approx(cohen_kappa_score(a, b, weights="linear", labels=["low", "mid", "high"]))
    # Without an order, weights on labels mean nothing: a clear error, not an alphabetical ranking.
    out = run("agreement", path, "--coefficient", "kappa", "--weights", "linear", "--json")
    assert out.returncode == 1 and "ordered list of categories" in out.stderr


def test_kappa_one_definition_library_cli_and_irrcac(tmp_path):
    """Unequally spaced numbers (1, 2, 5): weights on the values, the same in the library, the CLI,
    the rubric tables and irrCAC (scikit-learn's rank weights differ here, which is why it is not the definition)."""
    import numpy as np
    import pandas as pd
    from irrCAC.raw import CAC
    from sklearn.metrics import cohen_kappa_score

    from humaneval import cohen_kappa
    from humaneval.rubric.agreement import kappa

    a, b = [1, 2, 5, 5, 1, 2, 5, 1], [1, 5, 5, 2, 2, 2, 1, 1]
    path = write(tmp_path, "item,rater,value\n" + "".join(f"{i},A,{x}\n{i},B,{y}\n"
                                                          for i, (x, y) in enumerate(zip(a, b))))
    for weights in ("linear", "quadratic", "ordinal"):
        cli = json.loads(run("agreement", path, "--coefficient", "kappa", "--weights", weights, "--json").stdout)
        frame = pd.DataFrame({"A": a, "B": b}, dtype=object)
        ref = CAC(frame, weights=weights, categories=[1, 2, 5], digits=15).conger()["est"]["coefficient_value"]
        assert cli["value"] == pytest.approx(cohen_kappa(a, b, weights), abs=1e-12)
        assert kappa(a, b, weights) == pytest.approx(cohen_kappa(a, b, weights), abs=1e-12)
        assert cohen_kappa(a, b, weights) == pytest.approx(ref, abs=1e-12)
    assert not np.isclose(cohen_kappa(a, b, "linear"), cohen_kappa_score(a, b, weights="linear"))


def test_kappa_refuses_other_than_two_raters(tmp_path):
    three = write(tmp_path, TWO_RATERS + "1,C,0\n")
    out = run("agreement", three, "--coefficient", "kappa")
    assert out.returncode == 1 and "exactly two raters; the file has 3 (A, B, C)" in out.stderr
    one = write(tmp_path, "item,rater,value\n1,A,0\n2,A,1\n", "one.csv")
    assert "exactly two raters; the file has 1" in run("agreement", one, "--coefficient", "kappa").stderr
    same = write(tmp_path, "item,rater,value\n1,A,2\n1,B,2\n2,A,2\n2,B,2\n", "same.csv")
    out = run("agreement", same, "--coefficient", "kappa")
    assert out.returncode == 1 and "undefined" in out.stderr


def test_icc_matches_pingouin(tmp_path):
    os.environ.setdefault("OUTDATED_IGNORE", "1")
    import pandas as pd
    import pingouin

    rows = [(1, "A", 2), (1, "B", 2), (1, "C", 1), (2, "A", 0), (2, "B", 1), (2, "C", 0), (3, "A", 1),
            (3, "B", 1), (3, "C", 2), (4, "A", 2), (4, "B", 1), (4, "C", 2)]
    path = write(tmp_path, "item,rater,value\n" + "".join(f"{i},{r},{v}\n" for i, r, v in rows))
    out = run("agreement", path, "--coefficient", "icc", "--json")
    assert out.returncode == 0, out.stderr
    frame = pd.DataFrame(rows, columns=["t", "r", "s"])
    want = pingouin.intraclass_corr(frame, targets="t", raters="r", ratings="s").set_index("Type").loc["ICC3", "ICC"]
    assert json.loads(out.stdout) == {"coefficient": "icc", "weights": None, "value": pytest.approx(want),
                                      "items": 4, "raters": 3}


def test_icc_names_the_missing_pairs_and_refuses_weights(tmp_path):
    path = write(tmp_path, "item,rater,value\n1,A,2\n1,B,2\n2,A,0\n3,B,1\n3,A,1\n")
    out = run("agreement", path, "--coefficient", "icc")
    assert out.returncode == 1
    assert "icc needs complete data: missing item '2' by rater 'B'" in out.stderr
    out = run("agreement", path, "--coefficient", "icc", "--weights", "linear")
    assert out.returncode == 2 and "icc takes no weights" in out.stderr
    labels = write(tmp_path, "item,rater,value\n1,A,x\n1,B,y\n", "labels.csv")
    out = run("agreement", labels, "--coefficient", "icc")
    assert out.returncode == 1 and f"{labels}:2: value 'x' is not a number" in out.stderr


def test_gwet_still_works(tmp_path):
    out = run("agreement", write(tmp_path, TWO_RATERS), "--coefficient", "ac2", "--json")
    assert out.returncode == 0 and json.loads(out.stdout)["coefficient"] == "ac2"


RESPONSES = """document,segment,system,rater,dimension,sp,g_1,g_2,refusal,comment
d1,1,sysA,ann1,idiom,2,2,2,,
d1,1,sysA,ann2,idiom,2,1,2,,
d1,1,sysB,ann1,idiom,0,0,0,,literal
d1,1,sysB,ann2,idiom,1,0,1,,
d1,2,sysA,ann1,cultural_safety,2,2,2,justified,
d1,2,sysA,ann2,cultural_safety,2,1,2,justified,
"""


def test_rubric_results_from_csv_and_jsonl(tmp_path):
    out = run("rubric", write(tmp_path, RESPONSES, "r.csv"), "--json")
    assert out.returncode == 0, out.stderr
    results = json.loads(out.stdout)
    assert results["protocol"] == "rubric"
    top = results["systems"][0]
    assert top["system"] == "sysA" and top["dimensions"]["idiom"] == {"sp": 2.0, "g_1": 1.5, "g_2": 2.0,
                                                                      "sigma": 5.5, "n": 1}
    assert len(results["items"]) == 6 and results["items"][2]["sigma"] == 0
    lines = RESPONSES.splitlines()
    header = lines[0].split(",")
    jsonl = "".join(json.dumps({k: (int(v) if v.isdigit() and k != "document" else v or None)
                                for k, v in zip(header, row.split(","))}) + "\n" for row in lines[1:])
    out2 = run("rubric", write(tmp_path, jsonl, "r.jsonl"), "--json")
    assert out2.returncode == 0, out2.stderr
    assert json.loads(out2.stdout)["systems"] == results["systems"]
    text = run("rubric", tmp_path / "r.csv").stdout
    assert "Idiom Translation Σ" in text and "Average Σ" in text and "ICC(3,1)" in text


@pytest.mark.parametrize("row, message", [
    ("d1,1,sysA,ann3,idiom,0,1,0,,", "r.csv:8: the Specific score is 0, so g_1"),
    ("d1,1,sysA,ann3,idiom,3,1,0,,", "r.csv:8: sp (Idiomatic Fidelity & Naturalness) must be an integer"),
    ("d1,1,sysA,ann3,poetry,1,1,0,,", "r.csv:8: unknown dimension 'poetry'"),
    ("d1,1,sysA,ann1,idiom,1,1,1,,", "r.csv:8: rater 'ann1' already scored item 'd1:1:idiom:sysA' on line 2"),
    ("d1,x,sysA,ann3,idiom,1,1,1,,", "r.csv:8: segment must be a whole number"),
    ("d1,1,,ann3,idiom,1,1,1,,", "r.csv:8: missing system"),
    ("d1,2,sysA,ann3,cultural_safety,2,2,1,justified,", "a justified refusal scores g_2"),
])
def test_rubric_bad_rows_name_the_line(tmp_path, row, message):
    out = run("rubric", write(tmp_path, RESPONSES + row + "\n", "r.csv"))
    assert out.returncode == 1 and message in out.stderr, out.stderr


def test_rubric_own_rubric_file_errors(tmp_path):
    bad = write(tmp_path, '{"name": "x", "title": "t", "scale": [0, 1, 2], "dimensions": []}', "mine.json")
    out = run("rubric", write(tmp_path, RESPONSES, "r.csv"), "--rubric", bad)
    assert out.returncode == 1 and f"{bad}: dimensions: must be a non-empty list" in out.stderr
