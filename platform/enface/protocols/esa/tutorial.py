"""ESA's crowd hooks: training items (an error span with its severity and/or a score range) and the attention
checks' verdict for completion codes.

An expected answer in the organizer's tutorial file gives a span, a score range, or both::

    {"span": [start, end], "severity": "major"}          # code points into the translation, end exclusive
    {"span": null}                                        # the translation has no error
    {"score": [lo, hi]}                                   # the 0-100 score must fall in lo..hi (inclusive)
    {"span": [3, 9], "severity": "minor", "score": [50, 90]}

The annotator always marks a span (or ticks "no error") and gives a score, as on ESA's page; an answer is
right when every part that the item expects matches: the span overlaps the expected one with the same
severity (or both say there is no error), and the score lies in the range.
"""

from __future__ import annotations

from typing import Any

from humaneval.esa.attention import attention_checks

from ...campaigns.models import Campaign, CampaignAnnotator
from ...campaigns.services import bad
from ...extensions import db
from .responses import SEVERITIES
from .rows import answer_rows, score_row
from .settings import settings_of

FORMAT = ('an ESA expected answer is {"span": [start, end], "severity": "minor" | "major"} or {"span": null}, '
          'and/or {"score": [lo, hi]} within 0-100')


def fields(campaign: Campaign) -> list[dict[str, Any]]:
    return [{"name": "span", "type": "span", "label": "Select the error in the translation (or tick “no error”)"},
            {"name": "severity", "type": "choice", "label": "Severity", "options": list(SEVERITIES),
             "optional_with_none": "span"},
            {"name": "score", "type": "number", "label": "Score (0-100)", "min": 0, "max": 100}]


def _overlaps(a: list[int], b: list[int]) -> bool:
    """Half-open code-point ranges that share at least one character."""
    return a[0] < b[1] and b[0] < a[1]


def _number(x: Any) -> bool:
    return not isinstance(x, bool) and isinstance(x, (int, float)) and x == x


def check_expected(campaign: Campaign, expected: Any, translation: str) -> dict[str, Any]:
    if not isinstance(expected, dict) or not ({"span", "score"} & expected.keys()) or (
            expected.keys() - {"span", "severity", "score"}):
        raise bad("invalid_tutorial", FORMAT, field="tutorial")
    out: dict[str, Any] = {}
    if "span" in expected:
        span = expected["span"]
        if span is None:
            if "severity" in expected:
                raise bad("invalid_tutorial", "a severity goes with a span, not with \"span\": null", field="tutorial")
            out["span"] = None
        else:
            if (not isinstance(span, list) or len(span) != 2 or any(isinstance(x, bool) or not isinstance(x, int)
                                                                     for x in span)
                    or not 0 <= span[0] < span[1] <= len(translation)):
                raise bad("invalid_tutorial", f"span must be [start, end] inside the translation (0 to "
                          f"{len(translation)})", field="tutorial")
            if expected.get("severity") not in SEVERITIES:
                raise bad("invalid_tutorial", f"severity must be {' or '.join(SEVERITIES)}", field="tutorial")
            out.update(span=span, severity=expected["severity"])
    elif "severity" in expected:
        raise bad("invalid_tutorial", "a severity goes with a span", field="tutorial")
    if "score" in expected:
        score = expected["score"]
        if (not isinstance(score, list) or len(score) != 2 or not all(_number(x) for x in score)
                or not 0 <= score[0] <= score[1] <= 100):
            raise bad("invalid_tutorial", "score must be a range [lo, hi] with 0 <= lo <= hi <= 100",
                      field="tutorial")
        out["score"] = [score[0], score[1]]
    return out


def grade(campaign: Campaign, expected: dict[str, Any], answer: dict[str, Any]) -> bool:
    span, score = answer.get("span"), answer.get("score")
    if span is not None and answer.get("severity") not in SEVERITIES:
        raise bad("invalid_answer", "choose the severity of the error you selected", field="severity")
    if not _number(score):
        raise bad("invalid_answer", "give the translation a score from 0 to 100", field="score")
    right = True
    if "span" in expected:
        if expected["span"] is None:
            right = span is None
        else:
            right = span is not None and _overlaps(span, expected["span"]) \
                and answer["severity"] == expected["severity"]
    if "score" in expected:
        lo, hi = expected["score"]
        right = right and lo <= score <= hi
    return right


def attention_results(campaign: Campaign, annotator_id: int) -> tuple[int, int]:
    """(1, 1) when the annotator passes the campaign's own attention test on their BAD copies (the test and alpha
    of its settings, :func:`humaneval.esa.attention.attention_checks`), (0, 1) when they fail, (0, 0) without
    a verdict (no BAD copy finished and paired with its original)."""
    annotator = db.session.get(CampaignAnnotator, annotator_id)
    if annotator is None or annotator.campaign_id != campaign.id:
        return (0, 0)
    rows = [score_row(r, campaign) for r in answer_rows(campaign) if r.assignment.annotator_id == annotator_id]
    s = settings_of(campaign)
    verdicts = attention_checks(rows, test=s["attention_test"], alpha=s["attention_alpha"])
    passed = next((c.passed for c in verdicts if c.annotator == annotator.rater), None)
    return (0, 0) if passed is None else (int(passed), 1)
