"""LLM judges on a real rubric campaign: one task per phenomenon, stored as a rater's responses that the
rubric's results and exports count, the dashboard panel, the side-by-side page against humans' scores."""

from __future__ import annotations

import json

from rubric_helpers import items_of, new_rubric, put_score
from sqlalchemy import select

from humaneval.judge.demo_script import demo_script
from humaneval.judge.scripted import ScriptedServer

KEY = "sk-rubric-judge-0xDEADBEEF"


def _judge(world, cid, base_url, **kw):
    from enface.campaigns import services as svc
    from enface.judges.setup import JudgeInput, add_judge

    with world.ctx():
        return add_judge(svc.get_campaign(cid), JudgeInput(base_url=base_url, model="scripted", api_key=KEY,
                                                           **kw)).id


def test_rubric_items_are_judged_per_phenomenon_and_counted_as_a_rater(world):
    from enface.campaigns import services as svc
    from enface.campaigns.models import Assignment, Response
    from enface.campaigns.protocol import protocol_of
    from enface.extensions import db
    from enface.judges.models import Judge
    from enface.judges.running import run_judge, tasks_of
    from enface.protocols.rubric.texts import item_phenomena

    cid = new_rubric(world)
    with world.ctx():
        campaign = svc.get_campaign(cid)
        tasks = tasks_of(campaign)
        phenomena = sum(len(item_phenomena(i, ("idiom", "ambiguity", "terminology", "tense", "zero_pronoun",
                                                "cultural_safety"))) for i in campaign.items)
        items = [t.item for _i, t in tasks]
    assert len(tasks) == phenomena > 0
    assert all(t.kind == "score" and t.scale["key"] == t.item["dimension"] for _i, t in tasks)
    assert all(t.item["translation"] and t.item["source"] and t.item["requirement"] for _i, t in tasks)
    with ScriptedServer(demo_script(items, api_key=KEY, latency=0)) as server:
        jid = _judge(world, cid, server.base_url, concurrency=4)
        with world.ctx():
            out = run_judge(jid)
        assert out["state"] == "done" and out["scored"] == len(tasks) and out["failed"] == 0
    with world.ctx():
        judge = db.session.get(Judge, jid)
        stored = db.session.scalars(select(Response).join(Assignment).where(
            Assignment.annotator_id == judge.annotator_id)).all()
        assert len(stored) == len(tasks) and {r.key for r in stored} == {t.key for _i, t in tasks}
        results = protocol_of("rubric").results(svc.get_campaign(cid), organizer=True)
        export = protocol_of("rubric").export(svc.get_campaign(cid), "csv")
        rater = f"rater{judge.annotator.position}"
    assert rater in json.dumps(results)   # the judge's finished items count in the rubric's results
    assert rater in export and KEY not in export
    from enface.judges.reports import judge_results

    with world.ctx():
        own = judge_results(db.session.get(Judge, jid))
    assert {t["system"] for t in own["systems"]} == {s["system"] for s in results["systems"]}
    assert all(0 <= t["overall"] <= 6 for t in own["systems"])
    org = world.client("org@example.org")
    page = org.get(f"/campaigns/{cid}/judges/{jid}").get_data(as_text=True)
    assert "What this judge says of each system" in page and KEY not in page


def test_dashboard_panel_and_side_by_side_with_humans(world):
    from enface.extensions import db
    from enface.judges.running import run_judge

    cid = new_rubric(world, annotators=("ann1@example.org",), redundancy=1)
    ann = world.client("ann1@example.org")
    first = items_of(world, cid, "ann1@example.org")[0]
    for p in first["phenomena"]:
        r, _uid = put_score(ann, first["item"]["id"], p["id"], {"sp": 1, "g_1": 1, "g_2": 1, "refusal": None,
                                                                 "comment": "human"})
        assert r.status_code in (200, 201), r.get_json()
    from enface.campaigns import services as svc
    from enface.judges.running import tasks_of

    with world.ctx():
        items = [t.item for _i, t in tasks_of(svc.get_campaign(cid))]
    with ScriptedServer(demo_script(items, api_key=KEY, latency=0)) as server:
        jid = _judge(world, cid, server.base_url, mode="single")
        with world.ctx():
            assert run_judge(jid)["state"] == "done"
    org = world.client("org@example.org")
    dash = org.get(f"/campaigns/{cid}").get_data(as_text=True)
    assert 'id="judges"' in dash and f"/campaigns/{cid}/judges/{jid}" in dash and KEY not in dash
    page = org.get(f"/campaigns/{cid}/judges/{jid}/compare").get_data(as_text=True)
    assert "1 / 1 / 1" in page and "human mean" in page and KEY not in page
    only = org.get(f"/campaigns/{cid}/judges/{jid}/compare?only=humans").get_data(as_text=True)
    assert only.count("<tr data-item=") == len(first["phenomena"]) < page.count("<tr data-item=")
    with world.ctx():
        from enface.judges.models import JudgeItem

        assert db.session.scalar(select(JudgeItem.id).where(JudgeItem.state != "ok")) is None
