"""Starting and releasing a campaign ask first; Release is disabled, and refused, while nothing is finished."""

from __future__ import annotations

import re

from tests.support.campaigns import assignments_of, finish, new_campaign, put_mark, read_all


def test_start_asks_first(world):
    cid = new_campaign(world, annotators=("ann1@example.org", "ann2@example.org"), start=False)
    org = world.client("org@example.org")
    page = org.post(f"/campaigns/{cid}/start")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "Start Tales MQM?" in html and "go to 2 annotators, 2 per item" in html
    assert 'name="confirmed" value="yes"' in html and f'href="/campaigns/{cid}"' in html      # and a way back
    assert "Start: assign items" in org.get(f"/campaigns/{cid}").get_data(as_text=True)      # still a draft
    assert org.post(f"/campaigns/{cid}/start", data={"confirmed": "yes"}).status_code == 302
    assert "items finished" in org.get(f"/campaigns/{cid}").get_data(as_text=True)


def test_release_is_disabled_and_refused_with_nothing_finished(world):
    cid = new_campaign(world, annotators=("ann1@example.org",), redundancy=1, ranges="orchard")
    org = world.client("org@example.org")
    html = org.get(f"/campaigns/{cid}").get_data(as_text=True)
    assert '<button class="small primary" type="button" disabled' in html
    assert "nothing to release yet: no item is finished" in html
    asked = org.post(f"/campaigns/{cid}/release").get_data(as_text=True)
    assert re.search(r"0 of [1-9]\d* assignments have finished work", asked) and "Nothing to release yet" in asked
    assert '<button type="submit" class="primary" disabled>' in asked
    # forcing the POST anyway is refused by the service, with the reason
    refused = org.post(f"/campaigns/{cid}/release", data={"confirmed": "yes"}, follow_redirects=True)
    assert "no item is finished yet" in refused.get_data(as_text=True)
    assert world.client().get(f"/campaigns/{cid}/results").status_code == 404


def test_release_asks_first_once_something_is_finished(world):
    cid = new_campaign(world, annotators=("ann1@example.org",), redundancy=1, ranges="orchard")
    c = world.client("ann1@example.org")
    a = assignments_of(world, cid, "ann1@example.org")[0]
    put_mark(c, a["public_id"], {"seg": 0, "start": 0, "end": 3, "category": "Style", "subcategory": "Unidiomatic",
                                 "severity": "Minor"})
    read_all(c, a["public_id"], a["segments"])
    assert finish(c, a["public_id"]).status_code == 200
    org = world.client("org@example.org")
    html = org.get(f"/campaigns/{cid}").get_data(as_text=True)
    assert "nothing to release yet" not in html
    asked = org.post(f"/campaigns/{cid}/release")
    text = asked.get_data(as_text=True)
    assert asked.status_code == 200 and "Release Tales MQM?" in text and re.search(r"[1-9]\d* of \d+ assignments", text)
    assert "disabled" not in text.split("Release Tales MQM?")[1].split("</form>")[0]
    assert "released" not in org.get(f"/campaigns/{cid}").get_data(as_text=True).split("<h1>")[1].split("</h1>")[0]
    assert org.post(f"/campaigns/{cid}/release", data={"confirmed": "yes"}).status_code == 302
    assert 'state-released' in org.get(f"/campaigns/{cid}").get_data(as_text=True)


def test_start_without_annotators_is_disabled_on_the_confirmation_page(world):
    cid = new_campaign(world, annotators=(), start=False)
    org = world.client("org@example.org")
    html = org.post(f"/campaigns/{cid}/start").get_data(as_text=True)
    assert "Add annotators first" in html and '<button type="submit" class="primary" disabled>' in html
    refused = org.post(f"/campaigns/{cid}/start", data={"confirmed": "yes"}, follow_redirects=True)
    assert "no annotators yet" in refused.get_data(as_text=True)
