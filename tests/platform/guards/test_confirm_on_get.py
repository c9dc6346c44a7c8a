"""A confirmation page's URL answers a GET with the confirmation again (issue 15: a reload gave 405), and a
GET never acts, even with ``confirmed=yes`` in its query string."""

from __future__ import annotations

from tests.support.campaigns import build_world, new_campaign
from tests.support.testkit import login, upload


def test_submission_confirmations_answer_a_get(client, world):
    ts = world.testset()
    _uid, token = world.team_with_token("cap@a.org", "Team A")
    sid = upload(client, ts, token).get_json()["id"]
    login(client, "cap@a.org")
    for action, title in (("withdraw", f"Withdraw #{sid} my-system?"), ("primary", f"Make #{sid} my-system primary?")):
        page = client.get(f"/submissions/{sid}/{action}?confirmed=yes")
        html = page.get_data(as_text=True)
        assert page.status_code == 200 and title in html, (action, page.status_code)
        assert f'action="/submissions/{sid}/{action}"' in html and 'name="confirmed" value="yes"' in html
    sub = world.submission(sid)
    assert (sub.label, sub.withdrawn) == ("primary", False)     # nothing happened


def test_campaign_start_and_release_answer_a_get(app, tmp_path):
    world = build_world(app, tmp_path)
    cid = new_campaign(world, annotators=("ann1@example.org",), redundancy=1, ranges="orchard", start=False)
    org = world.client("org@example.org")
    page = org.get(f"/campaigns/{cid}/start?confirmed=yes")
    assert page.status_code == 200 and "Start Tales MQM?" in page.get_data(as_text=True)
    from enface.campaigns import services as svc

    with world.ctx():
        assert svc.get_campaign(cid).state == "draft"
    org.post(f"/campaigns/{cid}/start", data={"confirmed": "yes"})
    page = org.get(f"/campaigns/{cid}/release")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "Release Tales MQM?" in html and "no item is finished" in html
    assert world.client("ann1@example.org").get(f"/campaigns/{cid}/start").status_code == 404
