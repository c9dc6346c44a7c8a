"""Helpers of the test suite, one importable package: ``from tests.support import ...``.

pyproject's pytest ``pythonpath`` puts the project root on the import path, so ``tests`` is
importable (from bench/ too, which puts the root there itself).

* :mod:`tests.support.services`: ``require_service``, a skip that CI turns into a failure.
* :mod:`tests.support.databases`: a fresh migrated database and app per test (the fixtures
  ``db_template``, ``database_url``, ``make_app``; a pytest plugin that tests/conftest.py registers).
* :mod:`tests.support.testkit`: the web platform's helpers (``World``, uploads, logins, a live server).
* :mod:`tests.support.realdata`: real WMT outputs from ../shared/data turned into test sets.
* :mod:`tests.support.tiny_comet`: a tiny offline COMET checkpoint.
"""

import os
from pathlib import Path

#: the project root
ROOT = Path(__file__).resolve().parents[2]
#: the demo shared task (test set and systems)
DEMO = ROOT / "data" / "demo"
#: real data beside the project (../shared/data, or ENFACE_SHARED_DATA, e.g. for a git worktree elsewhere);
#: tests that read it skip when it is absent
SHARED_DATA = Path(os.environ.get("ENFACE_SHARED_DATA") or ROOT.parent / "shared" / "data")
