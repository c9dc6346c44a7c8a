"""What an annotator's rubric item page receives: blind (no system, team or submission named)."""

from __future__ import annotations

from typing import Any

from flask import url_for
from sqlalchemy import func, select

from ...campaigns.models import Assignment
from ...campaigns.services import next_assignment
from ...extensions import db
from .responses import live_scores
from .settings import campaign_rubric
from .texts import context_text, item_phenomena, output_text, segment


def criterion_json(criterion) -> dict[str, Any]:
    return {"key": criterion.key, "kind": criterion.kind, "name": criterion.name,
            "description": criterion.description, "note": criterion.note,
            "levels": [{"score": lv.score, "text": lv.text, "short": lv.short} for lv in criterion.levels],
            "refusal": ({"justified": criterion.refusal.justified, "unjustified": criterion.refusal.unjustified}
                        if criterion.refusal else None)}


def item_state(asg: Assignment, *, readonly: bool) -> dict[str, Any]:
    item = asg.item
    campaign = item.campaign
    rubric = campaign_rubric(campaign)
    finished = asg.state == "finished"
    readonly = readonly or campaign.state != "open" or finished
    seg = segment(item.document_id, item.seg_start)
    version = item.version
    translation = output_text(version.submission_id, item.document_id, item.seg_start) \
        if version.submission_id is not None else None
    if translation is None and version.reference is not None and seg is not None:
        translation = seg.ref1 if version.reference == 1 else seg.ref2
    phenomena = item_phenomena(item, rubric.keys)
    found = live_scores(asg)
    total = db.session.scalar(select(func.count()).select_from(Assignment)
                              .where(Assignment.annotator_id == asg.annotator_id)) or 0
    nxt = next_assignment(asg)
    return {
        "protocol": "rubric",
        "item": {"id": asg.public_id, "number": asg.number, "total": total, "finished": finished,
                 "document": item.document.name, "segment": item.seg_start + 1},
        "readonly": readonly,
        "src_lang": campaign.testset.src_lang, "tgt_lang": campaign.testset.tgt_lang,
        "source": seg.source if seg is not None else "",
        "context": context_text(item, phenomena),
        "translation": translation or "",
        "reference": (seg.ref1 or "") if seg is not None and campaign.setting("show_reference", True) else None,
        "scale": list(rubric.scale),
        "guidelines": list(rubric.guidelines),
        "instructions": "\n\n".join(t for t in (campaign.setting("guidelines", ""), campaign.instructions) if t),
        "phenomena": [{
            "id": str(p.id), "dimension": p.dimension, "dimension_name": rubric.dimension(p.dimension).name,
            "dimension_description": rubric.dimension(p.dimension).description,
            "requirement": p.requirement,
            "criteria": [criterion_json(c) for c in rubric.dimension(p.dimension).criteria],
            "response": ({"uuid": found[str(p.id)].uuid, "rev": found[str(p.id)].rev, "data": found[str(p.id)].data}
                         if str(p.id) in found else None)} for p in phenomena],
        "urls": {"api": url_for("annotate.api_item", public_id=asg.public_id),
                 "responses": url_for("annotate.api_item", public_id=asg.public_id) + "/responses/",
                 "finish": url_for("annotate.api_finish", public_id=asg.public_id),
                 "list": url_for("annotate.index"),
                 "next": url_for("annotate.item", public_id=nxt.public_id) if nxt else None,
                 "js": url_for("rubric.static", filename="rubric.js"),
                 "css": url_for("rubric.static", filename="rubric.css")},
    }
