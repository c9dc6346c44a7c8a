"""Fixtures of the MQM protocol's tests: a fresh database per test (``make_app``, tests/support/databases.py)
and the campaign world of tests/support/campaigns.py (an en->de test set of two documents, three teams'
systems and a baseline with distinctive names, four annotators, one of whom belongs to team Alder)."""

from tests.support.campaigns import app, world  # noqa: F401  (fixtures)
