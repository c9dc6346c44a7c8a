"""MQM's training items: the expected answer is one error span in the translation with its severity, or none.

An expected answer in the organizer's tutorial file::

    {"span": [start, end], "severity": "Major"}     # code points into the translation, end exclusive
    {"span": null}                                   # the translation has no error

An answer is right when its span overlaps the expected one and its severity is the same (or both
say there is no error): the rule the attention checks use for a found error.
"""

from __future__ import annotations

from typing import Any

from ...campaigns.models import Campaign
from ...campaigns.services import bad
from . import attention
from .services.scheme import get_scheme, scheme_name


def severities(campaign: Campaign) -> list[str]:
    return [s.name for s in get_scheme(scheme_name(campaign)).severities if s.weight > 0]


def fields(campaign: Campaign) -> list[dict[str, Any]]:
    return [{"name": "span", "type": "span", "label": "Select the error in the translation (or tick “no error”)"},
            {"name": "severity", "type": "choice", "label": "Severity", "options": severities(campaign),
             "optional_with_none": "span"}]


def check_expected(campaign: Campaign, expected: Any, translation: str) -> dict[str, Any]:
    if not isinstance(expected, dict) or "span" not in expected:
        raise bad("invalid_tutorial", 'an MQM expected answer is {"span": [start, end], "severity": ...} '
                  'or {"span": null}', field="tutorial")
    span = expected["span"]
    if span is None:
        return {"span": None}
    if (not isinstance(span, list) or len(span) != 2 or any(isinstance(x, bool) or not isinstance(x, int) for x in span)
            or not 0 <= span[0] < span[1] <= len(translation)):
        raise bad("invalid_tutorial", f"span must be [start, end] inside the translation (0 to {len(translation)})",
                  field="tutorial")
    names = severities(campaign)
    if expected.get("severity") not in names:
        raise bad("invalid_tutorial", f"severity must be one of {', '.join(names)}", field="tutorial")
    return {"span": span, "severity": expected["severity"]}


def grade(campaign: Campaign, expected: dict[str, Any], answer: dict[str, Any]) -> bool:
    span = answer.get("span")
    if expected.get("span") is None:
        return span is None
    if span is None:
        return False
    if answer.get("severity") not in severities(campaign):
        raise bad("invalid_answer", "choose the severity of the error you selected", field="severity")
    return attention.overlaps(tuple(span), tuple(expected["span"])) and answer["severity"] == expected["severity"]
