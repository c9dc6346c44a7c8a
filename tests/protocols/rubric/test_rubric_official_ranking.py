"""A released rubric campaign gives the official human ranking (people only, judges excluded), which
orders the leaderboard when no MQM ranking is released, shows as the "Rubric Σ" column, is a
head-to-head choice and a paper table, and comes with the leaderboard's JSON; MQM orders when both are.

The constructed scores (Σ per phenomenon item, two people on every item): careful-mt 4 everywhere;
chatty-llm 3 or 5 or 4 (as many items below as above careful-mt, give or take one: no significant
difference); plain-mt 1 from one rater and 3 from the other (mean 2); literal-mt 1. Known answer:
careful-mt and chatty-llm share the top cluster (ranks 1–2), then plain-mt (3), then literal-mt (4).
The LLM judge gives careful-mt and chatty-llm 0 and the other two 6: pooled with the people, plain-mt
would come first.
"""

from __future__ import annotations

import csv
import io
import re

import pytest
from rubric_helpers import new_rubric, system_outputs
from rubric_ranking_world import add_plain_and_bleu, released_rubric

from humaneval.rubric import rubric_results
from tests.support.leaderboard_html import leaderboard_page


@pytest.mark.parametrize("test", ["wilcoxon", "ar"])
def test_rubric_ranking_has_the_known_clusters_and_leaves_the_judge_out(world, test):
    from enface.campaigns import services as svc
    from enface.protocols.rubric.results import response_rows
    from enface.protocols.rubric.settings import campaign_rubric

    cid = released_rubric(world, test)
    with world.ctx():
        campaign = svc.get_campaign(cid)
        assert campaign.setting("significance_test") == test
        rows = response_rows(campaign)
        ranking = campaign.results["ranking"]         # frozen in the release snapshot
        pooled = rubric_results(rows, campaign_rubric(campaign))["systems"]
    assert {r["machine"] for r in rows} == {True, False}
    assert ranking["test"] == test and ranking["name"] == "Rubric Σ" and ranking["unit"] == "phenomenon item"
    by = {r["system"]: r for r in ranking["rows"]}
    assert by["careful-mt"]["score"] == 4.0 and by["plain-mt"]["score"] == 2.0 and by["literal-mt"]["score"] == 1.0
    assert by["careful-mt"]["units"] == 17     # one unit per phenomenon, Σ averaged over the two people
    assert {s for s, r in by.items() if r["cluster"] == 1} == {"careful-mt", "chatty-llm"}
    assert by["careful-mt"]["rank_range"] == by["chatty-llm"]["rank_range"] == "1–2"
    assert (by["plain-mt"]["rank_range"], by["plain-mt"]["cluster"]) == ("3", 2)
    assert (by["literal-mt"]["rank_range"], by["literal-mt"]["cluster"]) == ("4", 3)
    assert by["literal-mt"]["kind"] == "baseline" and by["plain-mt"]["kind"] == "primary-constrained"
    # the judge would change the ranking if pooled: with it, plain-mt leads
    assert pooled[0]["system"] == "plain-mt" and [r["system"] for r in ranking["rows"]][2:] == ["plain-mt",
                                                                                              "literal-mt"]


