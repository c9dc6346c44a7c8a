"""Alembic environment: the database is the one the app uses (ENFACE_DATABASE_URL / ENFACE_DATA_DIR).

Programmatic callers (``enface db upgrade``, the tests) pass a URL in
``config.attributes["url"]`` or an open connection in ``config.attributes["connection"]``.
"""

from __future__ import annotations

from alembic import context
from enface.campaigns import models as _campaign_models  # noqa: F401  (the core's tables join the metadata)
from enface.campaigns.discovery import load_protocols
from enface.config import Config
from enface.crowd import models as _crowd_models  # noqa: F401  (the crowd's links, setups and answers)
from enface.extensions import make_engine
from enface.judges import models as _judge_models  # noqa: F401  (the judges' tables join the metadata)
from enface.models import Base

load_protocols()   # each installed protocol (entry points) brings its tables into the metadata
config = context.config
target_metadata = Base.metadata


def _url() -> str:
    return config.attributes.get("url") or Config.from_env().SQLALCHEMY_DATABASE_URI


def run_migrations_offline() -> None:
    context.configure(url=_url(), target_metadata=target_metadata, literal_binds=True,
                      render_as_batch=True, dialect_opts={"paramstyle": "named"})
    with context.begin_transaction():
        context.run_migrations()


def _run(connection) -> None:
    context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True,
                      compare_type=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    url = _url()
    if url.startswith("sqlite:///"):
        from pathlib import Path

        Path(url[len("sqlite:///"):]).parent.mkdir(parents=True, exist_ok=True)
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            _run(connection)
            connection.commit()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
