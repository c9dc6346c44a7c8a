"""What an annotator's BWS item page receives: the passage and its translations, blind, in the stored order."""

from __future__ import annotations

from typing import Any

from flask import url_for
from sqlalchemy import func, select

from ...campaigns.models import Assignment
from ...campaigns.services import next_assignment
from ...campaigns.texts import version_texts
from ...extensions import db
from .responses import live_choice
from .texts import passage, source_texts

LETTERS = "ABCDEFGHIJ"


def display_order(asg: Assignment) -> list[int]:
    """The item's slots in the order this annotator sees them (stored at the start; slot order if none)."""
    slots = [iv.slot for iv in asg.item.versions]
    order = [s for s in (asg.plan or {}).get("order", []) if s in slots]
    return order if sorted(order) == sorted(slots) else slots


def item_state(asg: Assignment, *, readonly: bool) -> dict[str, Any]:
    item = asg.item
    campaign = item.campaign
    finished = asg.state == "finished"
    readonly = readonly or campaign.state != "open" or finished
    by_slot = {iv.slot: iv.version for iv in item.versions}
    translations = []
    for i, slot in enumerate(display_order(asg)):
        lines = version_texts(by_slot[slot], item.document_id, item.seg_start, item.seg_end) or []
        translations.append({"slot": slot, "label": LETTERS[i], "text": passage(lines)})
    found = live_choice(asg)
    total = db.session.scalar(select(func.count()).select_from(Assignment)
                              .where(Assignment.annotator_id == asg.annotator_id)) or 0
    nxt = next_assignment(asg)
    api = url_for("annotate.api_item", public_id=asg.public_id)
    return {
        "protocol": "bws",
        "item": {"id": asg.public_id, "number": asg.number, "total": total, "finished": finished,
                 "document": item.document.name, "segments": [item.seg_start + 1, item.seg_end]},
        "readonly": readonly,
        "src_lang": campaign.testset.src_lang, "tgt_lang": campaign.testset.tgt_lang,
        "source": passage(source_texts(item.document_id, item.seg_start, item.seg_end)),
        "translations": translations,
        "response": ({"uuid": found.uuid, "rev": found.rev, "data": found.data} if found is not None else None),
        "instructions": "\n\n".join(t for t in (campaign.setting("guidelines", ""), campaign.instructions) if t),
        "urls": {"api": api, "responses": api + "/responses/",
                 "finish": url_for("annotate.api_finish", public_id=asg.public_id),
                 "list": url_for("annotate.index"),
                 "next": url_for("annotate.item", public_id=nxt.public_id) if nxt else None,
                 "js": url_for("bws.static", filename="bws.js"),
                 "css": url_for("bws.static", filename="bws.css")},
    }
