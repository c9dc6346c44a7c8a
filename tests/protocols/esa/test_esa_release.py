"""A released ESA campaign everywhere a protocol shows up, through the seam: the leaderboard's column and
ranking (ESA orders the board when it is the released human ranking), its JSON and CSV, head-to-head and the
paper table, the meta-evaluation sources, the output browser's evidence and the release snapshot."""

from __future__ import annotations

import csv
import io

from esa_helpers import answer_everything, esa_campaign

from tests.support.campaigns import set_testset_released
from tests.support.leaderboard_html import leaderboard_page


def _released(world):
    from enface.campaigns import services as svc

    cid = esa_campaign(world, redundancy=1, strategy="document")
    score = {world.subs["walrus-baseline"]: 20, world.subs["quokka-nmt"]: 55, world.subs["zephyr-mt"]: 90}
    answer_everything(world, cid, lambda email, a, seg, text: score[a["submission_id"]] + seg,
                      spans=lambda email, a, seg, text: [{"start": 0, "end": 2, "severity": "major"}]
                      if a["submission_id"] == world.subs["walrus-baseline"] else [])
    with world.ctx():
        svc.release(svc.get_campaign(cid))
    return cid


def test_the_leaderboard_takes_esa_s_column_and_ranking(world):
    cid = _released(world)
    ts = world.testset_id
    org = world.client("org@example.org")
    html, order, _top = leaderboard_page(org, ts)
    assert 'aria-label="Sort by ESA"' in html and 'id="esa-ranking"' in html
    assert "Ordered by the official human ranking (ESA" in html
    assert order["primary-constrained"] == ["zephyr-mt"] and order["baseline"] == ["walrus-baseline"]
    zephyr = html[html.index("zephyr-mt</a>"):]
    zephyr = zephyr[:zephyr.index("</tr>")]
    assert '<td class="num esa" data-value="91.' in zephyr
    body = org.get(f"/leaderboard/{ts}.json").get_json()
    assert body["order_by"] == "esa" and [h["key"] for h in body["human_rankings"]] == ["esa"]
    rows = {r["system"]: r for r in body["rows"]}
    assert rows["walrus-baseline"]["human"]["esa"]["rank_range"] == "3"
    table = list(csv.DictReader(io.StringIO(org.get(f"/leaderboard/{ts}.csv").get_data(as_text=True))))
    assert "ESA" in table[0] and "ESA rank range" in table[0]
    h2h = org.get(f"/leaderboard/{ts}/head-to-head?metric=human-esa").get_data(as_text=True)
    assert 'data-metric="human-esa"' in h2h
    tex = org.get(f"/leaderboard/{ts}/table-human-esa.tex")
    assert tex.status_code == 200 and "zephyr" in tex.get_data(as_text=True)
    # the public results page shows the frozen snapshot, and its exports download
    set_testset_released(world)
    anon = world.client()
    page = anon.get(f"/campaigns/{cid}/results").get_data(as_text=True)
    assert 'id="esa-systems"' in page and "zephyr-mt" in page
    appraise = anon.get(f"/campaigns/{cid}/export.appraise")
    assert appraise.status_code == 200 and appraise.get_data(as_text=True).count("\n") == 21


def test_meta_sources_evidence_and_snapshot(world):
    cid = _released(world)
    with world.ctx():
        from enface.campaigns import services as svc
        from enface.campaigns.protocol import protocol_of

        camp = svc.get_campaign(cid)
        protocol = protocol_of(camp)
        (source,) = protocol.meta_sources(camp)
        walrus = str(world.subs["walrus-baseline"])
        assert source.item_unit == "segment" and source.systems[walrus] == 20 + (0 + 1 + 2 + 3 + 0 + 1 + 2) / 7
        assert source.items[walrus][("river.1", 3)] == 23
        evidence = protocol.evidence(camp)
        spans = [e for e in evidence if e.kind == "span"]
        assert len(spans) == 7 and {e.submission_id for e in spans} == {world.subs["walrus-baseline"]}
        assert all(e.end == 3 and e.severity == "major" and len(e.text) == 3 for e in spans)
        assert sum(e.kind == "score" for e in evidence) == 21
        snapshot = camp.results
        assert snapshot["campaign"]["id"] == cid and [s["system"] for s in snapshot["systems"]][0] == "zephyr-mt"
        part = protocol.leaderboard(camp)
        assert part.by_submission[world.subs["zephyr-mt"]]["rank"] == 1
