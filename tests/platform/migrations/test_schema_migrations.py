"""The schema comes only from Alembic: the migrations build exactly the models, up and down."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from enface.migrate import alembic_config, head_revision
from enface.models import Base
from sqlalchemy import create_engine, inspect

from tests.support import ROOT


def _import_all_models() -> None:
    """Every module called ``models`` in the enface package (features add their own tables)."""
    import importlib
    import pkgutil

    import enface

    for mod in pkgutil.walk_packages(enface.__path__, "enface."):
        if mod.name.rsplit(".", 1)[-1] == "models":
            importlib.import_module(mod.name)


def _diff(url: str) -> list:
    _import_all_models()
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            ctx = MigrationContext.configure(conn, opts={"compare_type": True})
            return compare_metadata(ctx, Base.metadata)
    finally:
        engine.dispose()


def test_migrations_match_the_models(database_url):
    assert _diff(database_url) == []


def test_database_is_at_head(database_url):
    from enface.migrate import current_revision

    assert current_revision(database_url) == head_revision()


def test_downgrade_and_upgrade_again(tmp_path):
    from alembic import command

    url = f"sqlite:///{tmp_path / 'm.sqlite'}"
    cfg = alembic_config(url)
    command.upgrade(cfg, "head")
    engine = create_engine(url)
    assert "submissions" in inspect(engine).get_table_names()
    command.downgrade(cfg, "base")
    assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
    command.upgrade(cfg, "head")
    assert _diff(url) == []
    engine.dispose()


def test_the_app_never_creates_tables(tmp_path):
    """An app on an empty database does not create the schema behind Alembic's back."""
    from enface import create_app
    from enface.config import TestConfig

    url = f"sqlite:///{tmp_path / 'empty.sqlite'}"
    app = create_app(TestConfig.for_dir(tmp_path, url))
    with app.app_context():
        app.test_client().get("/healthz")
    engine = create_engine(url)
    assert inspect(engine).get_table_names() == []
    engine.dispose()
    app.extensions["enface_db"][0].dispose()


def test_no_create_all_outside_tests():

    root = ROOT / "platform" / "enface"
    for path in root.rglob("*.py"):
        assert "create_all" not in path.read_text(), path
