"""The campaign core without MQM: strategies, late joiners and rebalancing, autosaved answers, stages and locks.

A tiny protocol registered by the tests (two stages, 24 hours apart, answers of one
kind) exercises what every protocol gets from the core.
"""

from __future__ import annotations

import uuid as uuidlib
from collections import Counter, defaultdict
from datetime import timedelta

import pytest

from tests.support.campaigns import assignments_of, new_campaign, put_mark


@pytest.fixture
def dummy_protocol():
    from enface.campaigns.protocol import PROTOCOLS, ItemPlan, Protocol, register
    from enface.campaigns.services import bad, parsed_ranges

    class Dummy(Protocol):
        key = "dummy-test"
        title = "Two-stage test protocol"
        stages = ("first", "second")
        strategies = ("redundancy",)
        item_template = "base.html"   # (the page's content is not what these tests look at)

        def build_items(self, campaign):
            docs = {d.name: d for d in campaign.testset.documents}
            return [ItemPlan(document_id=docs[r.doc].id, seg_start=r.start - 1, seg_end=r.end,
                             version_ids=[v.id for v in campaign.versions], group=str(r))
                    for r in parsed_ranges(campaign)]

        def stage_lock_hours(self, campaign, stage):
            return 24.0 if stage == 1 else 0.0

        def item_state(self, asg, *, readonly):
            return {"id": asg.public_id, "stage": asg.stage, "slots": [v.slot for v in asg.item.versions]}

        def check_response(self, asg, kind, key, data):
            if kind != "answer":
                return super().check_response(asg, kind, key, data)
            if not isinstance(data, dict) or not isinstance(data.get("value"), int):
                raise bad("invalid_field", "value must be a whole number", field="data.value")
            return {"value": data["value"]}

        def check_finish(self, asg):
            if not any(r.stage == asg.stage and not r.deleted for r in asg.responses):
                raise bad("not_answered", "answer before finishing", 409)

    register(Dummy())
    yield "dummy-test"
    PROTOCOLS.pop("dummy-test", None)


def _answer(client, pid, uid, rev, value, kind="answer"):
    return client.put(f"/annotate/api/items/{pid}/responses/{uid}",
                      json={"rev": rev, "kind": kind, "key": "q1", "data": {"value": value}})


def test_one_rater_per_document_gets_every_system_of_it(world):
    systems = ["zephyr-mt", "quokka-nmt", "walrus-baseline"]
    cid = new_campaign(world, annotators=("ann1@example.org", "ann2@example.org"), redundancy=1,
                       systems=systems, strategy="document")
    per_rater = {}
    for email in ("ann1@example.org", "ann2@example.org"):
        mine = assignments_of(world, cid, email)
        per_doc = defaultdict(set)
        for a in mine:
            per_doc[a["document"]].add(a["submission_id"])
        per_rater[email] = per_doc
        assert all(subs == {world.subs[s] for s in systems} for subs in per_doc.values()), per_doc
    # two documents, two raters: one each (balanced), never the same document twice
    assert sorted(len(d) for d in per_rater.values()) == [1, 1]
    assert set(per_rater["ann1@example.org"]).isdisjoint(per_rater["ann2@example.org"])


def test_document_strategy_keeps_conflicts_of_interest(world):
    # alder-ann is in team Alder (zephyr-mt): no document that holds zephyr-mt can be theirs
    cid = new_campaign(world, annotators=("alder-ann@example.org", "ann1@example.org"), redundancy=1,
                       strategy="document")
    assert assignments_of(world, cid, "alder-ann@example.org") == []
    assert len(assignments_of(world, cid, "ann1@example.org")) == 6


