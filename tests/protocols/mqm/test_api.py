"""The annotation API tried the way a flaky network, a careless client and a curious annotator would:
idempotent saves, bad input of every kind (clear 4xx JSON, never a 500), other people's items,
finished items, missing CSRF tokens, no session."""

from __future__ import annotations

import re

import pytest

from tests.support.campaigns import (
    PASSWORD,
    assignments_of,
    finish,
    mark_uuid,
    new_campaign,
    put_mark,
    read_all,
)

GOOD = {"seg": 0, "start": 0, "end": 3, "category": "Accuracy", "subcategory": "Mistranslation", "severity": "Major"}


@pytest.fixture
def setup(world):
    cid = new_campaign(world, annotators=("ann1@example.org", "ann2@example.org"), redundancy=1)
    mine = assignments_of(world, cid, "ann1@example.org")
    theirs = assignments_of(world, cid, "ann2@example.org")
    return world, cid, mine, theirs


def _marks(client, public_id):
    return [m for m in client.get(f"/annotate/api/items/{public_id}").get_json()["marks"] if not m["deleted"]]


def test_same_uuid_twice_is_one_mark(setup):
    world, _cid, mine, _ = setup
    c = world.client("ann1@example.org")
    pid = mine[0]["public_id"]
    r1, uid = put_mark(c, pid, GOOD)
    r2, _ = put_mark(c, pid, GOOD, uid=uid)
    assert r1.status_code == r2.status_code == 200
    assert r1.get_json()["changed"] is True and r2.get_json()["changed"] is False
    assert [m["uuid"] for m in _marks(c, pid)] == [uid]
    # an older revision arriving late changes nothing; a newer one updates in place
    r3, _ = put_mark(c, pid, {**GOOD, "severity": "Minor"}, uid=uid, rev=2)
    r4, _ = put_mark(c, pid, {**GOOD, "severity": "Critical"}, uid=uid, rev=1)
    assert r3.get_json()["mark"]["severity"] == "Minor"
    assert r4.get_json()["changed"] is False and r4.get_json()["mark"]["severity"] == "Minor"
    assert len(_marks(c, pid)) == 1
    # delete is idempotent too, and a late retry of the old write cannot resurrect the mark
    d1 = c.delete(f"/annotate/api/items/{pid}/marks/{uid}", json={"rev": 3})
    d2 = c.delete(f"/annotate/api/items/{pid}/marks/{uid}", json={"rev": 3})
    assert d1.status_code == d2.status_code == 200
    put_mark(c, pid, GOOD, uid=uid, rev=2)
    assert _marks(c, pid) == []
    # undo = a newer revision
    r5, _ = put_mark(c, pid, GOOD, uid=uid, rev=4)
    assert r5.get_json()["changed"] is True and len(_marks(c, pid)) == 1
    # deleting a mark that never reached the server is fine
    assert c.delete(f"/annotate/api/items/{pid}/marks/{mark_uuid()}", json={"rev": 1}).status_code == 200


BAD_BODIES = [
    ({**GOOD, "seg": 99}, 400, "bad_segment"),
    ({**GOOD, "seg": -1}, 400, "bad_segment"),
    ({**GOOD, "seg": "0"}, 400, "invalid_field"),
    ({**GOOD, "start": 5, "end": 5}, 400, "bad_span"),
    ({**GOOD, "start": 4, "end": 2}, 400, "bad_span"),
    ({**GOOD, "start": -1}, 400, "bad_span"),
    ({**GOOD, "end": 10_000}, 400, "bad_span"),
    ({**GOOD, "start": 1.5}, 400, "invalid_field"),
    ({**GOOD, "start": True}, 400, "invalid_field"),
    ({**GOOD, "text": "not what is marked"}, 400, "bad_span"),
    ({**GOOD, "side": "middle"}, 400, "invalid_field"),
    ({**GOOD, "category": "Vibes"}, 400, "unknown_category"),
    ({**GOOD, "subcategory": "Vibes"}, 400, "unknown_category"),
    ({**GOOD, "subcategory": ""}, 400, "unknown_category"),
    ({**GOOD, "category": "Others", "subcategory": "Anything"}, 400, "unknown_category"),
    ({**GOOD, "severity": "Catastrophic"}, 400, "unknown_severity"),
    ({**GOOD, "severity": "HOTW-test"}, 400, "unknown_severity"),
    ({**GOOD, "severity": None}, 400, "invalid_field"),
    ({**GOOD, "category": 7}, 400, "invalid_field"),
    ({**GOOD, "note": "x" * 2001}, 400, "invalid_field"),
    ({**GOOD, "note": "tab\there"}, 400, "invalid_field"),
    ({**GOOD, "category": "Non-translation", "subcategory": "", "start": 0, "end": 3}, 400, "bad_span"),
    ({**GOOD, "rev": 0}, 400, "invalid_field"),
    ({**GOOD, "rev": "1"}, 400, "invalid_field"),
    ([1, 2, 3], 400, "invalid_json"),
    ("just a string", 400, "invalid_json"),
]


