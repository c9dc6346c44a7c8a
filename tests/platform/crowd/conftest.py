"""Fixtures of the crowd tests: the campaign world of tests/support/campaigns.py on a fresh database per test."""

from tests.support.campaigns import app, world  # noqa: F401  (fixtures)
