"""Blindness: nothing an annotator can fetch names a system, a team or a submission.

Every page and JSON answer an annotator can reach is fetched (their item list, each item
page, each item's JSON, the answers to saves, progress and finish) and searched for the
system names, the team names and the submission descriptions. The organizer's dashboard
is searched too, as a control: it does show them.
"""

from __future__ import annotations

import json

import pytest

from tests.support.campaigns import SYSTEMS, assignments_of, finish, new_campaign, put_mark, read_all


def _secrets(world, exclude_team: str | None = None) -> list[str]:
    names = list(SYSTEMS) + [f"{s} description" for s in SYSTEMS]
    names += [t for t, *_ in SYSTEMS.values() if t and t != exclude_team]
    return names


def _assert_blind(text: str, forbidden: list[str], where: str) -> None:
    low = text.lower()
    for name in forbidden:
        assert name.lower() not in low, f"{name!r} appears in {where}"


@pytest.mark.parametrize("email", ["ann1@example.org", "alder-ann@example.org"])
def test_annotator_never_sees_system_or_team(world, email):
    cid = new_campaign(world, annotators=("ann1@example.org", "alder-ann@example.org", "ann2@example.org"),
                       redundancy=2, attention=0.5,
                       systems=["zephyr-mt", "quokka-nmt", "quokka-nmt-c", "walrus-baseline"])
    forbidden = _secrets(world, exclude_team="Alder" if email.startswith("alder") else None)
    c = world.client(email)
    pages = {"/annotate/": c.get("/annotate/")}
    mine = assignments_of(world, cid, email)
    assert mine
    for a in mine:
        pid = a["public_id"]
        pages[f"item page {a['number']}"] = c.get(f"/annotate/item/{pid}")
        pages[f"item json {a['number']}"] = c.get(f"/annotate/api/items/{pid}")
        r, uid = put_mark(c, pid, {"seg": 0, "start": 0, "end": 3, "category": "Fluency", "subcategory": "Grammar",
                                   "severity": "Minor", "note": "a note"})
        pages[f"save {a['number']}"] = r
        pages[f"delete {a['number']}"] = c.delete(f"/annotate/api/items/{pid}/marks/{uid}", json={"rev": 2})
        pages[f"progress {a['number']}"] = read_all(c, pid, a["segments"])
        pages[f"finish {a['number']}"] = finish(c, pid)
        pages[f"finished page {a['number']}"] = c.get(f"/annotate/item/{pid}")
    pages["/annotate/ after"] = c.get("/annotate/")
    for where, r in pages.items():
        assert r.status_code == 200, (where, r.status_code)
        body = r.get_data(as_text=True)
        _assert_blind(body, forbidden, where)
        _assert_blind(json.dumps(dict(r.headers)), forbidden, f"headers of {where}")
        if r.is_json:
            flat = json.dumps(r.get_json())
            for key in ('"submission', '"system', '"team'):
                assert key not in flat, (key, where)
    # the campaign pages, exports and results are not theirs to see
    for url in (f"/campaigns/{cid}", f"/campaigns/{cid}/export.tsv", f"/campaigns/{cid}/export.json",
                f"/campaigns/{cid}/results", f"/campaigns/{cid}/results.json", f"/campaigns/{cid}/errors.svg",
                "/campaigns/"):
        r = c.get(url)
        assert r.status_code == 404, url
        _assert_blind(r.get_data(as_text=True), forbidden, url)


def test_the_control_organizer_sees_the_systems(world):
    cid = new_campaign(world, annotators=("ann1@example.org", "ann2@example.org"), redundancy=1)
    html = world.client("org@example.org").get(f"/campaigns/{cid}").get_data(as_text=True)
    for name in ("zephyr-mt", "quokka-nmt", "walrus-baseline"):
        assert name in html


def test_item_ids_are_opaque_and_items_numbered(world):
    cid = new_campaign(world, annotators=("ann1@example.org", "ann2@example.org"), redundancy=2)
    ids = [a["public_id"] for e in ("ann1@example.org", "ann2@example.org") for a in assignments_of(world, cid, e)]
    assert len(set(ids)) == len(ids)
    assert all(len(i) >= 16 and not i.isdigit() for i in ids)
    for email in ("ann1@example.org", "ann2@example.org"):
        assert [a["number"] for a in assignments_of(world, cid, email)] == [1, 2, 3, 4, 5, 6]
