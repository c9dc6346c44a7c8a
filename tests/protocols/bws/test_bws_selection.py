"""Budget-aware BWS campaigns: a passage budget chosen uniformly or by subset2evaluate from stored segment
scores (the dashboard's design is what the start builds), and the live ranking's stability."""

from __future__ import annotations

import pytest
from bws_helpers import judge_all, new_bws

# jade-lantern.1 has 22 segments, jade-lantern.2 23, mountain-inn 22: test-set positions 0..66
DOC_OFFSET = {"jade-lantern.1": 0, "jade-lantern.2": 22, "mountain-inn": 45}
N_SEGMENTS = 67
# where the toy metric's scores differ across systems (everywhere else every system scores 0.5)
SPREAD = {("jade-lantern.1", 3): 0.4, ("mountain-inn", 6): 0.3, ("mountain-inn", 1): 0.01}


def store_toy_metric(world, higher_is_better=True):
    from enface.extensions import db
    from enface.models import ScoreRow

    with world.ctx(), db.write():
        for k, sid in enumerate(sorted(world.subs.values())):
            values = [0.5] * N_SEGMENTS
            for (doc, pos), spread in SPREAD.items():
                values[DOC_OFFSET[doc] + pos] = 0.5 + (k - 1) * spread
            db.session.add(ScoreRow(submission_id=sid, metric="toy", scope="segment", name="toy", values=values,
                                    higher_is_better=higher_is_better))


def planned_passages(world, cid):
    from enface.campaigns import services as svc
    from enface.protocols.bws.design import campaign_design

    with world.ctx():
        return [p.label for p in campaign_design(svc.get_campaign(cid)).passages]


RANGES = "jade-lantern.1:1-8\nmountain-inn:1-8"


def test_subset2evaluate_picks_where_the_metric_separates_the_systems(world):
    from enface.campaigns import services as svc

    store_toy_metric(world)
    cid = new_bws(world, start=False, ranges=RANGES, passage_budget=2, selection="metric_var",
                  selection_metric="toy")
    assert planned_passages(world, cid) == ["jade-lantern.1:4", "mountain-inn:7"]   # the two widest spreads
    page = world.client("org@example.org").get(f"/campaigns/{cid}").get_data(as_text=True)
    assert "2 passages × 5 tuples" in page and "chosen by subset2evaluate (metric_var)" in page
    with world.ctx():
        svc.start_campaign(svc.get_campaign(cid))
        c = svc.get_campaign(cid)
        assert {(i.document.name, i.seg_start) for i in c.items} == {("jade-lantern.1", 3), ("mountain-inn", 6)}


def test_a_uniform_budget_is_reproducible_and_in_test_set_order(world):
    a = new_bws(world, start=False, ranges=RANGES, passage_budget=5, seed=11)
    b = new_bws(world, start=False, ranges=RANGES, passage_budget=5, seed=11)
    chosen = planned_passages(world, a)
    assert len(chosen) == 5 and chosen == planned_passages(world, b)
    every = [f"jade-lantern.1:{i}" for i in range(1, 9)] + [f"mountain-inn:{i}" for i in range(1, 9)]
    assert chosen == [p for p in every if p in chosen]
    assert planned_passages(world, new_bws(world, start=False, ranges=RANGES, passage_budget=100)) == every


def test_no_segment_scores_is_a_clear_refusal(world):
    from enface.campaigns import services as svc
    from enface.services import ServiceError

    cid = new_bws(world, start=False, ranges=RANGES, passage_budget=2, selection="metric_cons",
                  selection_metric="comet")
    page = world.client("org@example.org").get(f"/campaigns/{cid}").get_data(as_text=True)
    assert "has no segment scores" in page
    with world.ctx(), pytest.raises(ServiceError) as exc:
        svc.start_campaign(svc.get_campaign(cid))
    assert exc.value.status == 409 and "comet" in exc.value.message


def test_unknown_selection_is_refused(world):
    from enface.services import ServiceError

    with pytest.raises(ServiceError) as exc:
        new_bws(world, start=False, selection="random-ish")
    assert exc.value.status == 400 and exc.value.details["field"] == "selection"


def test_the_dashboard_shows_the_rankings_stability(world):
    from enface.campaigns import services as svc
    from enface.campaigns.protocol import protocol_of

    cid = new_bws(world, ranges=RANGES, annotators=("ann1@example.org",))
    judge_all(world, cid, "ann1@example.org")
    with world.ctx():
        c = svc.get_campaign(cid)
        st = protocol_of(c).results(c)["stability"]
    assert st["annotations"] == 80 and st["before"] == 72 and st["pairs"] == 10 and st["changed"] == 0
    page = world.client("org@example.org").get(f"/campaigns/{cid}").get_data(as_text=True)
    assert "0 of 10 version pairs changed order in the last tenth" in page
