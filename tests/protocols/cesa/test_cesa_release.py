"""A released cESA campaign on the leaderboard through the seam: its own column (cESA) and ranking."""

from __future__ import annotations

from cesa_helpers import cesa_campaign, score_everything

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
