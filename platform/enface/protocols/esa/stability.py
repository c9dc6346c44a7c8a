"""An ESA campaign's segment scores for the dashboard's ranking stability (:mod:`enface.campaigns.stability`):
every scored segment of a finished assignment (BAD copies, and the annotators the results leave out for failing
the attention checks, left out), in the order the assignments were finished, a version's score the mean of its
segment scores (ESA's system score)."""

from __future__ import annotations

from humaneval.esa.attention import attention_checks, failing
from humaneval.selection import mean_scores

from ...campaigns.contract import RankingJudgments
from ...campaigns.models import Campaign
from .rows import answer_rows, score_row
from .settings import settings_of


def ranking_judgments(campaign: Campaign, rows_of=answer_rows) -> RankingJudgments:
    """``rows_of(campaign)``: the answers as :class:`~enface.protocols.esa.rows.AnswerRow` (cESA's: its columns)."""
    answers = rows_of(campaign)
    s = settings_of(campaign)
    left_out: set[str] = set()
    if s["exclude_failing"] and any(r.is_bad for r in answers):
        checks = attention_checks([x for r in answers if (x := score_row(r, campaign)).counts], test=s["attention_test"],
                                  alpha=s["attention_alpha"])
        left_out = set(failing(checks))
    rows = [r for r in answers if not r.is_bad and r.answer.score is not None
            and r.assignment.annotator.rater not in left_out]
    rows.sort(key=lambda r: (r.assignment.finished_at is None, r.assignment.finished_at, r.assignment.id, r.line))
    return RankingJudgments([(r.system, float(r.answer.score)) for r in rows], mean_scores, "segment scores")
