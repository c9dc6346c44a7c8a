"""Faults on real processes, CI-sized (the full run: ``make faults``, bench/faults.py).

A Celery worker SIGKILLed mid-scoring, gunicorn stopped (SIGTERM, then SIGKILL) while an annotator
saves marks, the database unavailable for a few seconds: no submission lost or stuck, no score
duplicated, no acknowledged mark lost (tests/support/faults.py).
"""

from __future__ import annotations

import pytest

from tests.support.faults import database_outage, kill_workers_mid_scoring, restart_web_mid_annotation
from tests.support.outages import PrivateCluster, postgres_down, sqlite_locked
from tests.support.processes import Platform
from tests.support.services import require_service


@pytest.fixture
def platform(tmp_path, database_url):
    """The processes on this test's fresh database: SQLite, or PostgreSQL in the second CI pass."""
    p = Platform.create(tmp_path / "faults", database_url)
    yield p
    p.stop_all()


def test_workers_killed_mid_scoring_lose_nothing(platform):
    result = kill_workers_mid_scoring(platform, 2)
    assert result["problems"] == [], result
    assert result["kills_mid_scoring"] == 2, result         # two workers died while scoring
    assert result["scored"] == result["submissions"] >= 2
    assert result["requeued_by_sweeper"] >= 2, result


def test_web_server_restarts_lose_no_mark(platform):
    result = restart_web_mid_annotation(platform, 2, marks_between=5)
    assert result["problems"] == [], result
    assert result["marks_lost"] == 0 and result["marks_acknowledged"] >= 15, result


@pytest.mark.sqlite_only
def test_sqlite_locked_for_seconds_loses_nothing(platform):
    """SQLite has no server to stop: an exclusive lock for 3 s stands in (writers wait, then go on)."""
    db_path = platform.database_url.removeprefix("sqlite:///")
    result = database_outage(platform, sqlite_locked(db_path), seconds=3)
    assert result["problems"] == [], result
    assert result["submission_state"] == "scored" and result["marks_acknowledged"] > 0, result


def test_postgresql_stopped_for_seconds_loses_nothing(tmp_path):
    require_service(PrivateCluster.available(), "PostgreSQL binaries (/usr/lib/postgresql/*/bin) are not installed")
    cluster = PrivateCluster()
    platform = Platform.create(tmp_path / "faults", cluster.init())
    try:
        result = database_outage(platform, postgres_down(cluster), seconds=4)
    finally:
        platform.stop_all()
        cluster.destroy()
    assert result["problems"] == [], result
    assert result["submission_state"] == "scored" and result["marks_acknowledged"] > 0, result
    # while the server was down the annotator was told to retry (503), never a bare 500
    assert "500" not in result["client_errors_seen"], result


def test_served_gunicorn_answers_every_request_without_keep_alive(platform):
    """`enface serve`'s gunicorn closes each connection after its response (no keep-alive): gthread reset
    kept-alive connections that carried a waiting request under load (bench/load.py: 2 and 7 resets a
    minute at 200 users before, 0 after)."""
    import requests

    from tests.support.processes import free_port, kill_group

    port = free_port()
    web = platform.start_web(port)
    try:
        with requests.Session() as session:
            for _ in range(3):
                resp = session.get(f"http://127.0.0.1:{port}/healthz", timeout=10)
                assert resp.status_code == 200
                assert resp.headers.get("Connection", "").lower() == "close", resp.headers
    finally:
        kill_group(web, 15)
