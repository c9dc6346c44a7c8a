"""Fixtures of the output browser's tests: the campaign world of tests/support/campaigns.py."""

from tests.support.campaigns import app, world  # noqa: F401  (fixtures)
