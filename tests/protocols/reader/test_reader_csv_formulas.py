"""Issue 15, finding 4: a reader's justification reaches the reader-study CSV as text, never a formula."""

from __future__ import annotations

import csv
import io

from reader_api import Book
from reader_helpers import books_of, new_study

HOSTILE = "=HYPERLINK(\"http://evil.test\",\"x\")"


def test_a_hostile_justification_is_neutralised_in_the_csv(world, clock):
    cid = new_study(world)
    books = {e: [Book(world.client(e), i["public_id"]) for i in books_of(world, cid, e)]
             for e in ("reader1@example.org", "reader2@example.org")}
    for shelf in books.values():
        for b in shelf:
            b.immersive()
    clock(hours=25)
    for shelf in books.values():
        for b in shelf:
            b.close(justification=HOSTILE)
            b.finish()
    text = world.client("org@example.org").get(f"/campaigns/{cid}/export.csv").get_data(as_text=True)
    rows = list(csv.DictReader(io.StringIO(text)))
    chunks = [r for r in rows if r["record"] == "chunk"]
    assert chunks and all(r["justification"] == "'" + HOSTILE for r in chunks)
    assert not any(cell.startswith(("=", "@")) for r in rows for cell in r.values() if cell)
