"""Security rules, each with a test that tries to break it."""

from __future__ import annotations

import re

import pytest

from tests.support import ROOT
from tests.support.testkit import PASSWORD, assert_api_error, login, system_files, upload


def auth(token):
    return {"Authorization": f"Bearer {token}"}


XSS = '<script>alert("x")</script><img src=x onerror=alert(1)>'


def test_csrf_less_form_posts_are_rejected(make_app, world):
    app = make_app(WTF_CSRF_ENABLED=True)
    from tests.support.testkit import World

    w = World(app)
    ts = w.testset()
    w.user("cap@a.org", team="Team A")
    client = app.test_client()
    # Log in properly (with the token from the form), then try state changes without one.
    page = client.get("/auth/login").get_data(as_text=True)
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page).group(1)
    assert client.post("/auth/login", data={"email": "cap@a.org", "password": PASSWORD,
                                            "csrf_token": token}).status_code == 302
    files = [(__import__("io").BytesIO(c), n) for n, c in system_files()]
    for path, data in [
        (f"/testsets/{ts}/submit", {"label": "primary", "constrained": "constrained", "system_name": "x",
                                    "files": files}),
        ("/auth/tokens", {"name": "t"}),
        ("/team/invite-code", {}),
        ("/auth/logout", {}),
        ("/auth/password", {"current_password": PASSWORD, "password": "x" * 12, "confirm": "x" * 12}),
    ]:
        resp = client.post(path, data=data, content_type="multipart/form-data")
        assert resp.status_code == 400, (path, resp.status_code)
        assert "did not come from this site" in resp.get_data(as_text=True)
    with app.app_context():
        from enface.extensions import db
        from enface.models import ApiToken, Submission
        from sqlalchemy import func, select

        assert db.session.scalar(select(func.count()).select_from(Submission)) == 0
        assert db.session.scalar(select(func.count()).select_from(ApiToken)) == 0
    # Still logged in: the logout without a token did nothing.
    assert "Log out" in client.get("/").get_data(as_text=True)
    # The API needs no CSRF token: it takes bearer tokens, never the session cookie.
    resp = client.post(f"/api/v1/testsets/{ts}/submissions", data={"label": "primary", "system_name": "x"})
    assert_api_error(resp, 401, "unauthorized")


def test_xss_in_system_name_and_description_is_escaped(client, world):
    ts = world.testset(released=True)
    _uid, token = world.team_with_token("cap@a.org", "Team <b>A</b>")
    sid = upload(client, ts, token, system_name=XSS[:100], description=XSS + "\nsecond line").get_json()["id"]
    login(client, "cap@a.org")
    pages = [f"/submissions/{sid}", f"/leaderboard/{ts}", "/submissions", f"/testsets/{ts}", "/team/"]
    for path in pages:
        html = client.get(path).get_data(as_text=True)
        assert "<script>alert" not in html and "<img src=x" not in html, path
        assert "<b>A</b>" not in html, path
    html = client.get(f"/submissions/{sid}").get_data(as_text=True)
    assert "&lt;script&gt;alert(" in html
    # JSON carries the text as data; the page's script never injects it as HTML.
    assert client.get(f"/leaderboard/{ts}.json").get_json()["rows"][0]["system"] == XSS[:100]
    js = (ROOT / "platform/enface/static/leaderboard.js").read_text()
    assert "innerHTML" not in js
    csp = client.get(f"/leaderboard/{ts}").headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp


def test_csv_injection_is_neutralised(client, world):
    ts = world.testset(released=True)
    _uid, token = world.team_with_token("cap@a.org", "=HYPERLINK(1)")
    upload(client, ts, token, system_name="@SUM(A1)")
    csv = client.get(f"/leaderboard/{ts}.csv").get_data(as_text=True)
    assert "'=HYPERLINK(1)" in csv and "'@SUM(A1)" in csv


