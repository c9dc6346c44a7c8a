"""``enface campaign links|crowd|codes`` on a real database: links made, listed, revoked; the setup; the codes file."""

from __future__ import annotations

import json

from tests.support.campaigns import new_campaign
from tests.support.crowd import tutorial_text


def test_links_create_list_revoke(world, cli, tmp_path):
    cid = new_campaign(world, annotators=(), redundancy=1, systems=["zephyr-mt"], start=False)
    out = cli("campaign", "links", "create", cid, "--count", 2, "--label", "pilot", "--base-url", "https://eval.example")
    lines = out.strip().splitlines()
    assert lines[0] == "panel_id,link" and len(lines) == 3
    assert all(line.startswith("pilot,https://eval.example/crowd/l/lnk_") for line in lines[1:])
    ids = tmp_path / "ids.txt"
    ids.write_text("PID-1\nPID-2\n", encoding="utf-8")
    target = tmp_path / "links.csv"
    cli("campaign", "links", "create", cid, "--panel-ids", ids, "--passphrase-stdin", "--csv", target, stdin="tea\n")
    assert [row.split(",")[0] for row in target.read_text().splitlines()] == ["panel_id", "PID-1", "PID-2"]
    listed = json.loads(cli("campaign", "links", "list", cid, "--json"))
    assert [(r["label"], r["passphrase"]) for r in listed] == [("pilot", False), ("pilot", False), ("PID-1", True),
                                                              ("PID-2", True)]
    assert "lnk_" not in json.dumps([{k: v for k, v in r.items() if k != "hint"} for r in listed])
    assert "revoked" in cli("campaign", "links", "revoke", cid, listed[0]["id"])
    assert json.loads(cli("campaign", "links", "list", cid, "--json"))[0]["revoked"] is True
    assert "no such link" in cli("campaign", "links", "revoke", cid, 99999, code=1)
    err = cli("campaign", "links", "create", cid, "--panel-ids", ids, code=1)
    assert "has a link already" in err


def test_crowd_setup_and_codes(world, cli, tmp_path):
    cid = new_campaign(world, annotators=(), redundancy=1, systems=["zephyr-mt"], start=False)
    tut = tmp_path / "tutorial.json"
    tut.write_text(tutorial_text(), encoding="utf-8")
    out = json.loads(cli("campaign", "crowd", cid, "--welcome", "lait", "--tutorial", tut, "--pass-code", "OK1",
                         "--fail-code", "NO1", "--threshold", "90%", "--redirect", "https://p.example/done?cc=${CODE}"))
    assert out == {"welcome": "Consent and entry questionnaire", "tutorial_items": 2, "tutorial_required": True,
                   "codes": {"pass": "OK1", "fail": "NO1", "threshold": 0.9, "redirect": "https://p.example/done?cc=${CODE}"}}
    assert "letters, digits" in cli("campaign", "crowd", cid, "--pass-code", "a b", code=1)
    assert "neither a file" in cli("campaign", "crowd", cid, "--welcome", "nosuchform", code=1)
    cleared = json.loads(cli("campaign", "crowd", cid, "--clear", "tutorial"))
    assert cleared["tutorial_items"] == 0 and cleared["welcome"] and cleared["codes"]["pass"] == "OK1"
    assert cli("campaign", "codes", cid).splitlines() == ["panel_id,rater,code,passed,right,total,threshold,given_at"]
