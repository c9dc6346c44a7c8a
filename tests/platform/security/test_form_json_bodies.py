"""Issue 15, "No 500s": a JSON body that is not an object of text (a string, a number, a list, a nested
value, a lone surrogate) sent to a Flask-WTF form route was a 500 on 18 routes, anonymous /auth/login and
/auth/register included. One base form (enface.forms.Form) reads JSON for every form; it answers 400."""

from __future__ import annotations

import json

import pytest

from tests.support.testkit import login

BODIES = ['"a string"', "5", "[1, 2]", "[[\"email\", \"x\"]]", "null", "true", '{"email": 5}',
          '{"email": {"a": 1}}', '{"email": ["a", 3]}', '{"email": "\\ud800"}', '{"\\udfff": "x"}', "{not json"]


@pytest.mark.parametrize("body", BODIES)
@pytest.mark.parametrize("path", ["/auth/login", "/auth/register"])
def test_anonymous_form_routes(client, path, body):
    resp = client.post(path, data=body, content_type="application/json")
    assert resp.status_code == 400, (path, body, resp.status_code)


def test_every_form_route_as_an_organizer(world):
    world.user("org@example.org", role="organizer")
    tsid = world.testset()
    client = world.app.test_client()
    login(client, "org@example.org")
    routes = ["/auth/password", "/auth/tokens", "/team/create", "/team/join", "/admin/testsets/import",
              f"/admin/testsets/{tsid}", "/admin/users/1/role", f"/testsets/{tsid}/submit", "/auth/logout",
              "/admin/sweep", f"/admin/testsets/{tsid}/rescore"]
    for path in routes:
        for body in BODIES:
            resp = client.post(path, data=body, content_type="application/json")
            assert resp.status_code < 500, (path, body, resp.status_code)
            assert resp.status_code != 200 or body == "{not json", (path, body)


def test_a_json_object_of_text_still_works(client, world):
    world.user("p@example.org")
    resp = client.post("/auth/login", data=json.dumps({"email": "p@example.org", "password": "x" * 12}),
                       content_type="application/json")
    assert resp.status_code == 200     # wrong password: the form again, not a 400


def test_every_form_derives_from_the_base():
    import importlib

    from enface.forms import Form
    from flask_wtf import FlaskForm

    for module in ("enface.admin.forms", "enface.auth.forms", "enface.submissions.forms", "enface.teams.views"):
        importlib.import_module(module)

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    stray = [c.__qualname__ for c in subclasses(FlaskForm) if c.__module__.startswith("enface")
             and not issubclass(c, Form)]
    assert not stray, f"forms that read JSON bodies unchecked: {stray}"
