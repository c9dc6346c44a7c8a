"""Every answer kind is checked strictly: a bad value is a 400 naming the field (409 when out of turn),
and nothing is stored."""

from __future__ import annotations

import pytest
from reader_api import SINGLE, Book
from reader_helpers import books_of, new_study


def field_of(r):
    body = r.get_json()
    return r.status_code, body["error"]["details"].get("field")


@pytest.fixture
def immersive(world):
    cid = new_study(world)
    c = world.client("reader1@example.org")
    return world, cid, Book(c, books_of(world, cid, "reader1@example.org")[0]["public_id"])


def stored(world, public_id):
    from enface.campaigns.models import Assignment
    from enface.extensions import db
    from sqlalchemy import select

    with world.ctx():
        a = db.session.scalar(select(Assignment).where(Assignment.public_id == public_id))
        return sorted((r.kind, r.key) for r in a.responses)


BAD_IMMERSIVE = [
    # (kind, key, data, status, field)
    ("nonsense", "", {}, 400, "kind"),
    ("step", "close", {"step": 1}, 400, "key"),
    ("step", "immersive", {"step": "1"}, 400, "data.step"),
    ("step", "immersive", {"step": 9}, 400, "data.step"),
    ("step", "immersive", {"step": 1, "extra": 1}, 400, "data.extra"),
    ("step", "immersive", [1], 400, "data"),
    ("position", "3", {"para": 0, "furthest": 0}, 400, "key"),
    ("position", "1", {"para": -1, "furthest": 0}, 400, "data.para"),
    ("position", "1", {"para": 0, "furthest": 10_000}, 400, "data.furthest"),
    ("position", "1", {"para": True, "furthest": 0}, 400, "data.para"),
    ("single", "1", {"acceptability": 3}, 409, "kind"),              # its questions come after reading it
    ("compare", "", {"dialogue": "1"}, 409, "kind"),
    ("chunk", "1", {"preference": "1"}, 409, "kind"),                # a close-reading answer in Part 1
    ("highlight", "1", {"side": "1", "start": 0, "end": 3, "label": "good"}, 409, "kind"),
    ("post", "", {"expectations": "x"}, 409, "kind"),
    ("passphrase", "", {"passphrase": "x"}, 400, "kind"),           # this study has none
]


@pytest.mark.parametrize("kind,key,data,status,field", BAD_IMMERSIVE)
def test_bad_answers_in_part_1(immersive, kind, key, data, status, field):
    world, _cid, book = immersive
    r = book.put(kind, key, data, new=True)
    assert field_of(r) == (status, field), r.get_json()
    assert stored(world, book.pid) == []


BAD_SINGLE = [
    ({"acceptability": 0}, "data.acceptability"),
    ({"acceptability": 6}, "data.acceptability"),
    ({"acceptability": "4"}, "data.acceptability"),
    ({"acceptability": 4.0}, "data.acceptability"),
    ({"smoothness": True}, "data.smoothness"),
    ({"origin": "robot"}, "data.origin"),
    ({"origin": 1}, "data.origin"),
    ({"origin_confidence": 9}, "data.origin_confidence"),
    ({"positive": 5}, "data.positive"),
    ({"positive": "x" * 5001}, "data.positive"),
    ({"negative": "bell\x07"}, "data.negative"),
    ({"favourite": 3}, "data.favourite"),
]


@pytest.mark.parametrize("data,field", BAD_SINGLE)
def test_bad_questionnaire_values(immersive, data, field):
    world, _cid, book = immersive
    book.read("1")
    book.ok("step", "immersive", {"step": 1})
    r = book.put("single", "1", data, new=True)
    assert field_of(r) == (400, field), r.get_json()
    # a partial questionnaire is fine while drafting, nulls included
    book.ok("single", "1", {"acceptability": 2, "origin": None})


