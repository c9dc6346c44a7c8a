"""Managing judges (issue 15): the endpoint test reports success or the error (never the key, never a 500),
an edit keeps the stored key unless told otherwise, a delete takes the judge out of the campaign's raters
with its finished assignments, and judge accounts are not people on /admin/users."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from humaneval.judge.scripted import ScriptedServer
from tests.support.judge_protocol import judged_campaign

KEY = "sk-admin-Hq2ZxW9-never-show-me"
REPLY = {"rules": [{"prefix": "", "replies": [{"content": "OK"}]}], "api_key": KEY}


def add(world, cid, **fields):
    from enface.campaigns import services as svc
    from enface.judges.setup import JudgeInput, add_judge

    with world.ctx():
        return add_judge(svc.get_campaign(cid), JudgeInput(**fields)).id


def test_the_endpoint_test_says_what_happened(world):
    from enface.extensions import db
    from enface.judges.manage import test_endpoint
    from enface.judges.models import Judge

    cid = judged_campaign(world)
    with ScriptedServer(REPLY) as server:
        good = add(world, cid, base_url=server.base_url, model="m", api_key=KEY)
        wrong = add(world, cid, base_url=server.base_url, model="m", api_key="sk-wrong-but-long")
        with world.ctx():
            ok = test_endpoint(db.session.get(Judge, good))
            refused = test_endpoint(db.session.get(Judge, wrong))
        assert len(server.requests) == 2      # one call each, no retry
        assert server.requests[0]["messages"][0]["content"].startswith("This is a connection test")
    assert ok.ok and ok.answer == "OK" and "answered" in ok.message
    assert not refused.ok and "HTTP 401" in refused.message and "sk-wrong" not in refused.message
    down = add(world, cid, base_url="http://127.0.0.1:9/v1", model="m")
    with world.ctx():
        gone = test_endpoint(db.session.get(Judge, down))
    assert not gone.ok and "connection" in gone.message.lower()
    org = world.client("org@example.org")
    r = org.post(f"/campaigns/{cid}/judges/{down}/test")
    assert r.status_code == 302
    page = org.get(f"/campaigns/{cid}/judges/{down}").get_data(as_text=True)
    assert "Endpoint test failed" in page


def test_edit_keeps_the_key_and_delete_leaves_the_raters(world):
    from enface.campaigns.models import Assignment, CampaignAnnotator, Response
    from enface.extensions import db
    from enface.judges.manage import delete_judge, update_judge
    from enface.judges.models import Judge, JudgeItem
    from enface.judges.running import run_judge
    from enface.judges.setup import JudgeInput
    from enface.models import User

    cid = judged_campaign(world)
    script = {"rules": [{"prefix": "", "replies": [{"json": {"sp": 2, "g_1": 1, "g_2": 2, "thoughts": "ok"}}]}],
              "api_key": KEY}
    with ScriptedServer(script) as server:
        jid = add(world, cid, base_url="http://127.0.0.1:9/v1", model="m", api_key=KEY, mode="single")
        with world.ctx():
            judge = db.session.get(Judge, jid)
            stored = judge.api_key_encrypted
            update_judge(judge, JudgeInput(base_url=server.base_url, model="m2", name="Renamed", mode="single"))
            judge = db.session.get(Judge, jid)
            assert (judge.base_url, judge.model, judge.name) == (server.base_url, "m2", "Renamed")
            assert judge.api_key_encrypted == stored and db.session.get(User, judge.user_id).name == "LLM judge: Renamed"
            out = run_judge(jid)
        assert out["state"] == "done" and out["scored"] > 0
    with world.ctx():
        judge = db.session.get(Judge, jid)
        annotator, user = judge.annotator_id, judge.user_id
        humans = db.session.scalar(select(func.count()).select_from(Assignment)
                                   .where(Assignment.campaign_id == cid, Assignment.annotator_id != annotator))
        assert delete_judge(judge) == out["scored"]
        assert db.session.get(CampaignAnnotator, annotator) is None and db.session.get(User, user) is None
        assert db.session.scalar(select(func.count()).select_from(Assignment)
                                 .where(Assignment.annotator_id == annotator)) == 0
        assert db.session.scalar(select(func.count()).select_from(JudgeItem).where(JudgeItem.judge_id == jid)) == 0
        assert db.session.scalar(select(func.count()).select_from(Assignment)
                                 .where(Assignment.campaign_id == cid)) == humans    # the humans' work stays
        assert db.session.scalar(select(func.count()).select_from(Response).join(Assignment)
                                 .where(Assignment.annotator_id == annotator)) == 0


def test_a_running_judge_or_a_released_campaign_refuses_edit_and_delete(world):
    from enface.campaigns.models import Campaign
    from enface.extensions import db
    from enface.judges.manage import delete_judge, update_judge
    from enface.judges.models import Judge
    from enface.judges.setup import JudgeInput
    from enface.services import ServiceError

    cid = judged_campaign(world)
    jid = add(world, cid, base_url="http://127.0.0.1:9/v1", model="m")
    with world.ctx():
        with db.write():
            db.session.get(Judge, jid).state = "queued"
        with pytest.raises(ServiceError, match="queued"):
            delete_judge(db.session.get(Judge, jid))
        with db.write():
            db.session.get(Judge, jid).state = "idle"
            db.session.get(Campaign, cid).state = "released"
        with pytest.raises(ServiceError, match="withdraw the release"):
            delete_judge(db.session.get(Judge, jid))
        with pytest.raises(ServiceError, match="released"):
            update_judge(db.session.get(Judge, jid), JudgeInput(base_url="http://127.0.0.1:9/v1", model="m"))


def test_judge_accounts_are_not_people_on_the_users_page(world):
    from enface.extensions import db
    from enface.judges.models import Judge
    from enface.models import User

    cid = judged_campaign(world)
    jid = add(world, cid, base_url="http://127.0.0.1:9/v1", model="m", name="Quiet judge")
    with world.ctx():
        judge_user = db.session.get(User, db.session.get(Judge, jid).user_id)
        uid, email = judge_user.id, judge_user.email
    org = world.client("org@example.org")
    page = org.get("/admin/users").get_data(as_text=True)
    assert email not in page and "LLM judge: Quiet judge" not in page
    assert org.post(f"/admin/users/{uid}/reset-link").status_code == 403      # the reset rule: an inactive account
    assert org.post(f"/admin/users/{uid}/role", data={"role": "admin"}).status_code == 404
