"""A cESA campaign's results: ESA's (:mod:`enface.protocols.esa.results`) over the columns (:mod:`enface.protocols.cesa.column_rows`)."""

from __future__ import annotations

from typing import Any

from ...campaigns.models import Assignment, Campaign
from ..esa import results as esa_results
from ..esa.rows import campaign_assignments
from .answers import live_answers, low_without_spans
from .column_rows import answer_rows


def compute_results(campaign: Campaign) -> dict[str, Any]:
    return esa_results.compute_results(campaign, answer_rows)


def results_for(campaign: Campaign, organizer: bool = False) -> dict[str, Any]:
    return esa_results.results_for(campaign, organizer, answer_rows)


def release_snapshot(campaign: Campaign) -> dict[str, Any]:
    return esa_results.release_snapshot(campaign, answer_rows)


def progress(campaign: Campaign, assignments: list[Assignment] | None = None) -> dict[str, Any]:
    """Per assignment: rater, range, state, translations scored (of segments x versions), spans, and the
    scores below the warning line given with no span."""
    assignments = assignments if assignments is not None else campaign_assignments(campaign, finished_only=False)
    rows, counts = [], {"pending": 0, "started": 0, "finished": 0}
    for asg in sorted(assignments, key=lambda a: (a.annotator.position, a.number)):
        counts[asg.state] += 1
        answers = live_answers(asg)
        item = asg.item
        rows.append({"assignment": asg, "rater": asg.annotator.rater, "user": asg.annotator.user,
                     "number": asg.number, "state": asg.state,
                     "label": f"{item.document.name}:{item.seg_start + 1}-{item.seg_end}",
                     "translations": item.num_segments * len(item.versions),
                     "scored": sum(a.score is not None for a in answers.values()),
                     "spans": sum(len(a.errors) for a in answers.values()),
                     "low_no_span": sum(low_without_spans(a) for a in answers.values()),
                     "time_ms": asg.time_ms, "last_active_at": asg.last_active_at})
    return {"rows": rows, "counts": counts, "total": len(assignments)}