def test_another_teams_submission_by_id(client, world):
    ts = world.testset()
    _a, token_a = world.team_with_token("cap@a.org", "Team A")
    world.user("cap@b.org", team="Team B")
    sid = upload(client, ts, token_a).get_json()["id"]
    login(client, "cap@b.org")
    assert client.get(f"/submissions/{sid}").status_code == 404
    assert client.post(f"/submissions/{sid}/withdraw").status_code == 404
    assert client.post(f"/submissions/{sid}/primary").status_code == 404
    assert "my-system" not in client.get("/submissions").get_data(as_text=True)
    assert "my-system" not in client.get(f"/testsets/{ts}").get_data(as_text=True)
    # After release the scored system is public, but its report and files stay with its team.
    world.settings(ts, released=True)
    html = client.get(f"/submissions/{sid}").get_data(as_text=True)
    assert "my-system" in html and "Validation report" not in html and "jade-lantern.1.txt" not in html
    assert client.post(f"/submissions/{sid}/withdraw").status_code == 403
    body = client.get(f"/api/v1/submissions/{sid}").get_json()
    assert body["report"] is None


def test_leaderboard_before_release(client, world):
    ts = world.testset()
    _a, token_a = world.team_with_token("cap@a.org", "Team A")
    _b, token_b = world.team_with_token("cap@b.org", "Team B")
    upload(client, ts, token_a, system_name="alpha-sys")
    upload(client, ts, token_b, system_name="beta-sys", files=system_files("weak-mt"))
    # The public: nothing, in every form.
    for path in (f"/leaderboard/{ts}", f"/leaderboard/{ts}.csv", f"/leaderboard/{ts}.signatures.csv",
                 f"/leaderboard/{ts}.json"):
        assert client.get(path).status_code == 404
    assert_api_error(client.get(f"/api/v1/testsets/{ts}/leaderboard"), 404, "not_found")
    # A team: only its own rows.
    rows = client.get(f"/api/v1/testsets/{ts}/leaderboard", headers=auth(token_a)).get_json()["rows"]
    assert [r["system"] for r in rows] == ["alpha-sys"]
    login(client, "cap@b.org")
    html = client.get(f"/leaderboard/{ts}").get_data(as_text=True)
    assert "beta-sys" in html and "alpha-sys" not in html
    assert "alpha-sys" not in client.get(f"/leaderboard/{ts}.csv").get_data(as_text=True)
    # Organizers see all; after release everyone does.
    org = world.token(world.user("org@x.org", role="organizer"))
    assert len(client.get(f"/api/v1/testsets/{ts}/leaderboard", headers=auth(org)).get_json()["rows"]) == 2
    world.settings(ts, released=True)
    client.post("/auth/logout")
    anon = client.get(f"/api/v1/testsets/{ts}/leaderboard").get_json()
    assert anon["released"] is True and {r["system"] for r in anon["rows"]} == {"alpha-sys", "beta-sys"}


def test_references_are_never_public_before_release(client, world):
    from tests.support.testkit import DEMO

    ts = world.testset()
    world.user("cap@a.org", team="Team A")
    ref_line = (DEMO / "testset" / "ref1" / "mountain-inn.txt").read_text().splitlines()[3]
    login(client, "cap@a.org")
    import io
    import zipfile

    data = client.get(f"/testsets/{ts}/source.zip").data
    names = zipfile.ZipFile(io.BytesIO(data)).namelist()
    assert any("/source/" in n for n in names) and not any("/ref" in n for n in names)
    for path in (f"/testsets/{ts}", f"/api/v1/testsets/{ts}", "/api/v1/testsets"):
        assert ref_line not in client.get(path).get_data(as_text=True)
    world.settings(ts, references_public=True)
    names = zipfile.ZipFile(io.BytesIO(client.get(f"/testsets/{ts}/source.zip").data)).namelist()
    assert any("/ref2/" in n for n in names)


def test_the_downloaded_test_set_loads_back_as_it_was_imported(client, world, tmp_path):
    import io
    import zipfile

    from scoring import load_testset
    from tests.support.testkit import DEMO

    ts = world.testset(references_public=True)
    world.user("cap@a.org", team="Team A")
    login(client, "cap@a.org")
    zipfile.ZipFile(io.BytesIO(client.get(f"/testsets/{ts}/source.zip").data)).extractall(tmp_path / "download")
    (folder,) = (tmp_path / "download").iterdir()
    back, original = load_testset(folder), load_testset(DEMO / "testset")
    assert (back.src_lang, back.tgt_lang) == (original.src_lang, original.tgt_lang)
    assert back.documents == original.documents


