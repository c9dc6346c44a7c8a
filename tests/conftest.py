"""Shared fixtures. Tests that need a server skip with a reason on a laptop;
``.ci/run`` sets ENFACE_STRICT_SERVICES=1, which turns those skips into failures."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "data" / "demo"
sys.path.insert(0, str(Path(__file__).parent))  # tests/ helpers: realdata, tiny_comet

# A fresh migrated database and app per test, for tests/platform and tests/campaigns.
from enface_databases import database_url, db_template, make_app  # noqa: E402, F401


def require_service(available: bool, reason: str) -> None:
    """Skip (or fail, in CI) when a server or tool the test needs is missing."""
    if available:
        return
    if os.environ.get("ENFACE_STRICT_SERVICES") == "1":
        pytest.fail(f"{reason} (ENFACE_STRICT_SERVICES=1: CI must provide it)")
    pytest.skip(reason)


@pytest.fixture
def demo_testset_dir() -> Path:
    return DEMO / "testset"


@pytest.fixture
def demo_systems_dir() -> Path:
    return DEMO / "systems"
