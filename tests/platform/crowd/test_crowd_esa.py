"""The crowd hooks of the ESA protocol: training items (a span with its severity and/or a score range) and the
BAD attention checks' verdict behind the completion codes, through the services and the crowd flow."""

from __future__ import annotations

import io
import json

import pytest

from tests.protocols.esa.esa_helpers import esa_campaign, put_answer
from tests.support.campaigns import read_all
from tests.support.crowd import arrive_by_links, link_items

TRANSLATION = "Der Hund bellte die ganze Nacht."
TUTORIAL = {"required": True, "intro": "Practice first.",
            "items": [{"id": "t1", "mode": "loud", "source": "The cat meowed all night.", "translation": TRANSLATION,
                       "expected": {"span": [4, 8], "severity": "major", "score": [0, 60]},
                       "explanation": "“Hund” (dog) is not “cat”: a major error, and a score of 60 at most."},
                      {"id": "t2", "mode": "silent", "source": "It rained.", "translation": "Es regnete.",
                       "expected": {"score": [80, 100]}, "explanation": ""}]}
RIGHT = [{"item": "t1", "span": "4:8", "severity": "major", "score": "30"},
         {"item": "t2", "span_none": "1", "score": "95"}]
WRONG = [{"item": "t1", "span": "9:15", "severity": "major", "score": "30"},    # wrong span: explained, retried
         {"item": "t1", "span": "4:8", "severity": "major", "score": "30"},
         {"item": "t2", "span_none": "1", "score": "40"}]


def _esa(world):
    """The campaign (inside ``world.ctx()``)."""
    from enface.campaigns import services as svc

    return svc.get_campaign(world.esa_id)


@pytest.fixture
def campaign(world):
    """A draft ESA campaign with a BAD copy of every item, no annotators yet: links join it."""
    world.esa_id = esa_campaign(world, attention=1.0, start=False, annotators=())
    return world.esa_id


# --------------------------------------------------------------------------- the hooks through the services


@pytest.mark.parametrize("expected, needle", [
    (None, "an ESA expected answer"), ({}, "an ESA expected answer"), ({"severity": "major"}, "ESA expected"),
    ({"span": [4, 8]}, "severity must be"), ({"span": [4, 8], "severity": "Major"}, "severity must be"),
    ({"span": [8, 4], "severity": "major"}, "inside the translation"),
    ({"span": [0, 999], "severity": "major"}, "inside the translation"),
    ({"span": [True, 3], "severity": "major"}, "inside the translation"),
    ({"span": None, "severity": "minor"}, "goes with a span"),
    ({"score": 50}, "range [lo, hi]"), ({"score": [70, 20]}, "range [lo, hi]"), ({"score": [0, 101]}, "[lo, hi]"),
    ({"score": ["a", 3]}, "range [lo, hi]"), ({"score": [0, 50], "why": 1}, "an ESA expected answer"),
])
def test_bad_expected_answers_are_refused_with_the_reason(world, campaign, expected, needle):
    from enface.protocols.esa.tutorial import check_expected
    from enface.services import ServiceError

    with world.ctx(), pytest.raises(ServiceError) as exc:
        check_expected(_esa(world), expected, TRANSLATION)
    assert exc.value.status == 400 and needle in exc.value.message


@pytest.mark.parametrize("expected, answer, right", [
    ({"span": [4, 8], "severity": "major"}, {"span": [5, 12], "severity": "major", "score": 20.0}, True),
    ({"span": [4, 8], "severity": "major"}, {"span": [5, 12], "severity": "minor", "score": 20.0}, False),
    ({"span": [4, 8], "severity": "major"}, {"span": [8, 12], "severity": "major", "score": 20.0}, False),
    ({"span": [4, 8], "severity": "major"}, {"span": None, "severity": None, "score": 20.0}, False),
    ({"span": None}, {"span": None, "severity": None, "score": 99.0}, True),
    ({"span": None}, {"span": [0, 3], "severity": "minor", "score": 99.0}, False),
    ({"score": [40, 60]}, {"span": [0, 3], "severity": "minor", "score": 60.0}, True),
    ({"score": [40, 60]}, {"span": None, "severity": None, "score": 61.0}, False),
    ({"span": [4, 8], "severity": "major", "score": [0, 60]}, {"span": [4, 8], "severity": "major", "score": 70.0},
     False),
])
def test_grading(world, campaign, expected, answer, right):
    from enface.protocols.esa.tutorial import check_expected, grade

    with world.ctx():
        esa = _esa(world)
        assert grade(esa, check_expected(esa, expected, TRANSLATION), answer) is right


def test_the_tutorial_file_is_accepted_for_esa(world, campaign):
    from enface.crowd.tutorial import load_tutorial

    with world.ctx():
        loaded = load_tutorial(_esa(world), json.dumps(TUTORIAL))
    assert [i["expected"] for i in loaded["items"]] == [{"span": [4, 8], "severity": "major", "score": [0, 60]},
                                                       {"score": [80, 100]}]


# --------------------------------------------------------------------------- through the crowd flow


