"""A released MQM campaign's error spans, for the output browser (the protocol's ``evidence`` hook)."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from ....campaigns.contract import Evidence
from ....campaigns.models import Assignment, Campaign, CampaignAnnotator, Item
from ....extensions import db


def evidence(campaign: Campaign, *, document_id: int | None = None) -> list[Evidence]:
    """Every live mark of the finished assignments, placed on its document line.

    The attention check's segment is left out: its target was corrupted on purpose, so
    its marks point into a text the system never wrote.
    """
    query = (select(Assignment).join(Item, Assignment.item_id == Item.id)
             .options(selectinload(Assignment.marks), selectinload(Assignment.attention),
                      selectinload(Assignment.annotator).load_only(CampaignAnnotator.position),
                      selectinload(Assignment.item).selectinload(Item.document),
                      selectinload(Assignment.item).selectinload(Item.versions))
             .where(Assignment.campaign_id == campaign.id, Assignment.state == "finished"))
    if document_id is not None:
        query = query.where(Item.document_id == document_id)
    out = []
    for asg in db.session.scalars(query):
        item = asg.item
        check = asg.attention.seg if asg.attention is not None else None
        for m in asg.marks:
            if m.deleted or m.seg == check:
                continue
            out.append(Evidence(kind="span", campaign_id=campaign.id, document=item.document.name,
                                seg=item.seg_start + m.seg, submission_id=item.submission_id,
                                reference=item.versions[0].version.reference if item.versions else None,
                                rater=asg.annotator.rater, side=m.side, start=m.start_pos, end=m.end_pos,
                                text=m.text, category=m.category, subcategory=m.subcategory,
                                severity=m.severity, note=m.note))
    out.sort(key=lambda e: (e.document, e.seg, e.submission_id or 0, e.rater, e.start))
    return out