@pytest.mark.parametrize("body,status,code", BAD_BODIES)
def test_bad_marks_get_clear_json_errors(setup, body, status, code):
    world, _cid, mine, _ = setup
    c = world.client("ann1@example.org")
    payload = body if not isinstance(body, dict) else {"rev": 1, **body}
    r = c.put(f"/annotate/api/items/{mine[0]['public_id']}/marks/{mark_uuid()}", json=payload)
    assert r.status_code == status, r.get_data(as_text=True)
    err = r.get_json()["error"]
    assert err["code"] == code and err["message"]
    assert _marks(c, mine[0]["public_id"]) == []


def test_malformed_requests_never_500(setup):
    world, _cid, mine, _ = setup
    c = world.client("ann1@example.org")
    pid = mine[0]["public_id"]
    cases = [
        c.put(f"/annotate/api/items/{pid}/marks/not-a-uuid", json={"rev": 1, **GOOD}),
        c.put(f"/annotate/api/items/{pid}/marks/{mark_uuid()}", data="{not json", content_type="application/json"),
        c.put(f"/annotate/api/items/{pid}/marks/{mark_uuid()}", data=b"\xff\xfe", content_type="application/json"),
        c.put(f"/annotate/api/items/{pid}/marks/{mark_uuid()}"),
        c.put(f"/annotate/api/items/{pid}/marks/{mark_uuid()}", data="x" * 70000, content_type="application/json"),
        c.post(f"/annotate/api/items/{pid}/progress", json={"cursor": 999}),
        c.post(f"/annotate/api/items/{pid}/progress", json={"cursor": 0, "times": {"0": -5}}),
        c.post(f"/annotate/api/items/{pid}/progress", json={"cursor": 0, "times": {"zero": 5}}),
        c.post(f"/annotate/api/items/{pid}/progress", json={"cursor": 0, "times": [1, 2]}),
        c.post(f"/annotate/api/items/{pid}/progress", json=["no"]),
        c.get(f"/annotate/api/items/{pid}x"),
        c.get("/annotate/api/items/" + "a" * 300),
        c.post(f"/annotate/api/items/{pid}/finish", json={}),     # not read to the end yet
        c.patch(f"/annotate/api/items/{pid}/marks/{mark_uuid()}", json={},
                headers={"Accept": "application/json"}),   # routing errors: JSON when asked for
    ]
    for r in cases:
        assert 400 <= r.status_code < 500, (r.status_code, r.get_data(as_text=True)[:200])
        assert r.is_json and r.get_json()["error"]["message"], r.get_data(as_text=True)[:200]
    assert cases[-2].status_code == 409 and cases[-2].get_json()["error"]["code"] == "not_read"


def test_other_annotators_items_are_invisible(setup):
    world, _cid, mine, theirs = setup
    c = world.client("ann1@example.org")
    other = theirs[0]["public_id"]
    for r in (c.get(f"/annotate/api/items/{other}"), c.get(f"/annotate/item/{other}"),
              put_mark(c, other, GOOD)[0],
              c.delete(f"/annotate/api/items/{other}/marks/{mark_uuid()}", json={"rev": 1}),
              c.post(f"/annotate/api/items/{other}/progress", json={"cursor": 0}),
              c.post(f"/annotate/api/items/{other}/finish", json={})):
        assert r.status_code == 404
    # the page and the API answer like an unknown id: nothing to learn by probing
    assert c.get("/annotate/api/items/doesnotexist").get_json() == c.get(f"/annotate/api/items/{other}").get_json()
    assert world.client("ann2@example.org").get(f"/annotate/api/items/{other}").get_json()["marks"] == []


def test_finished_items_are_locked(setup):
    world, _cid, mine, _ = setup
    c = world.client("ann1@example.org")
    a = mine[0]
    r, uid = put_mark(c, a["public_id"], GOOD)
    assert read_all(c, a["public_id"], a["segments"]).status_code == 200
    assert finish(c, a["public_id"]).status_code == 200
    assert finish(c, a["public_id"]).get_json()["already"] is True
    r, _ = put_mark(c, a["public_id"], GOOD)
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "item_finished"
    r, _ = put_mark(c, a["public_id"], {**GOOD, "severity": "Minor"}, uid=uid, rev=2)
    assert r.status_code == 409
    r = c.delete(f"/annotate/api/items/{a['public_id']}/marks/{uid}", json={"rev": 5})
    assert r.status_code == 409
    assert len(_marks(c, a["public_id"])) == 1
    # progress after finishing is ignored, not an error (a late keepalive from a closing tab)
    r = c.post(f"/annotate/api/items/{a['public_id']}/progress", json={"cursor": 0})
    assert r.status_code == 200 and r.get_json()["locked"] is True


