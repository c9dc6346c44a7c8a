"""The segments an MQM item shows: sources, the system's output, the attention check's corrupted target."""

from __future__ import annotations

import threading
from collections import defaultdict

from sqlalchemy import select

from ....campaigns.models import Assignment, CampaignVersion, Item, ItemVersion
from ....extensions import db
from ....models import OutputSegment, Segment


def output_texts(sub_id: int, doc_id: int, start: int, end: int) -> list[str]:
    rows = db.session.execute(select(OutputSegment.position, OutputSegment.text)
                              .where(OutputSegment.submission_id == sub_id, OutputSegment.document_id == doc_id,
                                     OutputSegment.position >= start, OutputSegment.position < end)
                              .order_by(OutputSegment.position)).all()
    return [t for _p, t in rows] if [p for p, _t in rows] == list(range(start, end)) else []


def item_outputs(campaign_id: int) -> dict[tuple[int, int], dict[int, str]]:
    """{(submission id, document id): {position: text}}: the output segments of every item, in one query."""
    rows = db.session.execute(
        select(OutputSegment.submission_id, OutputSegment.document_id, OutputSegment.position, OutputSegment.text)
        .join(CampaignVersion, CampaignVersion.submission_id == OutputSegment.submission_id)
        .join(ItemVersion, ItemVersion.version_id == CampaignVersion.id)
        .join(Item, (Item.id == ItemVersion.item_id) & (Item.document_id == OutputSegment.document_id)
              & (OutputSegment.position >= Item.seg_start) & (OutputSegment.position < Item.seg_end))
        .where(Item.campaign_id == campaign_id))
    out: dict[tuple[int, int], dict[int, str]] = defaultdict(dict)
    for sub_id, doc_id, pos, text in rows:
        out[(sub_id, doc_id)][pos] = text
    return out


def slice_outputs(texts: dict[int, str], start: int, end: int) -> list[str]:
    """Segments ``start`` .. ``end - 1`` of one output, or [] when one is missing (as :func:`_output_texts`)."""
    if any(p not in texts for p in range(start, end)):
        return []
    return [texts[p] for p in range(start, end)]


def segment_texts(asg: Assignment) -> list[dict]:
    """The item's segments as the annotator sees them (the attention check's corrupted target included).

    They never change once the campaign has started, so they are cached per assignment
    (by its public id, which is random and never reused): a save then reads no text.
    """
    key = (asg.public_id, asg.item_id)   # (an attention check is fixed at the start: no need to read it here)
    hit = _TEXTS.get(key)
    if hit is not None:
        return hit
    out = _segment_texts(asg)
    with _TEXTS_LOCK:
        _TEXTS[key] = out
        while len(_TEXTS) > 4096:
            _TEXTS.pop(next(iter(_TEXTS)))
    return out


_TEXTS: dict[tuple, list[dict]] = {}


_TEXTS_LOCK = threading.Lock()


def _segment_texts(asg: Assignment) -> list[dict]:
    item = asg.item
    check = asg.attention
    src = db.session.execute(select(Segment.position, Segment.source)
                             .where(Segment.document_id == item.document_id, Segment.position >= item.seg_start,
                                    Segment.position < item.seg_end).order_by(Segment.position)).all()
    tgt = output_texts(item.submission_id, item.document_id, item.seg_start, item.seg_end)
    out = []
    for k, ((pos, source), target) in enumerate(zip(src, tgt)):
        if check is not None and check.seg == k:
            target = check.text
        out.append({"i": k, "label": pos + 1, "source": source, "target": target})
    return out
