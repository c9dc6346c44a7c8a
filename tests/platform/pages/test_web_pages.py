"""The pages, driven like a browser would (test client): accounts, teams, the forms, organizer pages."""

from __future__ import annotations

import io
import re
import zipfile
from datetime import datetime, timedelta, timezone

from tests.support.testkit import PASSWORD, demo_testset_zip, login, submit_form, system_files


def test_register_create_and_join_a_team(client, world):
    resp = client.post("/auth/register", data={"name": "Lin", "email": "Lin@Example.org", "password": PASSWORD,
                                               "confirm": PASSWORD})
    assert resp.status_code == 302 and resp.headers["Location"].endswith("/team/")
    html = client.post("/team/create", data={"create-name": "Lantern Lab", "create-affiliation": "Univ."},
                       follow_redirects=True).get_data(as_text=True)
    assert "Team Lantern Lab" in html and "captain" in html
    code = re.search(r'<pre class="token">([^<]+)</pre>', html).group(1)
    client.post("/auth/logout")
    client.post("/auth/register", data={"email": "su@example.org", "password": PASSWORD, "confirm": PASSWORD})
    html = client.post("/team/join", data={"join-invite_code": "wrong"}, follow_redirects=True).get_data(as_text=True)
    assert "no team has this invite code" in html
    html = client.post("/team/join", data={"join-invite_code": code}, follow_redirects=True).get_data(as_text=True)
    assert "You joined Lantern Lab" in html and "lin@example.org" not in html and "Lin" in html
    # One team per person.
    html = client.post("/team/create", data={"create-name": "Other"}, follow_redirects=True).get_data(as_text=True)
    assert "already in a team" in html


def test_register_errors(client, world):
    world.user("taken@x.org")
    cases = [({"email": "a@x.org", "password": PASSWORD, "confirm": "different"}, "the passwords differ"),
             ({"email": "a@x.org", "password": "short", "confirm": "short"}, "at least 10 characters"),
             ({"email": "TAKEN@x.org", "password": PASSWORD, "confirm": PASSWORD}, "exists"),
             ({"email": "not-an-email", "password": PASSWORD, "confirm": PASSWORD}, "valid e-mail")]
    for data, message in cases:
        html = client.post("/auth/register", data=data).get_data(as_text=True)
        assert message in html, message


def test_login_logout(client, world):
    world.user("cap@a.org")
    assert "Wrong e-mail or password" in client.post("/auth/login", data={"email": "cap@a.org",
                                                                          "password": "nope"}).get_data(as_text=True)
    assert login(client, "CAP@a.org").status_code == 302
    assert "Log out" in client.get("/").get_data(as_text=True)
    client.post("/auth/logout")
    assert "Log out" not in client.get("/").get_data(as_text=True)


def test_submit_through_the_form(client, world):
    ts = world.testset()
    world.user("cap@a.org", team="Team A")
    login(client, "cap@a.org")
    form = client.get(f"/testsets/{ts}/submit").get_data(as_text=True)
    assert 'type="file"' in form and "multiple" in form and "jade-lantern.1.txt" in form
    resp = submit_form(client, ts, description="Doc-level NMT.")
    assert resp.status_code == 302
    html = client.get(resp.headers["Location"]).get_data(as_text=True)
    assert "state-scored" in html and "45.04" in html and "nrefs:2|case:mixed" in html
    assert "Doc-level NMT." in html and "Timeline" in html and "validating the upload" in html
    assert "COMET is not available on this server" in html   # a team never sees the operator's instruction
    # A second primary: the form says how to switch.
    resp = submit_form(client, ts, "weak-mt")
    assert resp.status_code == 409
    assert "Make primary" in resp.get_data(as_text=True)
    # As contrastive it is accepted; then switch it to primary from My submissions.
    resp = submit_form(client, ts, "weak-mt", label="contrastive", constrained="unconstrained")
    weak = int(resp.headers["Location"].rsplit("/", 1)[1])
    mine = client.get("/submissions").get_data(as_text=True)
    assert "Make primary" in mine and "Withdraw" in mine
    client.post(f"/submissions/{weak}/primary", data={"back": "mine", "confirmed": "yes"})
    html = client.get(f"/submissions/{weak}").get_data(as_text=True)
    assert 'tag-primary' in html and "made primary by team Team A" in html
    client.post(f"/submissions/{weak}/withdraw", data={"confirmed": "yes"})
    assert "withdrawn by team Team A" in client.get(f"/submissions/{weak}").get_data(as_text=True)


def test_submit_a_zip_through_the_form(client, world):
    ts = world.testset()
    world.user("cap@a.org", team="Team A")
    login(client, "cap@a.org")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for n, c in system_files():
            zf.writestr(n, c)
    resp = client.post(f"/testsets/{ts}/submit", content_type="multipart/form-data",
                        data={"label": "primary", "constrained": "constrained", "system_name": "zipped",
                              "files": [(io.BytesIO(buf.getvalue()), "out.zip")]})
    assert resp.status_code == 302
    assert "state-scored" in client.get(resp.headers["Location"]).get_data(as_text=True)