def test_closed_campaign_refuses_changes(setup):
    world, cid, mine, _ = setup
    from enface.campaigns import services as svc

    with world.ctx():
        svc.set_state(svc.get_campaign(cid), "closed")
    r, _ = put_mark(world.client("ann1@example.org"), mine[0]["public_id"], GOOD)
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "campaign_closed"


def _set_campaign_state(cid: int, state: str) -> None:
    """Changes the state from a session of its own, as another request would."""
    from enface.campaigns.models import Campaign
    from enface.extensions import db
    from sqlalchemy import update

    other = db.new_session()
    try:
        with db.write(other):
            other.execute(update(Campaign).where(Campaign.id == cid).values(state=state))
    finally:
        other.close()


def test_campaign_closed_between_lookup_and_save_refuses_changes(setup, monkeypatch):
    """The state checked is the one read under the lock, not the one read before the transaction."""
    world, cid, mine, _ = setup
    from enface.campaigns import services as svc

    c = world.client("ann1@example.org")
    pid, n = mine[0]["public_id"], mine[0]["segments"]
    r, uid = put_mark(c, pid, GOOD)
    assert r.status_code == 200
    before = c.get(f"/annotate/api/items/{pid}").get_json()
    lookup = svc.get_assignment
    held = []

    def get_assignment_then_close(*args, **kwargs):
        asg = lookup(*args, **kwargs)
        assert asg.item.campaign.state == "open"     # what the request has read so far
        # (the request keeps the campaign it has read: its session then answers asg.item.campaign with it)
        held.append(asg.item.campaign)
        with world.ctx():
            _set_campaign_state(cid, "closed")       # the organizer closes the campaign meanwhile
        return asg

    from enface.campaigns.services import annotating
    from enface.protocols.mqm.services import marks as mqm_marks

    for module in (annotating, mqm_marks):   # where the core and MQM look the assignment up
        monkeypatch.setattr(module, "get_assignment", get_assignment_then_close)
    requests = [
        lambda: c.post(f"/annotate/api/items/{pid}/progress",
                       json={"cursor": n - 1, "furthest": n - 1, "times": {"0": 5000}}),
        lambda: put_mark(c, pid, {**GOOD, "severity": "Minor"}, uid=uid, rev=2)[0],
        lambda: c.delete(f"/annotate/api/items/{pid}/marks/{uid}", json={"rev": 3}),
        lambda: finish(c, pid),
    ]
    answers = []
    for request in requests:
        with world.ctx():
            _set_campaign_state(cid, "open")
        answers.append(request())
    progress, put, delete, fin = answers
    assert progress.status_code == 200 and progress.get_json()["locked"] is True
    for r in (put, delete, fin):
        assert r.status_code == 409 and r.get_json()["error"]["code"] == "campaign_closed"
    monkeypatch.undo()
    after = c.get(f"/annotate/api/items/{pid}").get_json()
    assert after["readonly"] is True
    for key in ("cursor", "furthest", "times", "marks"):
        assert after[key] == before[key], key
    assert after["item"]["finished"] is False


def test_no_session_is_401_json(setup):
    world, _cid, mine, _ = setup
    anon = world.app.test_client()
    r, _ = put_mark(anon, mine[0]["public_id"], GOOD)
    assert r.status_code == 401 and r.get_json()["error"]["code"] == "unauthorized"
    assert anon.get(f"/annotate/api/items/{mine[0]['public_id']}").status_code == 401
    assert anon.get(f"/annotate/item/{mine[0]['public_id']}").status_code in (302, 401)


