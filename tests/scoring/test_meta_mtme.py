"""mt-metrics-eval's layout: reading a root (errors name the file and line), the command line contract
(exit 0/1/2, the JSON shape), and the round trip: write the layout, read it back, the same numbers."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import pearsonr

from scoring.cli import main
from scoring.meta import HumanSource, MetricScores, system_level
from scoring.meta import toolkit as tk
from scoring.meta.mtme import LayoutError, read_mtme, read_score_file
from scoring.meta.mtme_eval import evaluate_mtme
from scoring.meta.mtme_write import LayoutExport, field_name, layout_files, layout_name

SYSTEMS = ["sysA", "sysB", "sysC", "sysD", "refA"]
KEYS = [("doc1", 0), ("doc1", 1), ("doc2", 0), ("doc2", 1), ("doc2", 2)]


def _seg(base: float, step: float) -> dict[tuple[str, int], float]:
    return {k: base + step * i + (0.3 if i % 2 else 0.0) for i, k in enumerate(KEYS)}


def example() -> LayoutExport:
    mqm = HumanSource(key="mqm:1", label="MQM", kind="mqm", higher_is_better=False,
                      systems={"sysA": 1.0, "sysB": 2.5, "sysC": 2.0, "sysD": 4.0, "refA": 0.5},
                      items={s: {k: v for k, v in _seg(i, 0.5 + i / 10).items() if k != ("doc2", 2)}
                             for i, s in enumerate(["sysA", "sysB", "sysC", "sysD", "refA"])},
                      item_unit="segment")
    bleu = MetricScores("bleu", {"sysA": 30.0, "sysB": 21.0, "sysC": 25.0, "sysD": 10.0}, True, "BLEU",
                        {s: _seg(30 - 5 * i, 1.0 + i) for i, s in enumerate(["sysA", "sysB", "sysC", "sysD"])})
    ter = MetricScores("ter", {"sysA": 50.0, "sysB": 60.0, "sysC": 58.0, "sysD": 70.0, "refA": 1.0}, False, "TER")
    return LayoutExport(lp="en-de", segment_keys=KEYS, sources=[f"src {i}" for i in range(5)],
                        references={"refA": [f"ref {i}" for i in range(5)]},
                        outputs={s: [f"{s} {i}" for i in range(5)] for s in SYSTEMS},
                        metrics={"bleu": bleu, "ter": ter}, humans=[mqm])


def write(root: Path, files: dict[str, str]) -> Path:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def root(tmp_path) -> Path:
    return write(tmp_path / "wmtx", layout_files(example()))


def test_layout_files_are_the_toolkits_names(root):
    names = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())
    assert names == ["documents/en-de.docs", "human-scores/en-de.mqm.seg.score", "human-scores/en-de.mqm.sys.score",
                     "metric-scores/en-de/bleu-all.seg.score", "metric-scores/en-de/bleu-all.sys.score",
                     "metric-scores/en-de/ter-all.sys.score", "references/en-de.refA.txt", "sources/en-de.txt",
                     *[f"system-outputs/en-de/{s}.txt" for s in sorted(SYSTEMS)]]
    # higher is better in the layout: google-mqm and TER are negated; a missing segment score is None
    assert (root / "human-scores/en-de.mqm.sys.score").read_text().splitlines()[0] == "sysA\t-1.0"
    assert "sysA\t-50.0" in (root / "metric-scores/en-de/ter-all.sys.score").read_text()
    assert (root / "human-scores/en-de.mqm.seg.score").read_text().splitlines()[4] == "sysA\tNone"


def test_round_trip_gives_the_same_numbers(root):
    ex = example()
    ms = read_mtme(root, "en-de")
    assert ms.human_translations == {"refA"} and ms.docs == ["doc1", "doc1", "doc2", "doc2", "doc2"]
    assert ms.outputs["sysB"] == [f"sysB {i}" for i in range(5)] and ms.sources == [f"src {i}" for i in range(5)]
    res = evaluate_mtme(ms, "mqm", level="sys", n_boot=50)
    assert res["systems"] == ["sysA", "sysB", "sysC", "sysD"]                 # refA left out
    human = {s: v for s, v in ex.humans[0].systems.items() if s != "refA"}
    for key, name in (("bleu", "bleu-all"), ("ter", "ter-all")):
        metric = ex.metrics[key]
        before = system_level(human, {s: v for s, v in metric.scores.items() if s != "refA"},
                              human_higher_is_better=False, metric_higher_is_better=metric.higher_is_better,
                              n_boot=50)
        after = res["metrics"][name]
        for stat in ("pearson", "spearman", "kendall", "pairwise_accuracy"):
            assert after[stat]["value"] == pytest.approx(before[stat]["value"]), (key, stat)
            assert after[stat]["ci"] == pytest.approx(before[stat]["ci"]), (key, stat)
        assert after["pairwise_accuracy_untied"]["value"] == pytest.approx(before["pairwise_accuracy_untied"]["value"])
    # segment level: the same Pearson as on the original scores, oriented
    seg = evaluate_mtme(ms, "mqm", level="seg")
    pairs = [(-ex.humans[0].items[s][k], ex.metrics["bleu"].segments[s][k])
             for s in ["sysA", "sysB", "sysC", "sysD"] for k in KEYS if k in ex.humans[0].items[s]]
    assert seg["metrics"]["bleu-all"]["pearson"] == pytest.approx(pearsonr(*zip(*pairs, strict=True))[0])
    assert set(seg["metrics"]) == {"bleu-all"}


def test_include_human_and_metric_choice(root):
    ms = read_mtme(root, "en-de")
    res = evaluate_mtme(ms, "mqm", level="sys", include_human=True, metrics=["ter-all"], n_boot=20)
    assert res["systems"] == ["refA", "sysA", "sysB", "sysC", "sysD"] and list(res["metrics"]) == ["ter-all"]
    assert res["metrics"]["ter-all"]["n_systems"] == 5


def test_soft_pairwise_accuracy_comes_from_segment_scores(root):
    ms = read_mtme(root, "en-de")
    res = evaluate_mtme(ms, "mqm", level="sys", n_boot=20)
    G = np.array([[math.nan if v is None else v for v in ms.human[("mqm", "seg")][s]] for s in res["systems"]])
    M = np.array([ms.metrics[("bleu-all", "seg")][s] for s in res["systems"]], dtype=float)
    assert res["metrics"]["bleu-all"]["soft_pairwise_accuracy"] == pytest.approx(tk.soft_pairwise_accuracy(G, M))
    assert res["metrics"]["ter-all"]["soft_pairwise_accuracy"] is None       # no segment scores


def test_score_file_errors_name_the_file_and_line(tmp_path):
    bad = tmp_path / "x.sys.score"
    bad.write_text("sysA\t1.0\nsysB\tabc\n")
    with pytest.raises(LayoutError, match=r"x\.sys\.score:2: score 'abc' of sysB"):
        read_score_file(bad)
    bad.write_text("sysA 1.0 extra\n")
    with pytest.raises(LayoutError, match=r":1: expected two fields"):
        read_score_file(bad)
    bad.write_text("sysA\tnan\n")
    with pytest.raises(LayoutError, match=r":1: .*not finite"):
        read_score_file(bad)
    bad.write_text("sysA\t1\nsysA\t2\n")
    with pytest.raises(LayoutError, match="one per system"):
        read_score_file(bad, "sys")
    bad.write_bytes(b"sysA\t1\n\xff\t2\n")
    with pytest.raises(LayoutError, match=r":2: not UTF-8"):
        read_score_file(bad)


def test_a_seg_file_with_the_wrong_count_is_refused(root):
    path = root / "metric-scores/en-de/bleu-all.seg.score"
    path.write_text(path.read_text() + "sysA\t3.0\n")
    with pytest.raises(LayoutError, match="sysA has 6 segment scores; the test set has 5"):
        read_mtme(root, "en-de")


def test_layout_names_have_no_whitespace_or_dots():
    assert layout_name("my metric v1.2") == "my_metric_v1_2"
    assert field_name("Team A.my system") == "Team_A.my_system"


def cli(capsys, *args) -> tuple[int, str, str]:
    code = main(["meta", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_json_shape(root, capsys):
    code, out, _ = cli(capsys, "--mtme", str(root), "--lp", "en-de", "--human", "mqm", "--json", "--n-boot", "20")
    assert code == 0
    res = json.loads(out)
    assert set(res) == {"lp", "human", "level", "systems", "metrics"} and res["level"] == "sys"
    for block in res["metrics"].values():
        assert {"pearson", "spearman", "kendall", "pairwise_accuracy", "soft_pairwise_accuracy"} <= set(block)
        assert set(block["pearson"]) == {"value", "ci"}
    code, out, _ = cli(capsys, "--mtme", str(root), "--lp", "en-de", "--human", "mqm", "--level", "seg", "--json")
    res = json.loads(out)
    assert code == 0 and res["level"] == "seg"
    block = res["metrics"]["bleu-all"]
    assert isinstance(block["pearson"], float) and set(block["acc_eq"]) >= {"value", "threshold"}
    code, out, _ = cli(capsys, "--mtme", str(root), "--lp", "en-de", "--human", "mqm", "--n-boot", "20")
    assert code == 0 and "bleu-all" in out                    # the text table


def test_cli_clusters(root, capsys):
    code, out, _ = cli(capsys, "--mtme", str(root), "--lp", "en-de", "--human", "mqm", "--json", "--n-boot", "20",
                       "--clusters", "--k", "200")
    assert code == 0
    res = json.loads(out)
    assert {b["ranks"]["pearson"] for b in res["metrics"].values()} <= {1, 2}


def test_cli_bad_input_exits_1_naming_file_and_line(root, capsys):
    path = root / "human-scores/en-de.mqm.sys.score"
    path.write_text("sysA\t1.0\nsysB\tNaN-ish\n")
    code, _, err = cli(capsys, "--mtme", str(root), "--lp", "en-de", "--human", "mqm", "--json")
    assert code == 1 and f"{path}:2:" in err


@pytest.mark.parametrize("args", [
    ["--human", "mqm"],                                         # no --lp
    ["--lp", "xx-yy", "--human", "mqm"],                        # no such language pair
    ["--lp", "en-de", "--human", "esa"],                        # no such human score
    ["--lp", "en-de", "--human", "mqm", "--metrics", "nope-all"],
    ["--lp", "en-de", "--human", "mqm", "--level", "doc"],
])
def test_cli_usage_errors_exit_2(root, capsys, args):
    with pytest.raises(SystemExit) as exc:
        code = main(["meta", "--mtme", str(root), *args])
        raise SystemExit(code)
    assert exc.value.code == 2


def test_cli_missing_root_is_a_usage_error(tmp_path, capsys):
    assert main(["meta", "--mtme", str(tmp_path / "nope"), "--lp", "en-de", "--human", "mqm"]) == 2


def test_cli_old_form_still_needs_its_metrics_file(capsys):
    assert main(["meta", "--human", "h.json"]) == 2
    assert main(["meta", "--human", "h.json", "--metrics", "m.json", "--lp", "en-de"]) == 2
