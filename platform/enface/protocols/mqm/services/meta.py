"""A released MQM campaign's human scores for the meta-evaluation page (system and segment level)."""

from __future__ import annotations

import mqm
from mqm.scores import segment_scores
from scoring.meta import HumanSource

from ....campaigns.models import Campaign
from .results import build_data, load_rows
from .scheme import get_scheme, scheme_name, word_counter


def meta_sources(campaign: Campaign) -> list[HumanSource]:
    """System scores from the release snapshot; segment scores (averaged over raters) from the annotations."""
    res = campaign.results or {}
    systems = {str(row["submission_id"]): float(row["score"]) for row in res.get("systems", {}).values()
               if row.get("submission_id") is not None and row.get("score") is not None}
    scheme = get_scheme(scheme_name(campaign))
    source = HumanSource(key=f"mqm:{campaign.id}", label=f"MQM · {campaign.name} ({scheme.name})", kind="mqm",
                         higher_is_better=res.get("higher_is_better", scheme.higher_is_better), systems=systems)
    rows = load_rows(campaign)
    data = build_data(campaign, rows=rows)
    if data.errors or data.no_errors:
        sub_of = {label: sid for sid, label in rows.labels.items()}
        for (system, doc, doc_seg_id, _seg_id), value in segment_scores(
                mqm.prepare(data, scheme, word_counter(campaign))).items():
            sid = sub_of.get(system)
            if sid is not None:
                source.items.setdefault(str(sid), {})[(doc, int(doc_seg_id) - 1)] = value
        source.item_unit = "segment" if source.items else None
    return [source]