def test_leaderboard_is_ordered_by_rubric_then_by_mqm_when_both_are_released(world):
    from enface.campaigns import services as svc

    from tests.support.campaigns import annotate_all, new_campaign

    ts = world.testset_id
    org = world.client("org@example.org")
    add_plain_and_bleu(world)
    html, order, top = leaderboard_page(org, ts)
    assert order["primary-constrained"] == ["plain-mt", "careful-mt"] and "plain-mt" in top   # BLEU
    released_rubric(world, add_plain=False)

    html, order, top = leaderboard_page(org, ts)
    assert order["primary-constrained"] == ["careful-mt", "plain-mt"]
    assert set(top) == {"careful-mt", "chatty-llm"}          # the top rubric cluster, per primary group
    assert "Ordered by the official human ranking (Rubric Σ, campaign Phenomena rubric)" in html
    assert 'aria-label="Sort by Rubric Σ"' in html and 'id="rubric-ranking"' in html
    careful = re.search(r'careful-mt</a>.*?</tr>', html, re.S).group(0)
    assert '<td class="num rubric" data-value="4.000000"' in careful and '>1–2</span>' in careful

    body = org.get(f"/leaderboard/{ts}.json").get_json()
    assert body["order_by"] == "rubric" and body["sort_metric"] == "bleu"
    assert [h["key"] for h in body["human_rankings"]] == ["rubric"] and body["human_rankings"][0]["orders_board"]
    rows = {r["system"]: r for r in body["rows"]}
    assert rows["plain-mt"]["human"]["rubric"] == {"score": 2.0, "rank": 3, "rank_range": "3", "cluster": 2}
    assert rows["careful-mt"]["mqm"] is None and "mqm" not in rows["careful-mt"]["human"]
    assert body["auto"]["state"] == "ready"
    bleu = {s: r["scores"]["bleu"] for s, r in rows.items()}
    assert bleu["plain-mt"]["rank_range"] is not None and bleu["plain-mt"]["cluster"] is not None
    assert "rank_range" in bleu["literal-mt"] and "cluster" in bleu["literal-mt"]
    table = list(csv.DictReader(io.StringIO(org.get(f"/leaderboard/{ts}.csv").get_data(as_text=True))))
    assert [r["system"] for r in table] == [r["system"] for r in body["rows"]]
    plain = next(r for r in table if r["system"] == "plain-mt")
    assert (plain["Rubric Σ"], plain["Rubric Σ rank range"], plain["Rubric Σ cluster"]) == ("2.0000", "3", "2")
    assert "MQM" not in table[0]

    h2h = org.get(f"/leaderboard/{ts}/head-to-head").get_data(as_text=True)
    assert "Rubric Σ (human)" in h2h
    h2h = org.get(f"/leaderboard/{ts}/head-to-head?metric=human-rubric").get_data(as_text=True)
    assert 'data-metric="human-rubric"' in h2h and "phenomenon items" in h2h
    assert org.get(f"/leaderboard/{ts}/head-to-head?metric=human").status_code == 404   # no MQM released
    table = org.get(f"/leaderboard/{ts}/table-human.csv").get_data(as_text=True)
    assert table.splitlines()[0].endswith(",Rubric Σ") and table.splitlines()[-1].startswith("4,4,3,literal-mt")

    # an MQM campaign too (careful-mt gets an error in every segment): MQM, WMT's official ranking, orders
    mqm = new_campaign(world, systems=["careful-mt", "plain-mt", "chatty-llm", "literal-mt"], redundancy=1,
                       ranges="\n".join(sorted(system_outputs("careful-mt"))))
    annotate_all(world, mqm, errors_in=["careful-mt"])
    with world.ctx():
        svc.release(svc.get_campaign(mqm))
    html, order, top = leaderboard_page(org, ts)
    assert order["primary-constrained"] == ["plain-mt", "careful-mt"]
    assert "Ordered by the official human ranking (MQM, campaign Tales MQM)" in html
    assert "MQM, WMT's official ranking, orders the board" in html and 'aria-label="Sort by Rubric Σ"' in html
    body = org.get(f"/leaderboard/{ts}.json").get_json()
    assert body["order_by"] == "mqm" and [h["key"] for h in body["human_rankings"]] == ["mqm", "rubric"]
    rows = {r["system"]: r for r in body["rows"]}
    assert set(rows["careful-mt"]["human"]) == {"mqm", "rubric"}
    assert rows["careful-mt"]["human"]["mqm"]["rank_range"] == rows["careful-mt"]["mqm"]["rank_range"]
    assert rows["careful-mt"]["human"]["rubric"]["rank_range"] == "1–2"
    h2h = org.get(f"/leaderboard/{ts}/head-to-head").get_data(as_text=True)
    assert h2h.index("MQM (human)") < h2h.index("Rubric Σ (human)")
    rubric_tex = org.get(f"/leaderboard/{ts}/table-human-rubric.tex").get_data(as_text=True)
    assert "Rubric $\\Sigma$" in rubric_tex and rubric_tex.isascii()   # pdflatex needs no Unicode set-up
    assert "MQM" in org.get(f"/leaderboard/{ts}/table-human.csv").get_data(as_text=True).splitlines()[0]
    header = org.get(f"/leaderboard/{ts}.csv").get_data(as_text=True).splitlines()[0].split(",")
    assert header[-8:] == ["MQM", "MQM rank", "MQM rank range", "MQM cluster",
                           "Rubric Σ", "Rubric Σ rank", "Rubric Σ rank range", "Rubric Σ cluster"]


