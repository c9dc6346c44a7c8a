"""Issue 15, finding 4: a rater's (or a hostile judge's) comment reaches the rubric export.csv as text."""

from __future__ import annotations

import csv
import io

from rubric_helpers import items_of, new_rubric, put_score

HOSTILE = "=cmd|' /C calc'!A0"


def test_a_hostile_comment_is_neutralised_in_export_csv(world):
    cid = new_rubric(world, annotators=("ann1@example.org",), redundancy=1)
    client = world.client("ann1@example.org")
    state = items_of(world, cid, "ann1@example.org")[0]
    for ph in state["phenomena"]:
        r, _ = put_score(client, state["item"]["id"], ph["id"], {"sp": 2, "g_1": 2, "g_2": 2, "comment": HOSTILE})
        assert r.status_code == 200, r.get_json()
    assert client.post(f"/annotate/api/items/{state['item']['id']}/finish", json={}).status_code == 200
    text = world.client("org@example.org").get(f"/campaigns/{cid}/export.csv").get_data(as_text=True)
    rows = list(csv.DictReader(io.StringIO(text)))
    comments = [r["comment"] for r in rows if r["comment"]]
    assert comments and set(comments) == {"'" + HOSTILE}
    assert not any(cell.startswith(("=", "+", "@")) for r in rows for cell in r.values() if cell)