def test_csrf_header_is_required(world, make_app):
    cid = new_campaign(world, annotators=("ann1@example.org",), redundancy=1)
    a = assignments_of(world, cid, "ann1@example.org")[0]
    app = make_app(WTF_CSRF_ENABLED=True)
    c = app.test_client()
    page = c.get("/auth/login").get_data(as_text=True)
    token = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', page).group(1)
    assert c.post("/auth/login", data={"email": "ann1@example.org", "password": PASSWORD,
                                       "csrf_token": token}).status_code in (302, 303)
    page = c.get(f"/annotate/item/{a['public_id']}").get_data(as_text=True)
    token = re.search(r'<meta name="csrf-token" content="([^"]+)"', page).group(1)
    url = f"/annotate/api/items/{a['public_id']}/marks/{mark_uuid()}"
    no = c.put(url, json={"rev": 1, **GOOD})
    assert no.status_code == 400 and no.get_json()["error"]["code"] == "csrf"
    wrong = c.put(url, json={"rev": 1, **GOOD}, headers={"X-CSRFToken": "forged"})
    assert wrong.status_code == 400
    ok = c.put(url, json={"rev": 1, **GOOD}, headers={"X-CSRFToken": token})
    assert ok.status_code == 200
    for r in (c.post(f"/annotate/api/items/{a['public_id']}/progress", json={"cursor": 0}),
              c.post(f"/annotate/api/items/{a['public_id']}/finish", json={}),
              c.delete(url, json={"rev": 9})):
        assert r.status_code == 400 and r.get_json()["error"]["code"] == "csrf"
    # the organizer forms are protected too
    c2 = app.test_client()
    page = c2.get("/auth/login").get_data(as_text=True)
    token = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', page).group(1)
    c2.post("/auth/login", data={"email": "org@example.org", "password": PASSWORD, "csrf_token": token})
    assert c2.post(f"/campaigns/{cid}/state", data={"state": "closed"}).status_code == 400


def test_non_translation_covers_the_whole_segment(setup):
    world, cid, mine, _ = setup
    c = world.client("ann1@example.org")
    a = mine[0]
    target = c.get(f"/annotate/api/items/{a['public_id']}").get_json()["segments"][1]["target"]
    r, _ = put_mark(c, a["public_id"], {"seg": 1, "start": 0, "end": len(target), "category": "Non-translation",
                                        "severity": "Critical"})
    assert r.status_code == 200, r.get_json()
    m = r.get_json()["mark"]
    assert m["text"] == target and m["subcategory"] == ""


def test_concurrent_retries_of_one_mark_make_one_mark(setup):
    """The same save sent by several connections at once (a retry storm) is still one mark."""
    import threading

    world, _cid, mine, _ = setup
    pid = mine[0]["public_id"]
    uid = mark_uuid()
    statuses = []

    def send():
        c = world.client("ann1@example.org")
        r, _ = put_mark(c, pid, GOOD, uid=uid)
        statuses.append(r.status_code)

    threads = [threading.Thread(target=send) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert statuses == [200] * 6
    assert [m["uuid"] for m in _marks(world.client("ann1@example.org"), pid)] == [uid]


def test_texts_are_escaped_everywhere(world, tmp_path):
    """Hostile text in a system output and in a note never reaches the page as markup."""
    from enface.campaigns import services as svc
    from enface.extensions import db
    from enface.models import User
    from enface.services.testsets import import_testset

    from tests.support.campaigns import add_submission, write_testset

    evil = '</script><script>alert("x")</script><img src=x onerror=alert(1)>'
    with world.ctx():
        ts = import_testset(write_testset(tmp_path / "evil", {"d": ["A source sentence here."]}), "Evil")
        sid = add_submission(ts.id, "evil-mt", None, "baseline", True, {"d": [evil]})
        camp = svc.create_campaign(db.session.get(User, world.users["org@example.org"]), ts,
                                   svc.CampaignInput(name='<b>Camp</b>', submission_ids=[sid], ranges="d",
                                                     settings={"attention_share": 0},
                                                     instructions="<script>bad()</script>"))
        svc.add_annotator(camp, db.session.get(User, world.users["ann1@example.org"]))
        svc.start_campaign(svc.get_campaign(camp.id))
        cid = camp.id
    a = assignments_of(world, cid, "ann1@example.org")[0]
    c = world.client("ann1@example.org")
    r, _ = put_mark(c, a["public_id"], {"seg": 0, "start": 0, "end": 9, "category": "Others", "severity": "Minor",
                                        "note": "<script>note()</script>"})
    assert r.status_code == 200
    for url in (f"/annotate/item/{a['public_id']}", "/annotate/"):
        html = c.get(url).get_data(as_text=True)
        assert "<script>alert" not in html and "<img src=x" not in html and "<script>bad()" not in html
        assert "<b>Camp</b>" not in html
    org = world.client("org@example.org")
    read_all(c, a["public_id"], a["segments"])
    finish(c, a["public_id"])
    for url in (f"/campaigns/{cid}", f"/campaigns/{cid}/results", f"/campaigns/{cid}/errors.svg"):
        html = org.get(url).get_data(as_text=True)
        assert "<script>alert" not in html and "<script>note()" not in html and "<b>Camp</b>" not in html
