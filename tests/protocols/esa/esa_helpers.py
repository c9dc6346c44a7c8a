"""Shortcuts of the ESA tests: a campaign through the services, answers through the core's API."""

from __future__ import annotations

import uuid

from tests.support.campaigns import assignments_of, new_campaign, read_all

SETTINGS = {"attention_share": 0.0}


def esa_campaign(world, *, attention=0.0, strategy="document", redundancy=1, start=True, ranges="river.1\norchard",
                 annotators=("ann1@example.org", "ann2@example.org"), **settings) -> int:
    return new_campaign(world, protocol="esa", strategy=strategy, redundancy=redundancy, start=start, ranges=ranges,
                        annotators=annotators, settings_override={"attention_share": attention, **settings})


def put_answer(client, public_id: str, seg: int, data: dict, uid: str | None = None, rev: int = 1):
    uid = uid or str(uuid.uuid4())
    r = client.put(f"/annotate/api/items/{public_id}/responses/{uid}",
                   json={"rev": rev, "kind": "segment", "key": str(seg), "data": data})
    return r, uid


def answer_everything(world, campaign_id: int, score, annotators=("ann1@example.org", "ann2@example.org"),
                      spans=None) -> None:
    """Each annotator reads, scores (``score(email, assignment, seg, text) -> number``) and finishes every item;
    ``spans(email, a, seg, text)`` gives each segment's spans (none by default)."""
    for email in annotators:
        c = world.client(email)
        for a in assignments_of(world, campaign_id, email):
            state = c.get(f"/annotate/api/items/{a['public_id']}").get_json()
            assert read_all(c, a["public_id"], a["segments"]).status_code == 200
            for seg in state["segments"]:
                data = {"score": score(email, a, seg["i"], seg["target"]),
                        "spans": spans(email, a, seg["i"], seg["target"]) if spans else []}
                r, _ = put_answer(c, a["public_id"], seg["i"], data)
                assert r.status_code == 200, r.get_json()
            r = c.post(f"/annotate/api/items/{a['public_id']}/finish", json={})
            assert r.status_code == 200, r.get_json()
