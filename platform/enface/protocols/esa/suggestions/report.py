"""What the organizer sees of ESA^AI: the suggester's progress, and what became of its suggestions.

:func:`progress` is the run's state and counts (the judges' shape). :func:`ai_results` reads
the annotators' answer records: the provenance each span recorded as the annotator worked
(kept, edited, deleted, human-added: the record is preferred to a reconstruction, as
:mod:`humaneval.esa.provenance` advises), the suggestions' character-level precision and recall
against the final spans (:func:`humaneval.esa.provenance.suggestion_quality`), and the time per
segment (the core's reading clock) with and without suggestions shown.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy import func, select

from humaneval.esa.appraise import ErrorSpan
from humaneval.esa.provenance import LABELS, suggestion_quality

from ....campaigns.models import Assignment, Campaign
from ....extensions import db
from ....judges.reports import MAX_REASONS, outcome
from ....judges.running import is_alive
from .models import Suggester, Suggestion
from .page import item_suggestions
from .targets import campaign_targets

#: the record's provenance names -> humaneval.esa.provenance's labels
_LABEL = {"kept": "kept", "edited": "edited", "deleted": "deleted", "human": "human"}


def progress(suggester: Suggester) -> dict[str, Any]:
    """Counts by state, tokens, cost, calls and whether a run is alive (for the dashboard)."""
    rows = db.session.execute(
        select(Suggestion.state, func.count(), func.sum(Suggestion.prompt_tokens),
               func.sum(Suggestion.completion_tokens), func.sum(Suggestion.cost), func.sum(Suggestion.calls),
               func.sum(Suggestion.retried_calls))
        .where(Suggestion.suggester_id == suggester.id).group_by(Suggestion.state)).all()
    by = {r[0]: r for r in rows}
    total = len(campaign_targets(suggester.campaign))
    done = by["ok"][1] if "ok" in by else 0
    failed = by["failed"][1] if "failed" in by else 0
    reasons = db.session.execute(
        select(Suggestion.error, func.count()).where(Suggestion.suggester_id == suggester.id,
                                                     Suggestion.state == "failed")
        .group_by(Suggestion.error).order_by(func.count().desc(), Suggestion.error).limit(MAX_REASONS)).all()
    return {"suggester": suggester.id, "source": suggester.source, "state": suggester.state,
            "alive": is_alive(suggester), "message": suggester.message,
            "outcome": outcome(suggester.state, done, failed),
            "reasons": [{"reason": e or "no reason was recorded", "count": n} for e, n in reasons],
            "total": total, "done": done, "failed": failed, "running": by["running"][1] if "running" in by else 0,
            "prompt_tokens": int(sum(r[2] or 0 for r in rows)), "completion_tokens": int(sum(r[3] or 0 for r in rows)),
            "cost": float(sum(r[4] or 0 for r in rows)), "calls": int(sum(r[5] or 0 for r in rows)),
            "retried_calls": int(sum(r[6] or 0 for r in rows)),
            "percent": round(100 * (done + failed) / total) if total else 0}


def suggestion_rows(suggester: Suggester, limit: int = 500) -> list[Suggestion]:
    return list(db.session.scalars(select(Suggestion).where(Suggestion.suggester_id == suggester.id)
                                   .order_by(Suggestion.document_id, Suggestion.version_id, Suggestion.position)
                                   .limit(limit)))


@dataclass(frozen=True)
class SegmentTimes:
    segments: int
    mean_seconds: float | None
    median_seconds: float | None


@dataclass(frozen=True)
class AiResults:
    """ESA^AI's figures for one campaign."""

    spans: dict[str, int]              # count per provenance: kept, edited, deleted, human
    shares: dict[str, float]           # the same as shares of all spans
    precision: float | None            # of the suggestions against the final spans (characters)
    recall: float | None
    with_suggestions: SegmentTimes     # segments shown at least one suggestion
    without_suggestions: SegmentTimes  # segments shown none
    segments: int                      # answered segments counted

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _error_span(start: Any, end: Any, severity: str) -> ErrorSpan:
    return ErrorSpan(None, None, severity) if start in (None, "missing") else ErrorSpan(int(start), int(end), severity)


def _times(seconds: list[float]) -> SegmentTimes:
    if not seconds:
        return SegmentTimes(0, None, None)
    return SegmentTimes(len(seconds), round(statistics.fmean(seconds), 3), round(statistics.median(seconds), 3))


def ai_results(campaign: Campaign, *, finished_only: bool = True, exclude: set[int] | None = None) -> AiResults:
    """The figures from every (finished) assignment's answers; ``exclude``: annotator ids left out
    (failed attention checks, machine raters)."""
    from ..responses import live_answers  # (the ESA protocol's record)

    query = select(Assignment).where(Assignment.campaign_id == campaign.id)
    if finished_only:
        query = query.where(Assignment.state == "finished")
    counts: Counter[str] = Counter()
    pairs: list[tuple[list[ErrorSpan], list[ErrorSpan]]] = []
    shown: list[float] = []
    plain: list[float] = []
    for asg in db.session.scalars(query.order_by(Assignment.id)):
        if exclude and asg.annotator_id in exclude or (asg.plan or {}).get("bad"):
            continue
        offered = item_suggestions(asg.item)
        for seg, answer in live_answers(asg).items():
            counts.update(_LABEL[s.provenance] for s in answer.spans)
            suggested = [_error_span(r["start"], r["end"], r["severity"]) for r in offered.get(seg, [])]
            final = [ErrorSpan(s.start, s.end, s.severity) for s in answer.errors]
            pairs.append((suggested, final))
            ms = (asg.times or {}).get(str(seg))
            if ms is None and answer.started_ms is not None and answer.ended_ms is not None:
                ms = answer.ended_ms - answer.started_ms
            if ms is not None:
                (shown if suggested else plain).append(ms / 1000)
    total = sum(counts.values())
    quality = suggestion_quality(pairs)
    return AiResults({k: counts[k] for k in LABELS}, {k: (counts[k] / total if total else 0.0) for k in LABELS},
                     quality["precision"], quality["recall"], _times(shown), _times(plain), len(pairs))


@dataclass(frozen=True)
class AiPanel:
    """What the ESA dashboard and results show of ESA^AI (None for a plain ESA campaign)."""

    suggester: Suggester
    progress: dict[str, Any]
    budget: Any                    # budget.Budget or None (no filter)
    results: AiResults | None      # None before the start


def ai_panel(campaign: Campaign) -> AiPanel | None:
    from .budget import budget_saved
    from .source import get_suggester
    from .targets import planned_items

    suggester = get_suggester(campaign)
    if suggester is None:
        return None
    return AiPanel(suggester, progress(suggester), budget_saved(campaign, planned_items(campaign)),
                   ai_results(campaign) if campaign.state != "draft" else None)
