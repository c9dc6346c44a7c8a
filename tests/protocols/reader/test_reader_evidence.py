"""A released reader study's good/poor highlights reach the output browser (the protocol's evidence hook),
each on the version it was made on, filterable like MQM spans."""

from __future__ import annotations

import json
import re

from reader_api import Book
from reader_helpers import books_of, new_study


def test_released_highlights_show_in_the_browser(world, clock):
    from enface.campaigns import services as svc
    from enface.extensions import db
    from enface.models import TestSet

    cid = new_study(world)
    readers = {email: [Book(world.client(email), i["public_id"]) for i in books_of(world, cid, email)]
               for email in ("reader1@example.org", "reader2@example.org")}
    for books in readers.values():
        for b in books:
            b.immersive()
    clock(hours=25)
    for books in readers.values():
        for b in books:
            b.close()        # per chunk: the first word of T1 "good", the start of T2 "poor"
            b.finish()
        books[-1].ok("post", "", {"expectations": "a", "accuracy": "b", "opinion": "c"})
        assert books[-1].finish().status_code == 200
    org = world.client("org@example.org")
    # what the export says, per campaign version
    chunks = [json.loads(x) for x in org.get(f"/campaigns/{cid}/export.jsonl").get_data(as_text=True).splitlines()]
    expected = sorted((h["version"], h["label"], h["text"]) for c in chunks if c["record"] == "chunk"
                      for h in c["highlights"])
    assert expected
    ts = world.testset_id
    assert "no human evaluation" in org.get(f"/browse/{ts}/spans").get_data(as_text=True)   # not released yet
    with world.ctx():
        svc.release(svc.get_campaign(cid))
        found = svc.get_campaign(cid)
        from enface.campaigns.protocol import protocol_of

        ev = protocol_of(found).evidence(found)
    versions = {"1": (None, 1), "2": (world.subs["nightjar-mt"], None)}    # ref1 and the system
    assert sorted((next(k for k, v in versions.items() if v == (e.submission_id, e.reference)),
                   e.category, e.text) for e in ev) == expected
    with world.ctx(), db.write():
        db.session.get(TestSet, ts).released = True        # the references stay private (the default)
    anon = world.client()
    html = anon.get(f"/browse/{ts}/spans?category=poor").get_data(as_text=True)
    shown = re.findall(r'<tr class="span-row"[^>]*>\s*<td><a [^>]*>([^<]+)</a>', html)
    # highlights quote their text: those on the private reference are left out, the system's are there
    assert sorted(shown) == sorted("nightjar-mt" for v, label, _t in expected if label == "poor" and v == "2")
    with world.ctx(), db.write():
        found = db.session.get(TestSet, ts)
        found.references_public = True
        found.scores_version = TestSet.scores_version + 1     # (the anonymous page cache follows it)
    html = anon.get(f"/browse/{ts}/spans?category=poor").get_data(as_text=True)
    rows = re.findall(r'<tr class="span-row"', html)
    assert len(rows) == sum(1 for _v, label, _t in expected if label == "poor")
    names = {"1": "reference 1", "2": "nightjar-mt"}
    shown = re.findall(r'<tr class="span-row"[^>]*>\s*<td><a [^>]*>([^<]+)</a>', html)
    assert sorted(shown) == sorted(names[v] for v, label, _t in expected if label == "poor")
    doc = anon.get(f"/browse/{ts}/doc/lantern?sys={world.subs['nightjar-mt']}").get_data(as_text=True)
    assert "Evidence on the whole document" in doc and "reader1" in doc
