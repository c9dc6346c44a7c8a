"""bench/budget.py on a small generated MQM file: the table, and exit 1 when nothing was compared."""

from __future__ import annotations

import importlib.util
import random

import pytest

from tests.support import ROOT
from tests.support.services import require_module

SYSTEMS = {"sysA": 0.1, "sysB": 0.4, "sysC": 0.7, "sysD": 0.9}   # chance of a Major error per rating
HEADER = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity"


def load_bench():
    spec = importlib.util.spec_from_file_location("bench_budget", ROOT / "bench" / "budget.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write_mqm(path, same_raters=True, segments=12):
    rng = random.Random(0)
    lines = [HEADER]
    for seg in range(1, segments + 1):
        for k, (system, p_error) in enumerate(SYSTEMS.items()):
            target = f"the {system} translation of sentence {seg} " + " ".join(rng.choice("abc") for _ in range(4))
            raters = ("r1", "r2") if same_raters or k else ("r1", "r3")
            for rater in raters:
                if rng.random() < p_error:
                    lines.append(f"{system}\td1\t{seg}\t{seg}\t{rater}\tsource {seg}\t<v>{target}</v>\t"
                                 "Accuracy/Mistranslation\tMajor")
                else:
                    lines.append(f"{system}\td1\t{seg}\t{seg}\t{rater}\tsource {seg}\t{target}\tNo-error\tNo-error")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_prints_the_table(tmp_path, capsys):
    require_module("subset2evaluate", "subset2evaluate is installed by `make venv` (--no-deps)")
    bench = load_bench()
    status = bench.main(["--data", str(write_mqm(tmp_path / "m.tsv")), "--draws", "2", "--fractions", "0.5"])
    out = capsys.readouterr().out
    assert status == 0
    assert "4 systems, 12 segments" in out and "full top cluster:" in out
    rows = [line.split() for line in out.splitlines() if line.strip().startswith("50%")]
    assert [r[2] for r in rows] == ["uniform", "metric_var", "metric_cons"]
    for r in rows:
        assert r[1] == "6" and 0 <= float(r[3]) <= 1


def test_nothing_compared_exits_1(tmp_path, capsys):
    bench = load_bench()
    # sysA's segments are rated by other raters than the rest: no segment is comparable.
    status = bench.main(["--data", str(write_mqm(tmp_path / "m.tsv", same_raters=False)), "--draws", "1"])
    assert status == 1 and "nothing to compare" in capsys.readouterr().err


def test_missing_data_exits_1(tmp_path, capsys):
    assert load_bench().main(["--data", str(tmp_path / "none.tsv")]) == 1
    assert "no data" in capsys.readouterr().err


@pytest.mark.parametrize("args", [["--draws", "0"], ["--fractions", "0"], ["--fractions", "x"]])
def test_usage_errors(args):
    with pytest.raises(SystemExit) as exc:
        load_bench().main(args)
    assert exc.value.code == 2
