"""``enface campaign create --protocol esa`` and the other campaign commands on an ESA campaign."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from esa_helpers import answer_everything

from humaneval.esa import parse_scores


@pytest.fixture
def cli_env(world, database_url, tmp_path):
    return {"ENFACE_DATABASE_URL": database_url, "ENFACE_DATA_DIR": str(tmp_path / "data"),
            "ENFACE_SECRET_KEY": "cli-test"}


def test_an_esa_campaign_from_the_command_line(world, cli_env, tmp_path):
    from enface.commands import main

    run = CliRunner().invoke
    r = run(main, ["campaign", "create", "--help"])
    assert r.exit_code == 0 and "esa: Error Span Annotation (ESA)" in r.output and "--ranking-test" in r.output
    guidelines = tmp_path / "g.txt"
    guidelines.write_text("Mark names spelt wrongly as minor.", encoding="utf-8")
    r = run(main, ["campaign", "create", "--protocol", "esa", "--testset", str(world.testset_id), "--name", "CLI ESA",
                   "--system", str(world.subs["zephyr-mt"]), "--system", str(world.subs["walrus-baseline"]),
                   "--range", "river.1", "--range", "orchard", "--attention", "0.5", "--attention-test", "mannwhitney",
                   "--count-failing", "--ranking-test", "wilcoxon", "--esa-guidelines", str(guidelines),
                   "--seed", "5"], env=cli_env)
    assert r.exit_code == 0, r.output
    assert "ESA, 2 systems, document strategy" in r.output
    cid = int(r.output.strip().splitlines()[-1])
    with world.ctx():
        from enface.campaigns import services as svc

        s = svc.get_campaign(cid).settings
    assert (s["attention_share"], s["attention_test"], s["exclude_failing"], s["significance_test"]) == \
        (0.5, "mannwhitney", False, "wilcoxon")
    assert s["guidelines"] == "Mark names spelt wrongly as minor."
    for email in ("ann1@example.org", "ann2@example.org"):
        assert run(main, ["campaign", "add-annotator", str(cid), email], env=cli_env).exit_code == 0
    r = run(main, ["campaign", "start", str(cid)], env=cli_env)
    assert r.exit_code == 0, r.output
    answer_everything(world, cid, lambda email, a, seg, text: 50 + seg)
    r = run(main, ["campaign", "status", str(cid), "--json"], env=cli_env)
    assert r.exit_code == 0, r.output
    status = json.loads(r.output)
    assert status["protocol"] == "esa" and status["finished"] == status["items"]
    assert set(status["systems"]) == {"zephyr-mt", "walrus-baseline"}
    out = tmp_path / "scores.csv"
    r = run(main, ["campaign", "export", str(cid), "--format", "appraise", "-o", str(out)], env=cli_env)
    assert r.exit_code == 0, r.output
    rows = parse_scores(out.read_text(encoding="utf-8"), str(out)).rows
    assert rows and {r.item_type for r in rows} == {"TGT", "BAD"}
    # options of other protocols are refused, and bad values name the option
    r = run(main, ["campaign", "create", "--protocol", "esa", "--testset", str(world.testset_id), "--name", "x",
                   "--scheme", "google-mqm"], env=cli_env)
    assert r.exit_code != 0 and "--scheme" in r.output
    r = run(main, ["campaign", "create", "--protocol", "esa", "--testset", str(world.testset_id), "--name", "x",
                   "--attention-alpha", "2"], env=cli_env)
    assert r.exit_code == 1 and "attention_alpha" in r.output
