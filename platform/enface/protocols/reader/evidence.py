"""A released reader study's good/poor highlights, for the output browser (the protocol's ``evidence`` hook).

Highlights are made on chunks (a few segments joined and normalised for display), so they are
placed on a document, not on a line: ``seg`` is None and ``text`` is what the reader highlighted.
"""

from __future__ import annotations

from ...campaigns.contract import Evidence
from ...campaigns.models import Campaign
from .design import chunk_sides
from .exports import reader_label, study_assignments
from .responses import live_highlights
from .texts import campaign_versions


def evidence(campaign: Campaign, *, document_id: int | None = None) -> list[Evidence]:
    versions = campaign_versions(campaign)
    out = []
    for asg in study_assignments(campaign):
        if document_id is not None and asg.item.document_id != document_id:
            continue
        if asg.stage < 2 and asg.state != "finished":   # Part 2 (the chunks) not finished: nothing to show yet
            continue
        rater = reader_label(asg.annotator)
        for r in live_highlights(asg):
            sides = chunk_sides(asg.plan, int(r.key))
            v = versions.get(sides.get(r.data.get("side", ""), ""))
            if v is None:
                continue
            out.append(Evidence(kind="highlight", campaign_id=campaign.id, document=asg.item.document.name,
                                seg=None, submission_id=v.submission_id, reference=v.reference, rater=rater,
                                text=r.data.get("text", ""), category=r.data.get("label", ""),
                                note=f"chunk {int(r.key)}"))
    return out
