"""Helpers of the web platform's tests: users, teams and test sets in an app, uploads, logins,
API errors, the environment of a child process, a live server.
"""

from __future__ import annotations

import io
import os
import threading
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

from . import DEMO, ROOT
from .databases import TEST_DB_URL, is_postgres
from .services import require_service

PASSWORD = "correct horse battery"
#: when World.testset() opens a test set: long ago, so that any deadline a test sets comes after it
OPENED = datetime(2000, 1, 1, tzinfo=timezone.utc)

__all__ = ["DEMO", "PASSWORD", "ROOT", "TEST_DB_URL", "LiveServer", "TestConfigEnv", "World", "assert_api_error",
           "gunicorn_server", "is_postgres", "login", "require_service", "system_files", "upload", "wait_http"]


class World:
    """Shortcuts to set up users, teams, tokens and test sets in an app."""

    def __init__(self, app):
        self.app = app

    def user(self, email: str, *, role: str = "participant", team: str | None = None, captain: bool | None = None):
        from enface.services import accounts

        with self.app.app_context():
            user = accounts.create_user(email, PASSWORD, role=role)
            if team:
                t, created = accounts.get_or_create_team(team)
                accounts.add_to_team(user, t, "captain" if (created if captain is None else captain) else "member")
            return user.id

    def token(self, user_id: int) -> str:
        from enface.extensions import db
        from enface.models import User
        from enface.services import accounts

        with self.app.app_context():
            _tok, secret = accounts.issue_token(db.session.get(User, user_id))
            return secret

    def team_with_token(self, email: str, team: str) -> tuple[int, str]:
        uid = self.user(email, team=team)
        return uid, self.token(uid)

    def testset(self, path: Path = DEMO / "testset", task: str = "Demo", **settings) -> int:
        """Import a test set and open it (an import starts closed), unless ``opens_at`` says otherwise."""
        from enface.services.testsets import import_testset, update_settings

        settings.setdefault("opens_at", OPENED)
        with self.app.app_context():
            ts = import_testset(path, task)
            if settings:
                current = dict(deadline=ts.deadline, opens_at=ts.opens_at, quota_per_day=ts.quota_per_day,
                               quota_total=ts.quota_total, document_level_allowed=ts.document_level_allowed,
                               released=ts.released, references_public=ts.references_public)
                current.update(settings)
                update_settings(ts, **current)
            return ts.id

    def settings(self, testset_id: int, **settings) -> None:
        from enface.services.testsets import get_testset, update_settings

        with self.app.app_context():
            ts = get_testset(testset_id)
            current = dict(deadline=ts.deadline, opens_at=ts.opens_at, quota_per_day=ts.quota_per_day,
                           quota_total=ts.quota_total, document_level_allowed=ts.document_level_allowed,
                           released=ts.released, references_public=ts.references_public)
            current.update(settings)
            update_settings(ts, **current)

    def submission(self, submission_id: int):
        from enface.extensions import db
        from enface.models import Submission

        with self.app.app_context():
            sub = db.session.get(Submission, submission_id)
            db.session.expunge_all()
            return sub



def system_files(system: str = "strong-mt") -> list[tuple[str, bytes]]:
    folder = DEMO / "systems" / system
    return [(p.name, p.read_bytes()) for p in sorted(folder.iterdir()) if p.suffix == ".txt"]


def upload(client, testset_id: int, token: str, files=None, *, label="primary", constrained="true",
           system_name="my-system", description="", **extra):
    """POST a submission through the API with the test client."""
    files = system_files() if files is None else files
    data = {"label": label, "constrained": constrained, "system_name": system_name, "description": description,
            "files": [(io.BytesIO(content), name) for name, content in files], **extra}
    return client.post(f"/api/v1/testsets/{testset_id}/submissions", data=data,
                       headers={"Authorization": f"Bearer {token}"}, content_type="multipart/form-data")


def demo_testset_zip() -> bytes:
    """The demo test set as an organizer uploads it: a zip holding its folder."""
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for p in sorted((DEMO / "testset").rglob("*")):
            if p.is_file():
                zf.write(p, f"demo-testset/{p.relative_to(DEMO / 'testset')}")
    return buf.getvalue()


def form_files(system: str = "strong-mt"):
    """A demo system's files as the submission form's ``files`` field."""
    return [(io.BytesIO(c), n) for n, c in system_files(system)]


def submit_form(client, ts, system="strong-mt", **fields):
    """POST the web submission form (as a logged-in client) with a demo system's files."""
    data = {"label": "primary", "constrained": "constrained", "system_name": system, "description": "",
            "files": form_files(system)} | fields
    return client.post(f"/testsets/{ts}/submit", data=data, content_type="multipart/form-data")


def login(client, email: str, password: str = PASSWORD):
    return client.post("/auth/login", data={"email": email, "password": password}, follow_redirects=False)


def assert_api_error(resp, status: int, code: str | None = None):
    assert resp.status_code == status, (resp.status_code, resp.get_data(as_text=True)[:500])
    body = resp.get_json()
    assert set(body) == {"error"}, body
    assert set(body["error"]) == {"code", "message", "details"}, body
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    if code is not None:
        assert body["error"]["code"] == code, body
    return body["error"]



def TestConfigEnv(app) -> dict:   # noqa: N802 - reads like the config class it mirrors
    """Environment variables that make a child process (gunicorn, celery, the CLI) use ``app``'s settings."""
    cfg = app.config
    env = dict(os.environ)
    env.update({"ENFACE_DATA_DIR": str(cfg["DATA_DIR"]), "ENFACE_DATABASE_URL": cfg["SQLALCHEMY_DATABASE_URI"],
                "ENFACE_BROKER_URL": cfg["CELERY_BROKER_URL"], "ENFACE_RESULT_BACKEND": cfg["CELERY_RESULT_BACKEND"],
                "ENFACE_SECRET_KEY": cfg["SECRET_KEY"], "ENFACE_SCORING_WORKERS": "1",
                "ENFACE_JOBS": "celery"})
    env.pop("ENFACE_COMET_MODEL", None) if not cfg.get("COMET_MODEL") else None
    return env


@contextmanager
def gunicorn_server(env: dict, workers: int = 2, *extra: str):
    """The app behind gunicorn with ``workers`` worker processes (``env``: see :func:`TestConfigEnv`); yields
    its base URL once /healthz answers, and stops it (SIGTERM, then SIGKILL) at the end."""
    import signal
    import socket
    import subprocess
    import sys

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}", "--workers",
                             str(workers), *extra, "--no-control-socket", "enface:create_app()"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_http(f"{url}/healthz", proc, timeout=60)
        yield url
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class LiveServer:
    """The app behind werkzeug's threaded WSGI server on 127.0.0.1 in a thread."""

    def __init__(self, app):
        from werkzeug.serving import make_server

        self.server = make_server("127.0.0.1", 0, app, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.thread.join(10)


def wait_http(url: str, proc, timeout: float = 90) -> None:
    """Wait until ``url`` answers 200; fail with the server's output if ``proc`` exits or time runs out."""
    import time

    import requests

    deadline = time.monotonic() + timeout
    while True:
        try:
            if requests.get(url, timeout=2).status_code == 200:
                return
        except requests.RequestException:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            out = proc.stdout.read().decode(errors="replace")[-4000:] if proc.poll() is not None else ""
            raise AssertionError(f"{url} did not answer within {timeout:.0f} s{': ' + out if out else ''}")
        time.sleep(0.3)
