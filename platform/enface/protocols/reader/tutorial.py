"""The reader study's training items (the crowd kit's tutorials, :mod:`enface.crowd.tutorial`): the reader reads a
passage and answers the questions asked after a single reading (:data:`.questions.SINGLE`, LAIT's Table 16);
the expected answer names, for one or more of those questions, the answer or answers that count as right.

An expected answer in the organizer's tutorial file (question ids; a scale's values are 1-5, the origin guess's
``human`` or ``machine``)::

    {"origin": "machine"}
    {"acceptability": [1, 2], "smoothness": [1, 2, 3]}      # any of the listed answers is right

The reader answers each question as in the study; an answer is right when every expected question is answered
with one of its listed answers (the other questions are not graded). Free-text questions are not asked here.
"""

from __future__ import annotations

from typing import Any

from ...campaigns.models import Campaign
from ...campaigns.services import bad
from .questions import SINGLE, TEXT

ASKED = tuple(q for q in SINGLE if q.type != TEXT)
BY_ID = {q.id: q for q in ASKED}


def _option(value: str | int, label: str) -> str:
    """What the page shows and posts for an option (the value alone would say nothing: "1")."""
    return f"{value}: {label}" if isinstance(value, int) else label


def _value_of(question, posted: str) -> str | int | None:
    return next((v for v, lab in question.options if _option(v, lab) == posted), None)


def fields(campaign: Campaign) -> list[dict[str, Any]]:
    return [{"name": q.id, "type": "choice", "label": f"Q{q.number}. {q.text}",
             "options": [_option(v, lab) for v, lab in q.options]} for q in ASKED]


def check_expected(campaign: Campaign, expected: Any, translation: str) -> dict[str, Any]:
    form = ('a reader-study expected answer maps questions to their right answers, e.g. {"origin": "machine"} '
            f'or {{"acceptability": [1, 2]}}; the questions: {", ".join(BY_ID)}')
    if not isinstance(expected, dict) or not expected:
        raise bad("invalid_tutorial", form, field="tutorial")
    out: dict[str, list[str | int]] = {}
    for qid, right in expected.items():
        question = BY_ID.get(qid)
        if question is None:
            raise bad("invalid_tutorial", f"unknown question {str(qid)[:40]!r}: {form}", field="tutorial")
        values = right if isinstance(right, list) else [right]
        if not values or any(isinstance(v, bool) or v not in question.values for v in values):
            raise bad("invalid_tutorial", f"{qid}: the right answers are among "
                      f"{', '.join(map(str, question.values))}", field="tutorial")
        out[qid] = sorted(set(values), key=question.values.index)
    return out


def grade(campaign: Campaign, expected: dict[str, Any], answer: dict[str, Any]) -> bool:
    missing = [f"Q{BY_ID[qid].number}" for qid in expected if answer.get(qid) is None]
    if missing:
        raise bad("invalid_answer", f"answer {', '.join(missing)}", field=next(iter(expected)))
    return all(_value_of(BY_ID[qid], answer[qid]) in right for qid, right in expected.items())
