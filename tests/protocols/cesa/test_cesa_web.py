"""The organizer's cESA pages: the new-campaign form (only the settings cESA has), the start with a
stored order per annotator, and the CLI's create."""

from __future__ import annotations


def _form(world, **changes):
    data = {"testset": str(world.testset_id), "protocol": "cesa", "name": "Web cESA", "strategy": "redundancy",
            "redundancy": "2", "docs_mode": "ranges", "ranges": "river.1", "sample_docs": "2",
            "sample_words": "0", "seed": "3", "significance_test": "mannwhitney", "ranking_by": "score",
            "guidelines": "", "instructions": "",
            "systems": [str(world.subs["zephyr-mt"]), str(world.subs["quokka-nmt"])], "references": ["1"]}
    data.update(changes)
    return data


def _campaign(world, name):
    from enface.campaigns.models import Campaign
    from enface.extensions import db
    from sqlalchemy import select

    return db.session.scalar(select(Campaign).where(Campaign.name == name))


def test_the_new_campaign_form_creates_a_cesa_campaign(world):
    org = world.client("org@example.org")
    page = org.get(f"/campaigns/new?testset={world.testset_id}&protocol=cesa")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and 'id="cesa-new"' in html and 'name="attention_share"' not in html
    assert "<legend>Systems</legend>" in html and 'name="ranges"' in html   # (the scope fields ESA shares)
    r = org.post("/campaigns/new", data=_form(world))
    assert r.status_code in (302, 303), r.get_data(as_text=True)[:500]
    with world.ctx():
        camp = _campaign(world, "Web cESA")
        assert camp.protocol == "cesa" and camp.settings["attention_share"] == 0.0
        assert len(camp.versions) == 3          # two systems and reference 1, side by side
        cid = camp.id
    dash = org.get(f"/campaigns/{cid}")
    assert dash.status_code == 200 and "Contrastive ESA" in dash.get_data(as_text=True)


def test_a_single_version_is_refused_at_the_start(world):
    from enface.services import ServiceError

    from tests.support.campaigns import new_campaign

    try:
        new_campaign(world, protocol="cesa", strategy="redundancy", redundancy=1, systems=["zephyr-mt"],
                     ranges="river.1", settings_override={})
    except ServiceError as exc:
        assert exc.code == "too_few_versions"
    else:
        raise AssertionError("a one-version cESA campaign started")


def test_a_cesa_campaign_from_the_command_line(world, database_url, tmp_path):
    import json

    from click.testing import CliRunner
    from enface.commands import main

    env = {"ENFACE_DATABASE_URL": database_url, "ENFACE_DATA_DIR": str(tmp_path / "data"),
           "ENFACE_SECRET_KEY": "cli-test"}
    run = CliRunner().invoke
    r = run(main, ["campaign", "create", "--help"])
    assert r.exit_code == 0 and "cesa: Contrastive ESA" in r.output
    r = run(main, ["campaign", "create", "--protocol", "cesa", "--testset", str(world.testset_id), "--name", "CLI cESA",
                   "--system", str(world.subs["zephyr-mt"]), "--system", str(world.subs["walrus-baseline"]),
                   "--reference", "ref1", "--range", "river.1", "--seed", "5"], env=env)
    assert r.exit_code == 0, r.output
    assert "contrastive ESA, 2 systems, reference 1 side by side" in r.output
    cid = int(r.output.strip().splitlines()[-1])
    r = run(main, ["campaign", "create", "--protocol", "cesa", "--testset", str(world.testset_id), "--name", "Bad",
                   "--attention", "0.2"], env=env)
    assert r.exit_code != 0 and "not of cesa ones" in r.output
    r = run(main, ["campaign", "status", str(cid), "--json"], env=env)
    assert r.exit_code == 0, r.output
    status = json.loads(r.output)
    assert status["protocol"] == "cesa" and status["state"] == "draft"
