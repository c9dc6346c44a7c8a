"""Finding 2 of the security review: no e-mail address is public.

The timeline of a released submission (its page and ``GET /api/v1/submissions/<id>``) names teams
and systems, never e-mail addresses; anonymous API callers get no file names and no hashes.
"""

from __future__ import annotations

import re

from tests.support.testkit import login, upload

EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+")


def _released_submission(world, client):
    ts = world.testset()
    cap = world.user("captain@alder.org", team="Alder")
    token = world.token(cap)
    resp = upload(client, ts, token, label="contrastive", system_name="alder-contrastive")
    assert resp.status_code == 202, resp.get_data(as_text=True)
    sub_id = resp.get_json()["id"]
    # the captain makes it primary, an organizer asks for a re-score, then the test set is released
    assert client.post(f"/api/v1/submissions/{sub_id}/primary", headers={"Authorization": f"Bearer {token}"}
                       ).status_code == 200
    world.user("organizer@host.org", role="organizer")
    org = world.app.test_client()
    login(org, "organizer@host.org")
    assert org.post(f"/admin/submissions/{sub_id}/rescore").status_code in (302, 303)
    world.settings(ts, released=True)
    return ts, sub_id, token


def test_public_timeline_has_no_email(app, world, client):
    _ts, sub_id, token = _released_submission(world, client)
    anonymous = app.test_client()
    page = anonymous.get(f"/submissions/{sub_id}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "Timeline" in html
    assert not EMAIL.search(html), EMAIL.search(html).group()
    assert "Alder" in html and "alder-contrastive" in html
    api = anonymous.get(f"/api/v1/submissions/{sub_id}")
    assert api.status_code == 200
    body = api.get_json()
    assert not EMAIL.search(api.get_data(as_text=True)), EMAIL.search(api.get_data(as_text=True)).group()
    assert body["timeline"] and all("@" not in e["message"] for e in body["timeline"])
    # no file names or hashes for anonymous callers
    assert body["files"] is None
    assert ".txt" not in api.get_data(as_text=True)
    assert not re.search(r"[0-9a-f]{64}", api.get_data(as_text=True))
    # another team's token gets the public view too
    other = world.token(world.user("someone@birch.org", team="Birch"))
    other_body = anonymous.get(f"/api/v1/submissions/{sub_id}",
                               headers={"Authorization": f"Bearer {other}"}).get_json()
    assert other_body["files"] is None and "@" not in str(other_body["timeline"])
    # the owning team still sees its files
    mine = anonymous.get(f"/api/v1/submissions/{sub_id}", headers={"Authorization": f"Bearer {token}"}).get_json()
    assert mine["files"] and len(mine["files"][0]["sha256"]) == 64


def test_old_events_with_emails_are_masked_for_the_public(app, world, client):
    """Events written before this fix hold e-mail addresses: the public view masks them."""
    _ts, sub_id, _token = _released_submission(world, client)
    with app.app_context():
        from enface.extensions import db
        from enface.models import SubmissionEvent

        with db.write():
            db.session.add(SubmissionEvent(submission_id=sub_id, state="scored",
                                           message="withdrawn by captain@alder.org (old message)"))
    anonymous = app.test_client()
    assert "captain@alder.org" not in anonymous.get(f"/submissions/{sub_id}").get_data(as_text=True)
    assert "captain@alder.org" not in anonymous.get(f"/api/v1/submissions/{sub_id}").get_data(as_text=True)
