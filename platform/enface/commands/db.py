"""``enface db upgrade|current``: the database schema (Alembic migrations)."""

from __future__ import annotations

import click


@click.group()
def db():
    """Database schema (Alembic migrations)."""


@db.command("upgrade")
@click.option("--revision", default="head", show_default=True)
def db_upgrade(revision: str):
    """Create or migrate the database (and create the SQLite broker's queues)."""
    from ..config import Config
    from ..job_queue import declare_queues
    from ..migrate import current_revision, upgrade

    cfg = Config.from_env()
    url = cfg.SQLALCHEMY_DATABASE_URI
    upgrade(url, revision)
    declare_queues(cfg.CELERY_BROKER_URL)
    click.echo(f"database at revision {current_revision(url)} ({redact(url)})")


@db.command("current")
def db_current():
    """Print the database's migration revision."""
    from ..config import Config
    from ..migrate import current_revision, head_revision

    url = Config.from_env().SQLALCHEMY_DATABASE_URI
    click.echo(f"{current_revision(url)} (head: {head_revision()})")


def redact(url: str) -> str:
    """The database URL without its password."""
    from ..ops.doctor import redact as without_password

    return without_password(url)