def _setup(world, campaign_id: int) -> None:
    org = world.client("org@example.org")
    resp = org.post(f"/campaigns/{campaign_id}/crowd/setup", content_type="multipart/form-data", data={
        "tutorial_file": (io.BytesIO(json.dumps(TUTORIAL).encode()), "tutorial.json"),
        "pass_code": "ESAPASS", "fail_code": "ESAFAIL", "threshold": "0.75"})
    assert resp.status_code == 302, resp.get_data(as_text=True)[:1500]


def _work(world, c, campaign_id: int, careful: bool) -> None:
    """Scores every item; a careful annotator scores the BAD copies (damaged text) low, a careless one does not."""
    from enface.campaigns.models import Assignment
    from enface.extensions import db
    from sqlalchemy import select

    for public_id in link_items(world, c, campaign_id):
        with world.ctx():
            is_bad = bool((db.session.scalar(select(Assignment).where(Assignment.public_id == public_id)).plan
                           or {}).get("bad"))
        state = c.get(f"/annotate/api/items/{public_id}").get_json()
        assert read_all(c, public_id, len(state["segments"])).status_code == 200
        for seg in state["segments"]:
            score = (10 + seg["i"]) if is_bad and careful else (80 + seg["i"])
            r, _ = put_answer(c, public_id, seg["i"], {"score": score, "spans": []})
            assert r.status_code == 200, r.get_json()
        assert c.post(f"/annotate/api/items/{public_id}/finish", json={}).status_code == 200


def test_esa_tutorial_and_attention_checks_decide_the_completion_code(world, campaign):
    _setup(world, campaign)
    careful, careless = arrive_by_links(world, campaign, 2)
    from enface.campaigns import services as svc

    with world.ctx():
        svc.start_campaign(svc.get_campaign(campaign))
    # the tutorial is required: the items wait for it
    first = link_items(world, careful, campaign)[0]
    assert careful.get(f"/annotate/item/{first}").status_code == 302
    for form in RIGHT:
        assert careful.post(f"/crowd/c/{campaign}/tutorial", data=form).status_code == 302
    wrong = careless.post(f"/crowd/c/{campaign}/tutorial", data=WRONG[0])
    assert wrong.status_code == 200 and "major error, and a score of 60 at most" in wrong.get_data(as_text=True)
    for form in WRONG[1:]:
        assert careless.post(f"/crowd/c/{campaign}/tutorial", data=form).status_code == 302
    _work(world, careful, campaign, careful=True)
    _work(world, careless, campaign, careful=False)
    good = careful.get(f"/crowd/c/{campaign}/done").get_data(as_text=True)
    poor = careless.get(f"/crowd/c/{campaign}/done").get_data(as_text=True)
    assert "ESAPASS" in good and "ESAFAIL" not in good
    assert "ESAFAIL" in poor and "ESAPASS" not in poor
    # the verdict comes from the campaign's own attention test: one check per annotator
    from enface.campaigns.protocol import protocol_of
    from enface.protocols.esa.results import compute_results

    with world.ctx():
        esa = _esa(world)
        verdicts = {c["annotator"]: c["passed"] for c in compute_results(esa)["attention"]}
        hooks = {a.rater: protocol_of(esa).attention_results(esa, a.id) for a in esa.annotators}
    assert {r: (int(v), 1) for r, v in verdicts.items()} == hooks
    assert sorted(hooks.values()) == [(0, 1), (1, 1)]
    codes = world.client("org@example.org").get(f"/campaigns/{campaign}/crowd/codes.csv").get_data(as_text=True)
    assert "ESAPASS" in codes and "ESAFAIL" in codes


@pytest.mark.parametrize("form", [
    {"item": "t1", "span": "4:8", "severity": "major"},                    # no score
    {"item": "t1", "span": "4:8", "severity": "major", "score": "abc"},
    {"item": "t1", "span": "4:8", "severity": "major", "score": "101"},
    {"item": "t1", "span": "4:8", "severity": "major", "score": "nan"},
    {"item": "t1", "span": "4:8", "severity": "Major", "score": "30"},
    {"item": "t1", "span": "4:8", "score": "30"},                          # a span without its severity
    {"item": "t1", "span": "0:999", "severity": "major", "score": "30"},
])
def test_forged_esa_tutorial_answers_are_refused_without_counting(world, campaign, form):
    _setup(world, campaign)
    c, = arrive_by_links(world, campaign, 1)
    assert c.post(f"/crowd/c/{campaign}/tutorial", data=form).status_code == 400
    from enface.crowd.models import CrowdAnswer
    from enface.extensions import db
    from sqlalchemy import func, select

    with world.ctx():
        assert db.session.scalar(select(func.count(CrowdAnswer.id))) == 0


def test_no_verdict_without_finished_bad_copies(world, campaign):
    from enface.campaigns.protocol import protocol_of

    arrive_by_links(world, campaign, 1)
    with world.ctx():
        esa = _esa(world)
        annotator = esa.annotators[0]
        assert protocol_of(esa).attention_results(esa, annotator.id) == (0, 0)
        assert protocol_of(esa).attention_results(esa, 10**9) == (0, 0)      # not one of the campaign's
