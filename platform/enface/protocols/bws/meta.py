"""A released BWS campaign for the meta-evaluation page: the counting scores as a human source.

System level: each version's counting score (references keep their label). Segment level, when a
passage is one segment: a version's counting score on that passage, keyed (document, 0-based position),
as the metrics' segment scores are.
"""

from __future__ import annotations

from humaneval.bws import counting_scores, item_scores
from scoring.meta import HumanSource

from ...campaigns.models import Campaign
from ...campaigns.services import version_labels
from .results import judgments


def _segment_key(passage: str) -> tuple[str, int]:
    """("doc", 0-based position) of a one-segment passage label "doc:N" (document names may hold colons)."""
    document, _sep, number = passage.rpartition(":")
    return document, int(number) - 1


def meta_sources(campaign: Campaign) -> list[HumanSource]:
    js = judgments(campaign)
    if not js:
        return []
    labels = version_labels(campaign)
    key_of = {labels[v.id]: (str(v.submission_id) if v.submission_id is not None else labels[v.id])
              for v in campaign.versions}
    systems = {key_of[v]: s for v, s in counting_scores(js).items() if v in key_of}
    items: dict = {}
    if int(campaign.setting("passage_segments", 1)) == 1:
        for version, per_item in item_scores(js).items():
            if version in key_of:
                items[key_of[version]] = {_segment_key(item): score for item, score in per_item.items()}
    return [HumanSource(key=f"bws:{campaign.id}", label=f"BWS · {campaign.name}", kind="bws", higher_is_better=True,
                        systems=systems, items=items, item_unit="segment" if items else None)]
