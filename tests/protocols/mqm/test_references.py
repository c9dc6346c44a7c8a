"""MQM campaigns that include the human references (issue 15): annotated blind like a system, ranked with
the systems and marked "Human reference" in the campaign's ranking and the leaderboard's human ranking;
chosen on the new-campaign form and with ``enface campaign create ... --reference ref1`` (repeatable)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from enface.commands import main

from tests.support.campaigns import annotate_all, assignments_of, new_campaign, set_testset_released
from tests.support.testkit import TestConfigEnv

SYSTEMS = ["zephyr-mt", "quokka-nmt", "walrus-baseline"]


def _reference_campaign(world, refs=(1,)):
    return new_campaign(world, systems=SYSTEMS, references=list(refs), annotators=("ann1@example.org",
                                                                                     "ann2@example.org"))


def test_reference_items_show_the_reference_text_and_never_say_so(world):
    cid = _reference_campaign(world)
    from enface.campaigns.models import Campaign
    from enface.extensions import db

    with world.ctx():
        campaign = db.session.get(Campaign, cid)
        ref_items = [i for i in campaign.items if i.versions[0].version.is_reference]
        assert ref_items and {i.document.name for i in ref_items} == {"river.1", "orchard"}
        assert len(campaign.items) == 4 * 2     # three systems and reference 1, two documents
    c = world.client("ann1@example.org")
    shapes = {}
    for a in assignments_of(world, cid, "ann1@example.org"):
        state = c.get(f"/annotate/api/items/{a['public_id']}").get_json()
        targets = [s["target"] for s in state["segments"]]
        if a["submission_id"] is None:     # a reference item: the test set's reference 1 ("ref 0", "ref 1", ...)
            assert targets == [f"ref {i}" for i in range(a["segments"])]
        # what the page receives differs from a system's item only in its texts and its place
        item = {k: v for k, v in state["item"].items() if k not in ("id", "number", "document", "first", "last")}
        rest = {k: v for k, v in state.items() if k not in ("item", "segments", "urls", "dwell_ms")}
        shapes.setdefault(a["submission_id"] is None, []).append((sorted(item.items()), sorted(map(str, rest.items()))))
    assert set(shapes) == {True, False}
    assert shapes[True][0] in shapes[False]


def test_the_reference_is_ranked_and_marked_in_results_and_leaderboard(world):
    cid = _reference_campaign(world)
    # every system gets a critical error on every segment: the human reference ranks first on its own
    annotate_all(world, cid, errors_in=SYSTEMS, release=True)
    from enface.campaigns import services as svc
    from enface.campaigns.protocol import protocol_of
    from enface.services.leaderboard import get_leaderboard

    with world.ctx():
        campaign = svc.get_campaign(cid)
        res = campaign.results
        assert res["systems"]["reference 1"]["group"] == "reference"
        assert res["systems"]["reference 1"]["submission_id"] is None
        rows = res["ranking"]["rows"]
        first = rows[0]
        assert first["system"] == "reference 1" and first["kind"] == "reference"
        assert first["kind_title"] == "Human reference" and first["submission_id"] is None
        assert {r["system"] for r in rows} == {"reference 1", *SYSTEMS}
        tsv = protocol_of(campaign).export(campaign, "tsv")
        assert "\treference 1\t" in tsv or tsv.startswith("reference 1\t") or "\nreference 1\t" in tsv
    set_testset_released(world)
    with world.ctx():
        board = get_leaderboard(world.testset_id)
        ranking = board["mqm"]["ranking"]
        assert [r["kind"] for r in ranking["rows"]][0] == "reference"
    page = world.client().get(f"/leaderboard/{world.testset_id}").get_data(as_text=True)
    assert "Human reference" in page and "<em>reference 1</em>" in page
    results = world.client().get(f"/campaigns/{cid}/results").get_data(as_text=True)
    assert "Human reference" in results


def test_only_existing_references_can_be_chosen(world):
    from enface.campaigns import services as svc
    from enface.extensions import db
    from enface.models import TestSet
    from enface.services import ServiceError

    with world.ctx():
        ts = db.session.get(TestSet, world.testset_id)   # one reference
        with pytest.raises(ServiceError, match="1 reference"):
            svc.create_campaign(None, ts, svc.CampaignInput(name="x", submission_ids=[], references=[2],
                                                            ranges="orchard"))


def test_the_form_offers_the_references(world):
    org = world.client("org@example.org")
    page = org.get(f"/campaigns/new?testset={world.testset_id}").get_data(as_text=True)
    assert 'name="references" value="1"' in page and 'value="2"' not in page.split('id="references"')[1][:600]
    r = org.post(f"/campaigns/new?testset={world.testset_id}", data={
        "testset": str(world.testset_id), "protocol": "mqm", "name": "With ref", "scheme": "wmt23-literary",
        "redundancy": "1", "strategy": "redundancy", "docs_mode": "ranges", "ranges": "orchard",
        "attention_share": "0", "attention_kind": "mixed", "source_words": "whitespace",
        "significance_unit": "segment", "significance_test": "wilcoxon", "words_per_second": "20",
        "systems": [str(world.subs["zephyr-mt"])], "references": ["1"]})
    assert r.status_code == 302, r.get_data(as_text=True)[:2000]
    from enface.campaigns.models import Campaign
    from enface.extensions import db
    from sqlalchemy import select

    with world.ctx():
        camp = db.session.scalars(select(Campaign).where(Campaign.name == "With ref")).one()
        assert sorted((v.reference, v.submission_id) for v in camp.versions if v.is_reference) == [(1, None)]


def test_the_cli_takes_repeatable_references(world, monkeypatch, tmp_path):
    for key, value in TestConfigEnv(world.app).items():
        if key.startswith("ENFACE_"):
            monkeypatch.setenv(key, value)
    runner = CliRunner()
    result = runner.invoke(main, ["campaign", "create", "--testset", str(world.testset_id), "--name", "CLI refs",
                                  "--range", "orchard", "--system", str(world.subs["zephyr-mt"]),
                                  "--reference", "ref1"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "reference 1" in result.output
    bad = runner.invoke(main, ["campaign", "create", "--testset", str(world.testset_id), "--name", "CLI bad",
                               "--range", "orchard", "--reference", "ref3"], catch_exceptions=False)
    assert bad.exit_code == 1 and "ref1 or ref2" in bad.output
    too_many = runner.invoke(main, ["campaign", "create", "--testset", str(world.testset_id), "--name", "CLI 2",
                                    "--range", "orchard", "--reference", "ref1", "--reference", "ref2"],
                             catch_exceptions=False)
    assert too_many.exit_code == 1 and "1 reference" in too_many.output
    from enface.campaigns.models import Campaign
    from enface.extensions import db
    from sqlalchemy import select

    with world.ctx():
        camp = db.session.scalars(select(Campaign).where(Campaign.name == "CLI refs")).one()
        assert sorted(v.reference for v in camp.versions if v.is_reference) == [1]
