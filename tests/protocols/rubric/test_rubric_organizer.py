"""Creating rubric campaigns: the web form and ``enface campaign create --protocol rubric``; the dashboard."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner
from rubric_helpers import SYSTEMS, new_rubric


@pytest.fixture
def cli_env(world, database_url, tmp_path):
    return {"ENFACE_DATABASE_URL": database_url, "ENFACE_DATA_DIR": str(tmp_path / "data"),
            "ENFACE_SECRET_KEY": "cli-test"}


def test_cli_create_start_and_export(world, cli_env, tmp_path):
    from enface.commands import main

    run = CliRunner().invoke
    ts = str(world.testset_id)
    careful, chatty = world.subs["careful-mt"], world.subs["chatty-llm"]
    r = run(main, ["campaign", "create", "--protocol", "rubric", "--testset", ts, "--name", "CLI rubric",
                   "--system", str(careful), "--system", str(chatty), "--range", "sect-trial", "--redundancy", "1",
                   "--seed", "5"], env=cli_env)
    assert r.exit_code == 0, r.output
    assert "rubric, 2 systems, documents sect-trial:1-10" in r.output
    cid = int(r.output.strip().splitlines()[-1])
    assert run(main, ["campaign", "add-annotator", str(cid), "ann1@example.org"], env=cli_env).exit_code == 0
    r = run(main, ["campaign", "start", str(cid)], env=cli_env)
    assert r.exit_code == 0 and "16 items, 16 assignments" in r.output, r.output   # 8 tagged segments x 2
    r = run(main, ["campaign", "export", str(cid), "--format", "json"], env=cli_env)
    assert r.exit_code == 0 and json.loads(r.output)["protocol"] == "rubric"
    r = run(main, ["campaign", "export", str(cid), "--format", "tsv"], env=cli_env)
    assert r.exit_code == 1 and "a rubric campaign exports json, csv (not tsv)" in r.output
    r = run(main, ["campaign", "status", str(cid), "--json"], env=cli_env)
    assert r.exit_code == 0, r.output
    status = json.loads(r.output)
    assert status["items"] == 16 and status["finished"] == 0
    assert status["annotators"] == [{"rater": "rater1", "email": "ann1@example.org", "items": 16, "finished": 0}]
    r = run(main, ["campaign", "status", str(cid)], env=cli_env)
    assert r.exit_code == 0 and "CLI rubric [open] rubric: 0/16 items finished" in r.output


def test_cli_own_rubric_file_and_refusals(world, cli_env, tmp_path):
    from enface.commands import main

    from humaneval.rubric import load_rubric

    run = CliRunner().invoke
    ts = str(world.testset_id)
    mine = load_rubric().to_dict()
    mine["name"] = "diting-short"
    mine["dimensions"][0]["criteria"][0]["levels"]["1"] = "Understandable but stiff."
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(mine), encoding="utf-8")
    r = run(main, ["campaign", "create", "--protocol", "rubric", "--testset", ts, "--name", "Mine", "--rubric",
                   str(path), "--hide-reference"], env=cli_env)
    assert r.exit_code == 0, r.output
    with world.ctx():
        from enface.campaigns import services as svc

        campaign = svc.get_campaign(int(r.output.strip().splitlines()[-1]))
        assert campaign.setting("rubric")["name"] == "diting-short" and campaign.setting("show_reference") is False
    # a broken rubric file names the file and the field
    del mine["dimensions"][2]["criteria"][1]["levels"]["0"]
    path.write_text(json.dumps(mine), encoding="utf-8")
    r = run(main, ["campaign", "create", "--protocol", "rubric", "--testset", ts, "--name", "x", "--rubric",
                   str(path)], env=cli_env)
    assert r.exit_code == 1 and f"{path}: dimensions[2].criteria[1].levels: must give one text" in r.output
    # a rubric lacking a dimension the test set tags
    short = load_rubric().to_dict()
    short["dimensions"] = short["dimensions"][:5]
    path.write_text(json.dumps(short), encoding="utf-8")
    r = run(main, ["campaign", "create", "--protocol", "rubric", "--testset", ts, "--name", "x", "--rubric",
                   str(path)], env=cli_env)
    assert r.exit_code == 1 and "tags dimension(s) cultural_safety, which the rubric 'diting' lacks" in r.output
    r = run(main, ["campaign", "create", "--protocol", "rubric", "--testset", ts, "--name", "x", "--rubric",
                   "nope"], env=cli_env)
    assert r.exit_code == 1 and "unknown rubric 'nope'" in r.output


def _csrf(html: str) -> str:
    return re.search(r'name="csrf_token"[^>]*value="([^"]+)"', html).group(1)


def test_web_form_creates_a_campaign(world):
    org = world.client("org@example.org")
    page = org.get(f"/campaigns/new?testset={world.testset_id}&protocol=rubric")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "17 tagged phenomena" in html and "tea-house\nsect-trial" in html
    form = {"csrf_token": _csrf(html), "testset": world.testset_id, "protocol": "rubric", "name": "Web rubric",
            "systems": [str(world.subs[s]) for s in SYSTEMS], "rubric": "diting", "rubric_json": "",
            "show_reference": "1", "guidelines": "Be kind.", "redundancy": "2", "strategy": "redundancy",
            "ranges": "tea-house", "seed": "9", "instructions": ""}
    r = org.post("/campaigns/new", data=form)
    assert r.status_code in (302, 303), r.get_data(as_text=True)[:2000]
    cid = int(r.headers["Location"].rstrip("/").split("/")[-1])
    dash = org.get(f"/campaigns/{cid}").get_data(as_text=True)
    assert 'id="phenomena-table"' in dash and "Idiom Translation" in dash and "tea-house:1-10" in dash
    # a pasted rubric that is not JSON: the form comes back with the error, nothing created
    r = org.post("/campaigns/new", data={**form, "rubric_json": "{nope"})
    assert r.status_code == 400 and "rubric: not valid JSON" in r.get_data(as_text=True)


def test_testset_without_phenomena_is_refused(app, tmp_path):
    from tests.support.campaigns import build_world, new_campaign

    plain = build_world(app, tmp_path)
    with pytest.raises(Exception) as info:
        new_campaign(plain, protocol="rubric", settings_override={"rubric": "diting"}, ranges="river.1",
                     systems=["zephyr-mt"], start=False)
    assert "has no phenomenon tags" in str(info.value)


def test_dashboard_progress_and_blind_item_pages(world):
    cid = new_rubric(world)
    org = world.client("org@example.org")
    dash = org.get(f"/campaigns/{cid}").get_data(as_text=True)
    assert 'id="progress-table"' in dash and "0 of 90 items finished" in dash
    ann = world.client("ann1@example.org")
    listing = ann.get("/annotate/").get_data(as_text=True)
    assert "rubric-items" in listing and "0 of 45 items finished" in listing and "Phenomena scored" in listing
    first = re.search(r'/annotate/item/([A-Za-z0-9_-]+)', listing).group(1)
    page = ann.get(f"/annotate/item/{first}").get_data(as_text=True)
    assert 'id="rubric-state"' in page and "rubric.js" in page
    for name in (*SYSTEMS, "Heron", "Kestrel"):
        assert name not in page
