"""A cESA campaign's answers as ESA rows: each column's answer is an ESA answer on its version, so
:mod:`enface.protocols.esa.results` (and :mod:`humaneval.esa` under it) reads them as it reads ESA's."""

from __future__ import annotations

from ...campaigns.models import Campaign
from ...campaigns.services import version_labels
from ..esa.rows import AnswerRow, campaign_assignments
from .answers import column_order, live_answers


def answer_rows(campaign: Campaign, *, finished_only: bool = True, scored_only: bool = True) -> list[AnswerRow]:
    labels = version_labels(campaign)
    out = []
    for asg in campaign_assignments(campaign, finished_only=finished_only):
        order = column_order(asg)
        created = {r.key: r.created_at for r in asg.responses if not r.deleted}
        for (seg, col), answer in live_answers(asg).items():
            if (scored_only and answer.score is None) or col >= len(order):
                continue
            when = created.get(f"{seg}:{col}")
            out.append(AnswerRow(asg, answer, labels.get(order[col], "?"), asg.item.document.name,
                                 asg.item.seg_start + seg, False, when.timestamp() if when else 0.0, 0.0))
    return out
