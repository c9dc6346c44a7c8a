"""What a campaign version says: a system's output segments or a human reference's, for any protocol."""

from __future__ import annotations

from sqlalchemy import select

from ..extensions import db
from ..models import OutputSegment, Segment
from .models import CampaignVersion


def version_texts(v: CampaignVersion, document_id: int, start: int, end: int) -> list[str] | None:
    """Segments ``start`` .. ``end - 1`` of one version of a document, or None when one is missing
    (an empty line of reference 2, a null alignment, counts as present)."""
    if v.reference is not None:
        col = Segment.ref1 if v.reference == 1 else Segment.ref2
        rows = db.session.execute(select(Segment.position, col).where(
            Segment.document_id == document_id, Segment.position >= start, Segment.position < end)
            .order_by(Segment.position)).all()
        if [p for p, _t in rows] != list(range(start, end)) or any(t is None for _p, t in rows):
            return None
        return [t for _p, t in rows]
    rows = db.session.execute(select(OutputSegment.position, OutputSegment.text).where(
        OutputSegment.submission_id == v.submission_id, OutputSegment.document_id == document_id,
        OutputSegment.position >= start, OutputSegment.position < end).order_by(OutputSegment.position)).all()
    if [p for p, _t in rows] != list(range(start, end)):
        return None
    return [t for _p, t in rows]
