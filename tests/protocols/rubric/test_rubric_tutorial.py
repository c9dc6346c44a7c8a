"""The rubric's tutorial hook (issue 19): training items whose expected answer is one phenomenon's scores."""

from __future__ import annotations

import json

import pytest
from rubric_helpers import new_rubric

from tests.support.campaigns import annotator_assignments

ITEM = {"id": "r1", "mode": "loud", "source": "他们终于撕破了脸。", "translation": "They finally tore their faces.",
        "expected": {"dimension": "idiom", "sp": 0, "g_1": 0, "g_2": 0},
        "explanation": "The idiom (an open quarrel) is translated word for word: Specific 0."}


def _tutorial(world, cid, items):
    from enface.campaigns import services as svc
    from enface.crowd.setup import save_setup

    with world.ctx():
        save_setup(svc.get_campaign(cid), tutorial_text=json.dumps({"required": True, "items": items}))


def test_rubric_tutorial_grades_scores_and_gates_the_items(world):
    cid = new_rubric(world)
    _tutorial(world, cid, [ITEM])
    c = world.client("ann1@example.org")
    with world.ctx():
        first = annotator_assignments(world, cid, "ann1@example.org")[0].public_id
    assert c.get(f"/annotate/item/{first}").headers["Location"].endswith(f"/crowd/c/{cid}/tutorial")
    page = c.get(f"/crowd/c/{cid}/tutorial")
    assert page.status_code == 200 and "Specific criterion (sp)" in page.get_data(as_text=True)
    assert c.post(f"/crowd/c/{cid}/tutorial", data={"item": "r1", "sp": "0", "g_1": "0"}).status_code == 400
    wrong = c.post(f"/crowd/c/{cid}/tutorial", data={"item": "r1", "sp": "2", "g_1": "2", "g_2": "2"})
    assert wrong.status_code == 200 and "word for word" in wrong.get_data(as_text=True)
    right = c.post(f"/crowd/c/{cid}/tutorial", data={"item": "r1", "sp": "0", "g_1": "0", "g_2": "0"})
    assert right.status_code == 302
    assert "/annotate/item/" in c.get(f"/crowd/c/{cid}/tutorial").headers["Location"]


@pytest.mark.parametrize(("expected", "needle"), [
    ({"dimension": "weather", "sp": 1, "g_1": 1, "g_2": 1}, "a rubric expected answer"),
    ({"dimension": "idiom", "sp": 1, "g_1": True, "g_2": 1}, "scores of the rubric"),
    ({"dimension": "idiom", "sp": 7, "g_1": 1, "g_2": 1}, "tutorial: item 1"),
    ({"dimension": "idiom", "sp": 0, "g_1": 0, "g_2": 1}, "must be 0 too"),
])
def test_rubric_tutorial_files_are_checked(world, expected, needle):
    from enface.campaigns import services as svc
    from enface.crowd.setup import save_setup
    from enface.services import ServiceError

    cid = new_rubric(world)
    with world.ctx(), pytest.raises(ServiceError) as err:
        save_setup(svc.get_campaign(cid), tutorial_text=json.dumps({"items": [{**ITEM, "expected": expected}]}))
    assert needle in err.value.message and err.value.status == 400
