"""``enface doctor``, ``enface backup DEST`` and ``enface restore SRC``: operating a deployment."""

from __future__ import annotations

from pathlib import Path

import click

from ._common import fail, load_app


@click.command()
@click.option("--network", is_flag=True, help="also send each LLM judge's endpoint one small test call (its model, its key)")
@click.option("--queues", default="cpu,gpu,llm", show_default=True,
              help="the queues a worker must answer on (comma-separated)")
@click.option("--timeout", type=float, default=10.0, show_default=True,
              help="seconds a worker has to answer its ping")
@click.option("--min-free-gb", type=float, default=1.0, show_default=True,
              help="free disk space the data folder needs")
def doctor(network, queues, timeout, min_free_gb):
    """Check this deployment: one line per check (ok, FAIL or skip); exit status 1 when one fails.

    Checks the secret key, the database (reachable, at the head migration), the broker, a worker on
    each queue (a ping task), the configured COMET checkpoint, the rate-limit store, the disk space
    under the data folder and, with --network, the LLM judges' endpoints. Reads the same ENFACE_*
    variables as the server; prints no secret.
    """
    from ..config import Config
    from ..ops.doctor import run_checks

    names = tuple(q.strip() for q in queues.split(",") if q.strip())
    cfg = Config.from_env()
    app = load_app()
    failed = 0
    for check in run_checks(app, cfg, queues=names, worker_timeout=timeout, min_free_bytes=int(min_free_gb * 2**30),
                            network=network):
        click.echo(check.line())
        failed += check.failed
    click.echo(f"{failed} check{'s' if failed != 1 else ''} failed" if failed else "all checks passed")
    raise SystemExit(1 if failed else 0)


@click.command()
@click.argument("dest", type=click.Path(path_type=Path))
def backup(dest):
    """Back up the database and the data folder's files into the new folder DEST.

    SQLite: a consistent copy made with SQLite's online backup API (the server may keep running).
    PostgreSQL: pg_dump --format=custom, which must be on the PATH (the PostgreSQL client).
    The uploads and the secret key are copied too: keep DEST as secret as the data folder.
    """
    from importlib.metadata import version

    from ..config import Config
    from ..migrate import current_revision
    from ..ops.backup import BackupError
    from ..ops.backup import backup as make_backup

    cfg = Config.from_env()
    try:
        revision = current_revision(cfg.SQLALCHEMY_DATABASE_URI)
        result = make_backup(cfg.SQLALCHEMY_DATABASE_URI, cfg.DATA_DIR, dest, revision=revision,
                             version=version("enface"))
    except BackupError as exc:
        fail(str(exc))
    how = "SQLite online backup" if result.database == "sqlite" else "pg_dump"
    click.echo(f"backed up the {result.database} database ({how}, migration {result.revision}) and "
               f"{result.files} files, {result.bytes / 2**20:.1f} MiB, into {result.folder}")


@click.command()
@click.argument("src", type=click.Path(exists=True, file_okay=False, path_type=Path))
def restore(src):
    """Restore the backup SRC into an empty data folder (ENFACE_DATA_DIR) and database.

    Every file is checked against the backup's checksums first. PostgreSQL: pg_restore into the empty
    database of ENFACE_DATABASE_URL (pg_restore must be on the PATH). Run enface db upgrade afterwards
    when this version of Enface is newer than the backup's.
    """
    from ..config import Config
    from ..migrate import head_revision
    from ..ops.backup import BackupError
    from ..ops.backup import restore as do_restore

    cfg = Config.from_env()
    try:
        manifest = do_restore(src, cfg.SQLALCHEMY_DATABASE_URI, cfg.DATA_DIR)
    except BackupError as exc:
        fail(str(exc))
    files = sum(1 for rel in manifest["files"] if rel.startswith("files/"))
    click.echo(f"restored the {manifest['database']} database (migration {manifest['revision']}, made "
               f"{manifest['created_at']} by Enface {manifest['enface']}) and {files} files into {cfg.DATA_DIR}")
    if manifest["revision"] != head_revision():
        click.echo(f"the code is at migration {head_revision()}: run enface db upgrade")
