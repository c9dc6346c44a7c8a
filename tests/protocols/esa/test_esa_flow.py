"""An ESA campaign end to end through the services and the core's API: items, attention checks, the
reading rule, answers, finishing, results through humaneval.esa, exports and the Appraise import."""

from __future__ import annotations

import json

import pytest
from esa_helpers import answer_everything, esa_campaign, put_answer

from humaneval.esa import parse_scores, summarize
from tests.support.campaigns import SYSTEMS, assignments_of, read_all


def _campaign(world, campaign_id):
    from enface.campaigns import services as svc

    return svc.get_campaign(campaign_id)


def test_the_page_state_is_blind_and_a_score_needs_reading(world):
    cid = esa_campaign(world)
    c = world.client("ann1@example.org")
    a = assignments_of(world, cid, "ann1@example.org")[0]
    r = c.get(f"/annotate/item/{a['public_id']}")
    assert r.status_code == 200
    page = r.get_data(as_text=True)
    for name in SYSTEMS:
        assert name not in page
    state = c.get(f"/annotate/api/items/{a['public_id']}").get_json()
    assert state["protocol"] == "esa" and [x["value"] for x in state["anchors"]] == [0, 33, 66, 100]
    # spans may be saved before reading; a score may not
    r, uid = put_answer(c, a["public_id"], 0, {"score": None, "spans": [{"start": 0, "end": 2, "severity": "minor"}]})
    assert r.status_code == 200, r.get_json()
    r, _ = put_answer(c, a["public_id"], 0, {"score": 70, "spans": []}, uid=uid, rev=2)
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "not_read"
    # too fast a read does not count: 1 ms on each segment
    c.post(f"/annotate/api/items/{a['public_id']}/progress",
           json={"cursor": 0, "furthest": 0, "times": {"0": 1}})
    r, _ = put_answer(c, a["public_id"], 0, {"score": 70, "spans": []}, uid=uid, rev=2)
    assert r.status_code == 409
    assert read_all(c, a["public_id"], a["segments"]).status_code == 200
    r, _ = put_answer(c, a["public_id"], 0, {"score": 70, "spans": [{"start": "missing", "end": "missing",
                                                                     "severity": "major"}]}, uid=uid, rev=2)
    assert r.status_code == 200
    # finishing needs every segment scored
    r = c.post(f"/annotate/api/items/{a['public_id']}/finish", json={})
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "not_scored"
    state = c.get(f"/annotate/api/items/{a['public_id']}").get_json()
    assert state["answers"]["0"]["data"]["score"] == 70
    assert state["answers"]["0"]["data"]["spans"][0]["start"] == "missing"
    # an offset past the translation is refused, naming the field
    text = state["segments"][1]["target"]
    r, _ = put_answer(c, a["public_id"], 1, {"score": 5, "spans": [{"start": 0, "end": len(text), "severity": "minor"}]})
    assert r.status_code == 400 and r.get_json()["error"]["details"]["field"] == "spans"
    # another annotator cannot write into this item
    other = world.client("ann2@example.org")
    r, _ = put_answer(other, a["public_id"], 1, {"score": 5, "spans": []})
    assert r.status_code in (403, 404)


def test_document_strategy_gives_every_system_of_a_document_to_one_annotator(world):
    cid = esa_campaign(world)
    with world.ctx():
        from enface.campaigns.models import Assignment
        from enface.extensions import db
        from sqlalchemy import select

        holders = {}
        for a in db.session.scalars(select(Assignment).where(Assignment.campaign_id == cid)):
            holders.setdefault(a.item.document.name, set()).add(a.annotator_id)
        assert all(len(v) == 1 for v in holders.values()) and len(holders) == 2


