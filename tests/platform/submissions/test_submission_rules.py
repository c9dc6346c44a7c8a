"""The submission rules, tried from every side: one primary, two contrastive, quotas, the deadline."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from tests.support.testkit import assert_api_error, system_files, upload


def auth(token):
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def quiet_app(make_app):
    """Jobs go to the (SQLite) broker and no worker runs: submissions stay 'received'. Rules need no scores."""
    return make_app(JOBS="celery")


@pytest.fixture
def quiet(quiet_app):
    from tests.support.testkit import World

    world = World(quiet_app)
    ts = world.testset(quota_per_day=None, quota_total=None)
    _uid, token = world.team_with_token("cap@a.org", "Team A")
    return quiet_app.test_client(), world, ts, token


def test_second_primary_is_refused_with_how_to_switch(quiet):
    client, _world, ts, token = quiet
    first = upload(client, ts, token, system_name="one")
    assert first.status_code == 202
    err = assert_api_error(upload(client, ts, token, system_name="two"), 409, "primary_exists")
    assert "contrastive" in err["message"] and "Make primary" in err["message"] and "withdraw" in err["message"]
    assert err["details"]["primary"] == first.get_json()["id"]


def test_fourth_submission_is_refused(quiet):
    client, _world, ts, token = quiet
    assert upload(client, ts, token, label="primary", system_name="p").status_code == 202
    assert upload(client, ts, token, label="contrastive", system_name="c1").status_code == 202
    assert upload(client, ts, token, label="contrastive", system_name="c2").status_code == 202
    err = assert_api_error(upload(client, ts, token, label="contrastive", system_name="c3"), 409, "contrastive_limit")
    assert "two contrastive" in err["message"]
    assert_api_error(upload(client, ts, token, label="primary", system_name="p2"), 409, "primary_exists")


def test_teams_are_independent(quiet):
    client, world, ts, token = quiet
    _uid, other = world.team_with_token("cap@b.org", "Team B")
    assert upload(client, ts, token).status_code == 202
    assert upload(client, ts, other).status_code == 202
    # A team mate shares the team's slots.
    mate = world.token(world.user("mate@a.org", team="Team A"))
    assert_api_error(upload(client, ts, mate), 409, "primary_exists")


def test_withdraw_frees_the_slot(quiet):
    client, _world, ts, token = quiet
    sid = upload(client, ts, token).get_json()["id"]
    assert_api_error(upload(client, ts, token), 409)
    resp = client.post(f"/api/v1/submissions/{sid}/withdraw", headers=auth(token))
    assert resp.status_code == 200 and resp.get_json()["withdrawn"] is True
    assert_api_error(client.post(f"/api/v1/submissions/{sid}/withdraw", headers=auth(token)), 409,
                     "already_withdrawn")
    assert upload(client, ts, token, system_name="again").status_code == 202


def test_make_primary_swaps(quiet):
    client, _world, ts, token = quiet
    p = upload(client, ts, token, label="primary", system_name="p").get_json()["id"]
    c1 = upload(client, ts, token, label="contrastive", system_name="c1").get_json()["id"]
    c2 = upload(client, ts, token, label="contrastive", system_name="c2").get_json()["id"]
    resp = client.post(f"/api/v1/submissions/{c2}/primary", headers=auth(token))
    assert resp.status_code == 200 and resp.get_json()["label"] == "primary"
    labels = {s: client.get(f"/api/v1/submissions/{s}", headers=auth(token)).get_json()["label"]
              for s in (p, c1, c2)}
    assert labels == {p: "contrastive", c1: "contrastive", c2: "primary"}
    # Still exactly one primary and two contrastive: nothing more fits.
    assert_api_error(upload(client, ts, token, label="contrastive"), 409, "contrastive_limit")
    # Making the primary primary again is a no-op; making a withdrawn one primary is refused.
    assert client.post(f"/api/v1/submissions/{c2}/primary", headers=auth(token)).status_code == 200
    client.post(f"/api/v1/submissions/{c1}/withdraw", headers=auth(token))
    assert_api_error(client.post(f"/api/v1/submissions/{c1}/primary", headers=auth(token)), 409, "not_switchable")


def test_make_primary_without_a_primary(quiet):
    client, _world, ts, token = quiet
    c = upload(client, ts, token, label="contrastive").get_json()["id"]
    assert client.post(f"/api/v1/submissions/{c}/primary", headers=auth(token)).get_json()["label"] == "primary"
    assert upload(client, ts, token, label="contrastive").status_code == 202


def test_other_team_cannot_change_or_see(quiet):
    client, world, ts, token = quiet
    _uid, other = world.team_with_token("cap@b.org", "Team B")
    sid = upload(client, ts, token, label="contrastive").get_json()["id"]
    for path in (f"/api/v1/submissions/{sid}/withdraw", f"/api/v1/submissions/{sid}/primary"):
        assert_api_error(client.post(path, headers=auth(other)), 404, "not_found")
    assert_api_error(client.get(f"/api/v1/submissions/{sid}", headers=auth(other)), 404, "not_found")
    assert_api_error(client.get(f"/api/v1/submissions/{sid}"), 404, "not_found")
    assert client.get(f"/api/v1/submissions/{sid}", headers=auth(token)).status_code == 200


def test_deadline(quiet):
    client, world, ts, token = quiet
    sid = upload(client, ts, token, label="contrastive").get_json()["id"]
    world.settings(ts, deadline=datetime.now(timezone.utc) - timedelta(minutes=1))
    err = assert_api_error(upload(client, ts, token), 403, "deadline_passed")
    assert "deadline" in err["message"]
    assert_api_error(client.post(f"/api/v1/submissions/{sid}/withdraw", headers=auth(token)), 403, "deadline_passed")
    assert_api_error(client.post(f"/api/v1/submissions/{sid}/primary", headers=auth(token)), 403, "deadline_passed")
    listed = client.get(f"/api/v1/testsets/{ts}").get_json()
    assert listed["open"] is False and listed["deadline"]
    # Moving the deadline into the future opens it again.
    world.settings(ts, deadline=datetime.now(timezone.utc) + timedelta(hours=1))
    assert upload(client, ts, token).status_code == 202


def test_not_open_yet(quiet):
    client, world, ts, token = quiet
    world.settings(ts, opens_at=datetime.now(timezone.utc) + timedelta(days=1))
    assert_api_error(upload(client, ts, token), 403, "not_open")


def test_total_quota(quiet):
    client, world, ts, token = quiet
    world.settings(ts, quota_total=2, quota_per_day=None)
    a = upload(client, ts, token, label="primary").get_json()["id"]
    assert upload(client, ts, token, label="contrastive").status_code == 202
    err = assert_api_error(upload(client, ts, token, label="contrastive"), 429, "quota_exceeded")
    assert err["details"] == {"quota": "total", "limit": 2}
    # Withdrawn submissions do not count.
    client.post(f"/api/v1/submissions/{a}/withdraw", headers=auth(token))
    assert upload(client, ts, token, label="contrastive").status_code == 202


def test_daily_quota(quiet):
    client, world, ts, token = quiet
    world.settings(ts, quota_total=None, quota_per_day=1)
    assert upload(client, ts, token, label="primary").status_code == 202
    err = assert_api_error(upload(client, ts, token, label="contrastive"), 429, "quota_exceeded")
    assert "00:00 UTC" in err["message"]


def test_refusal_writes_nothing(quiet, tmp_path):
    """A refused upload leaves no row and no file behind."""
    from enface.extensions import db
    from enface.models import QuotaUsage, Submission, SubmissionEvent, SubmissionFile
    from sqlalchemy import func, select

    client, world, ts, token = quiet
    world.settings(ts, quota_total=5)
    assert upload(client, ts, token).status_code == 202
    app = world.app
    uploads = tmp_path / "data" / "uploads"
    before = sorted(p.name for p in uploads.iterdir())
    other = [("jade-lantern.1.txt", b"something else\n")]
    assert_api_error(upload(client, ts, token, files=other), 409)
    with app.app_context():
        s = db.session
        assert s.scalar(select(func.count()).select_from(Submission)) == 1
        assert s.scalar(select(func.count()).select_from(SubmissionFile)) == 3
        assert s.scalar(select(func.count()).select_from(SubmissionEvent)) == 1
        assert s.scalar(select(QuotaUsage.used).where(QuotaUsage.period == "total")) == 1
    assert sorted(p.name for p in uploads.iterdir()) == before
    assert list((uploads / "tmp").iterdir()) == []


def test_invalid_and_failed_give_the_slot_and_quota_back(world, client):
    """With eager jobs: a rejected upload becomes 'invalid' and stops counting."""
    ts = world.testset(quota_total=1)
    _uid, token = world.team_with_token("cap@a.org", "Team A")
    bad = upload(client, ts, token, files=system_files("broken-mt")).get_json()["id"]
    assert client.get(f"/api/v1/submissions/{bad}", headers=auth(token)).get_json()["state"] == "invalid"
    good = upload(client, ts, token)
    assert good.status_code == 202
    assert client.get(good.get_json()["url"], headers=auth(token)).get_json()["state"] == "scored"


def test_organizer_baseline(world, client):
    ts = world.testset()
    org = world.token(world.user("org@x.org", role="organizer"))
    for i in range(4):   # baselines take no slot and no quota
        resp = upload(client, ts, org, label="baseline", system_name=f"base{i}", files=system_files("literal-mt"))
        assert resp.status_code == 202
    sub = client.get(resp.get_json()["url"], headers=auth(org)).get_json()
    assert sub["baseline"] is True and sub["team"] == "Organizers" and sub["state"] == "scored"
    board = client.get(f"/api/v1/testsets/{ts}/leaderboard", headers=auth(org)).get_json()
    assert {r["group"] for r in board["rows"]} == {"baseline"} and len(board["rows"]) == 4


def test_participant_without_team(world, client):
    ts = world.testset()
    token = world.token(world.user("solo@x.org"))
    assert_api_error(upload(client, ts, token), 403, "no_team")
