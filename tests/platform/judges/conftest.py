"""Fixtures of the judge tests: the campaign world (tests/support/campaigns.py) and a scripted endpoint."""

from tests.support.campaigns import app, world  # noqa: F401  (fixtures)
