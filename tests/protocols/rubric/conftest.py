"""Fixtures of the rubric-protocol tests: a fresh migrated database per test and the demo phenomena world."""

from __future__ import annotations

import pytest
from rubric_helpers import RubricWorld, build_rubric_world


@pytest.fixture
def app(make_app):
    return make_app()


@pytest.fixture
def world(app) -> RubricWorld:
    return build_rubric_world(app)
