"""ESA^AI's figures: provenance shares, precision and recall, time per segment with and without
suggestions, from the answer records; the budget filter and what it saved."""

from __future__ import annotations

import json
import uuid

import pytest
from suggest_support import campaign

from humaneval.esa.appraise import ErrorSpan
from humaneval.esa.provenance import suggestion_quality


def upload(world, cid, objs, threshold=""):
    from enface.campaigns import services as svc
    from enface.protocols.esa.suggestions.source import upload_file

    text = "".join(json.dumps(o) + "\n" for o in objs)
    with world.ctx():
        return upload_file(svc.get_campaign(cid), "s.jsonl", text.encode(), threshold)[0].id


def answer(world, asg_id, seg, spans, score=50, ms=None):
    """Stores an ESA answer record directly (the page's save is tested in the browser and page tests)."""
    from enface.campaigns.models import Assignment, Response
    from enface.extensions import db
    from enface.models import utcnow

    with world.ctx(), db.write():
        db.session.add(Response(assignment_id=asg_id, uuid=str(uuid.uuid4()), kind="segment", key=str(seg),
                                data={"score": score, "spans": spans, "started_ms": None, "ended_ms": None},
                                created_at=utcnow(), updated_at=utcnow()))
        asg = db.session.get(Assignment, asg_id)
        if ms is not None:
            asg.times = {**(asg.times or {}), str(seg): ms}
        asg.state = "finished"


def sp(start, end, severity="minor", provenance="human", suggestion=None):
    return {"start": start, "end": end, "severity": severity, "provenance": provenance, "suggestion": suggestion}


def test_shares_quality_and_times_come_from_the_records(world):
    from enface.campaigns import services as svc
    from enface.campaigns.models import Assignment
    from enface.extensions import db
    from enface.protocols.esa.suggestions.report import ai_results
    from sqlalchemy import select

    cid = campaign(world, start=True)
    upload(world, cid, [
        {"item": "orchard:1", "system": "zephyr-mt", "spans": [{"start": 0, "end": 6, "severity": "minor"},
                                                              {"start": 10, "end": 14, "severity": "major"}]},
        {"item": "orchard:2", "system": "zephyr-mt", "spans": [{"start": 0, "end": 6, "severity": "major"}]}])
    with world.ctx():
        asg_id = db.session.scalar(select(Assignment.id).where(Assignment.campaign_id == cid))
    s1, s2 = {"start": 0, "end": 5, "severity": "minor"}, {"start": 10, "end": 13, "severity": "major"}
    answer(world, asg_id, 0, [sp(0, 5, provenance="kept", suggestion=s1),                     # kept as is
                              sp(10, 15, "minor", "edited", s2),                              # longer, milder
                              sp(20, 22)], ms=30_000)                                         # the annotator's own
    answer(world, asg_id, 1, [sp(0, 5, "major", "deleted", {"start": 0, "end": 5, "severity": "major"})], ms=10_000)
    answer(world, asg_id, 2, [sp("missing", "missing", "major")], ms=20_000)                  # shown no suggestion
    with world.ctx():
        got = ai_results(svc.get_campaign(cid))
    assert got.spans == {"kept": 1, "edited": 1, "deleted": 1, "human": 2}
    assert got.shares["human"] == pytest.approx(0.4)
    expected = suggestion_quality([
        ([ErrorSpan(0, 5, "minor"), ErrorSpan(10, 13, "major")],
         [ErrorSpan(0, 5, "minor"), ErrorSpan(10, 15, "minor"), ErrorSpan(20, 22, "minor")]),
        ([ErrorSpan(0, 5, "major")], []), ([], [ErrorSpan(None, None, "major")])])
    assert (got.precision, got.recall) == (expected["precision"], expected["recall"])
    assert got.precision == pytest.approx(10 / 16) and got.recall == pytest.approx(10 / 16)
    assert (got.with_suggestions.segments, got.with_suggestions.mean_seconds) == (2, 20.0)
    assert (got.without_suggestions.segments, got.without_suggestions.median_seconds) == (1, 20.0)


def test_the_budget_filter_leaves_out_flawless_items_only(world):
    from enface.campaigns import services as svc
    from enface.protocols.esa.suggestions.budget import budget_saved, filter_plans
    from enface.protocols.esa.suggestions.targets import planned_items

    cid = campaign(world, systems=("zephyr-mt", "walrus-baseline"))
    flawless = [{"item": f"orchard:{n}", "system": "zephyr-mt", "spans": [], "score": 96} for n in (1, 2, 3)]
    # walrus: one segment with an error, one scored too low, one without a score: its item stays
    walrus = [{"item": "orchard:1", "system": "walrus-baseline", "spans": [], "score": 99},
              {"item": "orchard:2", "system": "walrus-baseline", "spans": [{"missing": True, "severity": "minor"}],
               "score": 99},
              {"item": "orchard:3", "system": "walrus-baseline", "spans": []}]
    upload(world, cid, flawless + walrus, threshold="95")
    with world.ctx():
        camp = svc.get_campaign(cid)
        plans = planned_items(camp)
        kept = filter_plans(camp, plans)
        assert len(plans) == 2 and len(kept) == 1
        assert kept[0].version_ids == [v.id for v in camp.versions if v.submission_id == world.subs["walrus-baseline"]]
        budget = budget_saved(camp, plans)
    assert (budget.items, budget.items_left_out, budget.segments, budget.segments_left_out) == (2, 1, 6, 3)
    assert budget.share_saved == 0.5 and budget.threshold == 95


def test_a_threshold_above_the_scores_or_no_threshold_keeps_every_item(world):
    from enface.campaigns import services as svc
    from enface.protocols.esa.suggestions.budget import budget_saved, filter_plans
    from enface.protocols.esa.suggestions.source import set_threshold
    from enface.protocols.esa.suggestions.targets import planned_items

    cid = campaign(world)
    upload(world, cid, [{"item": f"orchard:{n}", "system": "zephyr-mt", "spans": [], "score": 90} for n in (1, 2, 3)],
           threshold="95")
    with world.ctx():
        camp = svc.get_campaign(cid)
        plans = planned_items(camp)
        assert filter_plans(camp, plans) == plans
        set_threshold(camp, "")
        assert budget_saved(svc.get_campaign(cid), plans) is None
        set_threshold(camp, "90")
        # every item is flawless: the filter never leaves a campaign without items
        assert filter_plans(svc.get_campaign(cid), plans) == plans
