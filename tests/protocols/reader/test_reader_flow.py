"""A reader study end to end through the API: the design, the passphrase, both stages with the time lock,
the final questions and feedback, and the export read back by humaneval."""

from __future__ import annotations

import csv
import io
import json
from collections import Counter

from reader_api import COMPARE, Book
from reader_helpers import books_of, new_study


def test_start_makes_a_counterbalanced_design(world):
    cid = new_study(world)
    b1 = books_of(world, cid, "reader1@example.org")
    b2 = books_of(world, cid, "reader2@example.org")
    assert len(b1) == len(b2) == 2
    # each reader starts with version 1 in one book and version 2 in the other
    assert sorted(b["plan"]["first"] for b in b1) == ["1", "2"]
    assert sorted(b["plan"]["first"] for b in b2) == ["1", "2"]
    # each document: one reader starts with each version
    by_doc = {}
    for b in b1 + b2:
        by_doc.setdefault(b["document"], []).append(b["plan"]["first"])
    assert {d: sorted(v) for d, v in by_doc.items()} == {"lantern": ["1", "2"], "harbour": ["1", "2"]}
    for b in b1 + b2:
        plan = b["plan"]
        # chunks cover the item, displayed both ways about as often
        assert plan["chunks"][0][0] == 0 and all(a[1] == c[0] for a, c in zip(plan["chunks"], plan["chunks"][1:]))
        orders = Counter(tuple(o) for o in plan["display"])
        assert abs(orders[("1", "2")] - orders[("2", "1")]) <= 1
    # the post-study questions go with each reader's last book
    assert [b["plan"]["post"] for b in b1] == [False, True]


def test_passphrase_gates_the_first_book(world):
    cid = new_study(world, passphrase="Evening Lamp")
    c = world.client("reader1@example.org")
    book = Book(c, books_of(world, cid, "reader1@example.org")[0]["public_id"])
    st = book.state()
    assert st["view"] == "passphrase" and st["immersive"] is None and st["close"] is None
    r = book.put("position", "1", {"para": 0, "furthest": 0})
    assert r.status_code == 403 and r.get_json()["error"]["code"] == "passphrase_required"
    r = book.put("passphrase", "", {"passphrase": "morning lamp"}, new=True)
    assert r.status_code == 400 and r.get_json()["error"]["details"]["field"] == "data.passphrase"
    r = book.put("passphrase", "", {"passphrase": "  evening   LAMP "}, new=True)
    assert r.status_code == 200
    assert r.get_json()["response"]["data"] == {"accepted": True}        # the phrase itself is not stored
    assert book.state()["view"] == "read"
    # once per study: the reader's other book opens without it
    other = Book(c, books_of(world, cid, "reader1@example.org")[1]["public_id"])
    assert other.state()["view"] == "read"


def test_immersive_reading_shows_one_version_at_a_time(world):
    cid = new_study(world)
    c = world.client("reader1@example.org")
    info = books_of(world, cid, "reader1@example.org")[0]
    book = Book(c, info["public_id"])
    st = book.state()
    assert st["view"] == "read" and st["immersive"]["label"] == "1"
    first = info["plan"]["first"]
    expected_first = world.texts[info["document"]] if first == "1" else None
    paras = st["immersive"]["paragraphs"]
    if expected_first:                                   # reference 1, normalised: typographic quotes kept
        assert paras[0] == expected_first[0]
    else:                                                # the system's straight quotes become typographic
        assert '"' not in " ".join(paras) and "..." not in " ".join(paras)
    # the next step needs the whole text read
    r = book.put("step", "immersive", {"step": 1})
    assert r.status_code == 409 and "to the end" in r.get_json()["error"]["message"]
    book.read("1")
    r = book.put("step", "immersive", {"step": 2})
    assert r.status_code == 409                         # one step at a time
    book.ok("step", "immersive", {"step": 1})
    assert book.state()["view"] == "questions"
    r = book.put("step", "immersive", {"step": 2})
    assert r.status_code == 409 and "question 1" in r.get_json()["error"]["message"]
    book.ok("single", "1", {"acceptability": 4})
    r = book.put("single", "2", {"acceptability": 4})
    assert r.status_code == 409                         # Translation 2's questions are not open yet
    book.ok("single", "1", {"acceptability": 4, "smoothness": 4, "immersion": 3, "continue": 4, "positive": "x",
                            "negative": "y", "origin": "machine", "origin_confidence": 2})
    book.ok("step", "immersive", {"step": 2})
    st = book.state()
    assert st["view"] == "read" and st["immersive"]["label"] == "2"
    assert st["immersive"]["paragraphs"] != paras       # the other version, and only it
    r = book.put("single", "1", {"acceptability": 1})
    assert r.status_code == 409                         # final once the reader moved on
    r = book.put("step", "immersive", {"step": 1})
    assert r.status_code == 409                         # no way back
    r = book.finish()
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "incomplete"


