"""The segments an ESA item shows: the sources and one version's translation (a system's output or a human
reference, evaluated blind), or for an attention check (BAD) assignment its damaged copy."""

from __future__ import annotations

import threading
from typing import Any

from sqlalchemy import select

from ...campaigns.models import Assignment, CampaignVersion
from ...extensions import db
from ...models import OutputSegment, Segment


def version_texts(version: CampaignVersion, doc_id: int, start: int, end: int) -> list[str] | None:
    """Segments ``start`` .. ``end - 1`` of a version's translation of a document; None when one is missing."""
    if version.reference is not None:
        column = Segment.ref1 if version.reference == 1 else Segment.ref2
        rows = db.session.execute(select(Segment.position, column).where(
            Segment.document_id == doc_id, Segment.position >= start, Segment.position < end)
            .order_by(Segment.position)).all()
    else:
        rows = db.session.execute(select(OutputSegment.position, OutputSegment.text).where(
            OutputSegment.submission_id == version.submission_id, OutputSegment.document_id == doc_id,
            OutputSegment.position >= start, OutputSegment.position < end).order_by(OutputSegment.position)).all()
    if [p for p, _t in rows] != list(range(start, end)) or any(t is None for _p, t in rows):
        return None
    return [t for _p, t in rows]


def source_texts(doc_id: int, start: int, end: int) -> list[str]:
    return list(db.session.scalars(select(Segment.source).where(
        Segment.document_id == doc_id, Segment.position >= start, Segment.position < end)
        .order_by(Segment.position)))


def bad_plan(asg: Assignment) -> dict[str, Any] | None:
    """The damage of an attention-check assignment (``plan["bad"]``), None for an ordinary one."""
    return (asg.plan or {}).get("bad")


def segment_texts(asg: Assignment) -> list[dict[str, Any]]:
    """[{"i", "label", "source", "target"}] as the annotator sees them; fixed once the campaign started, so
    cached by the assignment's random public id (a save then reads no text)."""
    hit = _CACHE.get(asg.public_id)
    if hit is not None:
        return hit
    item = asg.item
    sources = source_texts(item.document_id, item.seg_start, item.seg_end)
    targets = version_texts(item.version, item.document_id, item.seg_start, item.seg_end) or [""] * len(sources)
    damage = bad_plan(asg)
    if damage is not None:
        targets = [d["text"] for d in damage["segments"]]
    out = [{"i": k, "label": item.seg_start + k + 1, "source": s, "target": t}
           for k, (s, t) in enumerate(zip(sources, targets, strict=False))]
    with _LOCK:
        _CACHE[asg.public_id] = out
        while len(_CACHE) > 4096:
            _CACHE.pop(next(iter(_CACHE)))
    return out


_CACHE: dict[str, list[dict[str, Any]]] = {}
_LOCK = threading.Lock()
