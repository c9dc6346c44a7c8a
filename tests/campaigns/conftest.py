"""Fixtures of the MQM campaign tests.

A fresh database per test (``make_app``, from tests/enface_databases.py, as in
tests/platform). Submissions are written straight into the database with
their output segments (validation and scoring are another suite's business), so
that a whole campaign is set up in milliseconds.

The world: an en->de test set of two documents, three teams' systems and a
baseline with distinctive names (so that the blind tests can look for them),
four annotators, one of whom belongs to team Alder.
"""

from __future__ import annotations

import pytest
from campaign_helpers import World, build_world


@pytest.fixture
def app(make_app):
    return make_app()


@pytest.fixture
def world(app, tmp_path) -> World:
    return build_world(app, tmp_path)
