"""The JSON API contract: endpoints, shapes, errors."""

from __future__ import annotations

import pytest

from tests.support.testkit import assert_api_error, system_files, upload


@pytest.fixture
def setup(world):
    ts = world.testset()
    uid, token = world.team_with_token("cap@a.org", "Team A")
    return ts, token


def test_list_and_get_testsets(client, setup):
    ts, _token = setup
    body = client.get("/api/v1/testsets").get_json()
    assert [t["id"] for t in body["testsets"]] == [ts]
    t = body["testsets"][0]
    assert t["task"] == "Demo" and t["src_lang"] == "zh" and t["tgt_lang"] == "en"
    assert t["num_documents"] == 3 and t["num_segments"] == 67 and t["open"] is True and t["deadline"] is None
    detail = client.get(f"/api/v1/testsets/{ts}").get_json()
    assert detail["documents"] == [{"name": "jade-lantern.1", "segments": 22},
                                   {"name": "jade-lantern.2", "segments": 23},
                                   {"name": "mountain-inn", "segments": 22}]
    text = client.get(f"/api/v1/testsets/{ts}").get_data(as_text=True)
    # References are never exposed by the API before release.
    ref_line = (system_files()[0][1].decode().splitlines()[0])
    assert "ref1" not in text and ref_line not in text


def test_submit_returns_202_and_scores(client, setup):
    ts, token = setup
    resp = upload(client, ts, token, system_name="strong", description="desc")
    assert resp.status_code == 202, resp.get_json()
    body = resp.get_json()
    assert body["url"].endswith(f"/api/v1/submissions/{body['id']}")
    assert resp.headers["Location"] == body["url"]
    sub = client.get(f"/api/v1/submissions/{body['id']}", headers={"Authorization": f"Bearer {token}"}).get_json()
    assert sub["state"] == "scored"
    assert [e["state"] for e in sub["timeline"]] == ["received", "validating", "valid", "scoring", "scored"]
    assert all(e["at"] and e["message"] for e in sub["timeline"])
    assert sub["report"]["ok"] is True
    bleu = sub["scores"]["bleu"]
    assert bleu["score"] == pytest.approx(45.0386, abs=1e-3)
    assert bleu["signature"].startswith("nrefs:2|case:mixed")
    assert bleu["versions"]["sacrebleu"].startswith("2.6")
    assert sub["scores"]["comet"]["score"] is None and "COMET" in sub["scores"]["comet"]["reason"]
    assert sub["scores"]["dbleu"]["signature"].startswith("level:document")


def test_matches_the_scoring_library(client, setup):
    from scoring import Scorer, load_system_output, load_testset

    ts, token = setup
    sid = upload(client, ts, token).get_json()["id"]
    got = client.get(f"/api/v1/submissions/{sid}", headers={"Authorization": f"Bearer {token}"}).get_json()["scores"]
    from tests.support.testkit import DEMO

    lib_ts = load_testset(DEMO / "testset")
    expected = Scorer(lib_ts, ["bleu", "chrf", "ter", "dbleu"], workers=1).score(
        load_system_output(lib_ts, DEMO / "systems" / "strong-mt")).scores
    for key in ("bleu", "chrf", "ter", "dbleu"):
        assert got[key]["score"] == expected[key].value
        assert got[key]["signature"] == expected[key].signature


@pytest.mark.parametrize("method,path,status,code", [
    ("get", "/api/v1/testsets/999", 404, "not_found"),
    ("get", "/api/v1/submissions/999", 404, "not_found"),
    ("get", "/api/v1/nothing-here", 404, "not_found"),
    ("get", "/api/v1/testsets/abc", 404, "not_found"),
    ("delete", "/api/v1/testsets", 405, "method_not_allowed"),
    ("post", "/api/v1/testsets/1/submissions", 401, "unauthorized"),
    ("get", "/api/v1/me", 401, "unauthorized"),
])
def test_error_shape(client, setup, method, path, status, code):
    resp = getattr(client, method)(path)
    assert_api_error(resp, status, code)


def test_bad_bearer_is_401(client, setup):
    ts, _ = setup
    for header in ("Bearer nope", "Basic dXNlcjpwYXNz", "Bearer", "Token abc"):
        assert_api_error(client.get("/api/v1/testsets", headers={"Authorization": header}), 401, "unauthorized")


@pytest.mark.parametrize("fields,code", [
    ({"label": "main"}, "invalid_field"),
    ({"label": ""}, "invalid_field"),
    ({"label": "baseline"}, "invalid_field"),           # participants cannot submit baselines
    ({"constrained": "maybe"}, "invalid_field"),
    ({"system_name": ""}, "invalid_field"),
    ({"system_name": "x" * 101}, "invalid_field"),
    ({"system_name": "bad\x00name"}, "invalid_field"),
    ({"description": "y" * 2001}, "invalid_field"),
])
def test_bad_fields(client, setup, fields, code):
    ts, token = setup
    args = {"label": "primary", "system_name": "ok", "constrained": "true"} | fields
    resp = upload(client, ts, token, **args)
    err = assert_api_error(resp, 403 if fields.get("label") == "baseline" else 400, code)
    assert err["details"].get("field") in ("label", "constrained", "system name", "description")


def test_no_files(client, setup):
    ts, token = setup
    assert_api_error(upload(client, ts, token, files=[]), 400, "no_files")
    # Not even multipart.
    resp = client.post(f"/api/v1/testsets/{ts}/submissions", json={"label": "primary"},
                       headers={"Authorization": f"Bearer {token}"})
    assert_api_error(resp, 400)


def test_me(client, setup):
    _ts, token = setup
    me = client.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"}).get_json()
    assert me["email"] == "cap@a.org" and me["team"]["name"] == "Team A"


def test_odd_requests_never_500(client, setup):
    import io

    ts, token = setup
    h = {"Authorization": f"Bearer {token}"}
    url = f"/api/v1/testsets/{ts}/submissions"
    odd = [
        dict(data=b"\x00\xff" * 100, content_type="application/octet-stream"),
        dict(data="not json", content_type="application/json"),
        dict(data={"label": ["primary", "contrastive"], "system_name": "x", "files": (io.BytesIO(b"a\n"), "a.txt")}),
        dict(data={"label": "primary", "system_name": "x", "files": (io.BytesIO(b"a\n"), "bad\x00name.txt")}),
        dict(data={"label": "primary", "system_name": "x", "files": (io.BytesIO(b"a\n"), "../../etc/passwd")}),
        dict(data={"label": "primary", "system_name": "\u202e\u200bname", "files": (io.BytesIO(b"a\n"), "a.txt")}),
        dict(data={"label": "PRIMARY", "system_name": "ok", "constrained": "No",
                   "files": (io.BytesIO(b"\xef\xbb\xbf"), "\U0001f600.txt")}),
        dict(data={"files": (io.BytesIO(b""), "")}),
    ]
    for kwargs in odd:
        resp = client.post(url, headers=h, **kwargs)
        assert resp.status_code < 500, (kwargs, resp.get_data(as_text=True)[:300])
        assert resp.is_json
    for sid in range(1, 8):
        resp = client.get(f"/api/v1/submissions/{sid}", headers=h)
        assert resp.status_code in (200, 404)
    assert client.get("/api/v1/testsets", headers={"Authorization": "Bearer " + "x" * 10000}).status_code == 401
