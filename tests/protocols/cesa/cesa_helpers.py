"""Shortcuts of the cESA tests: a campaign through the services, every translation scored through the API."""

from __future__ import annotations

import uuid

from tests.support.campaigns import assignments_of, new_campaign

SYSTEMS = ["zephyr-mt", "quokka-nmt", "walrus-baseline"]
SCORES = {"zephyr-mt": 90, "quokka-nmt": 60, "walrus-baseline": 20}


def cesa_campaign(world, **kw) -> int:
    return new_campaign(world, protocol="cesa", strategy="redundancy", redundancy=kw.pop("redundancy", 2),
                        systems=SYSTEMS, ranges=kw.pop("ranges", "river.1"), settings_override={}, **kw)


def put(client, public_id, key, data, uid=None, rev=1):
    uid = uid or str(uuid.uuid4())
    return client.put(f"/annotate/api/items/{public_id}/responses/{uid}",
                      json={"rev": rev, "kind": "segment", "key": key, "data": data}), uid


def plan_orders(world, cid) -> dict[str, list[int]]:
    from enface.campaigns.models import Assignment
    from enface.extensions import db
    from sqlalchemy import select

    with world.ctx():
        return {a.public_id: list(a.plan["order"]) for a in db.session.scalars(
            select(Assignment).where(Assignment.campaign_id == cid))}


def score_everything(world, cid, annotators=("ann1@example.org", "ann2@example.org")) -> None:
    """Each annotator scores every translation SCORES[its system] (no spans) and finishes."""
    from enface.campaigns.models import Campaign
    from enface.campaigns.services import version_labels
    from enface.extensions import db

    orders = plan_orders(world, cid)
    with world.ctx():
        labels = version_labels(db.session.get(Campaign, cid))
    for email in annotators:
        c = world.client(email)
        for a in assignments_of(world, cid, email):
            for seg in range(a["segments"]):
                for col, vid in enumerate(orders[a["public_id"]]):
                    r, _ = put(c, a["public_id"], f"{seg}:{col}", {"score": SCORES[labels[vid]], "spans": []})
                    assert r.status_code == 200, r.get_json()
            assert c.post(f"/annotate/api/items/{a['public_id']}/finish", json={}).status_code == 200
