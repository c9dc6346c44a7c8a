"""The two versions of a reader study and their texts: whole excerpts and chunks."""

from __future__ import annotations

from ...campaigns.models import Campaign, CampaignVersion, Item
from ...campaigns.services import bad
from ...campaigns.texts import version_texts
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
