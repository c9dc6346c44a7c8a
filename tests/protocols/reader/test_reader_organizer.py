"""The organizer's side: creating a reader study from the campaigns pages, the counterbalanced design shown
before the start (and kept by it), progress with locks, reading times and fast-reading flags, results, exports."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

from enface.campaigns import clock as core_clock
from reader_api import Book
from reader_helpers import books_of, new_study

from tests.support.campaigns import set_testset_released


def test_create_a_reader_study_from_the_web_form(world):
    org = world.client("org@example.org")
    page = org.get("/campaigns/new?protocol=reader").get_data(as_text=True)
    assert "Reader study (LAIT)" in page and f"testset={world.testset_id}" in page
    r = org.get(f"/campaigns/new?testset={world.testset_id}&protocol=reader")
    html = r.get_data(as_text=True)
    assert r.status_code == 200 and "New reader study" in html
    assert 'value="ref1" selected' in html                       # version 1: reference 1 by default
    assert "one day after you finish Part 1" in html               # the default guidelines
    form = {"testset": world.testset_id, "protocol": "reader", "name": "Readers 2026", "version1": "ref1",
            "version2": f"sub{world.subs['owlet-nmt']}", "docs_mode": "ranges", "ranges": "lantern\nharbour:1-6",
            "sample_docs": "2", "sample_words": "0", "readers_per_document": "2", "documents_per_reader": "2",
            "lock_hours": "12", "chunk_words": "80", "fast_words_per_second": "9", "passphrase": "blue evening lamp",
            "guidelines": "Read both translations. The passphrase is blue lamp.", "seed": "5"}
    # refusals name the problem and keep the form
    r = org.post("/campaigns/new", data={**form, "version2": "ref1"})
    assert r.status_code == 400 and "two different versions" in r.get_data(as_text=True)
    r = org.post("/campaigns/new", data={**form, "guidelines": "Translation 2 is by a machine."})
    assert r.status_code == 400 and "machine" in r.get_data(as_text=True)
    r = org.post("/campaigns/new", data={**form, "passphrase": "owlet-nmt"})
    assert r.status_code == 400
    r = org.post("/campaigns/new", data={**form, "chunk_words": "5"})
    assert r.status_code == 400 and "words per chunk" in r.get_data(as_text=True)
    r = org.post("/campaigns/new", data=form)
    assert r.status_code in (302, 303), r.get_data(as_text=True)[:500]
    cid = int(re.search(r"/campaigns/(\d+)", r.headers["Location"]).group(1))
    from enface.campaigns.models import Campaign
    from enface.extensions import db

    with world.ctx():
        camp = db.session.get(Campaign, cid)
        assert camp.protocol == "reader" and camp.strategy == "pairs"
        assert [v.reference for v in camp.versions] == [1, None]
        assert camp.versions[1].submission_id == world.subs["owlet-nmt"]
        assert camp.settings["lock_hours"] == 12 and camp.settings["chunk_words"] == 80
        assert camp.settings["passphrase"] == "blue evening lamp" and camp.ranges == ["lantern:1-12", "harbour:1-6"]
    dash = org.get(f"/campaigns/{cid}").get_data(as_text=True)
    assert "no readers yet" in dash.lower() or "the study has no readers" in dash


def test_the_design_is_shown_before_the_start_and_kept(world):
    readers = ("reader1@example.org", "reader2@example.org", "reader3@example.org", "reader4@example.org")
    cid = new_study(world, readers=readers, ranges="lantern\nharbour\norchard\nmill", start=False)
    org = world.client("org@example.org")
    dash = org.get(f"/campaigns/{cid}")
    assert dash.status_code == 200
    html = dash.get_data(as_text=True)
    assert 'id="design-readers"' in html and "Start: assign the books" in html
    preview = org.get(f"/protocols/reader/campaigns/{cid}/design.json").get_json()
    assert preview["error"] is None and preview["versions"] == {"1": "reference 1", "2": "nightjar-mt"}
    planned = {(r["reader"], b["document"].split(":")[0], b["first"]) for r in preview["readers"] for b in r["books"]}
    assert len(planned) == 8
    for r in preview["readers"]:                                  # shown on the page, row by row
        for b in r["books"]:
            assert f"<code>{b['document']}</code> → version {b['first']} first" in html
    assert org.post(f"/campaigns/{cid}/start", data={"confirmed": "yes"}).status_code in (302, 303)
    actual = set()
    for n, email in enumerate(readers, 1):
        for b in books_of(world, cid, email):
            actual.add((f"reader{n}", b["document"], b["plan"]["first"]))
    assert actual == planned
    html = org.get(f"/campaigns/{cid}").get_data(as_text=True)
    assert 'id="progress-table"' in html and 'id="design-documents"' in html
    # readers cannot see the design
    assert world.client("reader1@example.org").get(f"/protocols/reader/campaigns/{cid}/design.json").status_code in (302, 401, 403, 404)


def test_a_reader_of_a_team_never_reads_their_own_system(world):
    cid = new_study(world, readers=("reader1@example.org", "heron-reader@example.org"), ranges="lantern\nharbour",
                    start=False)
    org = world.client("org@example.org")
    html = org.get(f"/campaigns/{cid}").get_data(as_text=True)
    assert 'id="design-error"' in html and "own team" in html
    r = org.post(f"/campaigns/{cid}/start", data={"confirmed": "yes"}, follow_redirects=True)
    assert "own team" in r.get_data(as_text=True)


def test_progress_locks_times_flags_and_results(world, clock):
    cid = new_study(world, lock_hours=24, fast_words_per_second=8)
    c1 = world.client("reader1@example.org")
    b1 = Book(c1, books_of(world, cid, "reader1@example.org")[0]["public_id"])
    b1.immersive(ms=300_000)                                      # about 2 words a second: fine
    c2 = world.client("reader2@example.org")
    b2 = Book(c2, books_of(world, cid, "reader2@example.org")[0]["public_id"])
    b2.immersive(ms=5_000)                                        # hundreds of words in 5 seconds: flagged
    org = world.client("org@example.org")
    html = org.get(f"/campaigns/{cid}").get_data(as_text=True)
    rows = re.findall(r'<tr class="stage-(\w+)">(.*?)</tr>', html, re.S)
    assert sorted(w for w, _ in rows) == ["immersive", "immersive", "locked", "locked"]
    locked = [row for w, row in rows if w == "locked"]
    for row in locked:   # stage, then when Part 2 opens: 24 hours after the reading (the lock)
        cells = [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        assert cells[4] == "waiting (locked)", cells
        opens = datetime.strptime(cells[5], "%Y-%m-%d %H:%M UTC").replace(tzinfo=timezone.utc)
        assert timedelta(hours=23, minutes=58) <= opens - core_clock.now().replace(tzinfo=timezone.utc) \
            <= timedelta(hours=24), cells
    flagged = [row for _w, row in rows if "fast reading" in row]
    assert len(flagged) == 1 and "reader2" in flagged[0]
    assert "5:00" in html                                         # reader1's reading time per version
    # results of Part 1 already
    assert 'id="results-body"' in html and 'id="preferences"' in html
    res = org.get(f"/campaigns/{cid}/results/data.json").get_json()
    assert res["records"]["excerpt"] == 2 and res["excerpt_preference"]["n"] == 2
    # exports are the organizer's; a reader gets nothing
    assert c1.get(f"/campaigns/{cid}/export.jsonl").status_code in (302, 403, 404)
    assert org.get(f"/campaigns/{cid}/export.csv").status_code == 200
    # release freezes the results for the public page
    assert org.post(f"/campaigns/{cid}/release", data={"confirmed": "yes"}).status_code in (302, 303)
    assert world.client().get(f"/campaigns/{cid}/results").status_code == 404   # until the test set's release
    set_testset_released(world)
    pub = world.client().get(f"/campaigns/{cid}/results")
    assert pub.status_code == 200 and "Reader study" in pub.get_data(as_text=True)


def test_untouched_default_guidelines_follow_the_settings(world):
    from enface.campaigns.models import Campaign
    from enface.extensions import db
    from enface.protocols.reader.design import default_guidelines

    org = world.client("org@example.org")
    form = {"testset": world.testset_id, "protocol": "reader", "name": "Twelve hours", "version1": "ref1",
            "version2": "ref2", "docs_mode": "ranges", "ranges": "lantern", "sample_docs": "1", "sample_words": "0",
            "readers_per_document": "1", "documents_per_reader": "1", "lock_hours": "12", "chunk_words": "200",
            "fast_words_per_second": "8", "passphrase": "", "guidelines": default_guidelines(24, 300), "seed": ""}
    r = org.post("/campaigns/new", data=form)
    assert r.status_code in (302, 303)
    cid = int(re.search(r"/campaigns/(\d+)", r.headers["Location"]).group(1))
    with world.ctx():
        text = db.session.get(Campaign, cid).settings["guidelines"]
    assert "Part 2 opens 12 hours after" in text and "about 200 words" in text


def test_an_organizer_can_look_at_a_readers_book(world):
    cid = new_study(world, passphrase="evening lamp")
    info = books_of(world, cid, "reader1@example.org")[0]
    org = world.client("org@example.org")
    page = org.get(f"/annotate/item/{info['public_id']}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert 'id="book"' in html and "Read-only view" in html and "passphrase-form" not in html
    book = Book(world.client("reader1@example.org"), info["public_id"])
    book.ok("passphrase", "", {"passphrase": "evening lamp"})
    book.immersive()
    page = org.get(f"/annotate/item/{info['public_id']}")     # locked for the reader, not for the organizer
    assert page.status_code == 200 and 'id="close"' in page.get_data(as_text=True)
    r = org.put(f"/annotate/api/items/{info['public_id']}/responses/{'0' * 8}-0000-4000-8000-{'0' * 12}",
                json={"rev": 1, "kind": "chunk", "key": "1", "data": {"preference": "1"}})
    assert r.status_code == 404                                # read, never write


def test_version_one_is_the_one_chosen_first(world):
    """A system as version 1 against reference 1 as version 2 stays in that order (positions follow the choice)."""
    org = world.client("org@example.org")
    sub = world.subs["owlet-nmt"]
    form = {"testset": world.testset_id, "protocol": "reader", "name": "System first", "version1": f"sub{sub}",
            "version2": "ref1", "docs_mode": "ranges", "ranges": "lantern", "sample_docs": "1", "sample_words": "0",
            "readers_per_document": "2", "documents_per_reader": "1", "lock_hours": "24", "chunk_words": "300",
            "fast_words_per_second": "8", "passphrase": "", "guidelines": "", "seed": "3"}
    r = org.post("/campaigns/new", data=form)
    assert r.status_code == 302, r.get_data(as_text=True)[:2000]
    cid = int(r.headers["Location"].rstrip("/").split("/")[-1])
    from enface.campaigns import services as svc

    with world.ctx():
        c = svc.get_campaign(cid)
        assert [(v.submission_id, v.reference) for v in c.versions] == [(sub, None), (None, 1)]
