"""Fixtures of the BWS-protocol tests: a fresh migrated database per test and the demo task's world."""

from __future__ import annotations

import pytest
from bws_helpers import BwsWorld, build_bws_world


@pytest.fixture
def app(make_app):
    return make_app()


@pytest.fixture
def world(app) -> BwsWorld:
    return build_bws_world(app)