def test_a_late_joiner_gets_unstarted_work_and_started_work_stays(world):
    from enface.campaigns import services as svc
    from enface.extensions import db
    from enface.models import User

    cid = new_campaign(world, annotators=("ann1@example.org",), redundancy=1)
    mine = assignments_of(world, cid, "ann1@example.org")
    assert len(mine) == 6
    c1 = world.client("ann1@example.org")
    started = mine[0]["public_id"]
    r, _uid = put_mark(c1, started, {"seg": 0, "start": 0, "end": 3, "category": "Style",
                                     "subcategory": "Awkwardness", "severity": "Minor"})
    assert r.status_code == 200
    with world.ctx():
        svc.add_annotator(svc.get_campaign(cid), db.session.get(User, world.users["ann2@example.org"]))
    now1 = assignments_of(world, cid, "ann1@example.org")
    now2 = assignments_of(world, cid, "ann2@example.org")
    assert len(now1) == len(now2) == 3
    assert started in {a["public_id"] for a in now1}             # started work never moves
    for rows in (now1, now2):
        assert [a["number"] for a in rows] == [1, 2, 3]          # numbers stay 1..n per annotator
    assert not {a["item_id"] for a in now1} & {a["item_id"] for a in now2}
    # a second rebalance has nothing left to even out
    with world.ctx():
        assert svc.rebalance(svc.get_campaign(cid)) == {"moved": 0}


def test_rebalance_never_gives_a_team_its_own_system(world):
    from enface.campaigns import services as svc
    from enface.extensions import db
    from enface.models import User

    cid = new_campaign(world, annotators=("ann1@example.org",), redundancy=1)
    with world.ctx():
        svc.add_annotator(svc.get_campaign(cid), db.session.get(User, world.users["alder-ann@example.org"]))
    got = assignments_of(world, cid, "alder-ann@example.org")
    assert got and world.subs["zephyr-mt"] not in {a["submission_id"] for a in got}


def test_rebalance_from_the_dashboard(world):
    cid = new_campaign(world, annotators=("ann1@example.org", "ann2@example.org"), redundancy=1)
    org = world.client("org@example.org")
    r = org.post(f"/campaigns/{cid}/rebalance")
    assert r.status_code == 302
    assert "Rebalanced: 0 unstarted item(s) moved" in org.get(f"/campaigns/{cid}").get_data(as_text=True)
    assert world.client("ann1@example.org").post(f"/campaigns/{cid}/rebalance").status_code == 404


def test_answers_are_idempotent_revisioned_and_checked_by_the_protocol(world, dummy_protocol):
    cid = new_campaign(world, annotators=("ann1@example.org",), redundancy=1, protocol=dummy_protocol,
                       systems=["zephyr-mt"], settings_override={})
    pid = assignments_of(world, cid, "ann1@example.org")[0]["public_id"]
    c = world.client("ann1@example.org")
    uid = str(uuidlib.uuid4())
    first = _answer(c, pid, uid, 1, 3)
    assert first.status_code == 200 and first.get_json()["changed"] is True
    again = _answer(c, pid, uid, 1, 99)                          # a replay: nothing changes
    assert again.get_json() == {"response": first.get_json()["response"], "changed": False}
    assert _answer(c, pid, uid, 2, 4).get_json()["response"]["data"] == {"value": 4}
    assert _answer(c, pid, uid, 1, 5).get_json()["response"]["data"] == {"value": 4}   # late, older
    gone = c.delete(f"/annotate/api/items/{pid}/responses/{uid}", json={"rev": 3}).get_json()["response"]
    assert gone["deleted"] is True
    assert _answer(c, pid, uid, 2, 6).get_json()["response"]["deleted"] is True        # older than the delete
    assert _answer(c, pid, uid, 4, 7).get_json()["response"] == {
        "uuid": uid, "rev": 4, "stage": 0, "kind": "answer", "key": "q1", "data": {"value": 7}, "deleted": False}
    # what the protocol refuses, and what the core refuses
    bad_value = _answer(c, pid, str(uuidlib.uuid4()), 1, "x")
    assert bad_value.status_code == 400 and bad_value.get_json()["error"]["details"]["field"] == "data.value"
    bad_kind = _answer(c, pid, str(uuidlib.uuid4()), 1, 1, kind="mark")
    assert bad_kind.status_code == 400 and bad_kind.get_json()["error"]["code"] == "unknown_kind"
    assert c.put(f"/annotate/api/items/{pid}/responses/not-a-uuid", json={"rev": 1, "kind": "answer"}).status_code == 400
    assert c.put(f"/annotate/api/items/{pid}/responses/{uid}", json={"rev": 0, "kind": "answer"}).status_code == 400
    assert c.put(f"/annotate/api/items/{pid}/responses/{uid}", data=b"[1,", content_type="application/json").status_code == 400
    # another annotator's item answers like an unknown one
    other = world.client("ann2@example.org")
    assert _answer(other, pid, str(uuidlib.uuid4()), 1, 1).status_code == 404


