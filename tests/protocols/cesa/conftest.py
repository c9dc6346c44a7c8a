"""Fixtures of the ESA protocol's tests: a fresh database per test and the campaign world of
tests/support/campaigns.py (an en->de test set of two documents, four systems, annotators)."""

from tests.support.campaigns import app, world  # noqa: F401  (fixtures)
