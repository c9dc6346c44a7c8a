"""Contrastive ESA through the services and the core's API: items hold every version, each assignment's
shuffled order is stored and shown the same on every load, answers are checked per column, finishing
needs every translation scored, and the results are ESA's per system."""

from __future__ import annotations

from cesa_helpers import SCORES, SYSTEMS, cesa_campaign, plan_orders, put, score_everything

from tests.support.campaigns import assignments_of


def test_one_item_per_range_with_every_version_in_a_stored_order(world):
    cid = cesa_campaign(world)
    orders = plan_orders(world, cid)
    assert len(orders) == 2                       # one range, two annotators
    for order in orders.values():
        assert len(order) == len(SYSTEMS) and len(set(order)) == len(SYSTEMS)
    c = world.client("ann1@example.org")
    a = assignments_of(world, cid, "ann1@example.org")[0]
    first = c.get(f"/annotate/api/items/{a['public_id']}").get_json()
    again = c.get(f"/annotate/api/items/{a['public_id']}").get_json()
    assert first["item"]["columns"] == len(SYSTEMS)
    assert [s["targets"] for s in first["segments"]] == [s["targets"] for s in again["segments"]]
    text = str(first)
    for name in SYSTEMS:                          # blind: the page never names a system
        assert name not in text


def test_answers_are_checked_per_column_and_finish_needs_every_score(world):
    cid = cesa_campaign(world, redundancy=1, annotators=("ann1@example.org",))
    c = world.client("ann1@example.org")
    a = assignments_of(world, cid, "ann1@example.org")[0]
    state = c.get(f"/annotate/api/items/{a['public_id']}").get_json()
    segs = state["segments"]
    r, _ = put(c, a["public_id"], "0", {"score": 50, "spans": []})
    assert r.status_code == 400 and r.get_json()["error"]["details"]["field"] == "key"
    r, _ = put(c, a["public_id"], f"0:{len(SYSTEMS)}", {"score": 50, "spans": []})
    assert r.status_code == 400
    too_long = len(segs[0]["targets"][1])
    r, _ = put(c, a["public_id"], "0:1", {"score": 50, "spans": [
        {"start": 0, "end": too_long, "severity": "minor", "provenance": "human"}]})
    assert r.status_code == 400 and r.get_json()["error"]["details"]["field"] == "spans"
    r, _ = put(c, a["public_id"], "0:0", {"score": 30, "spans": []})
    assert r.status_code == 200
    assert c.post(f"/annotate/api/items/{a['public_id']}/finish", json={}).status_code == 409
    for seg in segs:
        for col in range(len(SYSTEMS)):
            if (seg["i"], col) == (0, 0):
                continue
            r, _ = put(c, a["public_id"], f"{seg['i']}:{col}", {"score": 90 - 20 * col, "spans": [
                {"start": "missing", "end": "missing", "severity": "major", "provenance": "human"}] if col else []})
            assert r.status_code == 200, r.get_json()
    assert c.post(f"/annotate/api/items/{a['public_id']}/finish", json={}).status_code == 200


def test_results_are_esa_rows_per_system_in_the_stored_order(world):
    from enface.campaigns.models import Campaign
    from enface.campaigns.protocol import protocol_of
    from enface.extensions import db

    cid = cesa_campaign(world)
    assert len({tuple(o) for o in plan_orders(world, cid).values()}) >= 1
    score_everything(world, cid)
    with world.ctx():
        campaign = db.session.get(Campaign, cid)
        res = protocol_of("cesa").results(campaign, organizer=True)
        prog = protocol_of("cesa").progress(campaign)
    assert {s["system"]: s["score"] for s in res["systems"]} == SCORES
    assert [r["system"] for r in res["ranking"]["rows"]][0] == "zephyr-mt"
    assert prog["counts"]["finished"] == 2
    assert all(r["low_no_span"] == r["translations"] // len(SYSTEMS) for r in prog["rows"])   # walrus: 20, no span
    org = world.client("org@example.org")
    page = org.get(f"/campaigns/{cid}")
    assert page.status_code == 200 and b"Low, no span" in page.data


def test_attention_checks_are_refused(world):
    import pytest
    from enface.campaigns.protocol import protocol_of
    from enface.services import ServiceError

    with pytest.raises(ServiceError) as exc:
        protocol_of("cesa").clean_settings({"attention_share": 0.1}, None)
    assert exc.value.details.get("field") == "attention_share"
