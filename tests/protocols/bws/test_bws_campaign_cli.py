"""``enface campaign create --protocol bws`` and the other campaign commands on a BWS campaign."""

from __future__ import annotations

import json

import pytest
from bws_helpers import judge_all
from click.testing import CliRunner


@pytest.fixture
def cli_env(world, database_url, tmp_path):
    return {"ENFACE_DATABASE_URL": database_url, "ENFACE_DATA_DIR": str(tmp_path / "data"),
            "ENFACE_SECRET_KEY": "cli-test"}


def test_bws_campaign_from_the_command_line(world, cli_env, tmp_path):
    from enface.commands import main

    from humaneval.bws import read_judgments

    run = CliRunner().invoke
    r = run(main, ["campaign", "create", "--protocol", "bws", "--testset", str(world.testset_id), "--name", "CLI BWS",
                   "--range", "jade-lantern.1:1-4", "--passage-segments", "2", "--tuple-size", "3", "--seed", "2",
                   "--splits", "50"], env=cli_env)
    assert r.exit_code == 0, r.output
    assert "BWS, 3 systems, reference 1, reference 2" in r.output   # default: every primary/baseline and reference
    cid = int(r.output.strip().splitlines()[-1])
    assert run(main, ["campaign", "add-annotator", str(cid), "ann1@example.org"], env=cli_env).exit_code == 0
    r = run(main, ["campaign", "start", str(cid)], env=cli_env)
    assert r.exit_code == 0, r.output
    assert "10 items" in r.output, r.output             # 2 passages × lcm(5, 3) / 3 = 5 tuples of 3
    assert judge_all(world, cid, "ann1@example.org") == 10
    r = run(main, ["campaign", "status", str(cid), "--json"], env=cli_env)
    assert r.exit_code == 0, r.output
    status = json.loads(r.output)
    assert status["protocol"] == "bws" and status["finished"] == 10 and status["split_half"]["splits"] == 50
    assert status["scores"]["reference 1"] == 1.0
    out = tmp_path / "judgments.csv"
    r = run(main, ["campaign", "export", str(cid), "--format", "judgments", "-o", str(out)], env=cli_env)
    assert r.exit_code == 0, r.output
    assert len(read_judgments(out)) == 10
    # refusals: a clear message and exit 1
    r = run(main, ["campaign", "create", "--protocol", "bws", "--testset", str(world.testset_id), "--name", "x",
                   "--tuple-size", "1"], env=cli_env)
    assert r.exit_code == 1 and "translations per tuple" in r.output
    r = run(main, ["campaign", "create", "--protocol", "rubric", "--testset", str(world.testset_id), "--name", "x",
                   "--reference", "ref1"], env=cli_env)
    assert r.exit_code == 1 and "--reference is an option of" in r.output and "bws" in r.output
