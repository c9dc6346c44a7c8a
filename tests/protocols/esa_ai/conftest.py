"""Fixtures of the ESA^AI tests: a fresh database per test and the campaign world of tests/support/campaigns.py."""

from tests.support.campaigns import app, world  # noqa: F401  (fixtures)
