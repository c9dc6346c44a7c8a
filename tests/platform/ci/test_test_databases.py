"""The PostgreSQL pass's per-test databases (tests/support/databases.py): a database a test gives back is
used again only when it is put back exactly as the template made it.

A test that got a used database with rows, sequences or schema changes of the test before it would
pass or fail for the wrong reason; so would one whose database a process left by that test still writes.
"""

from __future__ import annotations

import os

import psycopg
import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

from tests.support.databases import TEST_DB_URL, PostgresTemplate, is_postgres
from tests.support.services import require_service
from tests.support.testkit import World

PG_URL = os.environ.get("ENFACE_TEST_POSTGRES_URL", "").strip() or (TEST_DB_URL if is_postgres() else "")

pytestmark = pytest.mark.postgres


@pytest.fixture(scope="module")
def template():
    require_service(bool(PG_URL), "ENFACE_TEST_POSTGRES_URL is not set: no PostgreSQL to make test databases on")
    made = PostgresTemplate(PG_URL)
    assert made._reset_sql is not None, "the tests' PostgreSQL user must be a superuser (see the docstring)"
    yield made
    made.close()


def _scalar(url: str, sql: str):
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as conn:
            return conn.execute(text(sql)).scalar()
    finally:
        engine.dispose()


def _world(url: str, folder):
    from enface import create_app
    from enface.config import TestConfig

    app = create_app(TestConfig.for_dir(folder, url))
    return app, World(app)


def _exists(template: PostgresTemplate, name: str) -> bool:
    return _scalar(template.url_for(template.template), f"SELECT count(*) FROM pg_database WHERE datname = '{name}'") == 1


def test_a_database_given_back_returns_empty_with_its_sequences_restarted(template, tmp_path):
    name, url = template.lease()
    app, world = _world(url, tmp_path / "first")
    ts = world.testset()
    first_user = world.user("a@x.org")
    assert _scalar(url, "SELECT count(*) FROM segments") > 0
    app.extensions["enface_db"][0].dispose()
    template.give_back(name)

    again, url2 = template.lease()
    assert again != name and not _exists(template, name)   # the same database, under a new name
    assert _scalar(url2, "SELECT count(*) FROM segments") == 0
    assert _scalar(url2, "SELECT count(*) FROM users") == 0
    assert _scalar(url2, "SELECT count(*) FROM alembic_version") == 1
    app2, world2 = _world(url2, tmp_path / "second")
    assert world2.testset() == ts and world2.user("b@x.org") == first_user   # ids start at 1 again
    app2.extensions["enface_db"][0].dispose()
    template.give_back(again)


@pytest.mark.parametrize("change", [
    "ALTER TABLE teams ADD COLUMN motto text",
    "CREATE INDEX teams_by_affiliation ON teams (affiliation)",
    "ALTER TABLE teams ALTER COLUMN affiliation SET DEFAULT 'x'",
    "CREATE TABLE leftover (id int)",
    "DROP TABLE mqm_marks",
    "UPDATE alembic_version SET version_num = 'elsewhere'",
])
def test_a_database_whose_schema_changed_is_dropped(template, change):
    name, url = template.lease()
    engine = create_engine(url, poolclass=NullPool)
    with engine.begin() as conn:
        conn.execute(text(change))
    engine.dispose()
    kept = list(template._pool)
    template.give_back(name)
    assert template._pool == kept and not _exists(template, name)
    fresh, fresh_url = template.lease()
    assert _scalar(fresh_url, "SELECT count(*) FROM information_schema.tables WHERE table_name = 'leftover'") == 0
    assert _scalar(fresh_url, "SELECT count(*) FROM information_schema.tables WHERE table_name = 'mqm_marks'") == 1
    template.give_back(fresh)


def test_a_connection_left_open_is_cut_and_cannot_come_back(template):
    name, url = template.lease()
    conninfo = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    left_open = psycopg.connect(conninfo, autocommit=True)
    left_open.execute("SELECT 1")
    template.give_back(name)
    assert name not in template._pool and not _exists(template, name)
    with pytest.raises(psycopg.OperationalError):
        left_open.execute("SELECT 1")
    with pytest.raises(psycopg.OperationalError, match="does not exist"):
        psycopg.connect(conninfo)
