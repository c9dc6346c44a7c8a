"""Finding 3 of the security review: fifteen inputs that gave a 500. Each now gets a clear 4xx (or, for a
submission, the state ``invalid`` with a report) that names the problem, and nothing is written."""

from __future__ import annotations

import io
import json
import zipfile

import pytest

from tests.support.campaigns import assignments_of, build_world, mark_uuid, new_campaign, write_testset
from tests.support.testkit import DEMO, login, system_files, upload

NESTED = "[" * 10_000 + "]" * 10_000   # 20 KB: deeper than Python's recursion limit


@pytest.fixture
def cworld(make_app, tmp_path):
    return build_world(make_app(), tmp_path)


def _error(resp, status=400):
    assert resp.status_code == status, (resp.status_code, resp.get_data(as_text=True)[:300])
    body = resp.get_json()
    assert body and body["error"]["message"], body
    return body["error"]


def _item(world):
    cid = new_campaign(world)
    a = assignments_of(world, cid, "ann1@example.org")[0]
    return world.client("ann1@example.org"), a["public_id"]


def _marks(world) -> int:
    from enface.protocols.mqm.models import Mark
    from sqlalchemy import func, select

    with world.ctx():
        from enface.extensions import db

        return db.session.scalar(select(func.count()).select_from(Mark))


# --------------------------------------------------------------------------- the annotation API


def test_deeply_nested_json_to_every_save_endpoint(cworld):
    client, pid = _item(cworld)
    base = f"/annotate/api/items/{pid}"
    for method, url in (("put", f"{base}/marks/{mark_uuid()}"), ("delete", f"{base}/marks/{mark_uuid()}"),
                        ("put", f"{base}/responses/{mark_uuid()}"), ("delete", f"{base}/responses/{mark_uuid()}"),
                        ("post", f"{base}/progress")):
        resp = getattr(client, method)(url, data=NESTED, content_type="application/json")
        err = _error(resp)
        assert "nested" in err["message"], (url, err)
    # also as the value of a field of an object
    resp = client.put(f"{base}/marks/{mark_uuid()}", data='{"rev": 1, "note": ' + NESTED + "}",
                      content_type="application/json")
    assert "nested" in _error(resp)["message"]
    assert _marks(cworld) == 0


def test_lone_surrogate_in_a_note_is_refused_naming_the_field(cworld):
    client, pid = _item(cworld)
    body = ('{"rev": 1, "seg": 0, "side": "target", "start": 0, "end": 3, "category": "Style", '
            '"subcategory": "Unidiomatic", "severity": "Minor", "note": "bad \\ud800 note"}')
    err = _error(client.put(f"/annotate/api/items/{pid}/marks/{mark_uuid()}", data=body,
                            content_type="application/json"))
    assert "note" in err["message"] and "surrogate" in err["message"], err
    assert err["details"].get("field") == "note"
    assert _marks(cworld) == 0
    # and in a key
    err = _error(client.post(f"/annotate/api/items/{pid}/progress", data='{"times": {"\\udfff": 1}}',
                             content_type="application/json"))
    assert "surrogate" in err["message"]


def test_huge_rev_on_delete(cworld):
    client, pid = _item(cworld)
    uid = mark_uuid()
    ok = client.put(f"/annotate/api/items/{pid}/marks/{uid}",
                    json={"rev": 1, "seg": 0, "side": "target", "start": 0, "end": 3, "category": "Style",
                          "subcategory": "Unidiomatic", "severity": "Minor"})
    assert ok.status_code == 200, ok.get_data(as_text=True)
    for rev in (10**30, 2**63, -(10**30)):
        err = _error(client.delete(f"/annotate/api/items/{pid}/marks/{uid}", json={"rev": rev}))
        assert err["details"].get("field") == "rev", err
    resp = client.delete(f"/annotate/api/items/{pid}/responses/{uid}", json={"rev": 10**30})
    assert resp.status_code in (200, 400)   # unknown answer ids answer as deleted; never a 500
    # the mark is still there, undeleted
    state = client.get(f"/annotate/api/items/{pid}").get_json()
    assert [m["deleted"] for m in state["marks"]] == [False]


