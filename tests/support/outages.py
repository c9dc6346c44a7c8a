"""Ways to make the database unavailable for a while (tests/support/faults.py, bench/faults.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from .processes import free_port


class PrivateCluster:
    """A PostgreSQL cluster of our own (initdb as the postgres user; the server refuses to run as root)."""

    def __init__(self):
        self.bin = Path(sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))[-1]).parent
        self.folder, self.port = Path(tempfile.mkdtemp(prefix="enface-pg-")), free_port()
        self.data = self.folder / "pg"

    @staticmethod
    def available() -> bool:
        return bool(list(Path("/usr/lib/postgresql").glob("*/bin/initdb"))) and shutil.which("su") is not None

    def _as_postgres(self, command: str) -> None:
        prefix = [] if os.geteuid() != 0 else ["su", "postgres", "-s", "/bin/sh", "-c"]
        args = prefix + [command] if prefix else ["/bin/sh", "-c", command]
        done = subprocess.run(args, capture_output=True, text=True)
        if done.returncode:
            raise RuntimeError(f"{command}: exit {done.returncode}: {(done.stdout + done.stderr)[-1000:]}")

    def init(self) -> str:
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
        self._as_postgres(f"{self.bin}/initdb -D {self.data} -A trust -U enface")
        self.start()
        self._as_postgres(f"{self.bin}/createdb -h 127.0.0.1 -p {self.port} -U enface faults")
        return f"postgresql+psycopg://enface@127.0.0.1:{self.port}/faults"

    def start(self) -> None:
        self._as_postgres(f"{self.bin}/pg_ctl -D {self.data} -l {self.data}/log -w -o '-p {self.port} "
                          f"-k {self.data} -c listen_addresses=127.0.0.1 -c fsync=off' start")

    def stop(self) -> None:
        self._as_postgres(f"{self.bin}/pg_ctl -D {self.data} -m fast -w stop")

    def destroy(self) -> None:
        try:
            self.stop()
        except RuntimeError:
            pass
        shutil.rmtree(self.folder, ignore_errors=True)


class postgres_down:   # noqa: N801  (used like a function: ``with postgres_down(cluster):``)
    """PostgreSQL stopped (connections refused) for the block, started again after it."""

    def __init__(self, cluster: PrivateCluster):
        self.cluster = cluster

    def __call__(self):
        return self

    def __enter__(self):
        self.cluster.stop()

    def __exit__(self, *exc):
        self.cluster.start()


class sqlite_locked:   # noqa: N801
    """SQLite held by an exclusive transaction for the block: writers wait (busy timeout), readers of
    the WAL go on. This is *not* a refused connection; SQLite has no server to stop."""

    def __init__(self, path: Path):
        self.path = path

    def __call__(self):
        return self

    def __enter__(self):
        import sqlite3

        self.conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        self.conn.execute("BEGIN EXCLUSIVE")

    def __exit__(self, *exc):
        self.conn.execute("ROLLBACK")
        self.conn.close()
