"""BWS through the crowd flow: account-free links, a loud training item (expected best and worst), and the
completion code decided by the tutorial alone (BWS has no attention checks)."""

from __future__ import annotations

import io
import json

from bws_helpers import new_bws, put_choice

from tests.support.crowd import arrive_by_links, link_items

TUPLE = "A: The lantern glowed.\nB: Lantern is glow.\nC: The lamp shone softly.\nD: Glowing the lantern was."
TUTORIAL = {"required": True, "items": [{"id": "t1", "mode": "loud", "source": "灯笼亮了。", "translation": TUPLE,
                                         "expected": {"best": "C", "worst": "B"},
                                         "explanation": "C is fluent and faithful; B is broken English."}]}


def test_link_annotators_get_the_code_their_tutorial_earned(world):
    from enface.campaigns import services as svc
    from enface.campaigns.protocol import protocol_of

    cid = new_bws(world, annotators=(), start=False)
    org = world.client("org@example.org")
    resp = org.post(f"/campaigns/{cid}/crowd/setup", content_type="multipart/form-data", data={
        "tutorial_file": (io.BytesIO(json.dumps(TUTORIAL).encode()), "tutorial.json"),
        "pass_code": "BWSPASS", "fail_code": "BWSFAIL", "threshold": "1"})
    assert resp.status_code == 302, resp.get_data(as_text=True)[:1500]
    right, wrong = arrive_by_links(world, cid, 2)
    with world.ctx():
        svc.start_campaign(svc.get_campaign(cid))
    assert right.post(f"/crowd/c/{cid}/tutorial", data={"item": "t1", "best": "C", "worst": "B"}).status_code == 302
    again = wrong.post(f"/crowd/c/{cid}/tutorial", data={"item": "t1", "best": "A", "worst": "B"})
    assert again.status_code == 200 and "broken English" in again.get_data(as_text=True)
    for forged in ({"item": "t1", "best": "C", "worst": "C"}, {"item": "t1", "best": "Z", "worst": "B"},
                   {"item": "t1", "best": "C"}):
        assert wrong.post(f"/crowd/c/{cid}/tutorial", data=forged).status_code == 400
    assert wrong.post(f"/crowd/c/{cid}/tutorial", data={"item": "t1", "best": "C", "worst": "B"}).status_code == 302
    for client in (right, wrong):
        items = link_items(world, client, cid)
        assert items
        for pid in items:
            assert put_choice(client, pid, {"best": 1, "worst": 2})[0].status_code == 200
            assert client.post(f"/annotate/api/items/{pid}/finish", json={}).status_code == 200
    good = right.get(f"/crowd/c/{cid}/done").get_data(as_text=True)
    poor = wrong.get(f"/crowd/c/{cid}/done").get_data(as_text=True)
    assert "BWSPASS" in good and "BWSFAIL" not in good
    assert "BWSFAIL" in poor and "BWSPASS" not in poor
    with world.ctx():
        camp = svc.get_campaign(cid)
        assert {protocol_of(camp).attention_results(camp, a.id) for a in camp.annotators} == {(0, 0)}
