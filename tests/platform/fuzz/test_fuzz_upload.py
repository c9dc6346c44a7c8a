"""Fuzzing the upload endpoint (``POST /api/v1/testsets/<id>/submissions``) and the test-set import.

Targets (issue 11): no 5xx; a refused request writes nothing (row counts unchanged) and names
its problem; an accepted upload ends ``invalid`` with a report or ``scored``, never ``failed``
(jobs run eagerly here). The crashes issue 11 listed (finding 3) have regression tests at the end.
"""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support import DEMO
from tests.support.fuzzing import (
    ANSWERS,
    SAFE_CHARS,
    SENT,
    api_error_message,
    form_text,
    fuzz_settings,
    page_error_message,
    row_counts,
    submissions,
    text,
)
from tests.support.testkit import World, login, system_files

labels = st.sampled_from(["primary", "contrastive", "baseline", ""]) | form_text
flags = st.sampled_from(["true", "false", "1", "0", "yes", "", "constrained"]) | form_text
system_names = st.sampled_from(["my-system", "x", "a" * 100, "a" * 101]) | st.text(SAFE_CHARS, max_size=120)


def _zip(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in files.items():
            zf.writestr(name or "empty", data)
    return buf.getvalue()


@st.composite
def upload_files(draw) -> list[tuple[str, bytes]]:
    files = draw(submissions())
    if draw(st.integers(0, 4)) == 0:
        return [(draw(st.sampled_from(["outputs.zip", "x.zip", "outputs.txt"])), _zip(files))]
    return list(files.items())


@pytest.fixture
def uploading(app):
    world = World(app)
    ts = world.testset(quota_per_day=None, quota_total=None)
    _uid, token = world.team_with_token("cap@fuzz.test", "Fuzzers")
    return world, ts, token


def test_fuzz_upload(uploading):
    world, ts, token = uploading
    client = world.app.test_client()

    @fuzz_settings()
    @given(files=upload_files(), label=labels, constrained=flags, system_name=system_names, description=form_text)
    def run(files, label, constrained, system_name, description):
        before = row_counts(world.app)
        SENT["upload (API)"] += 1
        data = {"label": label, "constrained": constrained, "system_name": system_name, "description": description,
                "files": [(io.BytesIO(content), name) for name, content in files]}
        resp = client.post(f"/api/v1/testsets/{ts}/submissions", data=data, content_type="multipart/form-data",
                           headers={"Authorization": f"Bearer {token}"})
        ANSWERS["upload (API)", resp.status_code] += 1
        assert resp.status_code < 500, resp.get_data(as_text=True)[:800]
        if resp.status_code >= 400:
            assert api_error_message(resp), resp.get_data(as_text=True)[:300]
            assert row_counts(world.app) == before, ("partial write", resp.status_code)
            return
        assert resp.status_code == 202
        sub = world.submission(resp.get_json()["id"])
        assert sub.state in ("invalid", "scored"), (sub.state, sub.report)
        if sub.state == "invalid":
            errors = (sub.report or {}).get("errors") or []
            assert errors and all(e["message"].strip() for e in errors), sub.report

    run()


# --------------------------------------------------------------------------- the test-set import


DOC_NAMES = ["a", "b.1", "chapter one", "x" * 40, "../up", "a/b", "", ".hidden", "con"]
MUTATIONS = ["no_meta", "bad_json", "meta_not_object", "short_ref", "binary_source", "odd_name", "bad_lang",
             "no_documents", "extra_file", "empty_doc", "missing_source", "wrong_documents"]


@st.composite
def zipped_testsets(draw) -> bytes:
    """A valid test set, most of the time with one to three things wrong."""
    docs = draw(st.lists(st.sampled_from(["river", "orchard", "mill.2", "harbour"]), min_size=1, max_size=3,
                         unique=True))
    meta = {"name": draw(st.sampled_from(["Fuzz set"]) | st.text(SAFE_CHARS, min_size=1, max_size=60)),
            "src_lang": draw(st.sampled_from(["en", "fr", "zh"])), "tgt_lang": draw(st.sampled_from(["de", "ja"])),
            "documents": docs}
    files: dict[str, bytes] = {}
    for doc in docs:
        lines = draw(st.lists(st.text(SAFE_CHARS, min_size=1, max_size=30).map(lambda t: t.replace("\n", " ")
                                                                                      .replace("\r", " ")),
                              min_size=1, max_size=4))
        files[f"source/{doc}.txt"] = ("\n".join(lines) + "\n").encode()
        files[f"ref1/{doc}.txt"] = ("\n".join(f"ref {i}" for i in range(len(lines))) + "\n").encode()
    for what in draw(st.lists(st.sampled_from(MUTATIONS), max_size=3)):
        doc = docs[0]
        if what == "bad_json":
            meta = None
        elif what == "meta_not_object":
            meta = draw(st.sampled_from([[], "x", 3, None]))
        elif what == "short_ref":
            files[f"ref1/{doc}.txt"] = b""
        elif what == "binary_source":
            files[f"source/{doc}.txt"] = draw(st.binary(min_size=1, max_size=40))
        elif what == "odd_name":
            odd = draw(st.sampled_from(DOC_NAMES) | st.text(SAFE_CHARS, min_size=1, max_size=60))
            if isinstance(meta, dict):
                meta["documents"] = [odd, *docs[1:]]
            files[f"source/{odd}.txt"] = files.pop(f"source/{doc}.txt", b"x\n")
        elif what == "bad_lang" and isinstance(meta, dict):
            meta[draw(st.sampled_from(["src_lang", "tgt_lang"]))] = draw(text | st.integers())
        elif what == "no_documents" and isinstance(meta, dict):
            meta.pop("documents", None)
        elif what == "wrong_documents" and isinstance(meta, dict):
            meta["documents"] = draw(st.lists(text, max_size=3) | text | st.integers())
        elif what == "extra_file":
            files[draw(st.sampled_from(["ref2/river.txt", "source/zzz.txt", "notes.md", "ref9/x.txt"]))] = b"x\n"
        elif what == "empty_doc":
            files[f"source/{doc}.txt"] = b""
        elif what == "missing_source":
            files.pop(f"source/{doc}.txt", None)
    if "no_meta" not in draw(st.lists(st.sampled_from(MUTATIONS), max_size=1)):
        files["testset.json"] = b"{not json" if meta is None else json.dumps(meta).encode()
    prefix = draw(st.sampled_from(["", "fuzz/"]))
    return _zip({prefix + k: v for k, v in files.items()})


@pytest.fixture
def importing(app):
    world = World(app)
    world.user("org@fuzz.test", role="organizer")
    client = app.test_client()
    login(client, "org@fuzz.test")
    return world, client


def _import(client, archive: bytes, task: str = "Fuzz task"):
    return client.post("/admin/testsets/import", content_type="multipart/form-data",
                       data={"task": task, "archive": (io.BytesIO(archive), "testset.zip")})


def test_fuzz_testset_import(importing):
    world, client = importing

    @fuzz_settings(share=0.5)
    @given(archive=zipped_testsets() | st.binary(max_size=200), task=st.sampled_from(["Fuzz task"]) | form_text)
    def run(archive, task):
        before = row_counts(world.app)
        SENT["test-set import (admin page)"] += 1
        resp = _import(client, archive, task)
        ANSWERS["test-set import", resp.status_code] += 1
        assert resp.status_code < 500, resp.get_data(as_text=True)[:800]
        if resp.status_code >= 400:
            assert page_error_message(resp), resp.get_data(as_text=True)[-1500:]
            assert row_counts(world.app) == before, "partial write"
        else:
            assert resp.status_code == 302, resp.status_code

    run()


def test_a_good_testset_zip_imports(importing):
    """The control of the fuzz test: the demo test set, zipped, is imported."""
    _world, client = importing
    files = {str(p.relative_to(DEMO / "testset")): p.read_bytes() for p in (DEMO / "testset").rglob("*") if p.is_file()}
    resp = _import(client, _zip(files))
    assert resp.status_code == 302, page_error_message(resp)


# --------------------------------------------------------------------------- known crashes (finding 3)


def _bad_crc(files: dict[str, bytes]) -> bytes:
    data = bytearray(_zip(files))
    first = next(iter(files.values()))
    at = bytes(data).find(first[:20])
    data[at] ^= 0x01          # one flipped bit in the first member's (stored) data: its CRC no longer matches
    return bytes(data)


def test_testset_zip_with_a_bad_crc_is_refused_with_a_message(importing):
    _world, client = importing
    files = {str(p.relative_to(DEMO / "testset")): p.read_bytes() for p in (DEMO / "testset").rglob("*") if p.is_file()}
    resp = _import(client, _bad_crc(files))
    assert resp.status_code == 400 and page_error_message(resp)


def test_submission_zip_with_a_bad_crc_ends_invalid_not_failed(uploading):
    world, ts, token = uploading
    client = world.app.test_client()
    resp = client.post(f"/api/v1/testsets/{ts}/submissions", content_type="multipart/form-data",
                       headers={"Authorization": f"Bearer {token}"},
                       data={"label": "primary", "constrained": "true", "system_name": "crc",
                             "files": [(io.BytesIO(_bad_crc(dict(system_files()))), "out.zip")]})
    if resp.status_code == 202:
        assert world.submission(resp.get_json()["id"]).state == "invalid"
    else:
        assert 400 <= resp.status_code < 500 and api_error_message(resp)


def test_nested_testset_json_is_refused_with_a_message(importing):
    _world, client = importing
    resp = _import(client, _zip({"testset.json": b"[" * 100_000 + b"]" * 100_000}))
    assert resp.status_code == 400 and page_error_message(resp)


def test_300_character_document_name_is_refused_with_a_message(importing):
    _world, client = importing
    doc = "d" * 300
    resp = _import(client, _zip({"testset.json": json.dumps({"name": "Long", "src_lang": "en", "tgt_lang": "de",
                                                             "documents": [doc]}).encode(),
                                 f"source/{doc}.txt": b"one\n", f"ref1/{doc}.txt": b"eins\n"}))
    assert resp.status_code == 400 and page_error_message(resp)