def test_sources_need_a_login(client, world):
    ts = world.testset()
    assert client.get(f"/testsets/{ts}/source.zip").status_code == 302


def test_token_revocation(client, world):
    ts = world.testset()
    uid, token = world.team_with_token("cap@a.org", "Team A")
    assert client.get("/api/v1/me", headers=auth(token)).status_code == 200
    login(client, "cap@a.org")
    page = client.get("/auth/tokens").get_data(as_text=True)
    assert token not in page   # shown once, when created; stored hashed
    with world.app.app_context():
        from enface.extensions import db
        from enface.models import ApiToken
        from sqlalchemy import select

        row = db.session.scalar(select(ApiToken))
        assert row.token_hash != token and token not in row.token_hash and row.hint == token[:10]
        token_id = row.id
    assert client.post(f"/auth/tokens/{token_id}/revoke").status_code == 302
    assert_api_error(client.get("/api/v1/me", headers=auth(token)), 401, "unauthorized")
    assert_api_error(upload(client, ts, token), 401, "unauthorized")
    # Another user cannot revoke someone else's token.
    other_uid, other_token = world.team_with_token("cap@b.org", "Team B")
    with world.app.app_context():
        from enface.models import ApiToken

        other_id = db.session.scalar(select(ApiToken.id).where(ApiToken.user_id == other_uid))
    assert client.post(f"/auth/tokens/{other_id}/revoke").status_code == 404
    assert client.get("/api/v1/me", headers=auth(other_token)).status_code == 200


def test_new_token_is_shown_once(client, world):
    world.user("cap@a.org", team="Team A")
    login(client, "cap@a.org")
    html = client.post("/auth/tokens", data={"name": "laptop"}).get_data(as_text=True)
    secret = re.search(r'id="new-token">(enf_[^<]+)<', html).group(1)
    assert client.get("/api/v1/me", headers=auth(secret)).get_json()["email"] == "cap@a.org"
    assert secret not in client.get("/auth/tokens").get_data(as_text=True)


def test_login_rate_limit(make_app):
    from tests.support.testkit import World

    app = make_app(RATELIMIT_ENABLED=True, LOGIN_RATE_LIMIT="3 per minute")
    World(app).user("cap@a.org")
    client = app.test_client()
    codes = [client.post("/auth/login", data={"email": "cap@a.org", "password": "wrong"}).status_code
             for _ in range(5)]
    assert codes[:3] == [200, 200, 200] and codes[3:] == [429, 429]
    assert client.get("/auth/login").status_code == 200   # only POSTs are limited


def test_register_rate_limit(make_app):
    app = make_app(RATELIMIT_ENABLED=True, REGISTER_RATE_LIMIT="2 per minute")
    client = app.test_client()
    codes = [client.post("/auth/register", data={"email": f"u{i}@x.org", "password": "p" * 12,
                                                 "confirm": "p" * 12}).status_code for i in range(3)]
    assert codes[-1] == 429


def test_password_change_logs_out_other_sessions(app, world):
    world.user("cap@a.org", team="Team A")
    a, b = app.test_client(), app.test_client()
    login(a, "cap@a.org")
    login(b, "cap@a.org")
    assert b.get("/submissions").status_code == 200
    resp = a.post("/auth/password", data={"current_password": PASSWORD, "password": "new password 123",
                                          "confirm": "new password 123"})
    assert resp.status_code == 302
    assert a.get("/submissions").status_code == 200          # this session continues
    assert b.get("/submissions").status_code == 302          # the other one is logged out
    assert login(b, "cap@a.org", "new password 123").status_code == 302


def test_wrong_current_password(client, world):
    world.user("cap@a.org")
    login(client, "cap@a.org")
    html = client.post("/auth/password", data={"current_password": "nope", "password": "new password 123",
                                               "confirm": "new password 123"}).get_data(as_text=True)
    assert "current password is wrong" in html


