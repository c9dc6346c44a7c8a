"""Fuzzing every annotation save endpoint: core progress/finish/responses, MQM marks.

Targets (issue 11): no 5xx, no partial write (row counts unchanged after a rejection), every
rejection names its problem. Bodies are random JSON and near-valid objects (the right fields
with wrong values), sent by the annotator who holds the item, on an open campaign.
The crashes issue 11 listed (finding 3) have their own regression tests at the end.
"""

from __future__ import annotations

from urllib.parse import quote

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.campaigns import assignments_of, build_world, new_campaign
from tests.support.fuzzing import (
    SENT,
    api_error_message,
    fuzz_settings,
    json_values,
    row_counts,
    small_ints,
    text,
)

seg_ints = st.integers(min_value=-3, max_value=12) | small_ints
mark_bodies = st.fixed_dictionaries({}, optional={
    "rev": seg_ints, "side": st.sampled_from(["target", "source", "both", ""]) | text,
    "seg": seg_ints, "start": seg_ints, "end": seg_ints,
    "severity": st.sampled_from(["Minor", "Major", "Critical", "Neutral", "minor"]) | text,
    "category": st.sampled_from(["Accuracy", "Fluency", "Style", "Non-translation"]) | text,
    "subcategory": st.sampled_from(["Mistranslation", "Grammar", ""]) | text | st.none(), "text": text,
    "note": text | json_values})
response_bodies = st.fixed_dictionaries({}, optional={
    "rev": seg_ints, "kind": st.sampled_from(["comment", "question", "rating", "flag"]) | text,
    "key": text | small_ints, "data": json_values})
progress_bodies = st.fixed_dictionaries({}, optional={
    "cursor": seg_ints | text, "furthest": seg_ints | json_values,
    "times": st.dictionaries(st.sampled_from(["0", "1", "2", "3", "-1", "99"]) | text,
                             seg_ints | json_values, max_size=5) | json_values})
delete_bodies = st.fixed_dictionaries({}, optional={"rev": seg_ints, "uuid": text})


def _wire_bytes(value: str) -> bytes:
    """The bytes a hostile client can send for any text, a lone surrogate included (invalid UTF-8)."""
    return value.encode("utf-8", "surrogatepass")


def _path_segment(value: str) -> str:
    return quote(_wire_bytes(value), safe="")


uuids = st.uuids().map(str) | text.map(_path_segment)


@pytest.fixture
def annotating(app, tmp_path):
    world = build_world(app, tmp_path)
    camp = new_campaign(world)
    asg = assignments_of(world, camp, "ann1@example.org")[0]
    return world, world.client("ann1@example.org"), asg["public_id"]


def _check(app, client, label: str, method: str, url: str, body, before: dict) -> None:
    SENT[f"annotation {label}"] += 1
    resp = client.open(url, method=method, json=body)
    assert resp.status_code < 500, (method, url, body, resp.get_data(as_text=True)[:800])
    if resp.status_code >= 400:
        assert api_error_message(resp), (method, url, body, resp.get_data(as_text=True)[:300])
        assert row_counts(app) == before, ("partial write", method, url, body)


ENDPOINTS = {
    "put_mark": ("PUT", "marks", mark_bodies | json_values),
    "delete_mark": ("DELETE", "marks", delete_bodies | json_values),
    "put_response": ("PUT", "responses", response_bodies | json_values),
    "delete_response": ("DELETE", "responses", delete_bodies | json_values),
}


@pytest.mark.parametrize("name", sorted(ENDPOINTS))
def test_fuzz_versioned_writes(annotating, name):
    world, client, public_id = annotating
    method, kind, bodies = ENDPOINTS[name]

    @fuzz_settings()
    @given(uuid=uuids, body=bodies)
    def run(uuid, body):
        before = row_counts(world.app)
        _check(world.app, client, name, method, f"/annotate/api/items/{public_id}/{kind}/{uuid}", body, before)

    run()


