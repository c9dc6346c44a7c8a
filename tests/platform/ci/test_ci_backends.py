"""The second CI pass must really run on PostgreSQL: ``.ci/run`` sets ENFACE_TEST_DATABASE_URL for it.

Without this test a typo in that variable (or a change in tests/support/databases.py) would let the
second pass run on SQLite again and stay green, and the PostgreSQL-only code paths (row locks in
the annotation save path, ``ON CONFLICT`` in the quota) would never run in CI.
"""

from __future__ import annotations

import os

from sqlalchemy import text
from sqlalchemy.engine import make_url


def test_the_tests_run_on_the_database_ci_asked_for(app):
    engine = app.extensions["enface_db"][0]
    wanted = os.environ.get("ENFACE_TEST_DATABASE_URL", "").strip()
    if wanted:
        expected = make_url(wanted).get_dialect().name
        assert engine.dialect.name == expected, (
            f"ENFACE_TEST_DATABASE_URL asks for {expected}, but the tests' app runs on {engine.dialect.name}")
        with engine.connect() as conn:
            if expected == "postgresql":
                assert conn.execute(text("select version()")).scalar().startswith("PostgreSQL")
    else:
        assert engine.dialect.name == "sqlite"

