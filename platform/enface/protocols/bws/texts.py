"""What a BWS item shows of its source passage (its versions' texts: :func:`enface.campaigns.texts.version_texts`)."""

from __future__ import annotations

from sqlalchemy import select

from ...extensions import db
from ...models import Segment


def source_texts(document_id: int, start: int, end: int) -> list[str]:
    return list(db.session.scalars(select(Segment.source).where(
        Segment.document_id == document_id, Segment.position >= start, Segment.position < end)
        .order_by(Segment.position)))


def passage(lines: list[str]) -> str:
    """A passage as displayed: its non-empty segments, one line each."""
    return "\n".join(t.strip() for t in lines if t and t.strip())
