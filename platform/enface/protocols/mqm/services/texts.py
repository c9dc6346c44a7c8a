"""The segments an MQM item shows: sources, the system's output (or a human reference, evaluated blind like
a system), the attention check's corrupted target."""

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


def reference_texts(reference: int, doc_id: int, start: int, end: int) -> list[str]:
    """Segments ``start`` .. ``end - 1`` of human reference 1 or 2 of a document, or [] when one is missing."""
    column = Segment.ref1 if reference == 1 else Segment.ref2
    rows = db.session.execute(select(Segment.position, column)
                              .where(Segment.document_id == doc_id, Segment.position >= start,
                                     Segment.position < end).order_by(Segment.position)).all()
    if [p for p, _t in rows] != list(range(start, end)) or any(t is None for _p, t in rows):
        return []
    return [t for _p, t in rows]


def version_texts(version: CampaignVersion, doc_id: int, start: int, end: int) -> list[str]:
    """What a campaign version (a system's output, or a human reference) says in segments ``start`` .. ``end - 1``."""
    if version.reference is not None:
        return reference_texts(version.reference, doc_id, start, end)
    return output_texts(version.submission_id, doc_id, start, end)


def item_outputs(campaign_id: int) -> dict[tuple[int, int], dict[int, str]]:
    """{(submission id, document id): {position: text}}: the output segments of every item, in one query.
    Human references (items of a reference version) are keyed by ``(-reference, document id)``."""
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
    refs = db.session.execute(
        select(CampaignVersion.reference, Segment.document_id, Segment.position, Segment.ref1, Segment.ref2)
        .join(ItemVersion, ItemVersion.version_id == CampaignVersion.id)
        .join(Item, Item.id == ItemVersion.item_id)
        .join(Segment, (Segment.document_id == Item.document_id) & (Segment.position >= Item.seg_start)
              & (Segment.position < Item.seg_end))
        .where(Item.campaign_id == campaign_id, CampaignVersion.reference.is_not(None)))
    for ref, doc_id, pos, ref1, ref2 in refs:
        text = ref1 if ref == 1 else ref2
        if text is not None:
            out[(-ref, doc_id)][pos] = text
    return out


def output_key(item: Item) -> tuple[int, int]:
    """The key of :func:`item_outputs` that holds ``item``'s texts."""
    version = item.versions[0].version
    if version.reference is not None:
        return (-version.reference, item.document_id)
    return (version.submission_id, item.document_id)


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
    tgt = version_texts(item.version, item.document_id, item.seg_start, item.seg_end)
    out = []
    for k, ((pos, source), target) in enumerate(zip(src, tgt)):
        if check is not None and check.seg == k:
            target = check.text
        out.append({"i": k, "label": pos + 1, "source": source, "target": target})
    return out
