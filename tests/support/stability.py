"""Shortcuts of the ranking-stability tests (enface.campaigns.stability through a protocol's ranking_judgments)."""

from __future__ import annotations


def stability_of(world, cid):
    """(the hook's judgments, their final scores, the dashboard's figure, the protocol's results)."""
    from enface.campaigns import services as svc
    from enface.campaigns.protocol import protocol_of
    from enface.campaigns.stability import campaign_stability

    with world.ctx():
        c = svc.get_campaign(cid)
        found = protocol_of(c).ranking_judgments(c)
        return found, found.scores(found.annotations), campaign_stability(c), protocol_of(c).results(c, organizer=True)


def dashboard(world, cid) -> str:
    r = world.client("org@example.org").get(f"/campaigns/{cid}")
    assert r.status_code == 200
    return r.get_data(as_text=True)
