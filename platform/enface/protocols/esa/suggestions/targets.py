"""The segments a campaign's suggester speaks of: every segment of every item, in every version it shows.

Before the start the campaign has no items yet, so the protocol's own plan (before the
budget filter: the ESA protocol's ``planned_items``, else :meth:`Protocol.build_items`) says
what they will be; afterwards the items do. A segment is
named as the uploaded file names it: ``item`` is ``<document>:<segment>`` (the segment counted
from 1 in its document) and ``system`` the version's name on the organizer's pages
(:func:`~enface.campaigns.services.version_labels`: the system, or ``reference N``).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from ....campaigns.models import Campaign
from ....campaigns.protocol import protocol_of
from ....campaigns.services import version_labels
from ....extensions import db
from ....models import Document, OutputSegment, Segment


@dataclass(frozen=True)
class Target:
    """One segment of one campaign version, with the texts a suggester needs."""

    version_id: int
    document_id: int
    position: int          # 0-based in the document
    item: str              # "<document>:<1-based segment>", the file's "item"
    system: str            # the version's label, the file's "system"
    source: str
    translation: str
    context: str = ""      # the document's previous source segment

    @property
    def key(self) -> tuple[int, int, int]:
        return (self.version_id, self.document_id, self.position)


def _ranges(campaign: Campaign) -> list[tuple[int, int, int, list[int]]]:
    """(document id, first, end, version ids) of each item, or of each planned item before the start."""
    if campaign.items:
        return [(i.document_id, i.seg_start, i.seg_end, [iv.version_id for iv in i.versions]) for i in campaign.items]
    return [(p.document_id, p.seg_start, p.seg_end, list(p.version_ids)) for p in planned_items(campaign)]


def planned_items(campaign: Campaign):
    """The protocol's plan of items before the budget filter (its ``planned_items``, else ``build_items``)."""
    protocol = protocol_of(campaign)
    return getattr(protocol, "planned_items", protocol.build_items)(campaign)


def campaign_targets(campaign: Campaign) -> list[Target]:
    """Every (version, segment) of the campaign's items, once each, in item order."""
    ranges = _ranges(campaign)
    doc_ids = sorted({r[0] for r in ranges})
    names = dict(db.session.execute(select(Document.id, Document.name).where(Document.id.in_(doc_ids))).all())
    segments = {(s.document_id, s.position): s for s in db.session.scalars(
        select(Segment).where(Segment.document_id.in_(doc_ids)))}
    versions = {v.id: v for v in campaign.versions}
    submissions = [v.submission_id for v in versions.values() if v.submission_id is not None]
    outputs = {(o.submission_id, o.document_id, o.position): o.text for o in db.session.scalars(
        select(OutputSegment).where(OutputSegment.submission_id.in_(submissions or [-1]),
                                    OutputSegment.document_id.in_(doc_ids)))}
    labels = version_labels(campaign)
    out: dict[tuple[int, int, int], Target] = {}
    for doc_id, start, end, version_ids in ranges:
        for vid in version_ids:
            version = versions[vid]
            for pos in range(start, end):
                seg = segments.get((doc_id, pos))
                if seg is None or (vid, doc_id, pos) in out:
                    continue
                if version.reference is not None:
                    text = seg.ref1 if version.reference == 1 else seg.ref2
                else:
                    text = outputs.get((version.submission_id, doc_id, pos))
                previous = segments.get((doc_id, pos - 1))
                out[(vid, doc_id, pos)] = Target(vid, doc_id, pos, f"{names[doc_id]}:{pos + 1}", labels[vid],
                                                 seg.source, text or "", previous.source if previous else "")
    return list(out.values())
