"""The rubric's training items: the expected answer is one phenomenon's scores (a dimension of the campaign's
rubric and its Specific and two General criteria), following the rubric's rules.

An expected answer in the organizer's tutorial file::

    {"dimension": "idiom", "sp": 2, "g_1": 1, "g_2": 2}

An answer is right when every criterion's score is the expected one.
"""

from __future__ import annotations

from typing import Any

from humaneval.rubric import CRITERION_KEYS, check_scores

from ...campaigns.models import Campaign
from ...campaigns.services import bad
from .settings import campaign_rubric

LABELS = {"sp": "Specific criterion (sp)", "g_1": "General criterion 1 (g_1)", "g_2": "General criterion 2 (g_2)"}


def fields(campaign: Campaign) -> list[dict[str, Any]]:
    scale = [str(x) for x in campaign_rubric(campaign).scale]
    return [{"name": k, "type": "choice", "label": LABELS[k], "options": scale} for k in CRITERION_KEYS]


def check_expected(campaign: Campaign, expected: Any, translation: str) -> dict[str, Any]:
    rubric = campaign_rubric(campaign)
    if not isinstance(expected, dict) or expected.get("dimension") not in rubric.keys:
        raise bad("invalid_tutorial", f'a rubric expected answer is {{"dimension": one of {", ".join(rubric.keys)}, '
                  '"sp": n, "g_1": n, "g_2": n}', field="tutorial")
    scores = {k: expected.get(k) for k in CRITERION_KEYS}
    if any(isinstance(v, bool) or not isinstance(v, int) for v in scores.values()):
        raise bad("invalid_tutorial", f"sp, g_1 and g_2 are scores of the rubric's scale {list(rubric.scale)}",
                  field="tutorial")
    errors = check_scores(expected["dimension"], scores, rubric)
    if errors:
        raise bad("invalid_tutorial", "; ".join(errors), field="tutorial")
    return {"dimension": expected["dimension"], **scores}


def grade(campaign: Campaign, expected: dict[str, Any], answer: dict[str, Any]) -> bool:
    missing = [LABELS[k] for k in CRITERION_KEYS if answer.get(k) is None]
    if missing:
        raise bad("invalid_answer", f"score every criterion ({', '.join(missing)} missing)", field=CRITERION_KEYS[0])
    return all(int(answer[k]) == expected[k] for k in CRITERION_KEYS)
