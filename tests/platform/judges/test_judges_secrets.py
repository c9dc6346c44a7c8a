"""A judge's API key: encrypted at rest, and never in a page, a JSON answer, a log, an export or the CLI."""

from __future__ import annotations

import logging

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from humaneval.judge.scripted import ScriptedServer
from tests.support.judge_protocol import judged_campaign
from tests.support.testkit import TestConfigEnv

KEY = "sk-proj-Zq81Lw0aXr-SECRET-do-not-print"


def _script():
    echo = {"status": 401, "message": f"Incorrect API key provided: {KEY}"}   # servers that echo the key
    return {"rules": [{"prefix": "", "match": ["[ITEM-1]"], "replies": [echo]},
                      {"prefix": "", "replies": [{"json": {"sp": 1, "g_1": 1, "g_2": 1, "thoughts": "ok"}}]}]}


def test_stored_key_is_encrypted_and_needs_the_apps_secret(world):
    from enface.extensions import db
    from enface.judges import crypto
    from enface.judges.models import Judge
    from enface.judges.setup import JudgeInput, add_judge, api_key

    cid = judged_campaign(world)
    with world.ctx():
        from enface.campaigns import services as svc

        judge = add_judge(svc.get_campaign(cid), JudgeInput(base_url="http://127.0.0.1:9/v1", model="m", api_key=KEY))
        stored = db.session.get(Judge, judge.id).api_key_encrypted
        assert KEY.encode() not in stored and api_key(judge) == KEY
        assert "stored secret" in judge.key_source and KEY not in repr(judge.__dict__.get("key_source"))
        with pytest.raises(crypto.SecretUnreadable, match="enter the key again"):
            crypto.decrypt(stored, "another-secret")
    uri = world.app.config["SQLALCHEMY_DATABASE_URI"]
    if uri.startswith("sqlite:///"):   # the database file itself, free pages included
        with open(uri.removeprefix("sqlite:///"), "rb") as f:
            assert KEY.encode() not in f.read()
    else:                              # PostgreSQL: every row of every table
        from sqlalchemy import select

        with world.ctx():
            from enface.models import Base

            for table in Base.metadata.sorted_tables:
                assert KEY not in repr(db.session.execute(select(table)).all()), table.name


def test_key_never_reaches_pages_json_logs_exports_or_cli(world, caplog, monkeypatch):
    from enface.commands import main
    from enface.extensions import db
    from enface.judges.models import Judge, JudgeItem
    from enface.judges.running import run_judge

    caplog.set_level(logging.DEBUG)
    cid = judged_campaign(world)
    org = world.client("org@example.org")
    with ScriptedServer(_script()) as server:
        form = {"name": "secret judge", "base_url": server.base_url, "model": "m", "mode": "single",
                "key_source": "secret", "api_key": KEY, "temperature": "0", "max_rounds": "4", "concurrency": "2",
                "requests_per_minute": "0", "timeout": "30", "price_prompt_per_1k": "0",
                "price_completion_per_1k": "0", "prompts_dir": ""}
        added = org.post(f"/campaigns/{cid}/judges", data=form, follow_redirects=True)
        assert added.status_code == 200 and b"never shown again" in added.data
        refused = org.post(f"/campaigns/{cid}/judges", data={**form, "model": ""})   # re-rendered form
        assert refused.status_code == 400 and b"model name is required" in refused.data
        with world.ctx():
            jid = db.session.scalar(select(Judge.id).where(Judge.campaign_id == cid))
            run_judge(jid)
            records = db.session.scalars(select(JudgeItem).where(JudgeItem.judge_id == jid)).all()
            assert any(r.state == "failed" and "***" in r.error for r in records)   # the echo, masked
    pages = [f"/campaigns/{cid}/judges", f"/campaigns/{cid}/judges/{jid}", f"/campaigns/{cid}/judges/{jid}/compare",
             f"/campaigns/{cid}/judges/{jid}/progress.json", f"/campaigns/{cid}",
             f"/campaigns/{cid}/export/json", f"/campaigns/{cid}/export/tsv"]
    pages += [f"/campaigns/{cid}/judges/{jid}/items/{r.id}" for r in records]
    texts = []
    for url in pages:
        r = org.get(url)
        assert r.status_code in (200, 404), (url, r.status_code)
        texts.append(r.get_data(as_text=True))
    assert any("Incorrect API key provided: ***" in t for t in texts)
    for env_key, value in TestConfigEnv(world.app).items():
        if env_key.startswith("ENFACE_"):
            monkeypatch.setenv(env_key, value)
    monkeypatch.setenv("ENFACE_JOBS", "eager")
    for args in (["campaign", "judges", str(cid)], ["campaign", "judges", str(cid), "--json"],
                 ["campaign", "status", str(cid)]):
        texts.append(CliRunner().invoke(main, args).output)
    texts += [rec.getMessage() for rec in caplog.records]
    for text in texts:
        assert KEY not in text
    assert f"campaigns/{cid}/judges/{jid}" in texts[0]


