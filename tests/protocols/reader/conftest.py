"""Fixtures of the reader-study tests: a fresh migrated database per test and the reader world."""

from __future__ import annotations

import pytest
from reader_helpers import ReaderWorld, build_reader_world


@pytest.fixture
def app(make_app):
    return make_app()


@pytest.fixture
def world(app, tmp_path) -> ReaderWorld:
    return build_reader_world(app, tmp_path)


@pytest.fixture
def clock():
    """The campaigns' server clock, movable: ``clock(hours=25)``; put back after the test."""
    from datetime import timedelta

    from enface.campaigns import clock as core_clock

    def move(**delta):
        core_clock.shift(timedelta(**delta))

    yield move
    core_clock.shift(None)
