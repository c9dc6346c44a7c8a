"""The live ranking's stability on an MQM dashboard: each segment a rater judged, in the order the items were
finished, scored as the results score a system (the core's partial shows it; a draft shows nothing)."""

from __future__ import annotations

import math

import pytest

from tests.support.campaigns import annotate_all, new_campaign
from tests.support.stability import dashboard, stability_of


def test_a_draft_shows_no_stability(world):
    assert 'id="stability"' not in dashboard(world, new_campaign(world, start=False))


def test_the_dashboard_shows_the_stability_of_the_mqm_ranking(world):
    cid = new_campaign(world)       # 2 documents (7 segments) x 3 systems, 2 annotators per item
    assert "not measured yet (too few segment judgments)" in dashboard(world, cid)
    annotate_all(world, cid, errors_in=("walrus-baseline",))
    found, final, st, res = stability_of(world, cid)
    assert len(found.annotations) == 7 * 3 * 2 == st["annotations"]
    assert st["before"] == 42 - math.ceil(4.2) and st["pairs"] == 3
    # the figure's final scores are the results' MQM scores
    assert final == pytest.approx({s: row["score"] for s, row in res["systems"].items()})
    assert final["walrus-baseline"] < final["zephyr-mt"]
    page = dashboard(world, cid)
    assert f"{st['changed']} of 3 version pairs changed order in the last tenth of the segment judgments" in page
    assert "after the first 37 of 42 segment judgments" in page
