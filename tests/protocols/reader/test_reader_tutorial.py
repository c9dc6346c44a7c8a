"""The reader study's tutorial hook: expected answers to the single-reading questions, checked and graded, and a
reader arriving through an account-free link who must pass the loud item before the study opens."""

from __future__ import annotations

import io
import json

import pytest
from reader_helpers import new_study

PASSAGE = "The lantern swung in the wind, and the inn's shutters rattled all night."
TUTORIAL = {"required": True, "intro": "A short passage first.",
            "items": [{"id": "t1", "mode": "loud", "source": "Die Laterne schwang im Wind.", "translation": PASSAGE,
                       "expected": {"origin": "human", "acceptability": [4, 5]},
                       "explanation": "This passage was translated by a person, and it reads as a published text."},
                      {"id": "t2", "mode": "silent", "source": "Es regnete.", "translation": "It rained.",
                       "expected": {"smoothness": 5}, "explanation": ""}]}
RIGHT_T1 = {"item": "t1", "origin": "human-translated", "acceptability": "4: mostly acceptable"}


@pytest.fixture
def study(world):
    return new_study(world, readers=(), start=False, readers_per_document=1, documents_per_reader=2)


def _campaign(world, study_id):
    from enface.campaigns import services as svc

    return svc.get_campaign(study_id)


@pytest.mark.parametrize("expected, needle", [
    (None, "maps questions"), ({}, "maps questions"), ([1], "maps questions"),
    ({"positive": "nice"}, "unknown question"), ({"nonsense": 1}, "unknown question"),
    ({"origin": "robot"}, "among human, machine"), ({"acceptability": 6}, "among 1, 2, 3, 4, 5"),
    ({"acceptability": []}, "among"), ({"acceptability": [True]}, "among"), ({"acceptability": "4"}, "among"),
])
def test_bad_expected_answers_are_refused_with_the_reason(world, study, expected, needle):
    from enface.protocols.reader.tutorial import check_expected
    from enface.services import ServiceError

    with world.ctx(), pytest.raises(ServiceError) as exc:
        check_expected(_campaign(world, study), expected, PASSAGE)
    assert exc.value.status == 400 and needle in exc.value.message


@pytest.mark.parametrize("answer, right", [
    ({"origin": "human-translated", "acceptability": "5: fully acceptable"}, True),
    ({"origin": "human-translated", "acceptability": "3: acceptable with some issues"}, False),
    ({"origin": "machine-translated", "acceptability": "4: mostly acceptable", "smoothness": "1: very unsmooth"},
     False),
])
def test_grading(world, study, answer, right):
    from enface.protocols.reader.tutorial import check_expected, grade

    with world.ctx():
        camp = _campaign(world, study)
        assert grade(camp, check_expected(camp, {"origin": "human", "acceptability": [5, 4]}, PASSAGE), answer) is right


def test_a_link_reader_passes_the_loud_item_before_the_study_opens(world, study):
    org = world.client("org@example.org")
    resp = org.post(f"/campaigns/{study}/crowd/setup", content_type="multipart/form-data", data={
        "tutorial_file": (io.BytesIO(json.dumps(TUTORIAL).encode()), "tutorial.json"), "pass_code": "READPASS"})
    assert resp.status_code == 302, resp.get_data(as_text=True)[:1500]
    page = org.post(f"/campaigns/{study}/crowd/links", data={"count": "1"}).get_data(as_text=True)
    url = page.split('id="new-links-text">', 1)[1].split("</textarea>", 1)[0].strip().splitlines()[1]
    reader = world.app.test_client()
    assert reader.post(url.split(",", 1)[1].replace("http://localhost", "")).status_code == 302
    from enface.campaigns import services as svc

    with world.ctx():
        svc.start_campaign(svc.get_campaign(study))
    shown = reader.get(f"/crowd/c/{study}/tutorial").get_data(as_text=True)
    assert "Q7. Do you think this version was" in shown and "4: mostly acceptable" in shown
    assert "This passage was translated by a person" not in shown       # the explanation waits for an answer
    # unanswered expected question, forged option: refused, nothing counted
    for form in ({"item": "t1", "origin": "human-translated"}, {"item": "t1", **RIGHT_T1, "origin": "alien"}):
        assert reader.post(f"/crowd/c/{study}/tutorial", data=form).status_code == 400
    wrong = reader.post(f"/crowd/c/{study}/tutorial", data={**RIGHT_T1, "origin": "machine-translated"})
    assert wrong.status_code == 200 and "This passage was translated by a person" in wrong.get_data(as_text=True)
    assert reader.get(f"/crowd/c/{study}").headers["Location"].endswith(f"/crowd/c/{study}/tutorial")
    assert reader.post(f"/crowd/c/{study}/tutorial", data=RIGHT_T1).status_code == 302
    assert reader.post(f"/crowd/c/{study}/tutorial", data={"item": "t2", "smoothness": "3: neutral"}).status_code == 302
    nxt = reader.get(f"/crowd/c/{study}").headers["Location"]
    assert "/tutorial" not in nxt and "/welcome" not in nxt
    from enface.crowd.setup import setup_of
    from enface.crowd.tutorial import summary

    with world.ctx():
        camp = svc.get_campaign(study)
        record = summary(setup_of(study).tutorial, camp.annotators[0].id)
    assert record["first_right"] == 0 and record["items"] == 2
