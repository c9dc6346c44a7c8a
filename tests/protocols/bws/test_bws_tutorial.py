"""BWS training items through the crowd kit's tutorial file: the expected best and worst of a labelled tuple,
checked when the file is loaded, and answers graded."""

from __future__ import annotations

import json

import pytest
from bws_helpers import new_bws

TUPLE = "A: The lantern glowed.\nB: Lantern is glow.\nC: The lamp shone softly.\nD: Glowing the lantern was."


def tutorial(expected, translation=TUPLE):
    return json.dumps({"items": [{"id": "t1", "mode": "loud", "source": "灯笼亮了。", "translation": translation,
                                  "explanation": "C is fluent and faithful; B is broken English.",
                                  "expected": expected}]})


def test_training_items_are_checked_and_graded(world):
    from enface.campaigns import services as svc
    from enface.campaigns.protocol import protocol_of
    from enface.crowd.tutorial import load_tutorial, parse_answer
    from enface.services import ServiceError

    cid = new_bws(world, start=False)
    with world.ctx():
        c = svc.get_campaign(cid)
        p = protocol_of(c)
        assert [f["name"] for f in p.tutorial_fields(c)] == ["best", "worst"]
        assert p.tutorial_fields(c)[0]["options"] == ["A", "B", "C", "D"]
        loaded = load_tutorial(c, tutorial({"best": "C", "worst": "B"}))
        item = loaded["items"][0]
        assert item["expected"] == {"best": "C", "worst": "B"}
        fields = p.tutorial_fields(c)
        right = parse_answer(fields, {"best": "C", "worst": "B"}, item["translation"])
        wrong = parse_answer(fields, {"best": "A", "worst": "B"}, item["translation"])
        assert p.grade_tutorial(c, item["expected"], right) is True
        assert p.grade_tutorial(c, item["expected"], wrong) is False
        for bad_answer in ({"best": "C"}, {"best": "C", "worst": "C"}):
            with pytest.raises(ServiceError) as exc:
                p.grade_tutorial(c, item["expected"], parse_answer(fields, bad_answer, item["translation"]))
            assert exc.value.status == 400
        for expected, translation in (({"best": "C", "worst": "C"}, TUPLE), ({"best": "E", "worst": "A"}, TUPLE),
                                      ({"best": "C"}, TUPLE), ("C", TUPLE),
                                      ({"best": "B", "worst": "A"}, "The lantern glowed."),
                                      ({"best": "B", "worst": "A"}, "B: one\nA: two")):
            with pytest.raises(ServiceError) as exc:
                load_tutorial(c, tutorial(expected, translation))
            assert exc.value.status == 400 and "item 1" in exc.value.message, (expected, translation)
