"""Alembic, driven from Python: ``enface db upgrade`` and the tests use this."""

from __future__ import annotations

from alembic import command
from alembic.config import Config as AlembicConfig

from .resources import migrations_dir


def alembic_config(url: str | None = None, connection=None) -> AlembicConfig:
    """The migrations shipped in the package (no alembic.ini: env.py takes the URL from here or the environment)."""
    cfg = AlembicConfig()
    cfg.set_main_option("script_location", str(migrations_dir()))
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
