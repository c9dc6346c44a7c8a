"""The live ranking's stability on a contrastive ESA dashboard: every translation's score of a finished range,
in the order they came in (ESA's rule over the columns)."""

from __future__ import annotations

import pytest
from cesa_helpers import SCORES, cesa_campaign, score_everything

from tests.support.stability import dashboard, stability_of


def test_the_dashboard_shows_the_stability_of_the_cesa_ranking(world):
    cid = cesa_campaign(world)      # river.1 (4 segments), 3 systems side by side, 2 annotators per range
    score_everything(world, cid)
    found, final, st, res = stability_of(world, cid)
    assert st["annotations"] == len(found.annotations) == 4 * 3 * 2
    assert final == pytest.approx({s: float(v) for s, v in SCORES.items()})
    assert final == pytest.approx({row["system"]: row["score"] for row in res["systems"]})
    assert st["pairs"] == 3 and st["changed"] == 0
    assert "0 of 3 version pairs changed order in the last tenth of the segment scores" in dashboard(world, cid)