def test_bad_comparison_values(immersive):
    _world, _cid, book = immersive
    book.read("1")
    book.ok("step", "immersive", {"step": 1})
    book.ok("single", "1", SINGLE)
    book.ok("step", "immersive", {"step": 2})
    book.read("2")
    book.ok("step", "immersive", {"step": 3})
    book.ok("single", "2", SINGLE)
    book.ok("step", "immersive", {"step": 4})
    for data, field in (({"dialogue": "3"}, "data.dialogue"), ({"word_choice": "T1"}, "data.word_choice"),
                        ({"continue_choice": "1"}, "data.continue_choice"), ({"ai_version": "none"}, "data.ai_version"),
                        ({"ai_confidence": 0}, "data.ai_confidence"), ({"continue_why": ["a"]}, "data.continue_why")):
        assert field_of(book.put("compare", "", data, new=True)) == (400, field)
    assert field_of(book.put("compare", "x", {"dialogue": "1"}, new=True)) == (400, "key")
    book.ok("compare", "", {"dialogue": "none", "continue_choice": "2-clearly"})


def test_bad_answers_in_part_2(world, clock):
    cid = new_study(world, lock_hours=1)
    c = world.client("reader1@example.org")
    info = books_of(world, cid, "reader1@example.org")[0]
    book = Book(c, info["public_id"])
    book.immersive()
    clock(hours=2)
    st = book.state()
    n = len(st["close"]["chunks"])
    t1 = st["close"]["chunks"][0]["texts"]["1"]
    good = {"side": "1", "start": 0, "end": 3, "label": "good", "text": t1[:3]}
    for key, data, fld in (
        (str(n + 1), good, "key"), ("0", good, "key"), ("01", good, "key"), ("a", good, "key"),
        ("1", {**good, "side": "3"}, "data.side"), ("1", {**good, "side": 1}, "data.side"),
        ("1", {**good, "start": -1}, "data.start"), ("1", {**good, "end": len(t1) + 1}, "data.end"),
        ("1", {**good, "start": 3, "end": 3}, "data.end"), ("1", {**good, "start": 5, "end": 2}, "data.end"),
        ("1", {**good, "label": "bad"}, "data.label"), ("1", {**good, "label": None}, "data.label"),
        ("1", {**good, "text": "wrong"}, "data.text"), ("1", {**good, "colour": "red"}, "data.colour"),
        ("1", {**good, "start": 3, "end": 4, "text": t1[3:4]} if t1[3] == " " else {**good, "label": "x"},
         "data.start" if t1[3] == " " else "data.label"),
    ):
        r = book.put("highlight", key, data, new=True)
        assert field_of(r) == (400, fld), (key, data, r.get_json())
    for data, fld in (({"preference": "T1"}, "data.preference"), ({"preference": 1}, "data.preference"),
                      ({"difficulty": "hard"}, "data.difficulty"), ({"justification": 3}, "data.justification"),
                      ({"stars": 5}, "data.stars")):
        assert field_of(book.put("chunk", "1", data, new=True)) == (400, fld)
    assert field_of(book.put("single", "1", {"acceptability": 3}, new=True)) == (409, "kind")
    assert field_of(book.put("step", "immersive", {"step": 4}, new=True)) == (409, "kind")
    # the text is optional and checked when sent; a whitespace-only span is refused
    r = book.put("highlight", "1", {k: v for k, v in good.items() if k != "text"}, new=True)
    assert r.status_code == 200 and r.get_json()["response"]["data"]["text"] == t1[:3]
    assert stored(world, info["public_id"]).count(("highlight", "1")) == 1


def test_bad_final_answers(world, clock):
    cid = new_study(world, lock_hours=0)
    c = world.client("reader1@example.org")
    books = [Book(c, i["public_id"]) for i in books_of(world, cid, "reader1@example.org")]
    for b in books:
        b.immersive()
        b.close()
    r = books[0].put("post", "", {"expectations": "x"}, new=True)
    assert field_of(r) == (409, "kind")           # the final questions go with the last book
    for data, fld in (({"expectations": 3}, "data.expectations"), ({"mood": "ok"}, "data.mood")):
        assert field_of(books[1].put("post", "", data, new=True)) == (400, fld)
    assert field_of(books[1].put("post", "x", {}, new=True)) == (400, "key")
    books[1].ok("post", "", {"expectations": "x"})
