"""Fixtures of the web platform's tests (tests/platform/<feature>/).

Every test gets a fresh database migrated by Alembic (never ``create_all``):
``make_app`` and ``database_url`` come from :mod:`tests.support.databases`
(SQLite by default; PostgreSQL with ``ENFACE_TEST_DATABASE_URL``), registered
by tests/conftest.py. The helpers are in :mod:`tests.support.testkit`.

Jobs run eagerly (in the request) unless a test asks for a real broker.
"""

from __future__ import annotations

import pytest

from tests.support.testkit import LiveServer, World


def pytest_configure(config):
    # kombu's SQLAlchemy transport uses a loader strategy SQLAlchemy 2.1 deprecates; not ours to fix.
    config.addinivalue_line("filterwarnings", "ignore:The ``noload`` loader strategy:DeprecationWarning")


# --------------------------------------------------------------------------- databases


# Fresh databases and apps (db_template, database_url, make_app): tests/support/databases.py.


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
