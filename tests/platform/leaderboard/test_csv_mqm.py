"""The CSV download after a human evaluation is released: MQM score, rank, rank range and cluster columns."""

from __future__ import annotations

import io
import re

import pandas

from tests.support.campaigns import assignments_of, build_world, finish, new_campaign, put_mark, read_all


def _annotate_and_release(world) -> int:
    cid = new_campaign(world, annotators=("ann1@example.org", "ann2@example.org"), redundancy=1)
    for email in ("ann1@example.org", "ann2@example.org"):
        c = world.client(email)
        for n, a in enumerate(assignments_of(world, cid, email)):
            if email == "ann1@example.org" and n == 0:
                r, _ = put_mark(c, a["public_id"], {"seg": 0, "start": 0, "end": 3, "category": "Accuracy",
                                                    "subcategory": "Addition", "severity": "Critical"})
                assert r.status_code == 200, r.get_json()
            assert read_all(c, a["public_id"], a["segments"]).status_code == 200
            assert finish(c, a["public_id"]).status_code == 200
    from enface.campaigns import services as svc

    with world.ctx():
        svc.release(svc.get_campaign(cid))
    return cid


def test_csv_has_mqm_columns_once_a_human_ranking_is_released(app, tmp_path):
    world = build_world(app, tmp_path)
    org = world.client("org@example.org")       # the test set is not released: the organizer sees every row
    before = pandas.read_csv(io.StringIO(org.get(f"/leaderboard/{world.testset_id}.csv").get_data(as_text=True)))
    assert not any(c.startswith("MQM") for c in before.columns)

    _annotate_and_release(world)
    text = org.get(f"/leaderboard/{world.testset_id}.csv").get_data(as_text=True)
    assert not any(line.startswith("#") for line in text.splitlines())
    frame = pandas.read_csv(io.StringIO(text), dtype={"MQM rank range": str})   # text: "1", "2–4"
    assert list(frame.columns)[-4:] == ["MQM", "MQM rank", "MQM rank range", "MQM cluster"]
    assert frame["MQM"].dtype == "float64" and frame["BLEU"].dtype == "float64"   # no automatic scores: all NaN
    by_system = frame.set_index("system")
    api = org.get(f"/leaderboard/{world.testset_id}.json").get_json()["rows"]
    for row in api:
        got = by_system.loc[row["system"]]
        if row["mqm"] is None:     # not in the campaign: empty cells
            assert row["system"] == "quokka-nmt-c"
            assert got[["MQM", "MQM rank", "MQM rank range", "MQM cluster"]].isna().all()
        else:
            assert got["MQM"] == round(row["mqm"]["score"], 4)
            assert got["MQM rank"] == row["mqm"]["rank"] and got["MQM cluster"] == row["mqm"]["cluster"]
            assert got["MQM rank range"] == row["mqm"]["rank_range"]
    # still in the page's order
    html = org.get(f"/leaderboard/{world.testset_id}").get_data(as_text=True)
    assert "MQM" in html
    assert list(frame["system"]) == re.findall(r'<td class="system"><a href="[^"]*">([^<]+)</a>', html)
