"""Once a human ranking is released, the leaderboard is ordered and highlighted by it (page, JSON, CSV)."""

from __future__ import annotations

import csv
import io
import re

from tests.support.campaigns import SYSTEMS, annotate_all, build_world, new_campaign
from tests.support.leaderboard_html import leaderboard_page

# A second constrained primary: by BLEU zephyr-mt leads, by MQM lynx-mt does (zephyr-mt gets an error per segment).
WORLD_SYSTEMS = {**SYSTEMS, "lynx-mt": ("Cedar", "primary", True)}
BLEU = {"zephyr-mt": 40.0, "lynx-mt": 30.0, "quokka-nmt": 35.0, "quokka-nmt-c": 20.0, "walrus-baseline": 10.0}


def _add_bleu(world) -> None:
    from enface.extensions import db
    from enface.models import ScoreRow

    with world.ctx(), db.write():
        for system, value in BLEU.items():
            db.session.add(ScoreRow(submission_id=world.subs[system], metric="bleu", scope="corpus", name="BLEU",
                                    value=value, higher_is_better=True, signature="nrefs:1|test"))


def _annotate(world) -> int:
    cid = new_campaign(world, systems=["zephyr-mt", "lynx-mt", "quokka-nmt", "walrus-baseline"], redundancy=1)
    annotate_all(world, cid, errors_in=["zephyr-mt"])
    return cid


def _downloads(client, ts):
    rows = client.get(f"/leaderboard/{ts}.json").get_json()
    table = list(csv.DictReader(io.StringIO(client.get(f"/leaderboard/{ts}.csv").get_data(as_text=True))))
    return rows, table


def _constrained(rows, key="system"):
    return [r[key] for r in rows if r["group"] == "primary-constrained"]


def test_released_human_ranking_orders_and_highlights_the_leaderboard(app, tmp_path):
    from enface.campaigns import services as svc

    world = build_world(app, tmp_path, systems=WORLD_SYSTEMS)
    _add_bleu(world)
    org = world.client("org@example.org")
    ts = world.testset_id

    # before release: the automatic order (BLEU), the best primary by BLEU highlighted
    html, order, top = leaderboard_page(org, ts)
    assert order["primary-constrained"] == ["zephyr-mt", "lynx-mt"]
    assert set(top) == {"zephyr-mt", "quokka-nmt"}
    assert "official human ranking (MQM" not in html
    body, table = _downloads(org, ts)
    assert body["sort_metric"] == "bleu" and body["order_by"] == "bleu"
    assert _constrained(body["rows"]) == ["zephyr-mt", "lynx-mt"] == _constrained(table)

    cid = _annotate(world)
    with world.ctx():
        svc.release(svc.get_campaign(cid))
    html, order, top = leaderboard_page(org, ts)
    body, table = _downloads(org, ts)
    human = {r["system"]: r["mqm"] for r in body["rows"]}
    # one ranking across the groups: the three error-free systems share the top cluster, zephyr-mt is last
    assert human["zephyr-mt"]["rank"] == 4 and human["zephyr-mt"]["rank_range"] == "4"
    assert {s for s, m in human.items() if m and m["cluster"] == 1} == {"lynx-mt", "quokka-nmt", "walrus-baseline"}
    assert human["lynx-mt"]["rank_range"] == "1–3" and human["walrus-baseline"]["kind"] == "baseline"
    # the human order on the page, in the JSON and in the CSV
    assert order["primary-constrained"] == ["lynx-mt", "zephyr-mt"]
    assert _constrained(body["rows"]) == ["lynx-mt", "zephyr-mt"] == _constrained(table)
    page_order = [s for g in ("baseline", "primary-constrained", "primary-unconstrained", "contrastive")
                  for s in order[g]]
    assert [r["system"] for r in table] == page_order == [r["system"] for r in body["rows"]]
    # the contrastive system, outside the campaign, stays in its group after the ranked ones
    assert order["contrastive"] == ["quokka-nmt-c"] and human["quokka-nmt-c"] is None
    # highlighted: the top human cluster of each primary group
    expected_top = {s for s, m in human.items() if m and m["cluster"] == 1 and m["group"].startswith("primary")}
    assert "lynx-mt" in expected_top and set(top) == expected_top
    assert human["zephyr-mt"]["cluster"] == 2 and "zephyr-mt" not in top   # an error in every segment: significant
    assert "Ordered by the official human ranking (MQM, campaign Tales MQM); highlighted: the primary systems in its top cluster" in html
    assert html.count('<tr class="kind-') == 4 and "Human reference" not in html   # the ranking's table: all four
    assert body["order_by"] == "mqm" and body["sort_metric"] == "bleu"   # the automatic metric is kept
    # the per-metric best marks stay per metric: BLEU's best in the group is still zephyr-mt
    zephyr = re.search(r'zephyr-mt</a>.*?</tr>', html, re.S).group(0)
    assert 'class="num best" data-value="40.000000"' in zephyr

    with world.ctx():
        svc.withdraw_release(svc.get_campaign(cid))
    html, order, top = leaderboard_page(org, ts)
    body, table = _downloads(org, ts)
    assert order["primary-constrained"] == ["zephyr-mt", "lynx-mt"]
    assert set(top) == {"zephyr-mt", "quokka-nmt"}
    assert "official human ranking (MQM" not in html
    assert body["order_by"] == "bleu"
    assert _constrained(body["rows"]) == ["zephyr-mt", "lynx-mt"] == _constrained(table)


def test_order_by_human_is_pure_and_keeps_unranked_groups():
    from enface.campaigns.contract import LeaderboardColumn
    from enface.services.leaderboard import order_by_human

    def row(sid, system, group, bleu, mqm=None, top=False):
        r = {"submission_id": sid, "system": system, "group": group, "scores": {"bleu": {"score": bleu}},
             "mqm": mqm}
        if top:
            r["top"] = True
        return r

    rows = [row(1, "a", "primary-constrained", 40, {"score": 80, "rank": 3, "cluster": 2,
                                                    "group": "primary-constrained"}, top=True),
            row(2, "b", "primary-unconstrained", 39, top=True),
            row(3, "c", "primary-constrained", 38, {"score": 90, "rank": 1, "cluster": 1,
                                                    "group": "primary-constrained"}),
            row(4, "d", "primary-constrained", 37),
            row(5, "e", "primary-constrained", 36, {"score": 85, "rank": 2, "cluster": 1,
                                                    "group": "primary-constrained"})]
    board = {"sort_metric": "bleu", "order_by": "bleu", "rows": rows}
    assert order_by_human(board) is board            # no human ranking: nothing changes
    board["mqm"] = {"campaign": {"name": "X"}}
    assert order_by_human(board) is board            # a part with no column declared for it: nothing changes
    board["human_columns"] = [LeaderboardColumn(name="MQM", choice="human", head="", cell="", ranking="", key="mqm")]
    out = order_by_human(board)
    assert [r["system"] for r in out["rows"]] == ["c", "e", "a", "d", "b"]
    assert [r["system"] for r in out["rows"] if r.get("top")] == ["c", "e", "b"]
    assert out["order_by"] == "mqm" and out["sort_metric"] == "bleu"
    assert out["order_unranked_groups"] == ["primary-unconstrained"]
    # the input is untouched
    assert [r["system"] for r in board["rows"]] == ["a", "b", "c", "d", "e"] and board["rows"][0]["top"]
    assert board["order_by"] == "bleu"