def test_cli_reads_the_key_from_stdin_and_never_echoes_it(world, monkeypatch):
    from enface.commands import main
    from enface.extensions import db
    from enface.judges.models import Judge
    from enface.judges.setup import api_key

    cid = judged_campaign(world)
    for env_key, value in TestConfigEnv(world.app).items():
        if env_key.startswith("ENFACE_"):
            monkeypatch.setenv(env_key, value)
    result = CliRunner().invoke(main, ["campaign", "add-judge", str(cid), "--base-url", "http://127.0.0.1:9/v1",
                                       "--model", "m", "--api-key-stdin", "--mode", "single"], input=KEY + "\n")
    assert result.exit_code == 0, result.output
    assert KEY not in result.output and "stored secret (encrypted)" in result.output
    with world.ctx():
        judge = db.session.scalars(select(Judge).where(Judge.campaign_id == cid)).one()
        assert api_key(judge) == KEY and judge.mode == "single"
    bad = CliRunner().invoke(main, ["campaign", "add-judge", str(cid), "--base-url", "nope", "--model", "m"])
    assert bad.exit_code == 1 and "base URL must be an http(s) URL" in bad.output


def test_pages_are_for_organizers_only(world):
    cid = judged_campaign(world)
    for who in (None, "ann1@example.org"):
        client = world.client(who)
        r = client.get(f"/campaigns/{cid}/judges")
        assert r.status_code in (302, 404)
        r = client.post(f"/campaigns/{cid}/judges", data={"base_url": "http://x/v1", "model": "m"})
        assert r.status_code in (302, 400, 404)
    with world.ctx():
        from enface.extensions import db
        from enface.judges.models import Judge

        assert db.session.scalar(select(Judge.id)) is None


def test_pages_refuse_records_and_judges_of_other_campaigns(world):
    from enface.extensions import db
    from enface.judges.models import JudgeItem

    cid = judged_campaign(world)
    other = judged_campaign(world)
    with ScriptedServer({"rules": [{"prefix": "", "replies": [{"json": {"sp": 1, "g_1": 1, "g_2": 1}}]}]}) as s:
        from enface.campaigns import services as svc
        from enface.judges.running import run_judge
        from enface.judges.setup import JudgeInput, add_judge

        with world.ctx():
            a = add_judge(svc.get_campaign(cid), JudgeInput(base_url=s.base_url, model="m", mode="single")).id
            b = add_judge(svc.get_campaign(other), JudgeInput(base_url=s.base_url, model="m", mode="single")).id
            run_judge(a)
            record = db.session.scalar(select(JudgeItem.id).where(JudgeItem.judge_id == a))
    org = world.client("org@example.org")
    assert org.get(f"/campaigns/{cid}/judges/{a}/items/{record}").status_code == 200
    for url in (f"/campaigns/{other}/judges/{b}/items/{record}", f"/campaigns/{other}/judges/{a}",
                f"/campaigns/{cid}/judges/{b}/compare", f"/campaigns/{cid}/judges/999",
                "/campaigns/999/judges"):
        assert org.get(url).status_code == 404, url
    assert org.post(f"/campaigns/{other}/judges/{a}/run").status_code == 404
