"""A BWS campaign's design: its passages (source paragraphs) and, per passage, balanced tuples of versions.

The campaign's document ranges are cut into passages of ``passage_segments`` consecutive segments;
each passage gets ``tuples_per_passage`` tuples of ``tuple_size`` versions from
:func:`humaneval.bws.item_designs` (every version equally often, pairs as evenly as the numbers
allow, the campaign as a whole balanced too), seeded by the campaign's seed: the design the
dashboard shows before the start is the one the start builds. An item is one tuple of one passage.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from humaneval.bws import Design, design_counts, item_designs

from ...campaigns.models import Campaign
from ...campaigns.services import bad, parsed_ranges, testset_docs, version_labels
from .selection import select_passages
from .settings import tuple_size, tuples_per_passage


@dataclass(frozen=True)
class Passage:
    """Segments ``start`` .. ``end - 1`` (0-based) of a document: one source paragraph."""

    document_id: int
    document: str
    start: int
    end: int

    @property
    def label(self) -> str:
        return f"{self.document}:{self.start + 1}-{self.end}" if self.end - self.start > 1 \
            else f"{self.document}:{self.start + 1}"


def passages(campaign: Campaign) -> list[Passage]:
    size = int(campaign.setting("passage_segments", 1))
    ids = {d.name: d.id for d in campaign.testset.documents}
    out = []
    for r in parsed_ranges(campaign, testset_docs(campaign.testset)):
        for start in range(r.start - 1, r.end, size):
            out.append(Passage(ids[r.doc], r.doc, start, min(start + size, r.end)))
    return out


@dataclass(frozen=True)
class CampaignDesign:
    """The passages and their tuples (campaign version ids as text), and the whole campaign's counts."""

    passages: list[Passage]
    tuples: dict[str, tuple[tuple[str, ...], ...]]   # passage label -> tuples of campaign version ids
    size: int
    per_passage: int
    overall: Design                                   # appearances and co-occurrences over every passage


def campaign_design(campaign: Campaign) -> CampaignDesign:
    # the design is drawn over the versions' positions, not their database ids: the same campaign settings and
    # seed give the same tuples in any database (the demo's judgments file relies on it)
    versions = [str(v.id) for v in campaign.versions]
    positions = [str(i) for i in range(len(versions))]
    if len(versions) < 2:
        raise bad("too_few_versions", "best-worst scaling needs at least two versions (systems or references)", 409)
    found = select_passages(campaign, passages(campaign))
    if not found:
        raise bad("no_passages", "the campaign has no passage to evaluate", 409)
    size, per = tuple_size(campaign), tuples_per_passage(campaign)
    designs = item_designs([p.label for p in found], positions, per, size, seed=campaign.seed)
    tuples = {label: tuple(tuple(versions[int(k)] for k in t) for t in d.tuples) for label, d in designs.items()}
    overall = design_counts(versions, size, [t for ts in tuples.values() for t in ts])
    return CampaignDesign(found, tuples, size, per, overall)


def stored_design(campaign: Campaign) -> Design:
    """The design of the items a started campaign holds (what was really built)."""
    tuples = [[str(iv.version_id) for iv in item.versions] for item in campaign.items]
    return design_counts([str(v.id) for v in campaign.versions], len(tuples[0]) if tuples else 0, tuples)


def design_table(campaign: Campaign, design: Design) -> dict:
    """The design as the dashboard shows it: per version its appearances, per pair its co-occurrences."""
    labels = {str(k): v for k, v in version_labels(campaign).items()}
    names = [labels.get(v, v) for v in design.versions]
    pairs = {(a, b): n for (a, b), n in design.cooccurrence.items()}
    matrix = [[None if a == b else pairs.get((min(a, b), max(a, b)), 0) for b in design.versions]
              for a in design.versions]
    return {"versions": names, "appearances": [design.appearances[v] for v in design.versions],
            "matrix": matrix, "tuples": len(design.tuples),
            "appearance_range": design.appearance_range, "cooccurrence_range": design.cooccurrence_range,
            "shown_per_tuple": Counter(len(t) for t in design.tuples).most_common(1)[0][0] if design.tuples else 0}