def test_form_errors_are_shown(client, world):
    ts = world.testset()
    world.user("cap@a.org", team="Team A")
    login(client, "cap@a.org")
    resp = client.post(f"/testsets/{ts}/submit", content_type="multipart/form-data",
                       data={"label": "primary", "constrained": "constrained", "system_name": "x"})
    assert resp.status_code == 400 and "No output files chosen" in resp.get_data(as_text=True)
    resp = submit_form(client, ts, system_name="")
    assert resp.status_code == 400 and "This field is required" in resp.get_data(as_text=True)


def test_without_a_team(client, world):
    ts = world.testset()
    world.user("solo@x.org")
    login(client, "solo@x.org")
    assert "You need a team" in client.get(f"/testsets/{ts}/submit").get_data(as_text=True)
    resp = submit_form(client, ts)
    assert resp.status_code == 403 and "create or join a team" in resp.get_data(as_text=True)


def test_public_pages(client, world):
    ts = world.testset()
    for path in ("/", "/leaderboard/", f"/testsets/{ts}", "/auth/login", "/auth/register", "/auth/forgot"):
        assert client.get(path).status_code == 200, path
    html = client.get(f"/testsets/{ts}").get_data(as_text=True)
    assert "jade-lantern.1.txt" in html and "no deadline set yet" in html
    assert client.get("/static/style.css").status_code == 200
    assert client.get("/static/leaderboard.js").status_code == 200


def test_organizer_imports_and_configures(client, world):
    world.user("org@x.org", role="organizer")
    login(client, "org@x.org")
    resp = client.post("/admin/testsets/import", content_type="multipart/form-data",
                       data={"task": "Literary 2026", "archive": (io.BytesIO(demo_testset_zip()), "testset.zip")})
    assert resp.status_code == 302, resp.get_data(as_text=True)
    html = client.get(resp.headers["Location"]).get_data(as_text=True)
    assert "3 documents, 67 segments, 2 references" in html and "closed and hidden" in html
    ts = int(resp.headers["Location"].rstrip("/").rsplit("/", 1)[1])
    t = client.get(f"/api/v1/testsets/{ts}").get_json()
    assert t["open"] is False and t["opens_at"] is None and t["released"] is False     # an import starts so
    opens = (datetime.now(timezone.utc) - timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M")
    deadline = (datetime.now(timezone.utc) + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M")
    resp = client.post(f"/admin/testsets/{ts}", data={"opens_at": opens, "deadline": deadline, "quota_per_day": "3",
                                                      "quota_total": "", "document_level_allowed": "y",
                                                      "released": "", "references_public": "",
                                                      "description": "zh-en web novels"})
    assert resp.status_code == 302
    t = client.get(f"/api/v1/testsets/{ts}").get_json()
    assert t["quota_per_day"] == 3 and t["quota_total"] is None and t["document_level_allowed"] is True
    assert t["deadline"].startswith(deadline[:10]) and t["released"] is False and t["open"] is True
    # A broken archive is refused with the reason.
    resp = client.post("/admin/testsets/import", content_type="multipart/form-data",
                       data={"task": "T", "archive": (io.BytesIO(b"not a zip"), "x.zip")})
    assert resp.status_code == 400 and "zip" in resp.get_data(as_text=True)
    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("../evil/testset.json", "{}")
    resp = client.post("/admin/testsets/import", content_type="multipart/form-data",
                       data={"task": "T", "archive": (io.BytesIO(bomb.getvalue()), "x.zip")})
    assert resp.status_code == 400 and "leaves the archive" in resp.get_data(as_text=True)
    for path in ("/admin/", "/admin/users", f"/admin/testsets/{ts}"):
        assert client.get(path).status_code == 200


def test_organizer_sets_roles(client, world):
    uid = world.user("cap@a.org")
    world.user("org@x.org", role="organizer")
    login(client, "org@x.org")
    client.post(f"/admin/users/{uid}/role", data={"role": "annotator"})
    assert "annotator" in client.get("/admin/users").get_data(as_text=True)
    html = client.post(f"/admin/users/{uid}/role", data={"role": "admin"}, follow_redirects=True).get_data(as_text=True)
    assert "Only an admin can make admins" in html


def test_organizer_verifies_teams(client, world):
    world.user("cap@a.org", team="Team A")
    world.user("org@x.org", role="organizer")
    login(client, "org@x.org")
    with client.application.app_context():
        from enface.extensions import db
        from enface.models import Team
        from sqlalchemy import select

        team_id = db.session.scalar(select(Team.id))
    html = client.post(f"/admin/teams/{team_id}/verify", follow_redirects=True).get_data(as_text=True)
    assert "Team A is verified" in html and "Unverify" in html
