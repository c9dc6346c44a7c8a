"""Bad files of every kind, through the upload: each gets a report naming the file, the line and the problem.

Also zips (good ones, bombs, traversal), single-file and document-level submissions, and the size cap.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib

import pytest

from tests.support.testkit import DEMO, assert_api_error, system_files, upload


def auth(token):
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def team(world):
    ts = world.testset(quota_per_day=None, quota_total=None)
    _uid, token = world.team_with_token("cap@a.org", "Team A")
    return ts, token


def strong() -> dict[str, bytes]:
    return dict(system_files("strong-mt"))


def _replace_line(data: bytes, line: int, new: bytes) -> bytes:
    lines = data.split(b"\n")
    lines[line - 1] = new
    return b"\n".join(lines)


def _result(client, token, resp):
    assert resp.status_code == 202, resp.get_json()
    return client.get(resp.get_json()["url"], headers=auth(token)).get_json()


def _files(**changes) -> list[tuple[str, bytes]]:
    files = strong()
    for name, content in changes.items():
        name = name.replace("__", ".").replace("_", "-") + ".txt" if not name.endswith("_raw") else name[:-4]
        if content is None:
            files.pop(name, None)
        else:
            files[name] = content
    return list(files.items())


S = strong()
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 200

BAD_CASES = {
    # case: (files, expected error code, file named in the finding, line or None)
    "missing document": ([(n, c) for n, c in S.items() if n != "mountain-inn.txt"], "missing-document", None, None),
    "extra document": ([*S.items(), ("epilogue.txt", b"The end.\n")], "extra-document", "epilogue.txt", None),
    "wrong case": ([(n.replace("mountain-inn", "Mountain-Inn"), c) for n, c in S.items()], "file-name-case",
                   "Mountain-Inn.txt", None),
    "duplicate": ([*S.items(), ("copy/mountain-inn.txt", S["mountain-inn.txt"])], "duplicate-document", None, None),
    "docx": ([(n.replace("mountain-inn.txt", "mountain-inn.docx"), c) for n, c in S.items()], "not-txt",
             "mountain-inn.docx", None),
    "png": ([*((n, c) for n, c in S.items() if n != "mountain-inn.txt"), ("mountain-inn.txt", PNG)], "binary-file",
            "mountain-inn.txt", None),
    "utf-16": ([*((n, c) for n, c in S.items() if n != "mountain-inn.txt"),
                ("mountain-inn.txt", S["mountain-inn.txt"].decode().encode("utf-16"))], "binary-file",
               "mountain-inn.txt", None),
    "invalid utf-8": ([*((n, c) for n, c in S.items() if n != "mountain-inn.txt"),
                       ("mountain-inn.txt", _replace_line(S["mountain-inn.txt"], 5, b"caf\xe9 au lait"))],
                      "invalid-utf8", "mountain-inn.txt", 5),
    "control character": ([*((n, c) for n, c in S.items() if n != "jade-lantern.2.txt"),
                           ("jade-lantern.2.txt", _replace_line(S["jade-lantern.2.txt"], 7, b"bell \x07 here"))],
                          "control-char", "jade-lantern.2.txt", 7),
    "empty document": ([*((n, c) for n, c in S.items() if n != "mountain-inn.txt"), ("mountain-inn.txt", b"")],
                       "empty-document", "mountain-inn.txt", None),
    "line missing": (system_files("broken-mt"), "line-count", "jade-lantern.2.txt", 12),
    "empty submission": ([("output.txt", b"")], "empty-submission", None, None),
    "single file short": ([("all.txt", b"one line\n")], "line-count", "all.txt", 1),
}


@pytest.mark.parametrize("case", list(BAD_CASES))
def test_bad_file_is_reported(client, team, case):
    ts, token = team
    files, code, file, line = BAD_CASES[case]
    sub = _result(client, token, upload(client, ts, token, files=files))
    assert sub["state"] == "invalid", sub["timeline"]
    errors = sub["report"]["errors"]
    matching = [e for e in errors if e["code"] == code]
    assert matching, errors
    if file is not None:
        assert any(e["file"] == file for e in matching), matching
    if line is not None:
        assert any(e["line"] == line for e in matching), matching
    assert all(e["message"] for e in errors)
    assert sub["scores"] == {}
    # The timeline says why, and the slot is free again.
    assert sub["timeline"][-1]["state"] == "invalid" and "error" in sub["timeline"][-1]["message"]
    assert upload(client, ts, token, system_name="fixed").status_code == 202


def test_warnings_do_not_reject(client, team):
    ts, token = team
    crlf = S["mountain-inn.txt"].replace(b"\n", b"\r\n")
    bom = b"\xef\xbb\xbf" + S["jade-lantern.1.txt"]
    files = [("jade-lantern.1.txt", bom), ("jade-lantern.2.txt", S["jade-lantern.2.txt"]), ("mountain-inn.txt", crlf)]
    sub = _result(client, token, upload(client, ts, token, files=files))
    assert sub["state"] == "scored"
    codes = {w["code"] for w in sub["report"]["warnings"]}
    assert {"bom", "line-endings"} <= codes
    # Normalised exactly as the scoring library reads files: same BLEU as the clean output.
    clean = _result(client, token, upload(client, ts, token, label="contrastive"))
    assert sub["scores"]["bleu"]["score"] == clean["scores"]["bleu"]["score"]


def test_web_form_shows_the_report(client, world, team):
    from tests.support.testkit import login

    ts, _token = team
    login(client, "cap@a.org")
    data = {"label": "primary", "constrained": "constrained", "system_name": "broken", "description": "",
            "files": [(io.BytesIO(c), n) for n, c in system_files("broken-mt")]}
    resp = client.post(f"/testsets/{ts}/submit", data=data, content_type="multipart/form-data")
    assert resp.status_code == 302
    page = client.get(resp.headers["Location"]).get_data(as_text=True)
    assert "Validation report" in page and "rejected" in page
    assert "jade-lantern.2.txt" in page and "line-count" in page
    assert "jade-lantern.1.txt" in page   # the untranslated line 16 (a warning) is listed too
    assert "state-invalid" in page


def test_single_file_submission(client, team):
    ts, token = team
    whole = b"".join(S[f"{d}.txt"] for d in ("jade-lantern.1", "jade-lantern.2", "mountain-inn"))
    sub = _result(client, token, upload(client, ts, token, files=[("strong-mt.txt", whole)]))
    assert sub["state"] == "scored"
    ref = _result(client, token, upload(client, ts, token, label="contrastive"))
    assert sub["scores"]["bleu"]["score"] == ref["scores"]["bleu"]["score"]


def test_document_level_submission(client, world, team):
    ts, token = team
    joined = {n: b" ".join(c.rstrip(b"\n").split(b"\n")) + b"\n" for n, c in S.items()}
    sub = _result(client, token, upload(client, ts, token, files=list(joined.items())))
    assert sub["state"] == "invalid"   # the task does not accept document-level outputs yet
    world.settings(ts, document_level_allowed=True)
    sub = _result(client, token, upload(client, ts, token, files=list(joined.items()), system_name="doc"))
    assert sub["state"] == "scored" and sub["document_level"] is True
    assert sub["scores"]["dbleu"]["score"] > 0
    for key in ("bleu", "chrf", "ter", "comet"):
        assert sub["scores"][key]["score"] is None and "document-level" in sub["scores"][key]["reason"]


# --------------------------------------------------------------------------- zips


def make_zip(members: dict[str, bytes], method=zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


def test_zip_upload(client, team):
    ts, token = team
    members = {f"strong-mt/{n}": c for n, c in S.items()} | {"__MACOSX/strong-mt/._mountain-inn.txt": b"junk",
                                                             "strong-mt/": b""}
    sub = _result(client, token, upload(client, ts, token, files=[("strong-mt.zip", make_zip(members))]))
    assert sub["state"] == "scored", sub["report"]
    assert sub["scores"]["bleu"]["score"] == pytest.approx(45.0386, abs=1e-3)
    assert [f["name"] for f in sub["files"]] == ["strong-mt.zip"]


def test_zip_with_bad_members_is_validated(client, team):
    ts, token = team
    members = dict(S) | {"notes.docx": b"PK\x03\x04 not really"}
    sub = _result(client, token, upload(client, ts, token, files=[("out.zip", make_zip(members))]))
    assert sub["state"] == "invalid"
    assert "not-txt" in {e["code"] for e in sub["report"]["errors"]}


def test_zip_bomb_is_refused_before_extraction(client, team, tmp_path):
    ts, token = team
    bomb = make_zip(dict(S) | {"mountain-inn.txt": b"\0" * (8 * 1024 * 1024)})
    assert len(bomb) < 100_000
    err = assert_api_error(upload(client, ts, token, files=[("out.zip", bomb)]), 400, "zip_bomb")
    assert "mountain-inn.txt" in err["message"]
    assert list((tmp_path / "data" / "uploads" / "tmp").iterdir()) == []


def test_zip_over_the_uncompressed_cap(make_app, tmp_path):
    from tests.support.testkit import World

    app = make_app(MAX_UNZIPPED_BYTES=100_000)
    world = World(app)
    ts = world.testset()
    _uid, token = world.team_with_token("cap@a.org", "Team A")
    members = dict(S) | {"pad.txt": bytes(range(256)) * 500}   # 128 kB that barely compresses
    assert_api_error(upload(app.test_client(), ts, token, files=[("out.zip", make_zip(members, zipfile.ZIP_STORED))]),
                     400, "zip_too_large")


@pytest.mark.parametrize("name", ["../../etc/evil.txt", "/etc/evil.txt", "ok/../../evil.txt", "C:/evil.txt",
                                  "..\\evil.txt"])
def test_zip_path_traversal_is_refused(client, team, name, tmp_path):
    ts, token = team
    data = make_zip(dict(S) | {name: b"x\n"})
    err = assert_api_error(upload(client, ts, token, files=[("out.zip", data)]), 400, "zip_unsafe_path")
    assert "nothing was extracted" in err["message"]
    assert not (tmp_path / "etc").exists() and not (tmp_path / "evil.txt").exists()


def test_zip_symlink_is_refused(client, team):
    ts, token = team
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for n, c in S.items():
            zf.writestr(n, c)
        info = zipfile.ZipInfo("link.txt")
        info.external_attr = (0o120777 << 16)
        zf.writestr(info, "/etc/passwd")
    assert_api_error(upload(client, ts, token, files=[("out.zip", buf.getvalue())]), 400, "zip_unsafe_path")


def test_zip_with_too_many_members(make_app):
    from tests.support.testkit import World

    app = make_app(MAX_UPLOAD_FILES=10)
    world = World(app)
    ts = world.testset()
    _uid, token = world.team_with_token("cap@a.org", "Team A")
    data = make_zip({f"f{i}.txt": b"x\n" for i in range(11)})
    assert_api_error(upload(app.test_client(), ts, token, files=[("out.zip", data)]), 400, "zip_too_many_members")


def overlapping_zip() -> bytes:
    """Two central-directory entries pointing at the same compressed data (the non-recursive zip bomb)."""
    payload = b"a" * 1000
    comp = zlib.compressobj(9, zlib.DEFLATED, -15)
    data = comp.compress(payload) + comp.flush()
    crc = zlib.crc32(payload)
    local = struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, 8, 0, 0, crc, len(data), len(payload), 5, 0) + b"a.txt"
    body = local + data
    central = b""
    for name in (b"a.txt", b"b.txt"):
        central += struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, 8, 0, 0, crc, len(data), len(payload),
                               len(name), 0, 0, 0, 0, 0, 0) + name
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 2, 2, len(central), len(body), 0)
    return body + central + end


def test_overlapping_zip_is_refused(client, team):
    ts, token = team
    assert_api_error(upload(client, ts, token, files=[("out.zip", overlapping_zip())]), 400, "zip_bomb")


def test_not_a_zip(client, team):
    ts, token = team
    assert_api_error(upload(client, ts, token, files=[("out.zip", b"plain text\n")]), 400, "bad_zip")


# --------------------------------------------------------------------------- size caps


def test_oversized_upload_is_413(make_app, tmp_path):
    from tests.support.testkit import World

    app = make_app(MAX_UPLOAD_BYTES=20_000)
    world = World(app)
    ts = world.testset()
    _uid, token = world.team_with_token("cap@a.org", "Team A")
    client = app.test_client()
    big = [("all.txt", b"x" * 200_000)]
    err = assert_api_error(upload(client, ts, token, files=big), 413, "too_large")
    assert "limit" in err["message"]
    # Just under the request cap but over the per-upload cap: refused while streaming.
    medium = [("a.txt", b"y" * 15_000), ("b.txt", b"y" * 15_000)]
    assert_api_error(upload(client, ts, token, files=medium), 413)
    assert list((tmp_path / "data" / "uploads" / "tmp").iterdir()) == []
    with app.app_context():
        from enface.extensions import db
        from enface.models import Submission
        from sqlalchemy import func, select

        assert db.session.scalar(select(func.count()).select_from(Submission)) == 0


def test_demo_data_present():
    assert (DEMO / "systems" / "broken-mt").is_dir()


def test_zip_of_one_file_with_system_junk(client, team):
    """A single all-segments file zipped on a Mac or Windows (with .DS_Store, __MACOSX, Thumbs.db)."""
    ts, token = team
    whole = b"".join(S[f"{d}.txt"] for d in ("jade-lantern.1", "jade-lantern.2", "mountain-inn"))
    members = {"out/all.txt": whole, "out/.DS_Store": b"\0\0", "__MACOSX/out/._all.txt": b"x", "Thumbs.db": b"y"}
    sub = _result(client, token, upload(client, ts, token, files=[("out.zip", make_zip(members))]))
    assert sub["state"] == "scored", sub["timeline"]
    assert sub["scores"]["bleu"]["score"] == pytest.approx(45.0386, abs=1e-3)
