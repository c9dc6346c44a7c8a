"""Findings 5 and 7 of the security review: sessions end at the logout, cookies are bounded; operators' details
(server paths, how to configure COMET) stay with organizers; HSTS as an option; no-store on signed-in pages."""

from __future__ import annotations

import io
import json
import re
import zipfile
from datetime import datetime, timedelta, timezone
from email.utils import parsedate_to_datetime

from tests.support.campaigns import write_testset
from tests.support.testkit import PASSWORD, login, upload


def _cookie_header(resp, name):
    return next((h for h in resp.headers.getlist("Set-Cookie") if h.startswith(name + "=")), None)


# --------------------------------------------------------------------------- finding 5


def test_logout_ends_the_session_server_side(app, world):
    world.user("cap@a.org", team="Team A")
    browser = app.test_client()
    login(browser, "cap@a.org")
    assert browser.get("/submissions").status_code == 200
    saved = browser.get_cookie("session").value
    assert browser.post("/auth/logout").status_code == 302
    thief = app.test_client()
    thief.set_cookie("session", saved)
    resp = thief.get("/submissions")
    assert resp.status_code == 302 and "/auth/login" in resp.headers["Location"]
    # logging in again works, with a new session
    login(browser, "cap@a.org")
    assert browser.get("/submissions").status_code == 200


def test_remember_cookie_is_lax_bounded_and_ends_at_logout(make_app, world):
    app = make_app(REMEMBER_DAYS=14)
    from tests.support.testkit import World

    World(app).user("cap@a.org", team="Team A")
    browser = app.test_client()
    resp = browser.post("/auth/login", data={"email": "cap@a.org", "password": PASSWORD, "remember": "y"})
    header = _cookie_header(resp, "remember_token")
    assert header is not None, resp.headers.getlist("Set-Cookie")
    assert "SameSite=Lax" in header and "HttpOnly" in header
    expires = parsedate_to_datetime(re.search(r"Expires=([^;]+)", header).group(1))
    assert expires <= datetime.now(timezone.utc) + timedelta(days=14, minutes=5)
    assert expires >= datetime.now(timezone.utc) + timedelta(days=13)
    remember = browser.get_cookie("remember_token").value
    browser.post("/auth/logout")
    thief = app.test_client()
    thief.set_cookie("remember_token", remember)
    assert thief.get("/submissions").status_code == 302


def test_secure_cookies_behind_https(make_app, world):
    app = make_app(SESSION_COOKIE_SECURE=True)
    from tests.support.testkit import World

    World(app).user("cap@a.org", team="Team A")
    resp = app.test_client().post("/auth/login", data={"email": "cap@a.org", "password": PASSWORD, "remember": "y"},
                                  base_url="https://localhost")
    assert "Secure" in _cookie_header(resp, "remember_token")
    assert "Secure" in _cookie_header(resp, "session")


def test_remember_days_from_the_environment(monkeypatch, tmp_path):
    from enface.config import Config

    monkeypatch.setenv("ENFACE_REMEMBER_DAYS", "21")
    cfg = Config.from_env(DATA_DIR=tmp_path).finalize()
    assert cfg["REMEMBER_COOKIE_DURATION"] == timedelta(days=21)
    assert cfg["REMEMBER_COOKIE_SAMESITE"] == "Lax"
    monkeypatch.setenv("ENFACE_REMEMBER_DAYS", "100000")
    try:
        Config.from_env(DATA_DIR=tmp_path).finalize()
    except SystemExit as exc:
        assert "ENFACE_REMEMBER_DAYS" in str(exc)
    else:
        raise AssertionError("a remember cookie of 100000 days was accepted")


# --------------------------------------------------------------------------- finding 7


def test_import_errors_name_files_in_the_archive_not_server_paths(app, world, tmp_path):
    world.user("org@x.org", role="organizer")
    org = app.test_client()
    login(org, "org@x.org")
    folder = write_testset(tmp_path / "ts", {"doc1": ["One.", "Two."]})
    (folder / "ref1" / "doc1.txt").write_text("only one line\n")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for p in sorted(folder.rglob("*")):
            if p.is_file():
                zf.write(p, str(p.relative_to(folder)))
    resp = org.post("/admin/testsets/import", data={"task": "T", "archive": (io.BytesIO(buf.getvalue()), "t.zip")},
                    content_type="multipart/form-data")
    html = resp.get_data(as_text=True)
    assert resp.status_code == 400
    assert "ref1/doc1.txt" in html and "1 lines" in html
    assert "enface-testset-" not in html and "/tmp" not in html


def test_comet_operator_instruction_only_for_organizers(app, world, client):
    ts = world.testset()
    _uid, token = world.team_with_token("cap@a.org", "Team A")
    resp = upload(client, ts, token)
    assert resp.status_code == 202
    sub_id = resp.get_json()["id"]
    world.settings(ts, released=True)
    assert world.submission(sub_id).state == "scored"
    anonymous = app.test_client()
    member = app.test_client()
    login(member, "cap@a.org")
    pages = [f"/leaderboard/{ts}", f"/leaderboard/{ts}.json", f"/leaderboard/{ts}.csv", f"/submissions/{sub_id}",
             f"/api/v1/submissions/{sub_id}", f"/api/v1/testsets/{ts}/leaderboard"]
    for client_ in (anonymous, member):
        for url in pages:
            body = client_.get(url).get_data(as_text=True)
            assert "ENFACE_COMET_MODEL" not in body and "cannot download" not in body, url
    assert "COMET is not available" in anonymous.get(f"/submissions/{sub_id}").get_data(as_text=True)
    api = member.get(f"/api/v1/submissions/{sub_id}", headers={"Authorization": f"Bearer {token}"}).get_json()
    assert "ENFACE_COMET_MODEL" not in json.dumps(api)
    world.user("org@x.org", role="organizer")
    org = app.test_client()
    login(org, "org@x.org")
    assert "ENFACE_COMET_MODEL" in org.get(f"/submissions/{sub_id}").get_data(as_text=True)
    assert "ENFACE_COMET_MODEL" in org.get(f"/leaderboard/{ts}").get_data(as_text=True)


def test_hsts_is_an_option_off_by_default(make_app):
    assert "Strict-Transport-Security" not in make_app().test_client().get("/").headers
    resp = make_app(HSTS_SECONDS=31536000).test_client().get("/")
    assert resp.headers["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains"


def test_signed_in_pages_are_not_stored(app, world):
    world.user("cap@a.org", team="Team A")
    anonymous = app.test_client()
    assert "no-store" not in anonymous.get("/").headers.get("Cache-Control", "")
    browser = app.test_client()
    login(browser, "cap@a.org")
    for url in ("/", "/submissions", "/team/", "/auth/password", "/leaderboard/"):
        resp = browser.get(url)
        assert resp.status_code == 200, url
        assert resp.headers.get("Cache-Control") == "no-store", url
    assert "no-store" not in browser.get("/static/style.css").headers.get("Cache-Control", "")
