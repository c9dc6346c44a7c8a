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

import sys
from pathlib import Path

import pytest

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


# Fresh databases and apps (db_template, database_url, make_app): tests/enface_databases.py.


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
