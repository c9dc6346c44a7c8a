"""Alembic, driven from Python: ``enface db upgrade`` and the tests use this."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config as AlembicConfig

ROOT = Path(__file__).resolve().parents[2]
MIGRATIONS = ROOT / "migrations"


def alembic_config(url: str | None = None, connection=None) -> AlembicConfig:
    cfg = AlembicConfig(str(ROOT / "alembic.ini")) if (ROOT / "alembic.ini").is_file() else AlembicConfig()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    if url:
        cfg.attributes["url"] = url
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def upgrade(url: str | None = None, revision: str = "head") -> None:
    command.upgrade(alembic_config(url), revision)


def current_revision(url: str) -> str | None:
    from alembic.runtime.migration import MigrationContext

    from .extensions import make_engine

    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()
    finally:
        engine.dispose()


def head_revision() -> str | None:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config()).get_current_head()
