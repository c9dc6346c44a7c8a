"""The two versions of a reader study and their texts: whole excerpts and chunks."""

from __future__ import annotations

from sqlalchemy import select

from ...campaigns.models import Campaign, CampaignVersion, Item
from ...campaigns.services import bad
from ...extensions import db
from ...models import OutputSegment, Segment
from .design import VERSIONS
from .display import chunk_text


def campaign_versions(campaign: Campaign) -> dict[str, CampaignVersion]:
    """{"1": the first chosen version, "2": the second} (refused unless there are exactly two)."""
    vs = list(campaign.versions)
    if len(vs) != 2:
        raise bad("two_versions", f"a reader study compares exactly two versions; this campaign has {len(vs)}: "
                  "choose two (by default reference 1 and one system)", 409)
    return {"1": vs[0], "2": vs[1]}


def version_kind(v: CampaignVersion) -> str:
    return "reference" if v.reference is not None else "system"


def version_texts(v: CampaignVersion, document_id: int, start: int, end: int) -> list[str] | None:
    """Segments ``start`` .. ``end - 1`` of one version of a document, or None when one is missing."""
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


def item_texts(item: Item) -> dict[str, list[str]]:
    """{"1": segments of campaign version 1, "2": of version 2} for an item (slots 1 and 2)."""
    out = {}
    for iv in item.versions:
        texts = version_texts(iv.version, item.document_id, item.seg_start, item.seg_end)
        out[str(iv.slot)] = texts or [""] * item.num_segments
    return out


def chunk_texts(plan: dict, texts: dict[str, list[str]]) -> list[dict[str, str]]:
    """Per chunk, the displayed text of each campaign version."""
    return [{k: chunk_text(texts[k][s:e]) for k in VERSIONS} for s, e in plan.get("chunks", [])]
