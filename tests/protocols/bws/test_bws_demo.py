"""The demo's BWS campaigns: data/demo/bws/judgments.csv fits the campaign `enface demo` builds (the design is
drawn over version positions, so it is the same in any database), imports, releases, and gives the file's scores."""

from __future__ import annotations

import pytest
from bws_helpers import DEMO

from tests.support.campaigns import fast_user


def test_demo_judgments_import_into_the_demo_campaign(world):
    from enface.campaigns import services as svc
    from enface.campaigns.protocol import protocol_of
    from enface.extensions import db
    from enface.models import TestSet, User
    from enface.protocols.bws.demo import DEMO_BWS, DEMO_BWS_FINISHED, demo_bws_campaigns

    from humaneval.bws import counts, read_judgments, split_half

    with world.ctx():
        for email in {*DEMO_BWS["annotators"], *DEMO_BWS_FINISHED["annotators"]}:
            fast_user(email, "annotator")
        org = db.session.get(User, world.users["org@example.org"])
        ts = db.session.get(TestSet, world.testset_id)
        lines = demo_bws_campaigns(org, ts, sorted(world.subs.values()), DEMO)
    path = DEMO / DEMO_BWS_FINISHED["judgments"]
    js = read_judgments(path)
    expected = split_half(js, n_splits=100, seed=DEMO_BWS_FINISHED["seed"])
    assert len(js) == 80
    assert "80 judgments by two scripted raters" in lines[1]
    assert f"split-half reliability {expected.value:.3f} over 100 random splits" in lines[1]
    assert "40 tuples of 4 of 5 versions" in lines[0]
    with world.ctx():
        done = next(c for c in svc.list_campaigns() if c.name == DEMO_BWS_FINISHED["name"])
        assert done.state == "released"
        res = protocol_of(done).results(done)
        assert res["split_half"]["value"] == pytest.approx(expected.value)
        assert {v["version"]: v["score"] for v in res["versions"]} == {v: s.score for v, s in counts(js).items()}
        assert res["ranking"]["rows"][0]["system"] == "reference 1"
        part = protocol_of(done).leaderboard(done)
        assert part.by_submission[world.subs["lantern-nmt"]]["score"] > 0
