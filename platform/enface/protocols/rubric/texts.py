"""What an item shows: its segment's source, reference and context, one system's translation, its phenomena."""

from __future__ import annotations

from sqlalchemy import select

from ...campaigns.models import Item
from ...extensions import db
from ...models import OutputSegment, Phenomenon, Segment


def output_text(submission_id: int, document_id: int, position: int) -> str | None:
    return db.session.scalar(select(OutputSegment.text).where(
        OutputSegment.submission_id == submission_id, OutputSegment.document_id == document_id,
        OutputSegment.position == position))


def segment(document_id: int, position: int) -> Segment | None:
    return db.session.scalar(select(Segment).where(Segment.document_id == document_id, Segment.position == position))


def segment_phenomena(document_id: int, position: int, dimensions: tuple[str, ...]) -> list[Phenomenon]:
    """The phenomena tagged on one segment, in the rubric's dimension order."""
    found = db.session.scalars(select(Phenomenon).where(Phenomenon.document_id == document_id,
                                                        Phenomenon.position == position)).all()
    order = {k: i for i, k in enumerate(dimensions)}
    return sorted((p for p in found if p.dimension in order), key=lambda p: order[p.dimension])


def item_phenomena(item: Item, dimensions: tuple[str, ...]) -> list[Phenomenon]:
    return segment_phenomena(item.document_id, item.seg_start, dimensions)


def context_text(item: Item, phenomena: list[Phenomenon]) -> str:
    """The phenomena's own context, or else the document's previous segment (as DITING prompts systems)."""
    own = list(dict.fromkeys(p.context for p in phenomena if p.context))
    if own:
        return "\n".join(own)
    if item.seg_start == 0:
        return ""
    previous = segment(item.document_id, item.seg_start - 1)
    return previous.source if previous is not None else ""
