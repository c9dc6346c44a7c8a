"""Issue 15, "No 500s": a reader's chunk key "²" (a digit to str.isdigit, not to int) or 20 digits is a 400."""

from __future__ import annotations

import pytest
from reader_api import Book
from reader_helpers import books_of, new_study


@pytest.mark.parametrize("key", ["²", "𝟙", "9" * 20, "01", "0", "-1"])
def test_chunk_keys_are_ascii_numbers(world, clock, key):
    cid = new_study(world)
    book = Book(world.client("reader1@example.org"), books_of(world, cid, "reader1@example.org")[0]["public_id"])
    book.immersive()
    clock(hours=25)
    assert book.state()["view"] == "close"
    resp = book.put("chunk", key, {"preference": "1", "justification": "fine", "difficulty": "better"}, new=True)
    assert resp.status_code == 400, (key, resp.status_code)
    assert "chunk number" in resp.get_json()["error"]["message"]
