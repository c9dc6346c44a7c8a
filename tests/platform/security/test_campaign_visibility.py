"""Finding 1 of the security review: a released campaign must not publish an unreleased test set.

The campaign's public pages (results, results/data.json, exports, errors.svg) follow the test
set's visibility; a team's own pre-release leaderboard row shows no human ranking; releasing a
campaign on an unreleased test set says that the results wait for the test set's release.
"""

from __future__ import annotations

import pytest

from tests.support.campaigns import annotate_all, build_world, new_campaign, set_testset_released


@pytest.fixture
def cworld(make_app, tmp_path):
    return build_world(make_app(), tmp_path)


SYSTEM_NAMES = ("zephyr-mt", "quokka-nmt", "walrus-baseline")


def _public_urls(cid):
    return [f"/campaigns/{cid}/results", f"/campaigns/{cid}/results/data.json", f"/campaigns/{cid}/export.tsv",
            f"/campaigns/{cid}/export.json", f"/campaigns/{cid}/errors.svg"]


def test_released_mqm_campaign_on_unreleased_testset_stays_private(cworld):
    world = cworld
    cid = new_campaign(world)
    annotate_all(world, cid)
    org = world.client("org@example.org")
    resp = org.post(f"/campaigns/{cid}/release", data={"confirmed": "yes"}, follow_redirects=True)
    page = resp.get_data(as_text=True)
    # the organizer is told that the results wait for the test set
    assert "when the test set" in page and "is released" in page, page[:3000]
    anonymous = world.client()
    other_team = world.client("alder-ann@example.org")   # a participant of team Alder
    annotator = world.client("ann3@example.org")
    for client in (anonymous, other_team, annotator):
        for url in _public_urls(cid):
            r = client.get(url)
            assert r.status_code == 404, (url, r.status_code)
            body = r.get_data(as_text=True)
            for name in SYSTEM_NAMES:
                assert name not in body, (url, name)
    # organizers still see everything
    for url in _public_urls(cid):
        assert org.get(url).status_code == 200, url
    # the test set's release makes the results public
    set_testset_released(world)
    for url in _public_urls(cid):
        r = anonymous.get(url)
        assert r.status_code == 200, (url, r.status_code)
    assert "zephyr-mt" in anonymous.get(f"/campaigns/{cid}/results").get_data(as_text=True)
    # and hiding the test set again hides them again
    set_testset_released(world, released=False)
    assert anonymous.get(f"/campaigns/{cid}/results").status_code == 404


def test_team_pre_release_row_shows_no_human_rank(cworld):
    world = cworld
    cid = new_campaign(world)
    annotate_all(world, cid)
    org = world.client("org@example.org")
    assert org.post(f"/campaigns/{cid}/release", data={"confirmed": "yes"}).status_code == 302
    alder = world.client("alder-ann@example.org")
    board = alder.get(f"/leaderboard/{world.testset_id}.json")
    assert board.status_code == 200
    rows = board.get_json()["rows"]
    assert [r["system"] for r in rows] == ["zephyr-mt"]           # its own row only
    assert rows[0]["mqm"] is None, rows[0]["mqm"]
    assert board.get_json()["order_by"] != "mqm"
    html = alder.get(f"/leaderboard/{world.testset_id}").get_data(as_text=True)
    assert "human evaluation: rank" not in html and "Official human ranking" not in html
    with world.ctx():
        from enface.extensions import db
        from enface.models import User
        from enface.services import accounts

        _tok, secret = accounts.issue_token(db.session.get(User, world.users["alder-ann@example.org"]))
    api = world.client().get(f"/api/v1/testsets/{world.testset_id}/leaderboard",
                             headers={"Authorization": f"Bearer {secret}"})
    assert [r["system"] for r in api.get_json()["rows"]] == ["zephyr-mt"]
    assert all(r["mqm"] is None for r in api.get_json()["rows"])
    csv = alder.get(f"/leaderboard/{world.testset_id}.csv").get_data(as_text=True)
    assert "MQM" not in csv
    # organizers see the column before the release of the test set
    rows = org.get(f"/leaderboard/{world.testset_id}.json").get_json()["rows"]
    assert any(r["mqm"] for r in rows)


def test_released_reader_study_follows_the_testset(make_app, tmp_path):
    from tests.protocols.reader.reader_helpers import build_reader_world, new_study

    world = build_reader_world(make_app(), tmp_path)
    cid = new_study(world)
    # Released as the release would leave it (a frozen snapshot); the route's rule is what is tested here.
    with world.ctx():
        from enface.campaigns.models import Campaign
        from enface.extensions import db

        with db.write():
            camp = db.session.get(Campaign, cid)
            camp.state = "released"
            camp.results = {"empty": True}
    anonymous = world.client()
    urls = [f"/campaigns/{cid}/results", f"/campaigns/{cid}/results/data.json", f"/campaigns/{cid}/export.jsonl"]
    for url in urls:
        assert anonymous.get(url).status_code == 404, url
    assert world.client("org@example.org").get(f"/campaigns/{cid}/export.jsonl").status_code == 200
