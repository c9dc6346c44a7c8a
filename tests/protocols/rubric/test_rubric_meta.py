"""A released rubric campaign on the meta-evaluation page: the people's scores are the human source (a
judge is never pooled into them), and each LLM judge is evaluated against them like a metric."""

from __future__ import annotations

from rubric_helpers import SYSTEMS, items_of, new_rubric, put_score

from humaneval.judge.demo_script import demo_script
from humaneval.judge.scripted import ScriptedServer
from humaneval.rubric import rubric_results

KEY = "sk-rubric-meta-0xC0FFEE"
# the people's scores: careful-mt best, literal-mt worst (one Σ per system, the same for every phenomenon)
PEOPLE = {"careful-mt": {"sp": 2, "g_1": 2, "g_2": 2}, "chatty-llm": {"sp": 2, "g_1": 1, "g_2": 1},
          "literal-mt": {"sp": 1, "g_1": 0, "g_2": 1}}


def test_rubric_campaign_gives_the_meta_page_a_human_source_and_a_judge_metric(world):
    from enface.campaigns import services as svc
    from enface.extensions import db
    from enface.judges.running import run_judge, tasks_of
    from enface.judges.setup import JudgeInput, add_judge
    from enface.metaeval.service import get_meta
    from enface.models import TestSet
    from enface.protocols.rubric.meta import judge_metrics, meta_sources
    from enface.protocols.rubric.results import response_rows
    from enface.protocols.rubric.settings import campaign_rubric

    cid = new_rubric(world, redundancy=1, annotators=("ann1@example.org",))
    system_of = {sid: name for name, sid in world.subs.items()}
    client = world.client("ann1@example.org")
    for state in items_of(world, cid, "ann1@example.org"):
        pid = state["item"]["id"]
        with world.ctx():
            from enface.campaigns.models import Assignment
            from sqlalchemy import select

            asg = db.session.scalar(select(Assignment).where(Assignment.public_id == pid))
            system = system_of[asg.item.versions[0].version.submission_id]
        for ph in state["phenomena"]:
            r, _ = put_score(client, pid, ph["id"], PEOPLE[system])
            assert r.status_code == 200, r.get_json()
        assert client.post(f"/annotate/api/items/{pid}/finish", json={}).status_code == 200
    with world.ctx():
        items = [t.item for _i, t in tasks_of(svc.get_campaign(cid))]
    with ScriptedServer(demo_script(items, api_key=KEY, latency=0)) as server:
        with world.ctx():
            jid = add_judge(svc.get_campaign(cid), JudgeInput(base_url=server.base_url, model="scripted",
                                                              api_key=KEY, concurrency=4)).id
            assert run_judge(jid)["failed"] == 0
    with world.ctx():
        svc.release(svc.get_campaign(cid))
        campaign = svc.get_campaign(cid)
        rows = response_rows(campaign)
        assert {r["machine"] for r in rows} == {True, False}
        people = rubric_results([r for r in rows if not r["machine"]], campaign_rubric(campaign))
        sources = meta_sources(campaign)
        overall = next(s for s in sources if s.key == f"rubric:{cid}")
        # the human source is the people's scores alone, by submission id
        assert overall.systems == {str(world.subs[s["system"]]): s["overall"] for s in people["systems"]}
        assert overall.systems[str(world.subs["careful-mt"])] == 6.0
        assert overall.systems[str(world.subs["literal-mt"])] == 2.0
        metrics = judge_metrics(db.session.get(TestSet, world.testset_id))
        assert len(metrics) == 1
        judge = next(iter(metrics.values()))
        assert set(judge.scores) == {str(world.subs[s]) for s in SYSTEMS} and judge.higher_is_better
        assert all(0 <= v <= 6 for v in judge.scores.values()) and judge.segments
        page = get_meta(db.session.get(TestSet, world.testset_id))
    rubric_src = next(s for s in page["sources"] if s.get("campaign", {}).get("protocol") == "rubric"
                      and "rubric (overall)" in s["label"])
    judge_key = next(iter(metrics))
    assert judge_key in rubric_src["metrics"]
    assert rubric_src["metrics"][judge_key]["spearman"]["value"] is not None
