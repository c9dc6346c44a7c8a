"""The live ranking's stability on an ESA dashboard: every scored segment (BAD copies left out), in the order
the items were finished, a version's score the mean of its segment scores (the results' score)."""

from __future__ import annotations

import pytest
from esa_helpers import answer_everything, esa_campaign

from tests.support.stability import dashboard, stability_of


def bad_copies(world, cid) -> set[str]:
    from enface.campaigns.models import Assignment
    from enface.extensions import db
    from sqlalchemy import select

    with world.ctx():
        return {a.public_id for a in db.session.scalars(select(Assignment).where(Assignment.campaign_id == cid))
                if (a.plan or {}).get("bad")}


@pytest.mark.parametrize("attention", [0.0, 0.5])
def test_the_dashboard_shows_the_stability_of_the_esa_ranking(world, attention):
    cid = esa_campaign(world, attention=attention)     # BAD copies: not part of the figure
    assert "not measured yet (too few segment scores)" in dashboard(world, cid)
    bad = bad_copies(world, cid)
    assert bool(bad) == (attention > 0)
    quality = {world.subs["zephyr-mt"]: 90, world.subs["quokka-nmt"]: 60, world.subs["walrus-baseline"]: 30}
    # the BAD copies scored far below their originals (the annotators pass the checks)
    answer_everything(world, cid, lambda _e, a, seg, _t: 0 if a["public_id"] in bad
                      else quality[a["submission_id"]] - 5 * seg)
    found, final, st, res = stability_of(world, cid)
    assert st["annotations"] == len(found.annotations) == 7 * 3        # 7 segments x 3 systems, once each
    assert final == pytest.approx({row["system"]: row["score"] for row in res["systems"]})
    assert st["pairs"] == 3 and st["changed"] == 0                   # the order never moves
    page = dashboard(world, cid)
    assert "0 of 3 version pairs changed order in the last tenth of the segment scores" in page
