"""Scores as the core's responses: kind "score", key the phenomenon's id, checked by the rubric's rules.

A save may be a draft (a criterion not scored yet is null), but never breaks a rule (a General score
above 0 under Specific 0, a refusal scored against the Sensitive Information Handling rule); finishing
an item needs every phenomenon scored completely.
"""

from __future__ import annotations

from typing import Any

from humaneval.rubric import CRITERION_KEYS, RESPONSE_FIELDS, check_scores

from ...campaigns.models import Assignment, Response
from ...campaigns.services import bad
from .settings import campaign_rubric
from .texts import item_phenomena

KIND = "score"
MAX_COMMENT = 2000


def live_scores(asg: Assignment) -> dict[str, Response]:
    """{phenomenon id (text): the latest live score response}."""
    out: dict[str, Response] = {}
    for r in asg.responses:
        if r.deleted or r.kind != KIND:
            continue
        if r.key not in out or (r.updated_at, r.id) > (out[r.key].updated_at, out[r.key].id):
            out[r.key] = r
    return out


def check_response(asg: Assignment, kind: str, key: str, data: Any) -> dict[str, Any]:
    if kind != KIND:
        raise bad("unknown_kind", f"a rubric item takes {KIND!r} answers, not {kind!r}", field="kind")
    rubric = campaign_rubric(asg.item.campaign)
    phenomena = {str(p.id): p for p in item_phenomena(asg.item, rubric.keys)}
    if key not in phenomena:
        raise bad("invalid_field", f"{key!r} is not a phenomenon of this item", field="key")
    if not isinstance(data, dict):
        raise bad("invalid_field", "data must be an object {sp, g_1, g_2, refusal, comment}", field="data")
    comment = data.get("comment") or ""
    if isinstance(comment, str) and len(comment) > MAX_COMMENT:
        raise bad("invalid_field", f"the comment is longer than {MAX_COMMENT} characters", field="comment")
    errors = check_scores(phenomena[key].dimension, data, rubric, partial=True)
    if errors:
        field = next((k for k in RESPONSE_FIELDS if any(e.startswith(k) or f" {k} " in e for e in errors)), "data")
        raise bad("rubric_rule", "; ".join(errors), field=field, errors=errors)
    out = {k: data.get(k) for k in CRITERION_KEYS}
    out["refusal"] = data.get("refusal")
    out["comment"] = comment.strip()
    return out


def missing_scores(asg: Assignment) -> list[str]:
    """What keeps the item from being finished, phenomenon by phenomenon ([] when complete)."""
    rubric = campaign_rubric(asg.item.campaign)
    found = live_scores(asg)
    problems = []
    for p in item_phenomena(asg.item, rubric.keys):
        dim = rubric.dimension(p.dimension)
        r = found.get(str(p.id))
        if r is None:
            problems.append(f"{dim.name}: not scored yet")
            continue
        problems += [f"{dim.name}: {e}" for e in check_scores(p.dimension, r.data, rubric)]
    return problems


def check_finish(asg: Assignment) -> None:
    problems = missing_scores(asg)
    if problems:
        raise bad("incomplete", "score every criterion first: " + "; ".join(problems), 409, problems=problems)
