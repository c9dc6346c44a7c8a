"""A fresh database per test, migrated by Alembic (never ``create_all``), for the
platform and campaign suites.

* SQLite (default): the migrations run once per session into a template file,
  which is copied for each test;
* PostgreSQL: set ``ENFACE_TEST_DATABASE_URL=postgresql+psycopg://user@host/db``
  (a database the user may create databases from). The migrations run once into
  a template database; a test gets a database made from it by ``CREATE DATABASE
  ... TEMPLATE`` (~150-270 ms), or one an earlier test of this process had, put
  back as the template made it (~15 ms; :meth:`PostgresTemplate.give_back`).

A pytest plugin: tests/conftest.py registers it (``pytest_plugins``), so that its
fixtures (``db_template``, ``database_url``, ``make_app``) reach every test.
"""

from __future__ import annotations

import os
import shutil
import time
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
        self._pool: list[str] = []          # databases given back, as the template made them
        self._reset_sql: str | None = None
        self._prepare_reset()

    def _execute(self, sql: str) -> None:
        from sqlalchemy import text

        with self.admin.connect() as conn:
            conn.execute(text(sql))

    def url_for(self, name: str) -> str:
        return self.url.set(database=name).render_as_string(hide_password=False)

    def new(self) -> tuple[str, str]:
        name = _fresh_name()
        self._execute(f'CREATE DATABASE "{name}" TEMPLATE "{self.template}"')
        return name, self.url_for(name)

    def lease(self) -> tuple[str, str]:
        """A database as the template made it: one given back by an earlier test, else a new one."""
        if self._pool:
            name = self._pool.pop()
            return name, self.url_for(name)
        return self.new()

    def give_back(self, name: str) -> None:
        """Keep a test's database for the next test, or drop it.

        Kept only when it can be put back exactly as the template made it: nobody still connected
        (a process the test left running fails to reconnect, since the database gets a new name, as it
        would to a dropped one), the schema untouched (:data:`SCHEMA_FINGERPRINT`: a test that migrated,
        altered or added anything gets its database dropped), then every row deleted and every sequence
        restarted. Needs a superuser (the foreign keys' triggers are skipped while deleting); others drop.
        """
        if self._reset_sql is None:
            self.drop(name)
            return
        renamed = self._renamed(name)
        if renamed is None:
            self.drop(name)
        elif self._reset(renamed):
            self._pool.append(renamed)
        else:
            self.drop(renamed)

    def _renamed(self, name: str) -> str | None:
        """The database under a new name, once nobody is connected to it (None: somebody stays)."""
        from sqlalchemy import exc, text

        fresh = _fresh_name()
        with self.admin.connect() as conn:
            for _attempt in range(50):
                conn.execute(text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = :name"),
                             {"name": name})
                try:
                    conn.execute(text(f'ALTER DATABASE "{name}" RENAME TO "{fresh}"'))
                    return fresh
                except exc.OperationalError:   # a terminated backend has not exited yet
                    time.sleep(0.02)
        return None

    def _reset(self, name: str) -> bool:
        """Empty the database in one transaction, if its schema is still the template's."""
        from sqlalchemy import create_engine, exc
        from sqlalchemy.pool import NullPool

        engine = create_engine(self.url_for(name), poolclass=NullPool)
        try:
            with engine.begin() as conn:
                if conn.exec_driver_sql(SCHEMA_FINGERPRINT).scalar() != self._fingerprint:
                    return False
                conn.exec_driver_sql(self._reset_sql)
            return True
        except exc.DBAPIError:   # e.g. a table the test dropped: the database goes
            return False
        finally:
            engine.dispose()

    def _prepare_reset(self) -> None:
        """The template's fingerprint and the statements that empty a copy (None: not a superuser)."""
        from sqlalchemy import create_engine
        from sqlalchemy.pool import NullPool

        engine = create_engine(self.url_for(self.template), poolclass=NullPool)   # (closed: CREATE ... TEMPLATE
        try:                                                                        # refuses a template in use)
            with engine.connect() as conn:
                superuser = conn.exec_driver_sql("SELECT rolsuper FROM pg_roles WHERE rolname = current_user").scalar()
                self._fingerprint = conn.exec_driver_sql(SCHEMA_FINGERPRINT).scalar()
                tables = [r[0] for r in conn.exec_driver_sql(
                    "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")]
                filled = [t for t in tables if conn.exec_driver_sql(f'SELECT EXISTS (SELECT FROM public."{t}")').scalar()]
                sequences = [r[0] for r in conn.exec_driver_sql(
                    "SELECT schemaname || '.' || sequencename FROM pg_sequences WHERE schemaname = 'public' "
                    "AND last_value IS NULL ORDER BY 1")]
                all_sequences = conn.exec_driver_sql(
                    "SELECT count(*) FROM pg_sequences WHERE schemaname = 'public'").scalar()
        finally:
            engine.dispose()
        # The template's only rows are Alembic's version (the fingerprint covers it); a template with other
        # rows, or a used sequence, would need a copy to put back: then every test gets a new database.
        if not superuser or filled != ["alembic_version"] or len(sequences) != all_sequences:
            return
        statements = ["SET LOCAL session_replication_role = replica"]
        statements += [f'DELETE FROM public."{t}"' for t in tables if t != "alembic_version"]
        statements += [f"SELECT setval('{seq}', 1, false)" for seq in sequences]
        self._reset_sql = "; ".join(statements)

    def drop(self, name: str) -> None:
        self._execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def close(self) -> None:
        for name in self._pool:
            self.drop(name)
        self.drop(self.template)
        self.admin.dispose()


