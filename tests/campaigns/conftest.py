"""Fixtures of the MQM campaign tests.

A fresh database per test, migrated by Alembic once per session into a template
file (or a PostgreSQL template database when ENFACE_TEST_DATABASE_URL is set),
as in tests/platform. Submissions are written straight into the database with
their output segments (validation and scoring are another suite's business), so
that a whole campaign is set up in milliseconds.

The world: an en->de test set of two documents, three teams' systems and a
baseline with distinctive names (so that the blind tests can look for them),
four annotators, one of whom belongs to team Alder.
"""

from __future__ import annotations

import os
import shutil
import uuid as uuidlib

import pytest
from campaign_helpers import World, build_world
from enface import create_app
from enface.config import TestConfig
from enface.migrate import upgrade
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

TEST_DB_URL = os.environ.get("ENFACE_TEST_DATABASE_URL", "").strip()

def is_postgres() -> bool:
    return TEST_DB_URL.startswith("postgresql")


class _Postgres:
    def __init__(self, url: str):
        self.url = make_url(url)
        self.admin = create_engine(self.url, isolation_level="AUTOCOMMIT", pool_size=1)
        self.template = f"enface_mqm_tpl_{os.getpid()}_{uuidlib.uuid4().hex[:6]}"
        with self.admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{self.template}"'))
        upgrade(self.url_for(self.template))

    def url_for(self, name: str) -> str:
        return self.url.set(database=name).render_as_string(hide_password=False)

    def new(self) -> tuple[str, str]:
        name = f"enface_mqm_{uuidlib.uuid4().hex[:12]}"
        with self.admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}" TEMPLATE "{self.template}"'))
        return name, self.url_for(name)

    def drop(self, name: str) -> None:
        with self.admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture(scope="session")
def _mqm_db_template(tmp_path_factory):
    if is_postgres():
        pg = _Postgres(TEST_DB_URL)
        yield pg
        pg.drop(pg.template)
        pg.admin.dispose()
        return
    path = tmp_path_factory.mktemp("mqm-template") / "enface.sqlite"
    upgrade(f"sqlite:///{path}")
    yield path


@pytest.fixture
def mqm_database_url(_mqm_db_template, tmp_path):
    if is_postgres():
        name, url = _mqm_db_template.new()
        yield url
        _mqm_db_template.drop(name)
        return
    target = tmp_path / "data" / "enface.sqlite"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(_mqm_db_template, target)
    yield f"sqlite:///{target}"


@pytest.fixture
def make_app(mqm_database_url, tmp_path):
    apps = []

    def factory(**overrides):
        app = create_app(TestConfig.for_dir(tmp_path / "data", mqm_database_url, **overrides))
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
def world(app, tmp_path) -> World:
    return build_world(app, tmp_path)
