"""Fuzzing the reader study's answers (the core's responses endpoint with the reader's kinds).

Targets (issue 11): no 5xx, no partial write, every rejection names its problem. Near-valid
answers: the reader's kinds and keys with random data (right field names, wrong values).
The budget is ENFACE_FUZZ_EXAMPLES (tests/support/fuzzing.py); ``make fuzz`` runs this file too.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from reader_api import COMPARE, SINGLE
from reader_helpers import books_of, new_study

from tests.support.fuzzing import (
    SENT,
    api_error_message,
    fuzz_settings,
    json_values,
    row_counts,
    small_ints,
    text,
)

FIELDS = sorted(set(SINGLE) | set(COMPARE) | {"step", "text", "start", "end", "chunk", "passphrase", "seg"})
values = (st.sampled_from(["1", "2", "none", "human", "2-slightly", ""]) | st.integers(-2, 8) | small_ints | text
          | json_values)
answers = st.fixed_dictionaries({}, optional={
    "rev": st.integers(-1, 4) | small_ints, "kind": st.sampled_from(["single", "compare", "highlight", "chunk", "step",
                                                                    "passphrase"]) | text,
    "key": st.sampled_from(["", "1", "2", "immersive", "x"]) | text,
    "data": st.dictionaries(st.sampled_from(FIELDS) | text, values, max_size=6) | json_values})


@pytest.fixture
def reading(world):
    cid = new_study(world)
    client = world.client("reader1@example.org")
    return world, client, books_of(world, cid, "reader1@example.org")[0]["public_id"]


def test_fuzz_reader_answers(reading):
    world, client, public_id = reading

    @fuzz_settings()
    @given(uuid=st.uuids().map(str), body=answers | json_values, delete=st.booleans())
    def run(uuid, body, delete):
        for method in ("PUT", "DELETE") if delete else ("PUT",):
            before = row_counts(world.app)
            SENT[f"reader answer {method}"] += 1
            resp = client.open(f"/annotate/api/items/{public_id}/responses/{uuid}", method=method, json=body)
            assert resp.status_code < 500, (method, body, resp.get_data(as_text=True)[:800])
            if resp.status_code >= 400:
                assert api_error_message(resp), (method, body, resp.get_data(as_text=True)[:300])
                assert row_counts(world.app) == before, ("partial write", method, body)

    run()
