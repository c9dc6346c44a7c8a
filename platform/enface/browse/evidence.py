"""The evidence of released human evaluations on a test set, and Marot-style slicing of it.

Each protocol says what its released campaigns found (:meth:`Protocol.evidence`: MQM's error
spans, the reader study's highlights, ...); a released campaign no longer changes, so its
evidence is kept per process, keyed by the campaign and its release time.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from sqlalchemy import select

from ..campaigns.models import Campaign
from ..campaigns.protocol import protocol_of
from ..extensions import db
from .lru import app_cache

FILTERS = ("campaign", "system", "doc", "rater", "category", "severity")


def released_campaigns(testset_id: int) -> list[Campaign]:
    return list(db.session.scalars(select(Campaign).where(Campaign.testset_id == testset_id,
                                                          Campaign.state == "released")
                                   .order_by(Campaign.released_at, Campaign.id)))


def campaign_evidence(campaign: Campaign) -> list[dict]:
    """All the evidence of one released campaign (every document), with its protocol and name added."""
    cache = app_cache("evidence", 32)
    key = (campaign.id, campaign.released_at.isoformat() if campaign.released_at else "")
    hit = cache.get(key)
    if hit is not None:
        return hit
    found = [{**e.as_dict(), "protocol": campaign.protocol, "campaign": campaign.name}
             for e in protocol_of(campaign).evidence(campaign)]
    cache.put(key, found)
    return found


def testset_evidence(testset_id: int) -> list[dict]:
    out: list[dict] = []
    for c in released_campaigns(testset_id):
        out.extend(campaign_evidence(c))
    return out


@dataclass
class SpanFilter:
    """The query parameters of the span list (empty: no filter), so that a filtered view is a link."""

    campaign: str = ""
    system: str = ""       # a submission id, or "ref1"/"ref2"
    doc: str = ""
    rater: str = ""
    category: str = ""     # a top-level category ("Accuracy") or one with its subcategory ("Accuracy/Addition")
    severity: str = ""

    @classmethod
    def from_args(cls, args) -> SpanFilter:
        return cls(**{k: (args.get(k) or "").strip()[:200] for k in FILTERS})

    def as_args(self, **change) -> dict[str, str]:
        values = {k: getattr(self, k) for k in FILTERS}
        values.update(change)
        return {k: v for k, v in values.items() if v}

    def matches(self, e: dict) -> bool:
        if self.campaign and str(e["campaign_id"]) != self.campaign:
            return False
        if self.system and version_key(e) != self.system:
            return False
        if self.doc and e["document"] != self.doc:
            return False
        if self.rater and e["rater"] != self.rater:
            return False
        if self.category:
            full = f"{e['category']}/{e['subcategory']}" if e.get("subcategory") else e["category"]
            if self.category not in (e["category"], full):
                return False
        return not self.severity or e["severity"] == self.severity


def version_key(e: dict) -> str:
    """How the filters and links name a version: the submission id, or ref1/ref2."""
    return str(e["submission_id"]) if e.get("submission_id") is not None else f"ref{e.get('reference')}"


def facets(evidence: list[dict]) -> dict[str, Counter]:
    """Counts per value of every filter, of the evidence given (Marot's slices)."""
    out: dict[str, Counter] = {k: Counter() for k in FILTERS}
    for e in evidence:
        out["campaign"][str(e["campaign_id"])] += 1
        out["system"][version_key(e)] += 1
        out["doc"][e["document"]] += 1
        out["rater"][e["rater"]] += 1
        out["category"][e["category"]] += 1
        if e.get("subcategory"):
            out["category"][f"{e['category']}/{e['subcategory']}"] += 1
        if e["severity"]:
            out["severity"][e["severity"]] += 1
    return out
