"""``enface backup`` / ``enface restore``: a restore into an empty data folder gives byte-identical exports.

The exports compared: the leaderboard CSV (web), the MQM campaign's TSV and the reader study's JSONL and
CSV (``enface campaign export``), and every stored file. On the backend the tests run on: SQLite (the
online backup API) or, in the PostgreSQL pass, pg_dump / pg_restore.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.support.databases import is_postgres
from tests.support.demo import DEMO, build_demo
from tests.support.services import require_service

SECRET = "a-backup-test-secret-key-of-forty-characters"


def _pg_tools_on_path() -> None:
    if shutil.which("pg_dump") is None:
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_dump"))
        if found:
            os.environ["PATH"] = str(Path(found[-1]).parent) + os.pathsep + os.environ["PATH"]
    require_service(shutil.which("pg_dump") is not None, "pg_dump (the PostgreSQL client) is not installed")


def _reader_study(app, testset_id: int) -> int:
    from enface.campaigns import services as svc
    from enface.commands.demo import DEMO_READER
    from enface.extensions import db
    from enface.models import Submission, TestSet, User
    from sqlalchemy import select

    from tests.support.campaigns import fast_user

    with app.app_context():
        org = db.session.scalar(select(User).where(User.email == "org@example.org"))
        ts_sub = db.session.scalar(select(Submission.id).where(Submission.testset_id == testset_id,
                                                               Submission.label == "primary").order_by(Submission.id))
        camp = svc.create_campaign(org, db.session.get(TestSet, testset_id), svc.CampaignInput(name="Backup readers", submission_ids=[ts_sub], references=[1],
            protocol="reader", strategy="pairs", redundancy=2, ranges=DEMO_READER["ranges"],
            settings=DEMO_READER["settings"], seed=3, version_order=["ref1", f"sub{ts_sub}"]))
        for n in (1, 2):
            svc.add_annotator(camp, db.session.get(User, fast_user(f"reader{n}@example.org", "annotator")))
        svc.start_campaign(svc.get_campaign(camp.id))
        return camp.id


def _exports(app_env: dict, client, testset_id: int, campaigns: dict[str, int]) -> dict[str, bytes]:
    from enface.commands import main

    out = {"leaderboard.csv": client.get(f"/leaderboard/{testset_id}.csv").data}
    for name, (cid, fmt) in campaigns.items():
        result = CliRunner().invoke(main, ["campaign", "export", str(cid), "--format", fmt], env=app_env)
        assert result.exit_code == 0, result.output
        out[name] = result.stdout_bytes
    return out


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and "uploads" in p.parts}


@pytest.fixture
def empty_database(db_template, tmp_path):
    """An empty database (no tables) for the restore: a new SQLite path, or a new PostgreSQL database."""
    if not is_postgres():
        yield f"sqlite:///{tmp_path / 'restored' / 'enface.sqlite'}"
        return
    name = f"enface_restore_{uuid.uuid4().hex[:10]}"
    db_template._execute(f'CREATE DATABASE "{name}"')
    yield db_template.url_for(name)
    db_template.drop(name)


def test_restore_into_an_empty_data_dir_gives_identical_exports(make_app, database_url, tmp_path, empty_database):
    from enface import create_app
    from enface.commands import main
    from enface.config import TestConfig

    if is_postgres():
        _pg_tools_on_path()
    data = tmp_path / "data"
    app = make_app(SECRET_KEY=SECRET)
    demo = build_demo(app)
    reader_id = _reader_study(app, demo.testset_id)
    env = {"ENFACE_DATABASE_URL": database_url, "ENFACE_DATA_DIR": str(data), "ENFACE_SECRET_KEY": SECRET}
    campaigns = {"mqm.tsv": (demo.campaign_id, "tsv"), "mqm.json": (demo.campaign_id, "json"),
                 "reader.jsonl": (reader_id, "jsonl"), "reader.csv": (reader_id, "csv")}
    before = _exports(env, app.test_client(), demo.testset_id, campaigns)
    assert b"lantern-nmt" in before["leaderboard.csv"] and before["mqm.tsv"].count(b"\n") > 10
    for n, system in enumerate(("strong-mt", "weak-mt")):   # stored uploads, as the upload service keeps them
        folder = data / "uploads" / str(n + 1)
        shutil.copytree(DEMO / "systems" / system, folder)
    stored = _files(data)
    assert len(stored) >= 6

    backup_dir = tmp_path / "backup"
    result = CliRunner().invoke(main, ["backup", str(backup_dir)], env=env)
    assert result.exit_code == 0, result.output
    assert ("pg_dump" if is_postgres() else "SQLite online backup") in result.output
    manifest = json.loads((backup_dir / "enface-backup.json").read_text())
    assert manifest["database"] == ("postgresql" if is_postgres() else "sqlite")
    assert SECRET not in (backup_dir / "enface-backup.json").read_text()

    restored = tmp_path / "restored"
    env2 = {"ENFACE_DATABASE_URL": empty_database, "ENFACE_DATA_DIR": str(restored), "ENFACE_SECRET_KEY": SECRET}
    result = CliRunner().invoke(main, ["restore", str(backup_dir)], env=env2)
    assert result.exit_code == 0, result.output
    app2 = create_app(TestConfig.for_dir(restored, empty_database, SECRET_KEY=SECRET))
    try:
        after = _exports(env2, app2.test_client(), demo.testset_id, campaigns)
    finally:
        app2.extensions["enface_db"][0].dispose()
    for name in before:
        assert after[name] == before[name], f"{name} differs after the restore"
    assert _files(restored) == stored

    # a second restore into the now full folder is refused, and changes nothing
    result = CliRunner().invoke(main, ["restore", str(backup_dir)], env=env2)
    assert result.exit_code == 1 and "not empty" in result.output


@pytest.mark.sqlite_only
def test_a_damaged_backup_is_refused_before_anything_is_written(tmp_path):
    from enface.commands import main
    from enface.migrate import upgrade

    data = tmp_path / "data"
    data.mkdir()
    upgrade(f"sqlite:///{data / 'enface.sqlite'}")
    (data / "uploads").mkdir()
    (data / "uploads" / "out.txt").write_text("a stored output\n")
    env = {"ENFACE_DATABASE_URL": "", "ENFACE_DATA_DIR": str(data), "ENFACE_SECRET_KEY": SECRET}
    assert CliRunner().invoke(main, ["backup", str(tmp_path / "b")], env=env).exit_code == 0
    refused = CliRunner().invoke(main, ["backup", str(tmp_path / "b")], env=env)
    assert refused.exit_code == 1 and "not an empty folder" in refused.output
    (tmp_path / "b" / "files" / "uploads" / "out.txt").write_text("tampered\n")
    target = tmp_path / "new"
    result = CliRunner().invoke(main, ["restore", str(tmp_path / "b")], env={**env, "ENFACE_DATA_DIR": str(target)})
    assert result.exit_code == 1 and "checksum" in result.output
    assert not target.exists() or not any(target.rglob("*.sqlite"))
    result = CliRunner().invoke(main, ["restore", str(tmp_path)], env={**env, "ENFACE_DATA_DIR": str(target)})
    assert result.exit_code == 1 and "not an Enface backup" in result.output


@pytest.mark.sqlite_only
def test_the_sqlite_backup_is_one_consistent_file_while_the_database_is_written(tmp_path):
    """The online backup API copies a database in WAL mode with writes pending: the copy is one file that
    opens on its own and holds every committed row."""
    import sqlite3

    from enface.ops.backup import backup

    data = tmp_path / "data"
    data.mkdir()
    db = sqlite3.connect(data / "enface.sqlite")
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE t (x INTEGER)")
    db.executemany("INSERT INTO t VALUES (?)", [(i,) for i in range(1000)])
    db.commit()   # in the WAL, not yet checkpointed into the main file
    result = backup(f"sqlite:///{data / 'enface.sqlite'}", data, tmp_path / "b", revision=None, version="0")
    db.close()
    assert sorted(p.name for p in (tmp_path / "b").iterdir()) == ["database.sqlite", "enface-backup.json"]
    copy = sqlite3.connect(tmp_path / "b" / "database.sqlite")
    assert copy.execute("SELECT count(*), sum(x) FROM t").fetchone() == (1000, sum(range(1000)))
    assert result.files == 0
