"""An ESA campaign's segment scores for the dashboard's ranking stability (:mod:`enface.campaigns.stability`):
every scored segment of a finished assignment (BAD copies left out), in the order the assignments were
finished, a version's score the mean of its segment scores (ESA's system score)."""

from __future__ import annotations

from humaneval.selection import mean_scores

from ...campaigns.contract import RankingJudgments
from ...campaigns.models import Campaign
from .rows import answer_rows


def ranking_judgments(campaign: Campaign, rows_of=answer_rows) -> RankingJudgments:
    """``rows_of(campaign)``: the answers as :class:`~enface.protocols.esa.rows.AnswerRow` (cESA's: its columns)."""
    rows = [r for r in rows_of(campaign) if not r.is_bad and r.answer.score is not None]
    rows.sort(key=lambda r: (r.assignment.finished_at is None, r.assignment.finished_at, r.assignment.id, r.line))
    return RankingJudgments([(r.system, float(r.answer.score)) for r in rows], mean_scores, "segment scores")