def test_fuzz_progress_and_finish(annotating):
    world, client, public_id = annotating

    @fuzz_settings()
    @given(body=progress_bodies | json_values, finish=st.booleans())
    def run(body, finish):
        before = row_counts(world.app)
        _check(world.app, client, "progress", "POST", f"/annotate/api/items/{public_id}/progress", body, before)
        if finish:
            before = row_counts(world.app)
            _check(world.app, client, "finish", "POST", f"/annotate/api/items/{public_id}/finish", body, before)

    run()


def test_fuzz_raw_bodies(annotating):
    """Bytes that are not JSON at all, or JSON of the wrong shape, to every save endpoint."""
    world, client, public_id = annotating
    paths = [("PUT", f"marks/{FIXED}"), ("DELETE", f"marks/{FIXED}"), ("PUT", f"responses/{FIXED}"),
             ("DELETE", f"responses/{FIXED}"), ("POST", "progress"), ("POST", "finish")]

    @fuzz_settings()
    @given(path=st.sampled_from(paths), raw=st.binary(max_size=200) | text.map(_wire_bytes))
    def run(path, raw):
        method, tail = path
        before = row_counts(world.app)
        SENT[f"annotation raw {tail.split('/')[0]}"] += 1
        resp = client.open(f"/annotate/api/items/{public_id}/{tail}", method=method, data=raw,
                           content_type="application/json")
        assert resp.status_code < 500, (path, raw, resp.get_data(as_text=True)[:500])
        if resp.status_code >= 400:
            assert api_error_message(resp), (path, raw)
            assert row_counts(world.app) == before

    run()


FIXED = "0b9f1f4c-8f2e-4b8e-9a51-2b7f1d3c4e5a"


# --------------------------------------------------------------------------- known crashes (finding 3)


@pytest.mark.parametrize("tail", ["marks/" + FIXED, "responses/" + FIXED, "progress"])
def test_deeply_nested_json_is_refused_not_a_crash(annotating, tail):
    world, client, public_id = annotating
    method = "POST" if tail == "progress" else "PUT"
    resp = client.open(f"/annotate/api/items/{public_id}/{tail}", method=method, data="[" * 5000 + "]" * 5000,
                       content_type="application/json")
    assert 400 <= resp.status_code < 500 and api_error_message(resp)


GOOD_MARK = '"seg": 0, "start": 0, "end": 3, "category": "Accuracy", "subcategory": "Mistranslation", "severity": "Major"'


def test_a_good_mark_with_a_note_is_saved(annotating):
    """The control of the next test: the same body with a plain note is accepted."""
    world, client, public_id = annotating
    resp = client.put(f"/annotate/api/items/{public_id}/marks/{FIXED}",
                      data='{"rev": 1, "side": "target", ' + GOOD_MARK + ', "note": "fine"}',
                      content_type="application/json")
    assert resp.status_code == 200, resp.get_data(as_text=True)[:300]


def test_lone_surrogate_in_a_note_is_refused_not_a_crash(annotating):
    world, client, public_id = annotating
    resp = client.put(f"/annotate/api/items/{public_id}/marks/{FIXED}",
                      data='{"rev": 1, "side": "target", ' + GOOD_MARK + ', "note": "\\ud800"}',
                      content_type="application/json")
    assert resp.status_code < 500, resp.get_data(as_text=True)[:300]


def test_huge_rev_on_delete_is_refused_not_a_crash(annotating):
    world, client, public_id = annotating
    resp = client.delete(f"/annotate/api/items/{public_id}/marks/{FIXED}", json={"rev": 10 ** 30})
    assert 400 <= resp.status_code < 500 and api_error_message(resp)


def test_superscript_segment_key_is_refused_not_a_crash(annotating):
    world, client, public_id = annotating
    resp = client.post(f"/annotate/api/items/{public_id}/progress", json={"times": {"²": 1}})
    assert 400 <= resp.status_code < 500 and api_error_message(resp)
