"""``enface testset import ROOT`` with a root in mt-metrics-eval's layout: the test set of one language pair
and its system outputs as an organizer's baselines, validated and scored; errors say which file and line."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from enface.commands import main

from scoring.meta.mtme_write import LayoutExport, layout_files
from scoring.testset import load_system_output, load_testset
from tests.support.testkit import DEMO, TestConfigEnv, World

SYSTEMS = ("strong-mt", "literal-mt", "weak-mt")


@pytest.fixture
def cli_env(app, monkeypatch):
    for key, value in TestConfigEnv(app).items():
        if key.startswith("ENFACE_"):
            monkeypatch.setenv(key, value)
    monkeypatch.setenv("ENFACE_JOBS", "eager")


def run(*args, code=0):
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result


def demo_root(folder: Path) -> Path:
    """The demo test set and three of its systems, written in mt-metrics-eval's layout (two documents)."""
    ts = load_testset(DEMO / "testset")
    refs = ts.references()
    outputs = {s: [line for d in ts.documents for line in load_system_output(ts, DEMO / "systems" / s)[d.name]]
               for s in SYSTEMS}
    outputs["refA"] = refs[0]                                   # a human translation among the outputs
    ex = LayoutExport(lp=f"{ts.src_lang}-{ts.tgt_lang}",
                      segment_keys=[(d.name, i) for d in ts.documents for i in range(len(d))],
                      domains=["literary"] * ts.num_segments, sources=ts.sources(),
                      references={"refA": refs[0], "refB": refs[1]}, outputs=outputs)
    for path, text in layout_files(ex).items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(text, encoding="utf-8")
    return folder


def test_import_of_a_layout_root_creates_the_test_set_and_scored_baselines(app, cli_env, tmp_path):
    from enface.extensions import db
    from enface.models import ScoreRow, Submission, TestSet

    World(app).user("org@example.org", role="organizer")
    root = demo_root(tmp_path / "wmtdemo")
    result = run("testset", "import", root, "--task", "WMT layout")
    ts_id = int(result.stdout.strip())
    assert "3 system outputs submitted as baselines of org@example.org" in result.stderr
    assert "human translations left out: refA" in result.stderr
    demo = load_testset(DEMO / "testset")
    with app.app_context():
        ts = db.session.get(TestSet, ts_id)
        assert (ts.name, ts.num_documents, ts.num_segments, ts.num_refs) == \
            (f"wmtdemo {demo.src_lang}-{demo.tgt_lang}", len(demo.documents), demo.num_segments, 2)
        assert [d.name for d in ts.documents] == demo.doc_names
        subs = db.session.query(Submission).filter_by(testset_id=ts_id).order_by(Submission.id).all()
        assert [(s.system_name, s.label) for s in subs] == [(s, "baseline") for s in sorted(SYSTEMS)]
        assert {s.state for s in subs} == {"scored"}
        bleu = {s.system_name: db.session.query(ScoreRow).filter_by(submission_id=s.id, metric="bleu",
                                                                      scope="corpus").one().value for s in subs}
        assert bleu["strong-mt"] > bleu["weak-mt"]
    # the same data again, in another task, human translations included: four baselines
    again = run("testset", "import", root, "--task", "WMT layout 2", "--include-human")
    assert "4 system outputs submitted" in again.stderr


def test_import_errors(app, cli_env, tmp_path):
    root = demo_root(tmp_path / "wmtdemo")
    # no organizer yet: the outputs have no owner
    assert "create an organizer account first" in run("testset", "import", root, "--task", "T", code=1).output
    World(app).user("org@example.org", role="organizer")
    assert "no language pair xx-yy" in run("testset", "import", root, "--task", "T", "--lp", "xx-yy",
                                           code=1).output
    bad = next((root / "system-outputs").rglob("weak-mt.txt"))
    bad.write_text("only one line\n", encoding="utf-8")
    out = run("testset", "import", root, "--task", "T", code=1).output
    assert "weak-mt.txt" in out and "lines; the test set has" in out
    # a plain test-set folder does not take the layout's options
    assert "mt-metrics-eval's layout" in run("testset", "import", DEMO / "testset", "--task", "T", "--lp", "en-de",
                                             code=1).output