def test_mqm_takes_no_free_answers(world):
    cid = new_campaign(world, annotators=("ann1@example.org",), redundancy=1)
    pid = assignments_of(world, cid, "ann1@example.org")[0]["public_id"]
    r = _answer(world.client("ann1@example.org"), pid, str(uuidlib.uuid4()), 1, 1)
    assert r.status_code == 400 and r.get_json()["error"]["code"] == "unknown_kind"


def test_stages_open_after_their_lock_on_the_server_clock(world, dummy_protocol):
    from enface.campaigns import clock

    cid = new_campaign(world, annotators=("ann1@example.org",), redundancy=1, protocol=dummy_protocol,
                       systems=["zephyr-mt", "quokka-nmt"], settings_override={})
    pid = assignments_of(world, cid, "ann1@example.org")[0]["public_id"]
    c = world.client("ann1@example.org")
    state = c.get(f"/annotate/api/items/{pid}").get_json()
    assert state == {"id": pid, "stage": 0, "slots": [1, 2]}       # an item of two versions
    assert c.post(f"/annotate/api/items/{pid}/finish").get_json()["error"]["code"] == "not_answered"
    assert _answer(c, pid, str(uuidlib.uuid4()), 1, 1).status_code == 200
    done = c.post(f"/annotate/api/items/{pid}/finish").get_json()
    assert done["finished"] is False and done["stage"] == 1 and done["opens_at"]
    try:
        # locked: the page says when it opens, answers and finishing are refused
        page = c.get(f"/annotate/item/{pid}")
        assert page.status_code == 423 and "opens on" in page.get_data(as_text=True)
        locked = _answer(c, pid, str(uuidlib.uuid4()), 1, 2)
        assert locked.status_code == 409 and locked.get_json()["error"]["code"] == "stage_locked"
        assert c.post(f"/annotate/api/items/{pid}/finish").status_code == 409
        clock.shift(timedelta(hours=23, minutes=59))
        assert c.get(f"/annotate/item/{pid}").status_code == 423
        clock.shift(timedelta(hours=24, minutes=1))
        assert c.get(f"/annotate/item/{pid}").status_code == 200
        second = _answer(c, pid, str(uuidlib.uuid4()), 1, 2)
        assert second.status_code == 200 and second.get_json()["response"]["stage"] == 1
        assert c.post(f"/annotate/api/items/{pid}/finish").get_json()["finished"] is True
    finally:
        clock.shift(None)


def test_progress_accepts_named_parts_and_refuses_junk(world, dummy_protocol):
    cid = new_campaign(world, annotators=("ann1@example.org",), redundancy=1, protocol=dummy_protocol,
                       systems=["zephyr-mt"], settings_override={})
    pid = assignments_of(world, cid, "ann1@example.org")[0]["public_id"]
    c = world.client("ann1@example.org")
    ok = c.post(f"/annotate/api/items/{pid}/progress", json={"times": {"read:1": 5000, "0": 10}})
    assert ok.status_code == 200 and ok.get_json()["time_ms"] == 5010
    c.post(f"/annotate/api/items/{pid}/progress", json={"times": {"read:1": 3000}})   # times only grow
    assert c.post(f"/annotate/api/items/{pid}/progress", json={"times": {}}).get_json()["time_ms"] == 5010
    for junk in ({"Read 1": 1}, {"read:1": -1}, {"read:1": True}, {"x" * 300: 1}, {"99": 1}):
        assert c.post(f"/annotate/api/items/{pid}/progress", json={"times": junk}).status_code == 400, junk


