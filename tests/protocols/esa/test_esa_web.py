"""The organizer's ESA pages: the new-campaign form (settings, defaults, refusals), the dashboard and the
Appraise import form (organizers only; a bad file is refused with its line and writes nothing)."""

from __future__ import annotations

import io

from esa_helpers import answer_everything, esa_campaign


def _form(world, **changes):
    data = {"testset": str(world.testset_id), "protocol": "esa", "name": "Web ESA", "strategy": "document",
            "redundancy": "1", "docs_mode": "ranges", "ranges": "river.1\norchard", "sample_docs": "2",
            "sample_words": "0", "seed": "3", "attention_share": "20%", "exclude_failing": "1",
            "attention_test": "wilcoxon", "attention_alpha": "0.05", "significance_test": "mannwhitney",
            "ranking_by": "z", "words_per_second": "20", "guidelines": "", "instructions": "",
            "systems": [str(world.subs["zephyr-mt"]), str(world.subs["quokka-nmt"])]}
    data.update(changes)
    return data


def test_the_new_campaign_form_creates_an_esa_campaign(world):
    org = world.client("org@example.org")
    page = org.get(f"/campaigns/new?testset={world.testset_id}&protocol=esa")
    assert page.status_code == 200 and 'id="esa-new"' in page.get_data(as_text=True)
    r = org.post("/campaigns/new", data=_form(world))
    assert r.status_code in (302, 303), r.get_data(as_text=True)[:500]
    with world.ctx():
        from enface.campaigns.models import Campaign
        from enface.extensions import db
        from sqlalchemy import select

        camp = db.session.scalar(select(Campaign).where(Campaign.name == "Web ESA"))
        assert camp.protocol == "esa" and camp.strategy == "document"
        assert camp.settings["attention_share"] == 0.2 and camp.settings["exclude_failing"] is True
        assert camp.settings["ranking_by"] == "z" and len(camp.versions) == 2
    # unticked, the checkbox counts failing annotators; a bad value is refused on the page, naming it
    data = _form(world, name="Counting")
    del data["exclude_failing"]
    assert org.post("/campaigns/new", data=data).status_code in (302, 303)
    r = org.post("/campaigns/new", data=_form(world, name="Bad", attention_alpha="2"))
    assert r.status_code == 400 and "attention_alpha" in r.get_data(as_text=True)
    with world.ctx():
        from enface.campaigns.models import Campaign
        from enface.extensions import db
        from sqlalchemy import select

        assert db.session.scalar(select(Campaign).where(Campaign.name == "Counting")).settings["exclude_failing"] is False
        assert db.session.scalar(select(Campaign).where(Campaign.name == "Bad")) is None


def test_the_import_form_is_the_organizers_and_refuses_bad_files(world):
    source = esa_campaign(world, redundancy=2, strategy="redundancy")
    answer_everything(world, source, lambda email, a, seg, text: 70)
    with world.ctx():
        from enface.campaigns import services as svc
        from enface.protocols.esa.exports import export_appraise

        text = export_appraise(svc.get_campaign(source))
    target = esa_campaign(world, redundancy=2, strategy="redundancy")
    url = f"/protocols/esa/campaigns/{target}/import"
    annotator = world.client("ann1@example.org")
    assert annotator.post(url, data={"file": (io.BytesIO(text.encode()), "s.csv")}).status_code == 404
    org = world.client("org@example.org")
    broken = text.replace(",TGT,", ",TGX,", 1)
    r = org.post(url, data={"file": (io.BytesIO(broken.encode()), "broken.csv")}, follow_redirects=True)
    assert r.status_code == 200 and "broken.csv:1:" in r.get_data(as_text=True)
    r = org.post(url, data={"file": (io.BytesIO(b"\xff\xfe"), "bin.csv")}, follow_redirects=True)
    assert "not UTF-8" in r.get_data(as_text=True)
    r = org.post(url, data={"file": (io.BytesIO(text.encode()), "good.csv")}, follow_redirects=True)
    page = r.get_data(as_text=True)
    assert "Imported 42 answers into 12 items" in page and 'id="esa-systems"' in page
    # not an ESA campaign: nothing there
    mqm = esa_campaign(world, start=False)
    with world.ctx():
        from enface.campaigns.models import Campaign
        from enface.extensions import db

        with db.write():
            db.session.get(Campaign, mqm).protocol = "mqm"
    assert org.post(f"/protocols/esa/campaigns/{mqm}/import").status_code == 404
