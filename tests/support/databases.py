"""A fresh database per test, migrated by Alembic (never ``create_all``), for the
platform and campaign suites.

* SQLite (default): the migrations run once per session into a template file,
  which is copied for each test;
* PostgreSQL: set ``ENFACE_TEST_DATABASE_URL=postgresql+psycopg://user@host/db``
  (a database the user may create databases from). The migrations run once into
  a template database; each test gets ``CREATE DATABASE ... TEMPLATE`` and drops
  it afterwards.

A pytest plugin: tests/conftest.py registers it (``pytest_plugins``), so that its
fixtures (``db_template``, ``database_url``, ``make_app``) reach every test.
"""

from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path

import pytest
from sqlalchemy import text as _text

TEST_DB_URL = os.environ.get("ENFACE_TEST_DATABASE_URL", "").strip()


def is_postgres() -> bool:
    return TEST_DB_URL.startswith("postgresql")


class PostgresTemplate:
    """A migrated template database and the per-test databases made from it."""

    def __init__(self, url: str):
        from enface.migrate import upgrade
        from sqlalchemy import create_engine
        from sqlalchemy.engine import make_url

        self.url = make_url(url)
        self.admin = create_engine(self.url, isolation_level="AUTOCOMMIT", pool_size=1)
        self.template = f"enface_tpl_{os.getpid()}_{uuid.uuid4().hex[:6]}"
        self._execute(f'CREATE DATABASE "{self.template}"')
        upgrade(self.url_for(self.template))

    def _execute(self, sql: str) -> None:
        from sqlalchemy import text

        with self.admin.connect() as conn:
            conn.execute(text(sql))

    def url_for(self, name: str) -> str:
        return self.url.set(database=name).render_as_string(hide_password=False)

    def new(self) -> tuple[str, str]:
        name = f"enface_t_{uuid.uuid4().hex[:12]}"
        self._execute(f'CREATE DATABASE "{name}" TEMPLATE "{self.template}"')
        return name, self.url_for(name)

    def drop(self, name: str) -> None:
        self._execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def close(self) -> None:
        self.drop(self.template)
        self.admin.dispose()


class FreshDatabase:
    """A migrated database made from the template for a world that outlives one test (a module-scoped
    fixture), on the backend the tests run on, with ``snapshot()`` and ``restore()`` to undo a request."""

    def __init__(self, template, folder: Path):
        self.template = template
        if is_postgres():
            self.name, self.url = template.new()
        else:
            self.path = folder / "enface.sqlite"
            folder.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(template, self.path)
            self.url = f"sqlite:///{self.path}"

    def snapshot(self) -> None:
        """Keep the database as it is now (no connection may be open: dispose the app's engine first)."""
        if is_postgres():
            # A copy of every table in a schema of the same database: putting it back is a DELETE and an
            # INSERT per table, in one transaction and one round trip (~10 ms), where DROP + CREATE DATABASE
            # ... TEMPLATE took ~400 ms, once per request of the access matrix that may have changed something.
            with self._engine().begin() as conn:
                self._tables = [r[0] for r in conn.execute(_text(
                    "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename"))]
                self._sequences = [tuple(r) for r in conn.execute(_text(
                    "SELECT schemaname || '.' || sequencename, last_value FROM pg_sequences WHERE schemaname = 'public'"))]
                conn.execute(_text("DROP SCHEMA IF EXISTS enface_snapshot CASCADE; CREATE SCHEMA enface_snapshot"))
                for table in self._tables:
                    conn.execute(_text(f'CREATE TABLE enface_snapshot."{table}" AS TABLE public."{table}"'))
            self._engine().dispose()
        else:
            shutil.copyfile(self.path, self.path.with_suffix(".snapshot"))

    def restore(self) -> None:
        """Put back the snapshot (dispose the app's engine first)."""
        if is_postgres():
            statements = ["SET LOCAL session_replication_role = replica"]   # (the tests' superuser skips the FK triggers)
            for table in self._tables:   # (DELETE, not TRUNCATE: new files per table and index cost ~300 ms)
                statements += [f'DELETE FROM public."{table}"',
                               f'INSERT INTO public."{table}" OVERRIDING SYSTEM VALUE SELECT * FROM enface_snapshot."{table}"']
            statements += [f"SELECT setval('{seq}', {last}, true)" if last is not None else f"SELECT setval('{seq}', 1, false)"
                           for seq, last in self._sequences]
            with self._engine().begin() as conn:   # one round trip, one transaction
                conn.exec_driver_sql("; ".join(statements))
            return
        for suffix in ("-wal", "-shm"):       # a stale write-ahead log would replay onto the copy
            Path(f"{self.path}{suffix}").unlink(missing_ok=True)
        shutil.copyfile(self.path.with_suffix(".snapshot"), self.path)

    def _engine(self):
        if getattr(self, "_pg", None) is None:
            from sqlalchemy import create_engine

            self._pg = create_engine(self.url, pool_size=1)
        return self._pg

    def drop(self) -> None:
        if is_postgres():
            self._engine().dispose()
            self.template.drop(self.name)


@pytest.fixture(scope="session")
def db_template(tmp_path_factory):
    """The migrated template: a PostgresTemplate, or the path of a SQLite file."""
    from enface.migrate import upgrade

    if is_postgres():
        pg = PostgresTemplate(TEST_DB_URL)
        yield pg
        pg.close()
        return
    path = tmp_path_factory.mktemp("template-db") / "enface.sqlite"
    upgrade(f"sqlite:///{path}")
    yield path


@pytest.fixture
def database_url(db_template, tmp_path):
    """A fresh, migrated database for this test."""
    if is_postgres():
        name, url = db_template.new()
        yield url
        db_template.drop(name)
        return
    target = tmp_path / "data" / "enface.sqlite"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(db_template, target)
    yield f"sqlite:///{target}"


@pytest.fixture
def make_app(database_url, tmp_path):
    """``make_app(**config overrides)`` -> an app on this test's database; disposed afterwards."""
    from enface import create_app
    from enface.config import TestConfig
    from enface.services import leaderboard

    apps = []

    def factory(**overrides):
        app = create_app(TestConfig.for_dir(tmp_path / "data", database_url, **overrides))
        apps.append(app)
        return app

    yield factory
    for app in apps:
        app.extensions["enface_db"][0].dispose()
    leaderboard.clear_cache()
