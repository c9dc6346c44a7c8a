"""A benchmark whose scores differ from the tool it compares with must exit non-zero (issue 11).

bench/scoring.py runs for real on a small generated test set: exit 0 when the scores equal the
sacrebleu CLI's, 1 when the comparison says they differ (the comparison is made to fail by
replacing ``identical``, the one check the script uses).
"""

from __future__ import annotations

import importlib.util
import sys

import pytest

from tests.support import ROOT


def load_bench(name: str):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("differ", [False, True])
def test_bench_scoring_exit_status(tmp_path, monkeypatch, capsys, differ):
    bench = load_bench("scoring")
    if differ:
        monkeypatch.setattr(bench, "identical", lambda scores, cli: False)
    monkeypatch.setattr(sys, "argv", ["scoring.py", "--segments", "60", "--out", str(tmp_path), "--no-comet"])
    status = bench.main()
    out = capsys.readouterr()
    assert status == (1 if differ else 0)
    assert f"identical scores: {not differ}" in out.out
    assert ("differ from the sacrebleu CLI" in out.err) is differ


def test_common_identical_compares_to_16_decimals():
    common = load_bench("_common")
    assert common.identical({"bleu": 1.0, "chrf": 2.0, "ter": 3.0}, [1.0, 2.0, 3.0])
    assert not common.identical({"bleu": 1.0, "chrf": 2.0, "ter": 3.0 + 1e-13}, [1.0, 2.0, 3.0])
    assert not common.identical({"bleu": 1.0, "chrf": 2.0, "ter": 3.0}, [1.0, 2.0])



def test_bench_ter_fails_when_it_compared_nothing(tmp_path, monkeypatch, capsys):
    """Without the real data there is no pair to compare: that is a failure, not a pass."""
    bench = load_bench("ter")
    from scoring.metrics import fast_ter

    if fast_ter._ter is None:
        pytest.skip("the compiled TER is not built (bench/ter.py exits 2 then)")
    monkeypatch.setattr(sys, "argv", ["ter.py", "--data", str(tmp_path)])
    assert bench.main() == 1
    assert "nothing compared" in capsys.readouterr().err


def test_bench_load_fails_when_it_compared_nothing():
    bench = load_bench("load")
    ran = {"Request Count": "900", "Failure Count": "0"}
    assert bench.verdict(ran, acked=40, stored=41, distinct_marks=41, locust_status=0)
    assert not bench.verdict({"Request Count": "0", "Failure Count": "0"}, 0, 0, 0, 0)   # no request
    assert not bench.verdict(ran, acked=0, stored=0, distinct_marks=0, locust_status=0)   # no mark saved
    assert not bench.verdict({"Request Count": "900", "Failure Count": "3"}, 40, 41, 41, 1)
    assert not bench.verdict(ran, acked=40, stored=39, distinct_marks=39, locust_status=0)   # a save lost
    assert not bench.verdict(ran, acked=40, stored=41, distinct_marks=40, locust_status=0)   # stored twice
    assert not bench.verdict(ran, acked=40, stored=41, distinct_marks=41, locust_status=2)   # locust broke


@pytest.mark.parametrize("differ", [None, "corpus", "segments"])
def test_bench_segment_scores_exit_status(tmp_path, monkeypatch, capsys, differ):
    """bench/segment_scores.py on 60 real WMT23 segments: 0 when every score equals sacrebleu's, else 1."""
    from tests.support import SHARED_DATA
    from tests.support.realdata import require

    require(SHARED_DATA / "wmt23-mtme" / "wmt23")
    bench = load_bench("segment_scores")
    if differ == "corpus":
        monkeypatch.setattr(bench, "identical", lambda scores, cli: False)
    if differ == "segments":
        monkeypatch.setattr(bench, "segment_differences", lambda *args: (10, 1))
    monkeypatch.setattr(sys, "argv", ["segment_scores.py", "--segments", "60", "--out", str(tmp_path),
                                      "--data", str(SHARED_DATA)])
    status = bench.main()
    out = capsys.readouterr()
    assert status == (0 if differ is None else 1)
    assert f"identical corpus scores: {differ != 'corpus'}" in out.out
    assert ("scores differ" in out.err) is (differ is not None)
    if differ is None:
        assert "0 differ" in out.out and "ratio" in out.out