def test_a_team_sees_no_rubric_ranking_before_release(world):
    cid_owner = "careful-mt"
    released_rubric(world)
    from enface.extensions import db
    from enface.models import Submission, User

    with world.ctx():
        team_id = db.session.get(Submission, world.subs[cid_owner]).team_id
        from tests.support.campaigns import fast_user

        fast_user("heron@example.org", "participant", "Heron Member", team="Heron")
        assert db.session.query(User).filter_by(email="heron@example.org").one().team_id == team_id
    body = world.client("heron@example.org").get(f"/leaderboard/{world.testset_id}.json").get_json()
    assert [r["system"] for r in body["rows"]] == ["careful-mt"]
    assert body["human_rankings"] == [] and body["rows"][0]["human"] == {}
    assert body["rows"][0]["scores"]["bleu"]["rank_range"] is None and body["order_by"] == "bleu"


def test_rubric_significance_test_setting_is_checked(world):
    from enface.campaigns.services import ServiceError

    with pytest.raises(ServiceError) as err:
        new_rubric(world, significance_test="t-test", start=False)
    assert "significance test must be one of wilcoxon, ar" in str(err.value)


def test_significance_test_from_the_cli_and_the_web_form(world, database_url, tmp_path):
    from click.testing import CliRunner
    from enface.campaigns import services as svc
    from enface.commands import main

    env = {"ENFACE_DATABASE_URL": database_url, "ENFACE_DATA_DIR": str(tmp_path / "data"),
           "ENFACE_SECRET_KEY": "cli-test"}
    base = ["campaign", "create", "--protocol", "rubric", "--testset", str(world.testset_id), "--name", "AR rubric",
            "--system", str(world.subs["careful-mt"]), "--range", "tea-house"]
    r = CliRunner().invoke(main, [*base, "--significance-test", "ar"], env=env)
    assert r.exit_code == 0, r.output
    with world.ctx():
        assert svc.get_campaign(int(r.output.strip().splitlines()[-1])).setting("significance_test") == "ar"
    r = CliRunner().invoke(main, [*base, "--significance-test", "sign"], env=env)
    assert r.exit_code == 2 and "'sign' is not one of 'wilcoxon', 'ar'" in r.output

    org = world.client("org@example.org")
    html = org.get(f"/campaigns/new?testset={world.testset_id}&protocol=rubric").get_data(as_text=True)
    assert '<select id="significance_test" name="significance_test">' in html
    form = {"csrf_token": re.search(r'name="csrf_token"[^>]*value="([^"]+)"', html).group(1),
            "testset": world.testset_id, "protocol": "rubric", "name": "Web AR", "systems": [str(world.subs["careful-mt"])],
            "rubric": "diting", "rubric_json": "", "show_reference": "1", "guidelines": "", "redundancy": "1",
            "strategy": "redundancy", "ranges": "tea-house", "seed": "", "instructions": "",
            "significance_test": "bogus"}
    r = org.post("/campaigns/new", data=form)
    assert r.status_code == 400 and "significance test must be one of wilcoxon, ar" in r.get_data(as_text=True)
    r = org.post("/campaigns/new", data={**form, "significance_test": "ar"})
    assert r.status_code in (302, 303)
    cid = int(r.headers["Location"].rstrip("/").split("/")[-1])
    with world.ctx():
        assert svc.get_campaign(cid).setting("significance_test") == "ar"
    assert "paired approximate randomisation" in org.get(f"/campaigns/{cid}").get_data(as_text=True)
