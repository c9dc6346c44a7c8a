"""Issue 15, finding 6: a settings, freeze or licence post with missing fields is refused and changes
nothing (it used to close, hide or freeze a test set, or erase its licence, silently)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from tests.support.testkit import login

OPENED = datetime(2001, 1, 1, tzinfo=timezone.utc)


@pytest.fixture
def org(world):
    world.user("org@example.org", role="organizer")
    client = world.app.test_client()
    login(client, "org@example.org")
    return client


def _state(world, tsid):
    from enface.extensions import db
    from enface.models import TestSet

    with world.app.app_context():
        ts = db.session.get(TestSet, tsid)
        return ts.opens_at, ts.deadline, ts.released, ts.references_public, ts.frozen_at, ts.licence


@pytest.mark.parametrize("data", [{}, {"released": "y"}, {"opens_at": "", "deadline": ""},
                                  {"opens_at": "", "deadline": "", "quota_per_day": "", "quota_total": ""}])
def test_a_partial_settings_post_changes_nothing(world, org, data):
    tsid = world.testset(released=True, references_public=True, opens_at=OPENED,
                         deadline=datetime.now(timezone.utc) + timedelta(days=3))
    before = _state(world, tsid)
    resp = org.post(f"/admin/testsets/{tsid}", data=data)
    assert resp.status_code == 400 and "nothing was changed" in resp.get_data(as_text=True)
    assert _state(world, tsid) == before


def test_a_freeze_post_needs_its_action_and_a_licence_post_its_field(world, org):
    from enface.extensions import db
    from enface.models import TestSet
    from enface.services.freeze import set_licence

    tsid = world.testset(released=True)
    with world.app.app_context():
        set_licence(db.session.get(TestSet, tsid), "CC BY 4.0")
    before = _state(world, tsid)
    for data in ({}, {"action": "thaw"}):
        resp = org.post(f"/browse/{tsid}/freeze", data=data)
        assert resp.status_code == 400 and "nothing was changed" in resp.get_data(as_text=True)
    resp = org.post(f"/browse/{tsid}/licence", data={})
    assert resp.status_code == 400 and "nothing was changed" in resp.get_data(as_text=True)
    assert _state(world, tsid) == before
    assert org.post(f"/browse/{tsid}/freeze", data={"action": "freeze"}).status_code == 302
    assert _state(world, tsid)[4] is not None
