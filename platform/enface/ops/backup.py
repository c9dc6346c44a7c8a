"""``enface backup DEST`` and ``enface restore SRC``: the database and the data folder's files, together.

A backup is a folder:

* ``enface-backup.json``: the manifest (format, Enface version, migration, database kind, and the
  SHA-256 of every file below, checked again by ``restore``);
* ``database.sqlite``: a consistent copy made with SQLite's online backup API while the server runs
  (``sqlite3.Connection.backup``), or ``database.dump``: ``pg_dump --format=custom`` of PostgreSQL
  (``pg_dump`` and ``pg_restore`` must be on the PATH: the PostgreSQL client package);
* ``files/``: the data folder's files (stored uploads, which the data releases and scores are made
  from, the secret key that encrypts the judges' API keys, demo logins), without the database, the
  queue and rate-limit stores (transient), logs and upload scratch space.

Keep a backup as secret as the data folder: it holds the secret key and every upload.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from sqlalchemy.engine import make_url

FORMAT = 1
MANIFEST = "enface-backup.json"
#: data-folder entries a backup leaves out: the database (copied on its own), transient stores, logs, scratch
SKIPPED = ("enface.sqlite", "broker.sqlite", "results.sqlite", "ratelimit.sqlite", "logs", "uploads/tmp")


class BackupError(RuntimeError):
    """A backup or restore that cannot go on; the message says why and what to do."""


@dataclass(frozen=True)
class BackupResult:
    folder: Path
    database: str          # "sqlite" or "postgresql"
    revision: str | None
    files: int
    bytes: int


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _skipped(rel: str, database_file: Path | None, data_dir: Path) -> bool:
    first = rel.split("/")[0]
    base = first.removesuffix("-wal").removesuffix("-shm").removesuffix("-journal")
    if base in SKIPPED or any(rel == s or rel.startswith(s + "/") for s in SKIPPED):
        return True
    return database_file is not None and (data_dir / base).resolve() == database_file.resolve()


def _data_files(data_dir: Path, database_file: Path | None) -> list[str]:
    out = []
    for path in sorted(data_dir.rglob("*")):
        rel = path.relative_to(data_dir).as_posix()
        if path.is_file() and not path.is_symlink() and not _skipped(rel, database_file, data_dir):
            out.append(rel)
    return out


def _sqlite_file(url: str) -> Path | None:
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return None
    if not parsed.database or parsed.database == ":memory:":
        raise BackupError(f"{url}: an in-memory SQLite database has nothing to back up")
    return Path(parsed.database)


def _libpq(url: str) -> tuple[str, dict]:
    """A libpq connection string without the password, and the environment that carries it (never argv)."""
    parsed = make_url(url)
    env = dict(os.environ)
    if parsed.password:
        env["PGPASSWORD"] = str(parsed.password)
    plain = parsed.set(drivername="postgresql", password=None)
    return plain.render_as_string(hide_password=False), env


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise BackupError(f"{name} is not on the PATH: install the PostgreSQL client (e.g. apt install "
                          "postgresql-client, the same major version as the server) to back up or restore "
                          "PostgreSQL")
    return path


def backup(database_url: str, data_dir: Path, dest: Path, *, revision: str | None, version: str) -> BackupResult:
    """Write a backup of ``database_url`` and ``data_dir`` into ``dest`` (absent or an empty folder)."""
    dest = Path(dest)
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise BackupError(f"{dest} exists and is not an empty folder: choose a new one")
    data_dir = Path(data_dir)
    sqlite_file = _sqlite_file(database_url)
    dest.mkdir(parents=True, exist_ok=True)
    os.chmod(dest, 0o700)
    if sqlite_file is not None:
        if not sqlite_file.is_file():
            raise BackupError(f"the database {sqlite_file} does not exist")
        kind, db_name = "sqlite", "database.sqlite"
        source = sqlite3.connect(f"file:{sqlite_file}?mode=ro", uri=True)
        target = sqlite3.connect(dest / db_name)
        try:
            with target:
                source.backup(target)   # a consistent snapshot, page by page, while writers go on
            target.execute("PRAGMA journal_mode=DELETE")   # one self-contained file (the copy inherits WAL)
        finally:
            target.close()
            source.close()
    else:
        kind, db_name = "postgresql", "database.dump"
        conninfo, env = _libpq(database_url)
        done = subprocess.run([_tool("pg_dump"), "--format=custom", "--no-owner", "--no-privileges",
                               "--file", str(dest / db_name), "--dbname", conninfo],
                              env=env, capture_output=True, text=True)
        if done.returncode != 0:
            raise BackupError(f"pg_dump failed: {done.stderr.strip()[:500]}")
    files = {db_name: _sha256(dest / db_name)}
    total = (dest / db_name).stat().st_size
    for rel in _data_files(data_dir, sqlite_file):
        target = dest / "files" / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(data_dir / rel, target)
        files[f"files/{rel}"] = _sha256(target)
        total += target.stat().st_size
    manifest = {"format": FORMAT, "enface": version, "revision": revision, "database": kind,
                "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"), "files": files}
    (dest / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return BackupResult(dest, kind, revision, len(files) - 1, total)


def read_manifest(src: Path) -> dict:
    path = Path(src) / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BackupError(f"{src} is not an Enface backup (no {MANIFEST})") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise BackupError(f"{path} is not valid JSON: {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT or not isinstance(manifest.get("files"),
                                                                                             dict):
        raise BackupError(f"{path}: not a backup of format {FORMAT}")
    for rel, digest in manifest["files"].items():
        file = Path(src) / rel
        if ".." in Path(rel).parts or Path(rel).is_absolute():
            raise BackupError(f"{path} names a file outside the backup: {rel!r}")
        if not file.is_file():
            raise BackupError(f"the backup lacks {rel}")
        if _sha256(file) != digest:
            raise BackupError(f"{rel} does not match its checksum in {MANIFEST}: the backup is damaged")
    return manifest


def _database_is_empty(database_url: str) -> bool:
    from sqlalchemy import inspect

    from ..extensions import make_engine

    engine = make_engine(database_url)
    try:
        with engine.connect() as conn:
            return not inspect(conn).get_table_names()
    finally:
        engine.dispose()


def restore(src: Path, database_url: str, data_dir: Path) -> dict:
    """Restore the backup ``src`` into an empty ``data_dir`` and an empty (or absent, SQLite) database."""
    src, data_dir = Path(src), Path(data_dir)
    manifest = read_manifest(src)
    present = [p for p in data_dir.rglob("*") if p.is_file()] if data_dir.exists() else []
    if present:
        raise BackupError(f"{data_dir} is not empty ({len(present)} files, e.g. {present[0]}): restore into an "
                          "empty data folder (ENFACE_DATA_DIR), so that nothing is mixed or overwritten")
    sqlite_file = _sqlite_file(database_url)
    if (sqlite_file is None) != (manifest["database"] == "postgresql"):
        raise BackupError(f"the backup holds a {manifest['database']} database but ENFACE_DATABASE_URL is "
                          f"{make_url(database_url).get_backend_name()}: restore into the same kind")
    if sqlite_file is not None and sqlite_file.exists():
        raise BackupError(f"the database {sqlite_file} already exists: restore into an empty data folder")
    if sqlite_file is None and not _database_is_empty(database_url):
        raise BackupError("the PostgreSQL database already has tables: restore into an empty database "
                          "(createdb a new one, point ENFACE_DATABASE_URL at it)")
    data_dir.mkdir(parents=True, exist_ok=True)
    for rel in manifest["files"]:
        if rel.startswith("files/"):
            target = data_dir / rel.removeprefix("files/")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src / rel, target)
    if sqlite_file is not None:
        sqlite_file.parent.mkdir(parents=True, exist_ok=True)
        source = sqlite3.connect(f"file:{src / 'database.sqlite'}?mode=ro", uri=True)
        target = sqlite3.connect(sqlite_file)
        try:
            with target:
                source.backup(target)
        finally:
            target.close()
            source.close()
    else:
        conninfo, env = _libpq(database_url)
        done = subprocess.run([_tool("pg_restore"), "--no-owner", "--no-privileges", "--exit-on-error",
                               "--dbname", conninfo, str(src / "database.dump")], env=env, capture_output=True,
                              text=True)
        if done.returncode != 0:
            raise BackupError(f"pg_restore failed: {done.stderr.strip()[:500]}")
    secret = data_dir / "secret_key"
    if secret.exists():
        secret.chmod(0o600)
    return manifest