def test_attention_checks_are_built_mixed_in_and_judged(world):
    cid = esa_campaign(world, attention=0.5)
    with world.ctx():
        from enface.campaigns.models import Assignment
        from enface.extensions import db
        from enface.protocols.esa.texts import segment_texts
        from sqlalchemy import select

        asgs = list(db.session.scalars(select(Assignment).where(Assignment.campaign_id == cid)))
        bad = [a for a in asgs if (a.plan or {}).get("bad")]
        assert bad, "no BAD copy was built"
        for b in bad:
            original = db.session.get(Assignment, b.plan["bad"]["of"])
            assert original.annotator_id == b.annotator_id and original.item.document_id == b.item.document_id
            shown = segment_texts(b)
            real = segment_texts(original)
            for k, (s, o) in enumerate(zip(shown, real, strict=True)):
                d = b.plan["bad"]["segments"][k]
                assert s["target"] != o["target"] and s["target"][d["start"]:d["end"] + 1] == d["inserted"]
                assert s["source"] == o["source"]
        for ann in {a.annotator_id for a in asgs}:      # numbers stay 1..n per annotator
            nums = sorted(a.number for a in asgs if a.annotator_id == ann)
            assert nums == list(range(1, len(nums) + 1))
    # ann1 scores BAD copies low (passes), ann2 scores them as the originals (fails)
    bad_ids = {b.id for b in bad}

    def score(email, a, seg, text):
        if a["id"] in bad_ids:
            return 10 + seg if email == "ann1@example.org" else 80 + seg
        return 80 + seg

    answer_everything(world, cid, score)
    with world.ctx():
        from enface.protocols.esa.results import compute_results

        res = compute_results(_campaign(world, cid))
    verdicts = {c["annotator"]: c["passed"] for c in res["attention"]}
    assert verdicts["rater1"] is True and verdicts["rater2"] is False
    assert res["excluded"] == ["rater2"]
    assert res["counts"]["bad_rows"] > 0
    # counting failing annotators is the organizer's choice
    with world.ctx():
        from enface.extensions import db
        camp = _campaign(world, cid)
        with db.write():
            camp.settings = {**camp.settings, "exclude_failing": False}
        res2 = compute_results(_campaign(world, cid))
    assert res2["excluded"] == [] and sum(s["items"] for s in res2["systems"]) > sum(s["items"] for s in res["systems"])


def _score_by_system(world):
    worse = {world.subs["walrus-baseline"]: 30, world.subs["quokka-nmt"]: 60, world.subs["zephyr-mt"]: 90}

    def score(email, a, seg, text):
        return worse[a["submission_id"]] + seg

    def spans(email, a, seg, text):
        if a["submission_id"] == world.subs["walrus-baseline"]:
            return [{"start": 0, "end": 2, "severity": "major"}, {"start": "missing", "end": "missing",
                                                                   "severity": "minor"}]
        return []
    return score, spans


def test_results_match_the_library_on_the_exported_appraise_csv(world):
    cid = esa_campaign(world, redundancy=2, strategy="redundancy")
    score, spans = _score_by_system(world)
    answer_everything(world, cid, score, spans=spans)
    with world.ctx():
        from enface.protocols.esa import exports
        from enface.protocols.esa.results import compute_results

        camp = _campaign(world, cid)
        res = compute_results(camp)
        appraise = exports.export_appraise(camp)
        jsonl = exports.export_jsonl(camp)
        csv_text = exports.export_csv(camp)
    names = [s["system"] for s in res["systems"]]
    assert names == ["zephyr-mt", "quokka-nmt", "walrus-baseline"]
    walrus = res["systems"][2]
    assert walrus["spans"] == {"major": 14, "minor": 14} and walrus["items"] == 14    # 7 segments x 2 raters
    assert walrus["score"] == pytest.approx((30 * 7 + (0 + 1 + 2 + 3) + (0 + 1 + 2)) / 7)
    assert walrus["submission_id"] == world.subs["walrus-baseline"]
    assert res["agreement"]["segments"] == 21 and res["agreement"]["pearson"] == pytest.approx(1.0)
    ranking = res["ranking"]
    assert [r["system"] for r in ranking["rows"]] == names and ranking["test"] == "mannwhitney"
    assert {r["kind"] for r in ranking["rows"]} >= {"baseline"}
    # the Appraise export, read by the library, gives the same means, counts and spans
    parsed = parse_scores(appraise, "export.csv")
    assert len(parsed.rows) == 42 and all(len(r.cells()) == 12 for r in parsed.rows)
    summary = summarize(parsed.rows)
    for s in res["systems"]:
        got = summary.systems[s["system"]]
        assert got.z == pytest.approx(s["z"])
        assert got.score == pytest.approx(s["score"]) and got.items == s["items"] and dict(got.spans) == s["spans"]
    assert summary.to_dict()["annotators"] == 2
    lines = [json.loads(x) for x in jsonl.splitlines()]
    assert len(lines) == 42 and {x["type"] for x in lines} == {"TGT"}
    assert csv_text.splitlines()[0].startswith("rater,item,system,document,line,type,score,spans")
    assert len(csv_text.splitlines()) == 43


