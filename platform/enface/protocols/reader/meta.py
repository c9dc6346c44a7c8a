"""A released reader study's chunk judgements for the meta-evaluation page."""

from __future__ import annotations

import json

from scoring.meta import HumanSource
from scoring.meta.human import reader_sources

from ...campaigns.models import Campaign
from ...campaigns.services import version_labels
from .exports import export_records
from .texts import campaign_versions


def meta_sources(campaign: Campaign) -> list[HumanSource]:
    """The study as the library reads its export, versions renamed to submission ids ("reference N" stays)."""
    records = [r for r in export_records(campaign) if r["record"] == "chunk" and r.get("preference")]
    if not records:
        return []
    labels = version_labels(campaign)
    key_of = {labels[v.id]: (str(v.submission_id) if v.submission_id is not None else labels[v.id])
              for v in campaign_versions(campaign).values()}
    return [source.renamed(key_of, key=f"reader:{campaign.id}", label=f"reader study · {campaign.name}")
            for source in reader_sources("\n".join(json.dumps(r) for r in records))]
