"""The BWS protocol through the services and the annotation API: the design, blind items, checked choices,
finishing, scores, split-half reliability, the ranking, exports the library reads back, release."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys

import pytest
from bws_helpers import (
    QUALITY,
    SYSTEMS,
    annotator_assignments,
    judge_all,
    new_bws,
    put_choice,
    versions_by_slot,
)

from tests.support import ROOT


def campaign(world, cid):
    from enface.campaigns import services as svc

    return svc.get_campaign(cid)


def test_design_before_start_is_what_start_builds(world):
    cid = new_bws(world, start=False, ranges="jade-lantern.1:1-4", passage_segments=2)
    org = world.client("org@example.org")
    page = org.get(f"/campaigns/{cid}").get_data(as_text=True)
    assert 'id="design-table"' in page
    assert "2 passages × 5 tuples of 4 translations" in page          # 5 versions, lcm(5, 4) / 4 = 5
    assert "Each version appears 8 times" in page                      # 2 × 5 × 4 / 5
    assert "each pair of versions is shown together 6 times" in page   # every 4-subset of 5, twice
    from enface.campaigns import services as svc
    from enface.protocols.bws.design import campaign_design, stored_design

    with world.ctx():
        planned = campaign_design(campaign(world, cid))
        svc.start_campaign(campaign(world, cid))
        c = campaign(world, cid)
        built = stored_design(c)
        assert len(c.items) == 10
        assert sorted(built.tuples) == sorted(t for p in planned.passages for t in planned.tuples[p.label])
        assert built.appearance_range == (8, 8) and built.cooccurrence_range == (6, 6)
        for item in c.items:
            assert len(item.versions) == 4 and item.seg_end - item.seg_start == 2


def test_tuple_size_clamped_and_automatic_count(world):
    from enface.protocols.bws.settings import tuple_size, tuples_per_passage

    cid = new_bws(world, start=False, references=(1,), systems=["lantern-nmt", "inkstone-llm"])
    with world.ctx():
        c = campaign(world, cid)
        assert tuple_size(c) == 3 and tuples_per_passage(c) == 1
    page = world.client("org@example.org").get(f"/campaigns/{cid}").get_data(as_text=True)
    assert "asked 4; the campaign has 3 versions" in page


def test_bad_settings_are_refused(world):
    from enface.services import ServiceError

    for bad in ({"tuple_size": 1}, {"tuple_size": "x"}, {"passage_segments": 0}, {"splits": 0},
                {"significance_test": "t-test"}, {"colour": "red"}):
        with pytest.raises(ServiceError) as exc:
            new_bws(world, start=False, **bad)
        assert exc.value.status == 400, bad


def test_one_version_cannot_start(world):
    from enface.campaigns import services as svc
    from enface.services import ServiceError

    cid = new_bws(world, start=False, references=(), systems=["lantern-nmt"])
    assert "at least two versions" in world.client("org@example.org").get(f"/campaigns/{cid}").get_data(as_text=True)
    with world.ctx(), pytest.raises(ServiceError) as exc:
        svc.start_campaign(campaign(world, cid))
    assert exc.value.status == 409


def test_items_are_blind_and_shuffled_per_annotator(world):
    cid = new_bws(world, annotators=("ann1@example.org", "ann2@example.org"), redundancy=2)
    client = world.client("ann1@example.org")
    with world.ctx():
        asgs = annotator_assignments(world, cid, "ann1@example.org")
        others = annotator_assignments(world, cid, "ann2@example.org")
        orders = {a.item_id: a.plan["order"] for a in asgs}
        other_orders = {a.item_id: a.plan["order"] for a in others}
        ids = [a.public_id for a in asgs]
    assert all(sorted(o) == [1, 2, 3, 4] for o in orders.values())
    assert any(orders[i] != other_orders[i] for i in orders)          # each annotator's own order
    for pid in ids:
        state = client.get(f"/annotate/api/items/{pid}").get_json()
        text = json.dumps(state) + client.get(f"/annotate/item/{pid}").get_data(as_text=True)
        for name in (*SYSTEMS, "Lantern Lab", "Inkstone", "reference"):
            assert name not in text, name
        assert [t["label"] for t in state["translations"]] == ["A", "B", "C", "D"]
        assert [t["slot"] for t in state["translations"]] == orders[
            next(a for a in asgs if a.public_id == pid).item_id]
        assert state["source"] and all(t["text"] for t in state["translations"])


def test_choices_are_checked(world):
    cid = new_bws(world)
    client = world.client("ann1@example.org")
    with world.ctx():
        pid = annotator_assignments(world, cid, "ann1@example.org")[0].public_id
    for data, field in (({"best": 1, "worst": 1}, "worst"), ({"best": 5}, "best"), ({"best": "1"}, "best"),
                        ({"best": True}, "best"), ({"best": 1, "colour": 2}, "data"), ([1, 2], "data")):
        r, _ = put_choice(client, pid, data)
        assert r.status_code == 400 and r.get_json()["error"]["details"]["field"] == field, (data, r.get_json())
    r, _ = put_choice(client, pid, {"best": 1}, kind="score")
    assert r.status_code == 400
    r, _ = put_choice(client, pid, {"best": 1}, key="other")
    assert r.status_code == 400
    r, uid = put_choice(client, pid, {"best": 2, "worst": None})       # a draft
    assert r.status_code == 200
    r = client.post(f"/annotate/api/items/{pid}/finish", json={})
    assert r.status_code == 409 and "worst" in r.get_json()["error"]["message"]
    r, _ = put_choice(client, pid, {"best": 2, "worst": 3}, uid=uid, rev=2)
    assert r.status_code == 200
    r, _ = put_choice(client, pid, {"best": 1, "worst": 3}, uid=uid, rev=2)   # a replayed revision: no-op
    assert r.status_code == 200
    assert client.get(f"/annotate/api/items/{pid}").get_json()["response"]["data"] == {"best": 2, "worst": 3}
    assert client.post(f"/annotate/api/items/{pid}/finish", json={}).status_code == 200
    other = world.client("ann2@example.org")
    r, _ = put_choice(other, pid, {"best": 1, "worst": 2})
    assert r.status_code in (403, 404)


def judged_campaign(world, **kw):
    cid = new_bws(world, annotators=("ann1@example.org", "ann2@example.org"), redundancy=2,
                  ranges="jade-lantern.1:1-6\nmountain-inn:1-4", **kw)
    n = judge_all(world, cid, "ann1@example.org") + judge_all(world, cid, "ann2@example.org")
    return cid, n


def test_scores_reliability_ranking_and_exports(world, tmp_path):
    from enface.campaigns.protocol import protocol_of

    from humaneval.bws import counts, read_judgments, split_half

    cid, n = judged_campaign(world)
    assert n == 2 * 10 * 5
    with world.ctx():
        c = campaign(world, cid)
        res = protocol_of(c).results(c)
        assert res["judgments"] == n and not res["empty"]
        assert [v["version"] for v in res["versions"]] == QUALITY                # the policy's order
        top, bottom = res["versions"][0], res["versions"][-1]
        assert top["score"] == 1.0 and bottom["score"] == -1.0                  # always best, always worst
        assert all(v["appearances"] == 80 for v in res["versions"])             # 10 passages × 4 × 2 raters / 5
        assert res["split_half"]["splits"] == 100 and res["split_half"]["value"] == pytest.approx(1.0)
        ranking = res["ranking"]
        assert [r["system"] for r in ranking["rows"]] == QUALITY
        assert {r["kind"] for r in ranking["rows"] if r["system"].startswith("reference")} == {"reference"}
        exported = protocol_of(c).export(c, "judgments")
        rich = protocol_of(c).export(c, "csv")
        lines = protocol_of(c).export(c, "jsonl").splitlines()
    assert len(lines) == n and json.loads(lines[0])["versions"]
    assert exported.splitlines()[0] == "item,annotator,versions,best,worst"
    for text in (exported, rich):
        path = tmp_path / "judgments.csv"
        path.write_text(text, encoding="utf-8")
        js = read_judgments(path)
        assert len(js) == n
        assert {v: s.score for v, s in counts(js).items()} == {v["version"]: v["score"] for v in res["versions"]}
    assert len(list(csv.DictReader(io.StringIO(rich)))) == n
    out = subprocess.run([sys.executable, "-m", "humaneval", "bws", str(path), "--json"], capture_output=True,
                         text=True, cwd=ROOT, check=True)
    got = json.loads(out.stdout)
    assert got["judgments"] == n and got["split_half"]["value"] == pytest.approx(split_half(js).value)
    assert got["versions"]["lantern-nmt"]["score"] == res["versions"][1]["score"]


def test_noisy_judgments_give_a_reliability_below_one(world):
    from enface.campaigns.protocol import protocol_of

    cid = new_bws(world, annotators=("ann1@example.org", "ann2@example.org"), redundancy=2,
                  ranges="jade-lantern.1:1-6\nmountain-inn:1-4")
    judge_all(world, cid, "ann1@example.org")
    judge_all(world, cid, "ann2@example.org", order=list(reversed(QUALITY[:2])) + QUALITY[2:])   # disagrees on 1-2
    with world.ctx():
        c = campaign(world, cid)
        sh = protocol_of(c).results(c)["split_half"]
    assert sh["value"] is not None and sh["value"] < 1.0 and sh["defined"] > 0


def test_release_leaderboard_part_and_meta_sources(world):
    from enface.campaigns import services as svc
    from enface.campaigns.protocol import protocol_of

    cid, _n = judged_campaign(world)
    with world.ctx():
        svc.release(campaign(world, cid))
        c = campaign(world, cid)
        assert c.state == "released" and c.results["ranking"]
        part = protocol_of(c).leaderboard(c)
        lantern = part.by_submission[world.subs["lantern-nmt"]]
        assert lantern["score"] > 0 and lantern["rank_range"] and part.higher_is_better
        assert set(part.by_submission) == set(world.subs.values())        # references are no submission
        (source,) = protocol_of(c).meta_sources(c)
        assert source.systems[str(world.subs["lantern-nmt"])] == lantern["score"]
        assert "reference 1" in source.systems and source.item_unit == "segment"
        assert source.items["reference 1"][("jade-lantern.1", 0)] == 1.0        # always chosen best
        assert source.items[str(world.subs["inkstone-llm"])][("mountain-inn", 3)] == -1.0
        assert len(source.items["reference 1"]) == 10                           # one per one-segment passage
    page = world.client("org@example.org").get(f"/campaigns/{cid}/results").get_data(as_text=True)
    assert "Split-half reliability" in page and "lantern-nmt" in page
    board = world.client("org@example.org").get(f"/leaderboard/{world.testset_id}").get_data(as_text=True)
    assert 'data-key="bws"' in board and 'id="bws-ranking"' in board      # the column and the ranking below
    assert 'data-label="BWS"' in board and "Human ranking by best–worst scaling" in board


def test_item_label_and_progress_name_versions_for_the_organizer(world):
    cid, _n = judged_campaign(world)
    page = world.client("org@example.org").get(f"/campaigns/{cid}").get_data(as_text=True)
    assert 'id="bws-scores"' in page and 'id="bws-ranking"' in page and "random splits defined" in page
    with world.ctx():
        pid = annotator_assignments(world, cid, "ann1@example.org")[0].public_id
    assert set(versions_by_slot(world, pid).values()) <= set(QUALITY)
