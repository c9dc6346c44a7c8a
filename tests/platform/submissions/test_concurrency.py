"""Concurrent requests against a real server cannot break the rules: the database decides.

Threads fire uploads at the same moment (a barrier) at werkzeug's threaded
server, and at gunicorn with several worker processes; exactly the allowed
number succeed, the others get a clean 4xx, and nothing gets a 500.
"""

from __future__ import annotations

import threading
from collections import Counter

import pytest
import requests

from tests.support.testkit import TestConfigEnv, gunicorn_server, system_files

N = 8


def fire(url: str, token: str, jobs: list[dict], files=None) -> list[requests.Response]:
    """POST every job at once (as simultaneously as threads allow)."""
    files = files or system_files()
    barrier = threading.Barrier(len(jobs))
    results: list = [None] * len(jobs)

    def run(i, fields):
        session = requests.Session()
        barrier.wait()
        try:
            results[i] = session.post(f"{url}/api/v1/testsets/{fields.pop('testset')}/submissions",
                                      headers={"Authorization": f"Bearer {fields.pop('token', token)}"},
                                      data=fields, files=[("files", (n, c)) for n, c in files], timeout=120)
        except Exception as exc:   # a connection error is a failure of the test, reported below
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i, dict(j))) for i, j in enumerate(jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in results:
        assert isinstance(r, requests.Response), r
        assert r.status_code < 500, r.text
    return results


def statuses(results) -> Counter:
    return Counter((r.status_code, r.json().get("error", {}).get("code") if r.status_code >= 400 else None)
                   for r in results)


@pytest.fixture
def served(make_app, live_server_factory):
    """The app behind a real threaded server; jobs go to the SQLite broker (no worker: rules only)."""
    from tests.support.testkit import World

    app = make_app(JOBS="celery")
    server = live_server_factory(app)
    return server.url, World(app), app


def count_active(app, label=None) -> int:
    from enface.extensions import db
    from enface.models import Submission
    from sqlalchemy import func, select

    with app.app_context():
        q = select(func.count()).select_from(Submission).where(Submission.slot.is_not(None))
        if label:
            q = q.where(Submission.label == label)
        return db.session.scalar(q)


def test_concurrent_primaries(served):
    url, world, app = served
    ts = world.testset(quota_per_day=None, quota_total=None)
    _uid, token = world.team_with_token("cap@a.org", "Team A")
    jobs = [{"testset": ts, "label": "primary", "system_name": f"p{i}", "constrained": "true"} for i in range(N)]
    got = statuses(fire(url, token, jobs))
    assert got == Counter({(202, None): 1, (409, "primary_exists"): N - 1}), got
    assert count_active(app, "primary") == 1


def test_concurrent_contrastives(served):
    url, world, app = served
    ts = world.testset(quota_per_day=None, quota_total=None)
    _uid, token = world.team_with_token("cap@a.org", "Team A")
    jobs = [{"testset": ts, "label": "contrastive", "system_name": f"c{i}"} for i in range(N)]
    got = statuses(fire(url, token, jobs))
    assert got == Counter({(202, None): 2, (409, "contrastive_limit"): N - 2}), got
    assert count_active(app, "contrastive") == 2


def test_concurrent_uploads_race_the_quota(served):
    url, world, app = served
    ts = world.testset(quota_per_day=None, quota_total=2)
    _uid, token = world.team_with_token("cap@a.org", "Team A")
    # Labels mixed: slots would allow 3, the quota allows 2.
    jobs = [{"testset": ts, "label": "primary" if i % 3 == 0 else "contrastive", "system_name": f"s{i}"}
            for i in range(N)]
    results = fire(url, token, jobs)
    got = statuses(results)
    assert sum(n for (code, _), n in got.items() if code == 202) == 2, got
    # The rest: the quota, or, for a primary once another primary holds the slot, the slot (which of the
    # two checks a request meets first depends on the race: every primary but one may get the slot refusal).
    primaries = sum(job["label"] == "primary" for job in jobs)
    assert set(got) <= {(202, None), (429, "quota_exceeded"), (409, "primary_exists")}, got
    assert got[(409, "primary_exists")] <= primaries - 1, got
    assert got[(429, "quota_exceeded")] + got[(409, "primary_exists")] == N - 2, got
    assert count_active(app) == 2
    from enface.extensions import db
    from enface.models import QuotaUsage
    from sqlalchemy import select

    with app.app_context():
        assert db.session.scalar(select(QuotaUsage.used).where(QuotaUsage.period == "total")) == 2


def test_concurrent_daily_quota_across_teams(served):
    url, world, app = served
    ts = world.testset(quota_per_day=1, quota_total=None)
    tokens = [world.team_with_token(f"cap@{t}.org", f"Team {t}")[1] for t in "ABC"]
    jobs = [{"testset": ts, "token": tokens[i % 3], "label": "contrastive", "system_name": f"s{i}"}
            for i in range(9)]
    results = fire(url, tokens[0], jobs)
    assert sum(r.status_code == 202 for r in results) == 3   # one per team
    assert count_active(app) == 3


def test_concurrent_make_primary(served):
    url, world, app = served
    ts = world.testset(quota_per_day=None, quota_total=None)
    _uid, token = world.team_with_token("cap@a.org", "Team A")
    h = {"Authorization": f"Bearer {token}"}
    ids = []
    for label in ("primary", "contrastive", "contrastive"):
        ids.append(requests.post(f"{url}/api/v1/testsets/{ts}/submissions", headers=h, timeout=60,
                                 data={"label": label, "system_name": label},
                                 files=[("files", (n, c)) for n, c in system_files()]).json()["id"])
    barrier = threading.Barrier(4)
    codes = []

    def switch(sid):
        barrier.wait()
        codes.append(requests.post(f"{url}/api/v1/submissions/{sid}/primary", headers=h, timeout=60).status_code)

    threads = [threading.Thread(target=switch, args=(s,)) for s in (ids[1], ids[2], ids[1], ids[2])]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(c in (200, 409) for c in codes), codes
    assert count_active(app, "primary") == 1 and count_active(app, "contrastive") == 2


def test_concurrent_primaries_against_gunicorn(make_app, tmp_path):
    """Several gunicorn worker processes, each with its own connections: the database still decides."""
    from tests.support.testkit import World

    app = make_app(JOBS="celery")
    world = World(app)
    ts = world.testset(quota_per_day=None, quota_total=3)
    _uid, token = world.team_with_token("cap@a.org", "Team A")
    env = TestConfigEnv(app) | {"ENFACE_JOBS": "celery"}
    with gunicorn_server(env, 3, "--threads", "4", "--worker-class", "gthread") as url:
        jobs = [{"testset": ts, "label": "primary" if i < 6 else "contrastive", "system_name": f"s{i}"}
                for i in range(12)]
        got = statuses(fire(url, token, jobs))
        assert got[(202, None)] == 3, got           # 1 primary + 2 contrastive
        assert count_active(app, "primary") == 1 and count_active(app, "contrastive") == 2



