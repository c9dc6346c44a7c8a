"""The server's half of two annotation-page rules: categories only on the side their scheme allows,
and a segment counts as read only after its minimum dwell time (progress clipped, finish refused)."""

from __future__ import annotations

import pytest

from tests.support.campaigns import assignments_of, finish, new_campaign, put_mark, read_all

OMISSION = {"seg": 0, "side": "source", "start": 0, "end": 3, "category": "Accuracy", "subcategory": "Omission",
            "severity": "Minor"}


@pytest.fixture
def mine(world):
    cid = new_campaign(world, annotators=("ann1@example.org",), redundancy=1, ranges="river.1")
    return world, assignments_of(world, cid, "ann1@example.org")[0]


@pytest.mark.parametrize("body,ok", [
    (OMISSION, True),
    ({**OMISSION, "side": "target"}, False),                                        # Omission: source only
    ({**OMISSION, "subcategory": "Mistranslation"}, False),                         # target only
    ({**OMISSION, "side": "target", "subcategory": "Mistranslation"}, True),
    ({**OMISSION, "category": "Fluency", "subcategory": "Grammar"}, False),
    ({**OMISSION, "category": "Others", "subcategory": ""}, True),                   # Others: both sides
    ({**OMISSION, "category": "Others", "subcategory": "", "side": "target"}, True),
])
def test_category_only_on_its_sides(mine, body, ok):
    world, a = mine
    c = world.client("ann1@example.org")
    r, _ = put_mark(c, a["public_id"], body)
    if ok:
        assert r.status_code == 200, r.get_json()
        return
    assert r.status_code == 400
    err = r.get_json()["error"]
    assert err["code"] == "wrong_side" and err["details"]["field"] == "side"
    cat = f"{body['category']}/{body['subcategory']}"
    assert cat in err["message"] and f"not on the {body['side']}" in err["message"]


def test_google_scheme_sides(world):
    cid = new_campaign(world, annotators=("ann1@example.org",), redundancy=1, ranges="river.1", scheme="google-mqm")
    a = assignments_of(world, cid, "ann1@example.org")[0]
    c = world.client("ann1@example.org")
    assert put_mark(c, a["public_id"], {**OMISSION, "severity": "Major"})[0].status_code == 200
    assert put_mark(c, a["public_id"], {**OMISSION, "category": "Source error", "subcategory": "",
                                        "severity": "Minor"})[0].status_code == 200
    r, _ = put_mark(c, a["public_id"], {**OMISSION, "category": "Source error", "subcategory": "", "side": "target",
                                        "severity": "Minor"})
    assert r.status_code == 400 and r.get_json()["error"]["code"] == "wrong_side"
    # the page gets the sides with the scheme
    state = c.get(f"/annotate/api/items/{a['public_id']}").get_json()
    cats = {cat["name"]: cat for cat in state["scheme"]["categories"]}
    assert cats["Source error"]["sides"] == ["source"]
    assert {s["name"]: s["sides"] for s in cats["Accuracy"]["subcategories"]}["Omission"] == ["source"]
    assert [(s["name"], s["short"]) for s in state["scheme"]["severities"]] == [("Major", "Ma"), ("Minor", "Mi"),
                                                                              ("Neutral", "N")]


def test_pressing_next_fast_reads_nothing(mine):
    """J pressed 14 times in a second: the page reports every segment reached, each with ~70 ms."""
    world, a = mine
    c = world.client("ann1@example.org")
    pid, n = a["public_id"], a["segments"]
    state = c.get(f"/annotate/api/items/{pid}").get_json()
    dwell = state["dwell_ms"]
    assert len(dwell) == n and all(d >= 300 for d in dwell)       # words of source and target at 20/s
    r = c.post(f"/annotate/api/items/{pid}/progress",
               json={"cursor": n - 1, "furthest": n - 1, "times": {str(i): 70 for i in range(n)}})
    assert r.status_code == 200 and r.get_json()["furthest"] == -1     # clipped: nothing read
    r = finish(c, pid)
    assert r.status_code == 409
    err = r.get_json()["error"]
    assert err["code"] == "not_read" and err["details"]["unread"] == list(range(n))
    assert "read too fast" in err["message"] and "segment 1, 2, 3, 4" in err["message"]
    # the first two read long enough: furthest moves to 1, and the message names the rest
    r = c.post(f"/annotate/api/items/{pid}/progress",
               json={"cursor": n - 1, "furthest": n - 1, "times": {"0": dwell[0], "1": dwell[1] + 5}})
    assert r.get_json()["furthest"] == 1
    err = finish(c, pid).get_json()["error"]
    assert err["details"]["unread"] == [2, 3] and "2 of 4" in err["message"]
    # a later visit adds up (times only grow, per segment): then the item can be finished
    assert read_all(c, pid, n).get_json()["furthest"] == n - 1
    assert finish(c, pid).status_code == 200


def test_time_on_a_later_segment_does_not_read_an_earlier_one(mine):
    world, a = mine
    c = world.client("ann1@example.org")
    pid = a["public_id"]
    r = c.post(f"/annotate/api/items/{pid}/progress",
               json={"cursor": 2, "furthest": 2, "times": {"0": 60_000, "2": 60_000}})
    assert r.get_json()["furthest"] == 0
    assert finish(c, pid).get_json()["error"]["details"]["unread"] == [1, 3]
