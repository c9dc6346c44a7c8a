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