def test_reset_link(client, world):
    uid = world.user("cap@a.org")
    world.user("org@x.org", role="organizer")
    login(client, "org@x.org")
    html = client.post(f"/admin/users/{uid}/reset-link").get_data(as_text=True)
    link = re.search(r"(http://localhost/auth/reset/[^<\s]+)", html).group(1)
    client.post("/auth/logout")
    path = link.replace("http://localhost", "")
    assert client.post(path, data={"password": "brand new pass", "confirm": "brand new pass"}).status_code == 302
    assert login(client, "cap@a.org", "brand new pass").status_code == 302
    client.post("/auth/logout")
    assert client.get(path).status_code == 400   # used once


def test_open_redirect_is_refused(client, world):
    world.user("cap@a.org")
    for target in ("https://evil.example/", "//evil.example/", "/\\evil.example"):
        resp = client.post(f"/auth/login?next={target}", data={"email": "cap@a.org", "password": PASSWORD})
        assert resp.status_code == 302 and "evil" not in resp.headers["Location"]
    client.post("/auth/logout")
    resp = client.post("/auth/login?next=/submissions", data={"email": "cap@a.org", "password": PASSWORD})
    assert resp.headers["Location"] == "/submissions"


def test_organizer_pages_are_for_organizers(client, world):
    world.user("cap@a.org", team="Team A")
    assert client.get("/admin/").status_code == 302
    login(client, "cap@a.org")
    for path in ("/admin/", "/admin/users", "/admin/testsets/import"):
        assert client.get(path).status_code == 404
    assert client.post("/admin/sweep").status_code == 404


def test_participants_cannot_upload_baselines_through_the_form(client, world):
    ts = world.testset()
    world.user("cap@a.org", team="Team A")
    login(client, "cap@a.org")
    import io

    data = {"label": "baseline", "constrained": "constrained", "system_name": "x",
            "files": [(io.BytesIO(c), n) for n, c in system_files()]}
    resp = client.post(f"/testsets/{ts}/submit", data=data, content_type="multipart/form-data")
    assert resp.status_code == 400


def test_security_headers(client):
    resp = client.get("/")
    assert resp.headers["X-Frame-Options"] == "DENY"
    assert resp.headers["X-Content-Type-Options"] == "nosniff"


@pytest.mark.parametrize("path", ["/submissions/abc", "/leaderboard/999", "/testsets/999", "/submissions/999",
                                  "/nope", "/submissions/99999999999999999999999", "/api/v1/submissions/2147483648",
                                  "/api/v1/testsets/-1", "/leaderboard/2147483647.csv"])
def test_no_500_on_bad_paths(client, path):
    assert client.get(path).status_code == 404


def test_secret_key_is_generated_once_and_kept_private(tmp_path, monkeypatch):
    import stat

    from enface.config import Config

    for key in ("ENFACE_SECRET_KEY", "ENFACE_DATABASE_URL"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("ENFACE_DATA_DIR", str(tmp_path / "inst"))
    monkeypatch.setenv("ENFACE_MAX_UPLOAD_BYTES", "12345")
    first = Config.from_env().finalize()
    second = Config.from_env().finalize()
    path = tmp_path / "inst" / "secret_key"
    assert first["SECRET_KEY"] == second["SECRET_KEY"] == path.read_text().strip()
    assert len(first["SECRET_KEY"]) >= 64
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert first["MAX_UPLOAD_BYTES"] == 12345 and first["MAX_CONTENT_LENGTH"] > 12345
    assert first["SQLALCHEMY_DATABASE_URI"] == f"sqlite:///{tmp_path / 'inst' / 'enface.sqlite'}"
    assert first["CELERY_BROKER_URL"] == f"sqla+sqlite:///{tmp_path / 'inst' / 'broker.sqlite'}"
    assert first["JOBS"] == "celery" and first["WTF_CSRF_ENABLED"] and first["RATELIMIT_ENABLED"]
    monkeypatch.setenv("ENFACE_SECRET_KEY", "from-the-environment")
    assert Config.from_env().finalize()["SECRET_KEY"] == "from-the-environment"
