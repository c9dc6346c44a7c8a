"""An ESA campaign's answers as :class:`humaneval.esa.ScoreRow`: what the library's statistics read.

One row per scored segment of a finished assignment (people only):

* ``annotator``: the campaign's rater label (``rater1``, ...); ``system``: the version's label (the
  system's name, or ``reference N``); ``item_type``: ``BAD`` on an attention-check copy, else ``TGT``.
* ``document``: for the statistics, ``<document>:<line>#<system>`` (``#bad`` added on a BAD copy), one
  Appraise "document" per source segment, so that :mod:`humaneval.esa.segments` matches the same
  segment across annotators, systems and BAD copies whatever the document ranges; for the Appraise
  export (``appraise=True``), ``<document>#<system>`` with the item id the 0-based line in the
  document, as Appraise's documents are.
* ``spans``: the spans that count (deleted ESA^AI suggestions left out).
* ``start_time``: when the answer was first saved (epoch seconds); ``end_time``: that plus the
  segment's reading time on the page's clock (``Assignment.times``), so ``end - start`` is the time
  the annotator spent on the segment.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from humaneval.esa import ErrorSpan, ScoreRow

from ...campaigns.models import Assignment, Campaign, Item
from ...campaigns.services import version_labels
from ...extensions import db
from .responses import SegmentAnswer, live_answers
from .texts import bad_plan


@dataclass(frozen=True)
class AnswerRow:
    """A stored answer with where it is (what exports and evidence need beside the ScoreRow)."""

    assignment: Assignment
    answer: SegmentAnswer
    system: str
    document: str
    line: int          # 0-based line in the document
    is_bad: bool
    created_at: float  # epoch seconds of the first save
    seconds: float     # reading time on the segment


def _clean(text: str) -> str:
    return text.replace("#", "%23")


def campaign_assignments(campaign: Campaign, *, finished_only: bool = True) -> list[Assignment]:
    q = (select(Assignment).where(Assignment.campaign_id == campaign.id)
         .options(selectinload(Assignment.responses), selectinload(Assignment.annotator),
                  selectinload(Assignment.item).selectinload(Item.document),
                  selectinload(Assignment.item).selectinload(Item.versions))
         .order_by(Assignment.annotator_id, Assignment.number))
    if finished_only:
        q = q.where(Assignment.state == "finished")
    return list(db.session.scalars(q))


def answer_rows(campaign: Campaign, *, finished_only: bool = True, scored_only: bool = True) -> list[AnswerRow]:
    labels = version_labels(campaign)
    out = []
    for asg in campaign_assignments(campaign, finished_only=finished_only):
        item = asg.item
        system = labels.get(item.versions[0].version_id, "?")
        times = asg.times or {}
        created = {r.key: r.created_at for r in asg.responses if not r.deleted}
        for seg, answer in live_answers(asg).items():
            if scored_only and answer.score is None:
                continue
            when = created.get(str(seg))
            out.append(AnswerRow(asg, answer, system, item.document.name, item.seg_start + seg,
                                 bad_plan(asg) is not None, when.timestamp() if when else 0.0,
                                 float(times.get(str(seg), 0) or 0) / 1000))
    return out


def score_row(row: AnswerRow, campaign: Campaign, *, appraise: bool = False) -> ScoreRow:
    spans = tuple(ErrorSpan(s.start, s.end, s.severity, None, False) for s in row.answer.errors)
    if appraise:
        document, item = f"{_clean(row.document)}#{_clean(row.system)}", str(row.line)
    else:
        document, item = f"{_clean(row.document)}:{row.line + 1}#{_clean(row.system)}", "0"
    if row.is_bad:
        document += "#bad"
    return ScoreRow(annotator=row.assignment.annotator.rater, system=row.system, item=item,
                    item_type="BAD" if row.is_bad else "TGT", source_language=campaign.testset.src_lang,
                    target_language=campaign.testset.tgt_lang, score=float(row.answer.score), document=document,
                    document_flag=False, spans=spans, start_time=row.created_at,
                    end_time=row.created_at + row.seconds)


def score_rows(campaign: Campaign, *, appraise: bool = False) -> list[ScoreRow]:
    return [score_row(r, campaign, appraise=appraise) for r in answer_rows(campaign)]
