"""Attention checks built by the platform, WMT's way: BAD copies of items the annotator also rates.

At the start, ``attention_share`` of each annotator's items (at least one when the share is above 0)
get a BAD copy: a new item over the same document range and version, assigned to the same
annotator only, in which every segment has a phrase replaced by unrelated text from *another*
document of the campaign (or, with one document only, of the test set; :func:`humaneval.esa.badcheck.bad_document`, same length rule as WMT's
bad references). The copies are mixed among the annotator's items (their item numbers are shuffled
again). Nothing the annotator receives says which item is a copy; the damage is kept in the BAD
assignment's ``plan["bad"]`` (never sent to the page). The results pair each BAD segment with the
same annotator's score of the original (:mod:`humaneval.esa.attention`).
"""

from __future__ import annotations

import random
import secrets
from collections import defaultdict
from typing import Any

from sqlalchemy import func, select

from humaneval.esa.badcheck import bad_document

from ...campaigns.models import Assignment, Campaign, Item, ItemVersion
from ...campaigns.sampling import pick_attention_items
from ...extensions import db
from .settings import settings_of
from .texts import version_texts

#: target languages written without spaces: the damage counts characters
CHARACTER_BASED = ("zh", "ja", "th", "lo", "km", "my")
#: other documents of the test set read for donor text when the campaign has a single document
MORE_DOCUMENTS = 20


def character_based(lang: str | None) -> bool:
    return (lang or "").lower().replace("_", "-").split("-")[0] in CHARACTER_BASED


def _donors(campaign: Campaign, items: list[Item]) -> dict[str, list[str]]:
    """{document name: translated segments} to take unrelated text from: the campaign's items (any version), and
    when they cover one document only, up to :data:`MORE_DOCUMENTS` other documents of the test set."""
    out: dict[str, list[str]] = defaultdict(list)
    for item in items:
        out[item.document.name] += version_texts(item.version, item.document_id, item.seg_start, item.seg_end) or []
    if len(out) < 2:
        others = [d for d in campaign.testset.documents if d.name not in out][:MORE_DOCUMENTS]
        for doc in others:
            for version in campaign.versions:
                texts = version_texts(version, doc.id, 0, doc.num_segments)
                if texts:
                    out[doc.name] = texts
                    break
    return dict(out)


def add_attention_checks(campaign: Campaign, assignments: list[Assignment]) -> dict[str, Any]:
    share = float(settings_of(campaign)["attention_share"])
    if share <= 0 or not assignments:
        return {"attention_checks": 0}
    items = list(db.session.scalars(select(Item).where(Item.campaign_id == campaign.id).order_by(Item.position)))
    by_doc = _donors(campaign, items)
    per_annotator: dict[int, list[Assignment]] = defaultdict(list)
    for asg in assignments:
        per_annotator[asg.annotator_id].append(asg)
    position = (db.session.scalar(select(func.max(Item.position)).where(Item.campaign_id == campaign.id)) or 0) + 1
    rng = random.Random(campaign.seed + 5)
    made, skipped = 0, 0
    for annotator_id in sorted(per_annotator):
        own = sorted(per_annotator[annotator_id], key=lambda a: a.id)
        chosen = pick_attention_items([a.id for a in own], share, campaign.seed + 4 + annotator_id)
        new: list[Assignment] = []
        for asg in (a for a in own if a.id in chosen):
            item = asg.item
            segs = version_texts(item.version, item.document_id, item.seg_start, item.seg_end) or []
            try:
                damage = bad_document(segs, item.document.name, by_doc, f"{campaign.seed}/{asg.id}",
                                      character_based=character_based(campaign.testset.tgt_lang))
            except ValueError:
                skipped += 1       # one document only, or nothing to damage: no check for this item
                continue
            copy = Item(campaign_id=campaign.id, document_id=item.document_id, seg_start=item.seg_start,
                        seg_end=item.seg_end, position=position, source_words=item.source_words)
            copy.versions = [ItemVersion(slot=1, version_id=item.versions[0].version_id)]
            position += 1
            db.session.add(copy)
            db.session.flush()
            plan = {"bad": {"of": asg.id, "segments": [
                {"text": d.text, "start": d.start, "end": d.end, "inserted": d.inserted, "replaced": d.replaced}
                for d in damage]}}
            check = Assignment(campaign_id=campaign.id, item_id=copy.id, annotator_id=annotator_id,
                               number=-(len(own) + len(new) + 1), public_id=secrets.token_urlsafe(12), plan=plan)
            asg.plan = {**(asg.plan or {}), "checked_by_copy": True}
            db.session.add(check)
            new.append(check)
            made += 1
        if new:
            db.session.flush()
            _mix(own + new, rng)
    out: dict[str, Any] = {"attention_checks": made}
    if skipped:
        out["attention_checks_skipped"] = skipped
    return out


def _mix(assignments: list[Assignment], rng: random.Random) -> None:
    """Shuffles one annotator's item numbers again (two passes: (annotator, number) is unique at each flush)."""
    order = list(assignments)
    rng.shuffle(order)
    top = max(abs(a.number) for a in order) + len(order) + 1
    for k, a in enumerate(order):
        a.number = top + k
    db.session.flush()
    for k, a in enumerate(order, 1):
        a.number = k
    db.session.flush()
