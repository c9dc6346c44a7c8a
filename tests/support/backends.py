"""Which tests run in which CI pass, and on which worker: a pytest plugin (tests/conftest.py registers it).

* ``--database-tests-only`` (the PostgreSQL pass of ``.ci/run``): keeps the tests that use a fresh
  database (their fixtures reach ``db_template``: ``database_url``, ``make_app``, ``app``, ``client``,
  ``world``...) and deselects the rest, which never touch the database and already ran in the SQLite
  pass. Tests marked ``sqlite_only`` (they exercise SQLite itself: its lock, its backup API) and
  ``postgres`` (they always run on their own PostgreSQL) are deselected too: the first pass ran them.
* The backend guard: while ENFACE_TEST_DATABASE_URL names PostgreSQL, a database test that opens an
  Enface database in a SQLite file (rather than the database its fixtures made) fails, naming the file.
  So a test that builds its own SQLite world cannot pass the PostgreSQL pass without running on it.
* pytest-xdist: the timing-sensitive tests (real processes killed mid-job, races, live servers and
  browsers) get an ``xdist_group`` each, so that with ``--dist loadgroup`` the tests of one group run
  one after another on one worker instead of racing each other for the two cores.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .databases import is_postgres

#: SQLite files that are not the app's database: the embedded broker, result backend and rate-limit store
INFRASTRUCTURE = re.compile(r"(broker|results|[\w-]*ratelimit)\.sqlite$")

#: xdist group -> test files (relative to tests/) whose tests run one after another on one worker
SERIAL_FILES = {
    "faults": ("platform/jobs/test_faults.py",),
    "races": ("platform/submissions/test_concurrency.py",),
    "processes": ("platform/ops/test_doctor.py",),   # a real Celery worker answers the ping tasks
}
#: xdist group -> fixtures whose tests run one after another on one worker
SERIAL_FIXTURES = {"live-servers": ("live_server_factory",)}


def pytest_addoption(parser):
    parser.addoption("--database-tests-only", action="store_true", default=False,
                     help="run only the tests that use a fresh database (the PostgreSQL pass of .ci/run)")


def pytest_configure(config):
    config.addinivalue_line("markers", "sqlite_only: exercises SQLite itself; not rerun in the PostgreSQL pass")
    # pytest-xdist registers it too; without xdist (a plain `make test`) the groups are inert
    config.addinivalue_line("markers", "xdist_group(name): run with the group's other tests on one xdist worker")
    if is_postgres():
        _listen_for_sqlite()


def uses_database(item) -> bool:
    return "db_template" in getattr(item, "fixturenames", ())


def pytest_collection_modifyitems(config, items):
    tests_dir = Path(config.rootpath) / "tests"
    for item in items:
        path = Path(str(item.fspath))
        rel = path.relative_to(tests_dir).as_posix() if path.is_relative_to(tests_dir) else ""
        group = next((g for g, files in SERIAL_FILES.items() if rel in files), None)
        group = group or next((g for g, names in SERIAL_FIXTURES.items()
                               if any(n in item.fixturenames for n in names)), None)
        state = getattr(getattr(item, "callspec", None), "params", {}).get("state")
        if group is None and rel == "platform/security/test_access_matrix.py" and isinstance(state, str):
            group = f"access-matrix-{state}"   # each state's world is built once, on the worker that tests it
        if group is None and item.get_closest_marker("browser"):
            group = f"browser-{path.stem}"   # one chromium per module (a module-scoped fixture)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
    if not config.getoption("--database-tests-only"):
        return
    keep, drop = [], []
    for item in items:
        skip = (not uses_database(item) or item.get_closest_marker("sqlite_only")
                or item.get_closest_marker("postgres"))
        (drop if skip else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


# --------------------------------------------------------------------------- the backend guard

_opened: list[str] | None = None   # the current database test's SQLite app databases, when watched


def _listen_for_sqlite() -> None:
    import sqlite3

    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    @event.listens_for(Engine, "connect")
    def _seen(dbapi_conn, _record):
        if _opened is None or not isinstance(dbapi_conn, sqlite3.Connection):
            return
        for _seq, name, file in dbapi_conn.execute("PRAGMA database_list").fetchall():
            if name == "main" and file and not INFRASTRUCTURE.search(file):
                _opened.append(file)


@pytest.fixture(autouse=True)
def _database_backend_guard(request):
    """In the PostgreSQL pass, a database test fails if it opened an app database in a SQLite file."""
    global _opened
    if not (is_postgres() and uses_database(request.node) and not request.node.get_closest_marker("sqlite_only")):
        yield
        return
    _opened = []
    try:
        yield
        files = sorted(set(_opened))
    finally:
        _opened = None
    if files:
        pytest.fail("ran on SQLite in the PostgreSQL pass (ENFACE_TEST_DATABASE_URL): opened "
                    + ", ".join(files) + "; take the database from the database_url or db_template fixture",
                    pytrace=False)
