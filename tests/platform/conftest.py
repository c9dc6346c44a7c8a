"""Fixtures of the web platform's tests.

Every test gets a fresh database migrated by Alembic (never ``create_all``):

* SQLite (default): the migrations run once per session into a template
  file, which is copied for each test;
* PostgreSQL: set ``ENFACE_TEST_DATABASE_URL=postgresql+psycopg://user@host/db``
  (a database the user may create databases from). The migrations run once
  into a template database; each test gets ``CREATE DATABASE ... TEMPLATE``
  and drops it afterwards.

Jobs run eagerly (in the request) unless a test asks for a real broker.
"""

from __future__ import annotations

import os
import shutil
import sys
import uuid
from pathlib import Path

import pytest
from enface import create_app
from enface.config import TestConfig
from enface.migrate import upgrade
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

sys.path.insert(0, str(Path(__file__).resolve().parent))

from enface_testkit import (  # noqa: E402
    DEMO,
    PASSWORD,
    ROOT,
    TEST_DB_URL,
    LiveServer,
    TestConfigEnv,
    World,
    assert_api_error,
    is_postgres,
    login,
    require_service,
    system_files,
    upload,
)

__all__ = ["DEMO", "PASSWORD", "ROOT", "TEST_DB_URL", "LiveServer", "TestConfigEnv", "World", "assert_api_error",
           "is_postgres", "login", "require_service", "system_files", "upload"]

def pytest_configure(config):
    # kombu's SQLAlchemy transport uses a loader strategy SQLAlchemy 2.1 deprecates; not ours to fix.
    config.addinivalue_line("filterwarnings", "ignore:The ``noload`` loader strategy:DeprecationWarning")


# --------------------------------------------------------------------------- databases


class _Postgres:
    def __init__(self, url: str):
        self.url = make_url(url)
        self.admin = create_engine(self.url, isolation_level="AUTOCOMMIT", pool_size=1)
        self.template = f"enface_tpl_{os.getpid()}_{uuid.uuid4().hex[:6]}"
        with self.admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{self.template}"'))
        upgrade(self._url_for(self.template))

    def _url_for(self, name: str) -> str:
        return self.url.set(database=name).render_as_string(hide_password=False)

    def new(self) -> tuple[str, str]:
        name = f"enface_t_{uuid.uuid4().hex[:12]}"
        with self.admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}" TEMPLATE "{self.template}"'))
        return name, self._url_for(name)

    def drop(self, name: str) -> None:
        with self.admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))

    def close(self) -> None:
        self.drop(self.template)
        self.admin.dispose()


@pytest.fixture(scope="session")
def _db_template(tmp_path_factory):
    if is_postgres():
        pg = _Postgres(TEST_DB_URL)
        yield pg
        pg.close()
        return
    folder = tmp_path_factory.mktemp("template-db")
    path = folder / "enface.sqlite"
    upgrade(f"sqlite:///{path}")
    yield path


@pytest.fixture
def database_url(_db_template, tmp_path):
    """A fresh, migrated database for this test."""
    if is_postgres():
        name, url = _db_template.new()
        yield url
        _db_template.drop(name)
        return
    target = tmp_path / "data" / "enface.sqlite"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(_db_template, target)
    yield f"sqlite:///{target}"


# --------------------------------------------------------------------------- apps


@pytest.fixture
def make_app(database_url, tmp_path):
    apps = []

    def factory(**overrides):
        cfg = TestConfig.for_dir(tmp_path / "data", database_url, **overrides)
        app = create_app(cfg)
        apps.append(app)
        return app

    yield factory
    for app in apps:
        app.extensions["enface_db"][0].dispose()
    from enface.services import leaderboard

    leaderboard.clear_cache()


@pytest.fixture
def app(make_app):
    return make_app()


@pytest.fixture
def client(app):
    return app.test_client()


# --------------------------------------------------------------------------- data helpers


@pytest.fixture
def world(app):
    return World(app)


# --------------------------------------------------------------------------- a real server


@pytest.fixture
def live_server_factory():
    servers = []

    def start(app):
        server = LiveServer(app)
        servers.append(server)
        return server

    yield start
    for s in servers:
        s.stop()
