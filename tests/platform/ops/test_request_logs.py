"""Request ids on every response, JSON-lines logs with ENFACE_LOG_FORMAT=json, and a /healthz that touches
the database once."""

from __future__ import annotations

import io
import json
import logging

import pytest


@pytest.fixture
def json_log(make_app):
    """An app in JSON mode and the lines its root handler writes."""
    from enface.ops import logs

    stream = io.StringIO()
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    handler = logs.configure_json_logging(stream=stream)   # installed first: init_app keeps it
    try:
        app = make_app(LOG_FORMAT="json")
        yield app, lambda: [json.loads(line) for line in stream.getvalue().splitlines() if line.strip()]
    finally:
        root.removeHandler(handler)
        for h in saved[0]:
            root.addHandler(h)
        root.setLevel(saved[1])


def test_every_response_has_a_request_id(client):
    first, second = client.get("/healthz"), client.get("/leaderboard/")
    assert first.headers["X-Request-ID"] != second.headers["X-Request-ID"]
    assert len(first.headers["X-Request-ID"]) == 32


def test_the_proxy_s_request_id_is_kept_when_it_is_safe(client):
    assert client.get("/healthz", headers={"X-Request-ID": "lb-7f3a.21_x"}).headers["X-Request-ID"] == "lb-7f3a.21_x"
    for bad in ("a b", "x" * 65, "<script>", "id;Set-Cookie=a", "é"):
        got = client.get("/healthz", headers={"X-Request-ID": bad}).headers["X-Request-ID"]
        assert got != bad and len(got) == 32


def test_json_lines_carry_the_request_id_and_never_the_path_s_token(json_log):
    app, read = json_log
    client = app.test_client()
    resp = client.get("/auth/reset/secret-reset-token-123", headers={"X-Request-ID": "req-1"})
    assert resp.headers["X-Request-ID"] == "req-1"
    access = [r for r in read() if r["logger"] == "enface.access"]
    assert access and access[-1]["request_id"] == "req-1"
    assert access[-1]["route"] == "/auth/reset/<token>" and access[-1]["status"] == resp.status_code
    assert access[-1]["method"] == "GET" and access[-1]["duration_ms"] >= 0
    assert "secret-reset-token-123" not in json.dumps(read())


def test_an_error_s_log_line_has_the_request_id_and_the_traceback(json_log):
    app, read = json_log

    @app.get("/boom-for-the-test")
    def boom():
        raise RuntimeError("boom")

    resp = app.test_client().get("/boom-for-the-test", headers={"X-Request-ID": "req-boom"})
    assert resp.status_code == 500
    errors = [r for r in read() if r["level"] == "ERROR"]
    assert errors and errors[-1]["request_id"] == "req-boom" and "RuntimeError: boom" in errors[-1]["exception"]


def test_a_bad_log_format_stops_the_start(monkeypatch):
    from enface.config import Config

    monkeypatch.setenv("ENFACE_LOG_FORMAT", "xml")
    with pytest.raises(SystemExit, match="ENFACE_LOG_FORMAT"):
        Config.from_env()


def test_healthz_touches_the_database_once_even_when_signed_in(app, client):
    """A load balancer polls it: one SELECT 1, and no user or session query even with a login cookie."""
    from sqlalchemy import event

    from tests.support.campaigns import fast_user

    with app.app_context():
        user_id = fast_user("poller@example.org", "participant")
    with client.session_transaction() as session:
        session["_user_id"] = f"{user_id}"
    engine = app.extensions["enface_db"][0]
    statements = []

    def seen(_conn, _cursor, statement, *_rest):
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", seen)
    try:
        resp = client.get("/healthz")
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    assert resp.status_code == 200 and resp.get_json() == {"ok": True}
    assert [s for s in statements if not s.startswith(("BEGIN", "COMMIT", "ROLLBACK"))] == ["SELECT 1"]
