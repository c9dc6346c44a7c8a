"""``python -m humaneval esa`` on the real Appraise ESA export (WMT23 en-de, Kocmi et al. 2024), checked
against numbers computed here independently with pandas; and the export's own edge cases."""

import json
import os
import subprocess
import sys
from collections import Counter

import pytest

from humaneval.esa import format_scores, read_scores
from tests.support import ROOT, SHARED_DATA
from tests.support.realdata import require

ESA_CSV = SHARED_DATA / "appraise-esa" / "240520rc6ESA.scores.csv"
NAMES = ["annotator", "system", "item", "type", "src", "tgt", "score", "doc", "flag", "spans", "start", "end"]


@pytest.fixture(scope="module")
def frame():
    import pandas as pd  # a dependency: no importorskip (it would skip even in CI)

    df = pd.read_csv(require(ESA_CSV), header=None, names=NAMES, dtype=str, keep_default_na=False)
    df["score"] = df["score"].astype(float)
    return df


@pytest.fixture(scope="module")
def cli_json():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-m", "humaneval", "esa", str(require(ESA_CSV)), "--json"], cwd=ROOT,
                         env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _counted(df):
    keep = ~(df["system"].str.contains("tutorial", regex=False) | df["doc"].str.contains("tutorial", regex=False)
             | df["doc"].str.contains("#duplicate", regex=False))
    return df[keep]


def test_system_means_items_and_z_match_pandas(frame, cli_json):
    counted = _counted(frame)
    tgt = counted[counted["type"] == "TGT"].copy()
    by_annotator = tgt.groupby("annotator")["score"]
    sd = by_annotator.transform(lambda s: s.std(ddof=0))
    tgt["z"] = ((tgt["score"] - by_annotator.transform("mean")) / sd).where(sd != 0, 0.0)
    want = tgt.groupby("system").agg(score=("score", "mean"), items=("score", "size"), z=("z", "mean"))
    got = cli_json["systems"]
    assert set(got) == set(want.index)
    assert len(got) == 13 and not any("tutorial" in s for s in got)
    for system, row in want.iterrows():
        assert got[system]["score"] == pytest.approx(row["score"], abs=1e-9)
        assert got[system]["items"] == row["items"]
        assert got[system]["z"] == pytest.approx(row["z"], abs=1e-9)
    assert cli_json["annotators"] == counted["annotator"].nunique() == 33
    assert cli_json["attention_checks"] == int((counted["type"] == "BAD").sum()) == 402
    # the systems come best first
    means = [s["score"] for s in got.values()]
    assert means == sorted(means, reverse=True)


def test_span_counts_match_the_json_as_written(frame, cli_json):
    tgt = _counted(frame)
    tgt = tgt[tgt["type"] == "TGT"]
    for system, group in tgt.groupby("system"):
        want = Counter(span["severity"] for cell in group["spans"] for span in json.loads(cell))
        assert cli_json["systems"][system]["spans"] == dict(want)
    total = Counter()
    for s in cli_json["systems"].values():
        total.update(s["spans"])
    assert set(total) == {"minor", "major", "undecided"}   # Appraise's "undecided" is counted as written


def test_the_exports_edge_cases_are_read():
    rows = read_scores(require(ESA_CSV)).rows
    assert len(rows) == 3327
    spans = [s for r in rows for s in r.spans]
    missing = [s for s in spans if s.missing]
    assert missing and all(s.start is None and s.end is None and s.length == 0 for s in missing)
    assert sum(not r.spans for r in rows) == 1774                 # "[]": no error marked
    assert sum(not s.has_error_type for s in spans) == 13          # spans without an "error_type" key
    assert any(s.start == s.end for s in spans)                    # one-character spans (inclusive ends)
    assert sum(r.is_duplicate and r.is_bad for r in rows) == 1     # a BAD row of a #duplicate document
    assert all(r.end_time >= r.start_time for r in rows)


def test_round_trip_is_byte_identical_on_the_real_export():
    data = require(ESA_CSV).read_bytes()
    scores = read_scores(ESA_CSV)
    assert format_scores(scores.rows, scores.newline).encode("utf-8") == data


@pytest.fixture(scope="module")
def results():
    from humaneval.esa.results import esa_results

    # Appraise's own attention test (fast); the default paired test is checked on constructed rows
    return esa_results(read_scores(require(ESA_CSV)).rows, attention_test="mannwhitney", n_resamples=200)


def test_attention_checks_match_an_independent_pairing(frame, results):
    from scipy.stats import mannwhitneyu

    counted = _counted(frame).copy()
    counted["end"] = counted["end"].astype(float)
    counted = counted.sort_values("end", kind="stable").drop_duplicates(["annotator", "doc", "item"], keep="last")
    counted["pos"] = counted.assign(n=counted["item"].astype(int)).groupby(["annotator", "doc"])["n"].rank()
    counted["base"] = counted["doc"].str.replace(r"#bad\d*$", "", regex=True)
    pairs = counted[counted["type"] == "BAD"].merge(counted[counted["type"] == "TGT"], on=["annotator", "base", "pos"],
                                                    suffixes=("_bad", "_tgt"))
    assert len(pairs) == sum(c.pairs for c in results.attention) == 396
    got = {c.annotator: c for c in results.attention}
    assert len(got) == 33
    for annotator, group in pairs.groupby("annotator"):
        want = mannwhitneyu(group["score_bad"], group["score_tgt"], alternative="less").pvalue
        assert got[annotator].p_value == pytest.approx(want)
        assert got[annotator].passed == (want < 0.05)
    assert results.excluded == sorted(a for a, c in got.items() if not c.passed)
    assert 0 < len(results.excluded) < 33


def test_results_after_excluding_failing_annotators_match_pandas(frame, results):
    counted = _counted(frame)
    tgt = counted[(counted["type"] == "TGT") & ~counted["annotator"].isin(results.excluded)]
    want = tgt.groupby("system")["score"].agg(["mean", "size"])
    for s in results.systems:
        assert s.score == pytest.approx(want.loc[s.system, "mean"]) and s.items == want.loc[s.system, "size"]
        assert s.ci_low < s.score < s.ci_high
    assert [r["system"] for r in results.ranking["rows"]] == [s.system for s in results.systems]
    # the two NLLB systems and AIRC are far below the best: the rank-sum test separates them
    assert results.ranking["rows"][0]["cluster"] < results.ranking["rows"][-1]["cluster"]
    assert results.agreement.segments > 0 and -1 <= results.agreement.pearson <= 1
    assert results.timing.segments == len(tgt)
