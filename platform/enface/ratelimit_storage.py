"""Rate-limit counters in a SQLite file: shared by every web process of one host, with nothing to install.

Flask-Limiter's ``memory://`` keeps one count per process, so gunicorn with N workers let N times
the limit through. This is a storage for the ``limits`` library (which Flask-Limiter and the login
throttle use) under the scheme ``sqlite``: ``sqlite:///<absolute path>``. The embedded default is
``<data_dir>/ratelimit.sqlite``; several hosts share ``redis://...`` instead (ENFACE_RATELIMIT_STORAGE).

Fixed windows (Flask-Limiter's default strategy): one row per key, its count and when it expires.
Each increment is one short ``BEGIN IMMEDIATE`` transaction, so processes never lose a count.
Importing this module registers the scheme (the ``limits`` registry is filled by class creation).
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from urllib.parse import urlparse

from limits.storage import Storage

SCHEME = "sqlite"
_PURGE_EVERY = 500     # increments between two deletions of expired counters (per process)


class SQLiteStorage(Storage):
    STORAGE_SCHEME = [SCHEME]

    def __init__(self, uri: str | None = None, wrap_exceptions: bool = False, **options):
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)
        path = urlparse(uri or "").path
        if not path or path == "/":
            raise ValueError(f"rate-limit storage {uri!r}: give a file, sqlite:///<absolute path>")
        self.path = path
        self._local = threading.local()
        self._count = 0
        with self._connection() as conn:
            conn.execute("CREATE TABLE IF NOT EXISTS counters (key TEXT PRIMARY KEY, value INTEGER NOT NULL, "
                         "expires_at REAL NOT NULL)")

    @property
    def base_exceptions(self) -> type[Exception]:
        return sqlite3.Error

    def _connection(self) -> sqlite3.Connection:
        """One connection per thread and process (a forked gunicorn worker opens its own)."""
        conn = getattr(self._local, "conn", None)
        if conn is None or self._local.pid != os.getpid():
            os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
            conn = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            self._local.conn, self._local.pid = conn, os.getpid()
        return conn

    def incr(self, key: str, expiry: float, amount: int = 1) -> int:
        now = time.time()
        conn = self._connection()
        conn.execute("BEGIN IMMEDIATE")
        try:
            row = conn.execute("SELECT value, expires_at FROM counters WHERE key = ?", (key,)).fetchone()
            if row is None or row[1] <= now:
                value = amount
                conn.execute("INSERT OR REPLACE INTO counters (key, value, expires_at) VALUES (?, ?, ?)",
                             (key, value, now + expiry))
            else:
                value = row[0] + amount
                conn.execute("UPDATE counters SET value = ? WHERE key = ?", (value, key))
            self._count += 1
            if self._count % _PURGE_EVERY == 0:
                conn.execute("DELETE FROM counters WHERE expires_at <= ?", (now,))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return value

    def get(self, key: str) -> int:
        row = self._connection().execute("SELECT value FROM counters WHERE key = ? AND expires_at > ?",
                                         (key, time.time())).fetchone()
        return row[0] if row else 0

    def get_expiry(self, key: str) -> float:
        row = self._connection().execute("SELECT expires_at FROM counters WHERE key = ? AND expires_at > ?",
                                         (key, time.time())).fetchone()
        return row[0] if row else time.time()

    def check(self) -> bool:
        try:
            self._connection().execute("SELECT 1").fetchone()
        except sqlite3.Error:
            return False
        return True

    def reset(self) -> int | None:
        return self._connection().execute("DELETE FROM counters").rowcount

    def clear(self, key: str) -> None:
        self._connection().execute("DELETE FROM counters WHERE key = ?", (key,))
