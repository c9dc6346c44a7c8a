"""Schemathesis against the published OpenAPI description of ``/api/v1``, on the WSGI app (offline).

Every operation, with generated path ids, form fields and files, anonymous and with a team's
token: no 5xx, responses conform to the description (status documented, JSON of the declared
shape), every error an ``{"error": {code, message, details}}`` with a sentence.
Budget: ENFACE_FUZZ_EXAMPLES per operation (tests/support/fuzzing.py). Not checked: that every
schema-valid request is accepted (schemathesis's positive_data_acceptance): whether an upload is
accepted depends on its files' content, which no schema can say.
"""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import given
from schemathesis.checks import positive_data_acceptance

from tests.support.fuzzing import SENT, api_error_message, fuzz_settings, row_counts
from tests.support.testkit import World


@pytest.fixture
def api_world(app):
    world = World(app)
    ts = world.testset(quota_per_day=None, quota_total=None)
    _uid, token = world.team_with_token("cap@schema.test", "Schemers")
    return world, ts, token


def test_openapi_description_is_served_and_lists_every_api_rule(client):
    resp = client.get("/api/v1/openapi.json")
    assert resp.status_code == 200 and resp.mimetype == "application/json"
    doc = resp.get_json()
    assert doc["openapi"].startswith("3.")
    described = {p.replace("{", "<").replace("}", ">") for p in doc["paths"]}
    rules = {r.rule.removeprefix("/api/v1").replace("<int:", "<") for r in client.application.url_map.iter_rules()
             if r.rule.startswith("/api/v1/")}
    assert rules == described, (rules ^ described)


def test_fuzz_api_against_its_description(api_world):
    world, _ts, token = api_world
    schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", world.app)
    operations = [op.ok() for op in schema.get_all_operations()]
    assert len(operations) >= 9
    for op in operations:
        for auth in (None, token):
            _fuzz_operation(world.app, op, {"Authorization": f"Bearer {auth}"} if auth else {})


def _fuzz_operation(app, op, headers: dict) -> None:
    @fuzz_settings(share=0.1)
    @given(case=op.as_strategy())
    def run(case):
        before = row_counts(app)
        SENT[f"schemathesis {op.method.upper()} {op.path}"] += 1
        response = case.call(headers=headers)
        assert response.status_code < 500, (case.path, case.path_parameters, response.text[:800])
        case.validate_response(response, headers=headers, excluded_checks=[positive_data_acceptance])
        if response.status_code >= 400:
            assert api_error_message(_Wrapped(response)), response.text[:300]
            assert row_counts(app) == before, ("partial write", op.path)

    run()


class _Wrapped:
    """A schemathesis response seen as a Flask one, for api_error_message."""

    def __init__(self, response):
        self.response = response

    def get_data(self, as_text=False):
        return self.response.text if as_text else self.response.content


