"""Finding 6 of the security review: one upload must not tie up a worker.

A 40 MB line is an error found while the file streams (the line is never held whole, and nothing
else runs on it); a zip whose members would decompress past the submission's limit is refused
from its declared sizes at the upload; 600 files get "too many files", not a 413 about the size.
"""

from __future__ import annotations

import io
import time
import zipfile

from scoring.testset import load_testset
from scoring.validate import validate_files
from tests.support.testkit import DEMO, assert_api_error, system_files, upload


def _team(world):
    ts = world.testset(quota_per_day=None, quota_total=None)
    _uid, token = world.team_with_token("cap@a.org", "Team A")
    return ts, token


def test_a_40_mb_line_is_refused_quickly(client, world):
    ts, token = _team(world)
    files = dict(system_files())
    name = next(iter(files))
    lines = files[name].split(b"\n")
    lines[0] = b"word " * (8 * 1024 * 1024)   # line 1 is 40 MiB: same line count, it used to pass with a warning
    files[name] = b"\n".join(lines)
    started = time.monotonic()
    resp = upload(client, ts, token, files=list(files.items()))
    elapsed = time.monotonic() - started
    assert resp.status_code == 202, resp.get_data(as_text=True)
    sub = world.submission(resp.get_json()["id"])
    assert sub.state == "invalid"
    errors = sub.report["errors"]
    too_long = [e for e in errors if e["code"] == "line-too-long"]
    assert too_long and too_long[0]["file"] == name and too_long[0]["line"] == 1, errors
    assert "40.0 MiB" in too_long[0]["message"] and "1.0 MiB" in too_long[0]["message"]
    assert elapsed < 20, elapsed   # 93 s before (and 3 GB); a few seconds now, most of it the upload itself


def test_line_limit_in_the_library():
    testset = load_testset(DEMO / "testset")
    files = dict(system_files())
    name = next(iter(files))
    ok = validate_files(testset, files, max_line_bytes=10_000)
    assert "line-too-long" not in ok.codes()
    lines = files[name].split(b"\n")
    lines[2] = b"x" * 10_001
    report = validate_files(testset, {**files, name: b"\n".join(lines)}, max_line_bytes=10_000)
    finding = next(f for f in report.errors if f.code == "line-too-long")
    assert finding.line == 3 and finding.file == name
    # exactly at the limit is fine, also with CRLF
    lines[2] = b"x" * 10_000
    assert "line-too-long" not in validate_files(testset, {**files, name: b"\n".join(lines)},
                                                 max_line_bytes=10_000).codes()
    assert "line-too-long" not in validate_files(testset, {**files, name: b"\r\n".join(lines)},
                                                 max_line_bytes=10_001).codes()
    # a single-file submission (every segment in one file) too
    single = b"".join(files[n] for n in sorted(files))
    big = b"y" * 20_000 + b"\n" + single
    report = validate_files(testset, {"all.txt": big}, max_line_bytes=10_000)
    assert "line-too-long" in report.codes()


def test_zip_past_the_submission_limit_is_refused_from_declared_sizes(make_app, tmp_path):
    from tests.support.testkit import World

    app = make_app(MAX_UPLOAD_BYTES=5 * 1024 * 1024, MAX_UNZIPPED_BYTES=200 * 1024 * 1024)
    world = World(app)
    ts, token = _team(world)
    member = b"The old ferryman rowed slowly across the grey river.\n" * 19_000   # just under 1 MiB
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, content in system_files():
            zf.writestr(name, content)
        for i in range(150):
            zf.writestr(f"pad/{i}.txt", member)
    assert len(buf.getvalue()) < 5 * 1024 * 1024
    started = time.monotonic()
    err = assert_api_error(upload(app.test_client(), ts, token, files=[("out.zip", buf.getvalue())]), 400,
                           "zip_too_large")
    assert time.monotonic() - started < 5
    assert "5.0 MiB" in err["message"] and "nothing was extracted" in err["message"]
    assert list((tmp_path / "data" / "uploads" / "tmp").iterdir()) == []


def test_zip_member_bigger_than_declared_is_caught_while_streaming(tmp_path, make_app):
    """A member whose data decompress past its declared size (a lying header) stops at the declared size."""
    from enface.services.uploads import UploadError, read_zip_members

    payload = b"a" * 5000
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("a.txt", payload)
    data = bytearray(buf.getvalue())
    # shrink the declared size (central directory and local header) from 5000 to 100
    for sig, offset in ((b"PK\x01\x02", 24), (b"PK\x03\x04", 22)):
        at = data.find(sig)
        data[at + offset:at + offset + 4] = (100).to_bytes(4, "little")
    path = tmp_path / "lying.zip"
    path.write_bytes(bytes(data))
    app = make_app()
    with app.app_context():
        try:
            read_zip_members(path, max_members=10, max_total=10**6, max_member=10**6, max_ratio=200)
        except UploadError as exc:
            assert exc.code in ("zip_bomb", "bad_zip"), exc.code
        else:
            raise AssertionError("a member larger than declared was read")


def test_600_files_say_too_many_files(client, world):
    ts, token = _team(world)
    for n in (520, 600):
        files = [(f"f{i}.txt", b"x\n") for i in range(n)]
        err = assert_api_error(upload(client, ts, token, files=files), 400, "too_many_files")
        assert "too many files" in err["message"] or "at most 500 files" in err["message"]
        assert "larger than" not in err["message"]


def test_600_files_on_the_form_page(app, world):
    from tests.support.testkit import login

    ts, _token = _team(world)
    browser = app.test_client()
    login(browser, "cap@a.org")
    data = {"label": "primary", "constrained": "constrained", "system_name": "many",
            "files": [(io.BytesIO(b"x\n"), f"f{i}.txt") for i in range(600)]}
    resp = browser.post(f"/testsets/{ts}/submit", data=data, content_type="multipart/form-data")
    assert resp.status_code == 400
    html = resp.get_data(as_text=True)
    assert "Too many files" in html and "larger than" not in html