def test_unknown_protocol_and_strategy_are_refused(world):
    from enface.campaigns import services as svc
    from enface.extensions import db
    from enface.models import TestSet, User

    with world.ctx():
        org = db.session.get(User, world.users["org@example.org"])
        ts = db.session.get(TestSet, world.testset_id)
        for kwargs, field in (({"protocol": "nope"}, "protocol"), ({"strategy": "pairs"}, "strategy"),
                              ({"references": [3]}, "references"), ({"settings": {"colour": "red"}}, "colour")):
            with pytest.raises(svc.ServiceError) as err:
                svc.create_campaign(org, ts, svc.CampaignInput(name="x", submission_ids=[world.subs["zephyr-mt"]],
                                                               ranges="river.1", **kwargs))
            assert err.value.details["field"] == field


def test_the_leaderboard_imports_no_campaign_code():
    import ast
    from pathlib import Path

    import enface.services.leaderboard as lb

    tree = ast.parse(Path(lb.__file__).read_text())
    imported = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert not [m for m in imported if "campaigns" in m or "protocols" in m]


def test_strategies_are_counted_per_annotator(world):
    cid = new_campaign(world, annotators=("ann1@example.org", "ann2@example.org", "ann3@example.org"),
                       redundancy=2)
    loads = Counter({e: len(assignments_of(world, cid, e))
                     for e in ("ann1@example.org", "ann2@example.org", "ann3@example.org")})
    assert sum(loads.values()) == 12 and max(loads.values()) - min(loads.values()) <= 1


def test_the_core_never_imports_a_protocol():
    """campaigns/ and annotate/ (the core) dispatch on Campaign.protocol; only the app factory loads protocols."""
    import ast
    from pathlib import Path

    import enface

    root = Path(enface.__file__).parent
    offenders = []
    for folder in ("campaigns", "annotate"):
        for path in (root / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                names = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                         else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
                offenders += [f"{path.relative_to(root)}: {n}" for n in names if "protocols" in n.split(".")]
    assert offenders == []


def test_counterbalanced_pairs_is_a_core_strategy(world, dummy_protocol):
    """Any protocol with two versions per item can assign by counterbalanced pairs: each item's two
    annotators read the versions in opposite orders, each annotator starts with each version once."""
    from enface.campaigns.protocol import PROTOCOLS
    from enface.extensions import db

    PROTOCOLS[dummy_protocol].strategies = ("pairs",)
    try:
        cid = new_campaign(world, annotators=("ann1@example.org", "ann2@example.org"), redundancy=2,
                           protocol=dummy_protocol, systems=["zephyr-mt", "quokka-nmt"], settings_override={},
                           strategy="pairs")
    finally:
        del PROTOCOLS[dummy_protocol].strategies
    from enface.campaigns.models import Assignment
    from sqlalchemy import select

    with world.ctx():
        rows = db.session.scalars(select(Assignment).where(Assignment.campaign_id == cid)).all()
        by_item, by_annotator = defaultdict(list), defaultdict(list)
        for a in rows:
            by_item[a.item_id].append(a.plan["first"])
            by_annotator[a.annotator_id].append(a.plan["first"])
    assert len(rows) == 4
    assert all(sorted(firsts) == [1, 2] for firsts in by_item.values())
    assert all(sorted(firsts) == [1, 2] for firsts in by_annotator.values())
