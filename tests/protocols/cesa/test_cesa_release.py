"""A released cESA campaign on the leaderboard through the seam: its own column (cESA) and ranking."""

from __future__ import annotations

from cesa_helpers import SCORES, cesa_campaign, score_everything

from tests.support.leaderboard_html import leaderboard_page


def test_the_leaderboard_takes_cesa_s_column_and_ranking(world):
    from enface.campaigns import services as svc

    cid = cesa_campaign(world)
    score_everything(world, cid)
    with world.ctx():
        svc.release(svc.get_campaign(cid))
    org = world.client("org@example.org")
    html, order, _top = leaderboard_page(org, world.testset_id)
    assert 'aria-label="Sort by cESA"' in html and 'id="cesa-ranking"' in html
    zephyr = html[html.index("zephyr-mt</a>"):]
    zephyr = zephyr[:zephyr.index("</tr>")]
    assert '<td class="num cesa" data-value="90.' in zephyr
    body = org.get(f"/leaderboard/{world.testset_id}.json").get_json()
    assert "cesa" in [h["key"] for h in body["human_rankings"]]
    rows = {r["system"]: r for r in body["rows"]}
    assert rows["walrus-baseline"]["human"]["cesa"]["rank_range"] == "3"
    results = org.get(f"/campaigns/{cid}/results")
    assert results.status_code == 200 and b"zephyr-mt" in results.data


def test_exports_and_meta_sources_are_esa_s_over_the_columns(world):
    """Every column's answer is one row of ESA's exports, and the meta-evaluation reads the same answers."""
    import json

    from enface.campaigns import services as svc
    from enface.campaigns.protocol import export_table, protocol_of

    from humaneval.esa import parse_scores, summarize

    cid = cesa_campaign(world)
    score_everything(world, cid)
    org = world.client("org@example.org")
    with world.ctx():
        camp = svc.get_campaign(cid)
        protocol = protocol_of(camp)
        segments = sum(len(range(i.seg_start, i.seg_end)) for i in camp.items)
        assert set(export_table(protocol)) == {"jsonl", "csv", "appraise"}
        lines = [json.loads(x) for x in protocol.export(camp, "jsonl").splitlines()]
        csv_text = protocol.export(camp, "csv")
        summary = summarize(parse_scores(protocol.export(camp, "appraise"), "scores.csv").rows)
        results = protocol.results(camp, organizer=True)
        svc.release(camp)
        (source,) = protocol.meta_sources(svc.get_campaign(cid))
    expected = 2 * 3 * segments      # two annotators, three columns, every segment
    assert len(lines) == expected and len(csv_text.splitlines()) == expected + 1
    assert {x["system"]: x["score"] for x in lines} == SCORES
    for s in results["systems"]:
        assert summary.systems[s["system"]].score == s["score"] == SCORES[s["system"]]
    assert source.kind == "cesa" and source.key == f"cesa:{cid}" and source.item_unit == "segment"
    assert source.systems == {str(world.subs[name]): float(score) for name, score in SCORES.items()}
    assert all(len(items) == segments for items in source.items.values())
    download = org.get(f"/campaigns/{cid}/export.csv")
    assert download.status_code == 200 and download.get_data(as_text=True) == csv_text
    with world.ctx():
        from enface.browse.bundle import bundle_files
        from enface.extensions import db
        from enface.models import TestSet

        paths = [f.path for f in bundle_files(db.session.get(TestSet, world.testset_id))]
    assert any(p.startswith("annotations/") and p.endswith(".scores.csv") for p in paths), paths
    assert any("human-scores/" in p and ".cesa." in p and p.endswith(".seg.score") for p in paths), paths