def _fresh_name() -> str:
    return f"enface_t_{uuid.uuid4().hex[:12]}"


#: A digest of everything a test could change in a database's schema (relations and their columns,
#: defaults, constraints, indexes, triggers, functions, types, schemas, extensions, privileges, settings)
#: and of Alembic's version: a database given back is kept only while it equals the template's.
SCHEMA_FINGERPRINT = """
SELECT md5(string_agg(item, '|' ORDER BY item)) FROM (
  SELECT concat_ws(' ', 'r', n.nspname, c.relname, c.relkind, c.relpersistence, c.relacl, c.relrowsecurity,
                   a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, pg_get_expr(d.adbin, d.adrelid),
                   CASE WHEN c.relkind = 'i' THEN pg_get_indexdef(c.oid) END,
                   CASE WHEN c.relkind IN ('v', 'm') THEN pg_get_viewdef(c.oid) END) AS item
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
    LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
   WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND NOT starts_with(n.nspname, 'pg_toast')
  UNION ALL SELECT concat_ws(' ', 'k', conrelid::regclass, conname, pg_get_constraintdef(oid)) FROM pg_constraint
   WHERE connamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)
  UNION ALL SELECT concat_ws(' ', 't', tgrelid::regclass, tgname, tgenabled) FROM pg_trigger WHERE NOT tgisinternal
  UNION ALL SELECT concat_ws(' ', 'p', oid::regprocedure, md5(prosrc)) FROM pg_proc
   WHERE pronamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)
  UNION ALL SELECT concat_ws(' ', 'y', t.oid::regtype, e.enumlabel) FROM pg_type t
    LEFT JOIN pg_enum e ON e.enumtypid = t.oid
   WHERE t.typnamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace) AND t.typrelid = 0
  UNION ALL SELECT concat_ws(' ', 'n', nspname, nspacl) FROM pg_namespace   -- (a session's temporary schemas stay
   WHERE NOT starts_with(nspname, 'pg_temp') AND NOT starts_with(nspname, 'pg_toast_temp')   -- listed, empty)
  UNION ALL SELECT concat_ws(' ', 'x', extname, extversion) FROM pg_extension
  UNION ALL SELECT concat_ws(' ', 'e', evtname) FROM pg_event_trigger
  UNION ALL SELECT concat_ws(' ', 'q', seqrelid::regclass, seqstart, seqincrement, seqmax) FROM pg_sequence
  UNION ALL SELECT concat_ws(' ', 's', setconfig) FROM pg_db_role_setting
   WHERE setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())
  UNION ALL SELECT concat_ws(' ', 'v', version_num) FROM public.alembic_version
) AS schema_items
"""


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
        name, url = db_template.lease()
        yield url
        db_template.give_back(name)
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