def test_the_whole_study_with_the_lock(world, clock):
    cid = new_study(world, lock_hours=24)
    c = world.client("reader1@example.org")
    infos = books_of(world, cid, "reader1@example.org")
    b1, b2 = (Book(c, i["public_id"]) for i in infos)

    out = b1.immersive()
    assert out["stage"] == 1 and out["opens_at"]
    # locked: the page says when it opens, the API refuses answers
    page = c.get(f"/annotate/item/{infos[0]['public_id']}")
    assert page.status_code == 423
    assert out["opens_at"][:10] in page.get_data(as_text=True)
    r = b1.put("chunk", "1", {"preference": "1"})
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "stage_locked"
    assert b1.finish().status_code == 409
    clock(hours=23, minutes=50)
    assert c.get(f"/annotate/item/{infos[0]['public_id']}").status_code == 423
    clock(hours=24, minutes=1)
    page = c.get(f"/annotate/item/{infos[0]['public_id']}")
    assert page.status_code == 200
    st = b1.state()
    assert st["view"] == "close"
    n_chunks = len(st["close"]["chunks"])
    assert n_chunks == len(infos[0]["plan"]["chunks"]) >= 3

    # an incomplete chunk stops the finish
    b1.ok("chunk", "1", {"preference": "1"})
    r = b1.finish()
    assert r.status_code == 409 and r.get_json()["error"]["details"]["chunk"] == 1

    out = b1.close(preference="1", difficulty="better")
    assert out["stage"] == 2
    st = b1.state()
    assert st["view"] == "post_elsewhere" and st["post"] is None
    assert b1.finish().get_json()["finished"] is True
    assert b1.state()["view"] == "done"

    # book 2: the final questions, then the feedback
    b2.immersive()
    clock(hours=48, minutes=5)
    b2.close(preference="2", difficulty="significantly_better")
    st = b2.state()
    assert st["view"] == "post"
    assert [q["id"] for q in st["post"]["questions"]] == ["expectations", "accuracy", "opinion", "comments"]
    feedback = {f["book"]: f for f in st["post"]["feedback"]}
    assert set(feedback) == {1, 2}
    for info in infos:
        # COMPARE says Translation 2 is the AI one; the system is Translation 2 when reference 1 was read first
        machine_label = "2" if info["plan"]["first"] == "1" else "1"
        assert feedback[info["number"]]["correct"] == (COMPARE["ai_version"] == machine_label)
        assert feedback[info["number"]]["machine"] == machine_label
    q2 = st["post"]["questions"][1]["text"]
    assert "identified the AI-translated version of Book 1" in q2 and "Book 2" in q2
    r = b2.finish()
    assert r.status_code == 409                           # the final questions first
    b2.ok("post", "", {"expectations": "Clumsy.", "accuracy": "Yes.", "opinion": "Fine."})
    assert b2.finish().get_json()["finished"] is True
    st = b2.state()
    assert st["view"] == "done" and st["post"]["feedback"]


def test_export_round_trips_into_humaneval(world, clock):
    from humaneval.export import parse_export
    from humaneval.reader import study_results

    cid = new_study(world)
    readers = {}
    for email in ("reader1@example.org", "reader2@example.org"):
        c = world.client(email)
        readers[email] = [Book(c, i["public_id"]) for i in books_of(world, cid, email)]
        for b in readers[email]:
            b.immersive()
    clock(hours=25)
    for email, pref in (("reader1@example.org", "1"), ("reader2@example.org", "2")):
        books = readers[email]
        for b in books:
            b.close(preference=pref)
            b.finish()                           # the non-last book's post stage passes at once
        books[-1].ok("post", "", {"expectations": "a", "accuracy": "b", "opinion": "c"})
        assert books[-1].finish().status_code == 200
    org = world.client("org@example.org")
    r = org.get(f"/campaigns/{cid}/export.jsonl")
    assert r.status_code == 200, r.status_code
    lines = r.get_data(as_text=True).splitlines()
    records = [json.loads(x) for x in lines]
    kinds = Counter(x["record"] for x in records)
    assert kinds["excerpt"] == 4 and kinds["post"] == 2 and kinds["chunk"] >= 12
    export = parse_export(lines)
    res = study_results(export.study("Lantern study"))
    assert res["records"]["excerpt"] == 4 and res["readers"] == 2
    # versions are the campaign's: 1 = reference 1, 2 = the system
    ex = next(x for x in records if x["record"] == "excerpt")
    assert ex["versions"] == {"1": {"label": "reference 1", "kind": "reference"},
                              "2": {"label": "nightjar-mt", "kind": "system"}}
    # presentation labels were mapped back: the reader's "Translation 2" is the version read second
    first = ex["first"]
    second = "2" if first == "1" else "1"
    assert ex["ai_version"] == second and ex["continue_choice"] == {"version": second, "strength": "slightly"}
    assert ex["reading_ms"] == {"1": 300000, "2": 300000}
    # chunks: T1/T2 preferences became campaign versions through the display order
    for ch in (x for x in records if x["record"] == "chunk"):
        wanted = ch["displayed"][0] if ch["reader"] == "reader1" else ch["displayed"][1]
        assert ch["preference"] == wanted
        good = [h for h in ch["highlights"] if h["label"] == "good"]
        assert good and good[0]["version"] == ch["displayed"][0]
        assert ch["texts"][good[0]["version"]][good[0]["start"]:good[0]["end"]] == good[0]["text"]
        assert ch["normalisation"] == "lait-display-v1"
    assert res["chunk_preference"]["n"] == kinds["chunk"]
    chunks_of = sorted(x["chunk"] for x in records if x["record"] == "chunk" and x["reader"] == "reader1"
                       and x["document"] == ex["document"])
    assert chunks_of == list(range(len(chunks_of)))             # numbered from 0, as humaneval's format says
    # CSV: one row per version of each judgment
    r = org.get(f"/campaigns/{cid}/export.csv")
    rows = list(csv.DictReader(io.StringIO(r.get_data(as_text=True))))
    assert len(rows) == 2 * (kinds["excerpt"] + kinds["chunk"])
    assert {r["version_label"] for r in rows} == {"reference 1", "nightjar-mt"}