def test_an_appraise_export_imports_into_a_fresh_campaign_with_the_same_results(world):
    cid = esa_campaign(world, redundancy=2, strategy="redundancy")
    score, spans = _score_by_system(world)
    answer_everything(world, cid, score, spans=spans)
    with world.ctx():
        from enface.protocols.esa import exports
        from enface.protocols.esa.imports import import_scores
        from enface.protocols.esa.results import compute_results
        from enface.services import ServiceError

        camp = _campaign(world, cid)
        text = exports.export_appraise(camp)
        before = compute_results(camp)
    fresh = esa_campaign(world, redundancy=2, strategy="redundancy")
    with world.ctx():
        counts = import_scores(_campaign(world, fresh), text, path="wmt.csv")
        assert counts["answers"] == 42 and counts["assignments"] == 12
        after = compute_results(_campaign(world, fresh))
        assert [(s["system"], s["score"], s["items"], s["spans"]) for s in after["systems"]] == \
            [(s["system"], s["score"], s["items"], s["spans"]) for s in before["systems"]]
        # a second import is refused with its line, nothing written
        with pytest.raises(ServiceError) as err:
            import_scores(_campaign(world, fresh), text, path="wmt.csv")
        assert err.value.message.startswith("wmt.csv:1:") and "answered already" in err.value.message
    third = esa_campaign(world, redundancy=2, strategy="redundancy")
    bad_line = text.splitlines()[:3] + [text.splitlines()[3].replace(",TGT,", ",XYZ,")]
    with world.ctx():
        with pytest.raises(ServiceError) as err:
            import_scores(_campaign(world, third), "\n".join(bad_line) + "\n", path="x.csv")
        assert err.value.message.startswith("x.csv:4:")
        assert not compute_results(_campaign(world, third))["systems"]


def test_a_single_document_campaign_takes_donor_text_from_the_test_sets_other_documents(world):
    cid = esa_campaign(world, attention=1.0, ranges="orchard", annotators=("ann1@example.org",))
    with world.ctx():
        from enface.campaigns.models import Assignment
        from enface.extensions import db
        from sqlalchemy import select

        from tests.support.campaigns import OUTPUTS

        bad = [a for a in db.session.scalars(select(Assignment).where(Assignment.campaign_id == cid))
               if (a.plan or {}).get("bad")]
        assert len(bad) == 3          # each of the three systems' items of ann1
        river = {w for line in OUTPUTS["river.1"] for w in line.replace("der", "die").split() + line.split()}
        for b in bad:
            for d in b.plan["bad"]["segments"]:
                assert d["inserted"].split() and set(d["inserted"].split()) <= river


def test_a_bad_copy_looks_like_any_item_to_its_annotator(world):
    cid = esa_campaign(world, attention=1.0, annotators=("ann1@example.org",))
    c = world.client("ann1@example.org")
    states = {}
    with world.ctx():
        from enface.campaigns.models import Assignment
        from enface.extensions import db
        from sqlalchemy import select

        kinds = {a.public_id: bool((a.plan or {}).get("bad"))
                 for a in db.session.scalars(select(Assignment).where(Assignment.campaign_id == cid))}
    for public_id in kinds:
        states[public_id] = c.get(f"/annotate/api/items/{public_id}").get_json()
    bad = next(s for p, s in states.items() if kinds[p])
    plain = next(s for p, s in states.items() if not kinds[p])
    assert set(bad) == set(plain) and set(bad["item"]) == set(plain["item"])
    page = c.get(f"/annotate/item/{bad['item']['id']}").get_data(as_text=True)
    assert "bad" not in page.lower().replace("badge", "") and "inserted" not in page


def test_rebalance_never_splits_a_bad_copy_from_its_original(world):
    from enface.campaigns import services as svc
    from enface.extensions import db
    from enface.models import User

    cid = esa_campaign(world, attention=1.0, strategy="redundancy", annotators=("ann1@example.org",))
    with world.ctx():
        camp = svc.get_campaign(cid)
        svc.add_annotator(camp, db.session.get(User, world.users["ann2@example.org"]))
        moved = svc.rebalance(svc.get_campaign(cid))
        from enface.campaigns.models import Assignment
        from sqlalchemy import select

        asgs = list(db.session.scalars(select(Assignment).where(Assignment.campaign_id == cid)))
        for a in asgs:
            if (a.plan or {}).get("bad"):
                assert db.session.get(Assignment, a.plan["bad"]["of"]).annotator_id == a.annotator_id
        assert moved["moved"] == 0      # every item of ann1 has its copy: nothing may move
