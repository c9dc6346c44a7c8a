"""Shared fixtures. Tests that need a server skip with a reason on a laptop;
``.ci/run`` sets ENFACE_STRICT_SERVICES=1, which turns those skips into failures.

The helpers live in the package ``tests.support``; its fixtures of fresh databases and apps
(``db_template``, ``database_url``, ``make_app``), used by tests/platform and tests/protocols,
are registered here as a plugin.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import DEMO

pytest_plugins = ["tests.support.databases", "tests.support.backends", "tests.support.fuzzing",
                  "tests.support.browser"]


def pytest_configure(config):
    from tests.support import routing_cache

    routing_cache.install()   # werkzeug's URL builders made once per process, not once per app


@pytest.fixture
def demo_testset_dir() -> Path:
    return DEMO / "testset"


@pytest.fixture
def demo_systems_dir() -> Path:
    return DEMO / "systems"
