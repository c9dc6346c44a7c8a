"""A database that refuses connections answers 503 with a sentence and Retry-After, never a bare 500
(found by the fault harness: PostgreSQL stopped for 5 s gave the annotation API 500 "internal error")."""

from __future__ import annotations

import pytest
from sqlalchemy.exc import OperationalError

from tests.support.testkit import assert_api_error


@pytest.fixture
def refusing(app, monkeypatch):
    from enface.services import testsets

    def refuse(*_args, **_kwargs):
        raise OperationalError("SELECT 1", {}, Exception("connection refused"))

    monkeypatch.setattr(testsets, "list_testsets", refuse)
    return app.test_client()


def test_api_says_the_database_is_unavailable(refusing):
    resp = refusing.get("/api/v1/testsets")
    err = assert_api_error(resp, 503, "database_unavailable")
    assert "try again" in err["message"]
    assert resp.headers["Retry-After"] == "5"


def test_page_says_the_database_is_unavailable(refusing):
    resp = refusing.get("/leaderboard/")
    assert resp.status_code == 503, resp.status_code
    assert "try again in a few seconds" in resp.get_data(as_text=True)
    assert resp.headers["Retry-After"] == "5"


def test_other_errors_stay_500(app, monkeypatch):
    from enface.services import testsets

    monkeypatch.setattr(testsets, "list_testsets", lambda *a, **k: 1 / 0)
    assert_api_error(app.test_client().get("/api/v1/testsets"), 500, "internal")