@pytest.mark.parametrize("key", ["²", "١", "0²", "𝟘", " 1", "+1"])
def test_times_keys_must_be_ascii_digits(cworld, key):
    client, pid = _item(cworld)
    err = _error(client.post(f"/annotate/api/items/{pid}/progress", json={"times": {key: 1}}))
    assert err["details"].get("field") == "times", err


# --------------------------------------------------------------------------- test sets and submissions


def _zip(files: dict[str, bytes], method=zipfile.ZIP_STORED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buf.getvalue()


def _bad_crc(files: dict[str, bytes], target: bytes) -> bytes:
    data = _zip(files)
    assert data.count(target) == 1
    return data.replace(target, bytes([target[0] ^ 1]) + target[1:])


def _testset_zip(tmp_path, **extra) -> dict[str, bytes]:
    folder = write_testset(tmp_path / "ts", {"doc1": ["Hello there.", "Second line."]})
    files = {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
    files.update(extra)
    return files


def _import(client, data: bytes, task="Security"):
    return client.post("/admin/testsets/import", data={"task": task, "archive": (io.BytesIO(data), "ts.zip")},
                       content_type="multipart/form-data")


def _organizer(world):
    world.user("org@x.org", role="organizer")
    client = world.app.test_client()
    login(client, "org@x.org")
    return client


def _count_testsets(app) -> int:
    from enface.extensions import db
    from enface.models import TestSet
    from sqlalchemy import func, select

    with app.app_context():
        return db.session.scalar(select(func.count()).select_from(TestSet))


def test_testset_zip_with_bad_crc(app, world, tmp_path):
    org = _organizer(world)
    files = _testset_zip(tmp_path)
    resp = _import(org, _bad_crc(files, b"Hello there."))
    assert resp.status_code == 400, resp.status_code
    html = resp.get_data(as_text=True)
    assert "source/doc1.txt" in html and "damaged" in html
    assert _count_testsets(app) == 0


def test_nested_testset_json(app, world, tmp_path):
    org = _organizer(world)
    files = _testset_zip(tmp_path)
    files["testset.json"] = ('{"name": "x", "src_lang": "en", "tgt_lang": "de", "documents": ' + NESTED + "}"
                             ).encode()
    resp = _import(org, _zip(files))
    assert resp.status_code == 400
    assert "testset.json" in resp.get_data(as_text=True) and "nested" in resp.get_data(as_text=True)
    # documents that are not names
    files["testset.json"] = json.dumps({"name": "x", "src_lang": "en", "tgt_lang": "de",
                                        "documents": [["doc1"]]}).encode()
    resp = _import(org, _zip(files))
    assert resp.status_code == 400 and "documents" in resp.get_data(as_text=True)
    assert _count_testsets(app) == 0


def test_library_refuses_nested_and_mistyped_testset_json(tmp_path):
    from scoring.testset import TestSetError, load_testset

    folder = write_testset(tmp_path / "ts", {"doc1": ["Hello."]})
    for meta, words in (('{"name": "x", "src_lang": "en", "tgt_lang": "de", "documents": ' + NESTED + "}", "nested"),
                        ('{"name": ["x"], "src_lang": "en", "tgt_lang": "de"}', "name"),
                        ('{"name": "x", "src_lang": "en", "tgt_lang": "de", "documents": [1]}', "documents"),
                        ('{"name": "x", "src_lang": "en", "tgt_lang": "de", "documents": ["' + "d" * 300 + '"]}',
                         "too long")):
        (folder / "testset.json").write_text(meta)
        with pytest.raises(TestSetError, match=words):
            load_testset(folder)


def test_document_name_of_300_characters(app, world, tmp_path):
    org = _organizer(world)
    long = "d" * 300
    files = {"testset.json": json.dumps({"name": "x", "src_lang": "en", "tgt_lang": "de"}).encode(),
             f"source/{long}.txt": b"Hello.\n", f"ref1/{long}.txt": b"Hallo.\n"}
    resp = _import(org, _zip(files))
    assert resp.status_code == 400, resp.status_code
    html = resp.get_data(as_text=True)
    assert "too long" in html and "ddddd" in html
    assert _count_testsets(app) == 0


def test_submission_zip_with_bad_crc_ends_invalid_with_a_report(app, world, client):
    ts = world.testset()
    _uid, token = world.team_with_token("cap@a.org", "Team A")
    files = dict(system_files())
    first = next(iter(files.values()))
    target = first.split(b"\n")[0][:20]
    resp = upload(client, ts, token, files=[("out.zip", _bad_crc(files, target))])
    assert resp.status_code == 202, resp.get_data(as_text=True)
    sub = world.submission(resp.get_json()["id"])
    assert sub.state == "invalid", (sub.state, [e.message for e in sub.events] if sub.events else None)
    assert sub.report and not sub.report["ok"]
    messages = " ".join(f["message"] for f in sub.report["errors"])
    assert "damaged" in messages and "Traceback" not in messages


# --------------------------------------------------------------------------- campaign forms


def _new_mqm_form(world, seed):
    return {"name": "Seeded", "scheme": "wmt23-literary", "redundancy": "2", "strategy": "redundancy",
            "docs_mode": "ranges", "ranges": "river.1", "sample_docs": "1", "sample_words": "100",
            "attention_share": "0", "attention_kind": "mixed", "source_words": "whitespace",
            "significance_unit": "segment", "instructions": "", "words_per_second": "20", "seed": seed,
            "systems": [str(world.subs["zephyr-mt"])]}


@pytest.mark.parametrize("seed", ["9" * 5000, str(2**70), "²", "-1", "1e5"])
def test_campaign_seed_out_of_range(cworld, seed):
    from sqlalchemy import func, select

    org = cworld.client("org@example.org")
    resp = org.post(f"/campaigns/new?testset={cworld.testset_id}&protocol=mqm", data=_new_mqm_form(cworld, seed))
    assert resp.status_code == 400, resp.status_code
    assert "seed" in resp.get_data(as_text=True)
    with cworld.ctx():
        from enface.campaigns.models import Campaign
        from enface.extensions import db

        assert db.session.scalar(select(func.count()).select_from(Campaign)) == 0


def test_campaign_seed_in_the_service(cworld):
    from enface.campaigns import services as svc
    from enface.extensions import db
    from enface.models import TestSet, User
    from enface.services import ServiceError

    with cworld.ctx():
        org = db.session.get(User, cworld.users["org@example.org"])
        ts = db.session.get(TestSet, cworld.testset_id)
        for seed in (2**70, -5, "²"):
            with pytest.raises(ServiceError, match="seed"):
                svc.create_campaign(org, ts, svc.CampaignInput(name="x", submission_ids=[cworld.subs["zephyr-mt"]],
                                                               ranges="river.1", seed=seed))


@pytest.mark.parametrize("days", ["99999999", "-3", "²", "1" * 5000])
def test_invite_days_out_of_range(cworld, days):
    cid = new_campaign(cworld, start=False)
    org = cworld.client("org@example.org")
    resp = org.post(f"/campaigns/{cid}/invites", data={"count": "1", "days": days}, follow_redirects=True)
    assert resp.status_code == 200, resp.status_code
    assert "days" in resp.get_data(as_text=True) and "between" in resp.get_data(as_text=True)
    with cworld.ctx():
        from enface.campaigns.models import CampaignInvite
        from enface.extensions import db
        from sqlalchemy import func, select

        assert db.session.scalar(select(func.count()).select_from(CampaignInvite)) == 0


def test_demo_testset_still_imports(app, world):
    assert world.testset(DEMO / "testset")


@pytest.mark.parametrize("value", [str(10**30), "²", "-1"])
def test_new_campaign_testset_parameter(cworld, value):
    org = cworld.client("org@example.org")
    resp = org.get(f"/campaigns/new?testset={value}&protocol=mqm")
    assert resp.status_code == 200   # the test-set picker again
    assert "Tales en-de" in resp.get_data(as_text=True)
