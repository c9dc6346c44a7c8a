"""Issue 15, finding 3: zip slip. A document name is checked wherever it enters (testset.json, the
source folder, the flat layout's docids.txt), and every archive member's path is built from safe parts,
so that even a name already in the database cannot climb out of the release zip or source.zip."""

from __future__ import annotations

import io
import zipfile
from pathlib import PurePosixPath

import pytest
from sqlalchemy import update

from scoring.testset import TestSetError, load_flat, load_testset
from tests.support.testkit import login, upload

EVIL = ["../../../../up/evil", "..", ".hidden", "a/b", "a\\b", "C:\\x", "x\x00y", "tab\there", " padded "]


@pytest.mark.parametrize("name", EVIL)
def test_the_flat_layout_checks_every_document_name(tmp_path, name):
    (tmp_path / "src.txt").write_text("one\ntwo\n", encoding="utf-8")
    (tmp_path / "ref1.txt").write_text("eins\nzwei\n", encoding="utf-8")
    (tmp_path / "docids.txt").write_text(f"ok\n{name}\n", encoding="utf-8", newline="\n")
    with pytest.raises(TestSetError, match=r"docids.txt: line 2"):
        load_flat(tmp_path / "src.txt", [tmp_path / "ref1.txt"], tmp_path / "docids.txt")
    with pytest.raises(TestSetError):
        load_testset(tmp_path)


@pytest.mark.parametrize("name", ["../evil", "a\\b", ".x", "x\x07"])
def test_testset_json_checks_its_document_names(tmp_path, name):
    import json

    (tmp_path / "source").mkdir()
    (tmp_path / "source" / "ok.txt").write_text("one\n", encoding="utf-8")
    (tmp_path / "testset.json").write_text(json.dumps({"name": "t", "src_lang": "en", "tgt_lang": "de",
                                                       "documents": ["ok", name]}), encoding="utf-8")
    with pytest.raises(TestSetError, match="not a plain file name"):
        load_testset(tmp_path)


def _flat_zip(docid: str) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("src.txt", "one\ntwo\n")
        zf.writestr("ref1.txt", "eins\nzwei\n")
        zf.writestr("docids.txt", f"{docid}\n{docid}\n")
    return buf.getvalue()


def test_the_web_import_refuses_a_climbing_document_name(world):
    from enface.extensions import db
    from enface.models import TestSet
    from sqlalchemy import func, select

    world.user("org@example.org", role="organizer")
    client = world.app.test_client()
    login(client, "org@example.org")
    resp = client.post("/admin/testsets/import", content_type="multipart/form-data",
                       data={"task": "Evil", "archive": (io.BytesIO(_flat_zip("../../../../up/evil")), "flat.zip")})
    body = resp.get_data(as_text=True)
    assert resp.status_code == 400 and "not a plain file name" in body, body[:2000]
    with world.app.app_context():
        assert db.session.scalar(select(func.count()).select_from(TestSet)) == 0


def _members_are_safe(data: bytes) -> list[str]:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        names = zf.namelist()
    root = {n.split("/")[0] for n in names}
    assert len(root) == 1, root
    for n in names:
        parts = PurePosixPath(n).parts
        assert not n.startswith("/") and "\\" not in n and ".." not in parts, n
        assert all(not p.startswith(".") and p.isprintable() for p in parts), n
    return names


def test_names_already_stored_cannot_leave_the_archives(world):
    """A document renamed in the database (as an older import let in): release.zip and source.zip keep every
    member under their root folder, and the renamed documents' members stay distinct."""
    from enface.extensions import db
    from enface.models import Document

    tsid = world.testset(released=True, references_public=True)
    _uid, token = world.team_with_token("cap@example.org", "Team A")
    assert upload(world.app.test_client(), tsid, token).status_code == 202
    with world.app.app_context(), db.write():
        ids = [d.id for d in db.session.query(Document).filter_by(testset_id=tsid).order_by(Document.position)]
        for doc_id, name in zip(ids, ["../../../../up/evil", "..\\..\\win", "..", "/abs"]):
            db.session.execute(update(Document).where(Document.id == doc_id).values(name=name))
    client = world.app.test_client()
    release = client.get(f"/browse/{tsid}/downloads/release.zip")
    assert release.status_code == 200, release.status_code
    names = _members_are_safe(release.get_data())
    outputs = [n for n in names if "/outputs/" in n]
    assert len(outputs) == len(set(outputs)) == len(ids), outputs
    world.user("p@example.org")
    login(client, "p@example.org")
    source = client.get(f"/testsets/{tsid}/source.zip")
    assert source.status_code == 200
    names = _members_are_safe(source.get_data())
    assert sum("/source/" in n for n in names) == len(ids)
