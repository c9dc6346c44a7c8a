"""Which passages a BWS campaign with a budget evaluates: all of them, a uniform sample, or those that
subset2evaluate finds most worth annotating from an automatic metric's segment scores of the campaign's
systems, by the core's rule (:func:`enface.campaigns.selection.choose_spans`, which also chooses every
protocol's sampled documents). The passages keep their test-set order; the seed makes the choice
reproducible, so the dashboard's design before the start is the one the start builds.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ...campaigns.models import Campaign
from ...campaigns.selection import DEFAULT_METRIC, SELECTIONS, UNIFORM, Span, choose_spans, stored_segments
from ...campaigns.services import system_labels

__all__ = ["DEFAULT_METRIC", "DEFAULT_SELECTION", "SELECTIONS", "select_passages"]

DEFAULT_SELECTION = UNIFORM


def select_passages(campaign: Campaign, passages: Sequence) -> list:
    """The passages to evaluate (all of them without a budget, or when the budget covers them all)."""
    budget = int(campaign.setting("passage_budget", 0) or 0)
    if not budget or budget >= len(passages):
        return list(passages)
    method = campaign.setting("selection", DEFAULT_SELECTION)
    if method == UNIFORM:
        keep = set(random.Random(f"bws-select:{campaign.seed}").sample(range(len(passages)), budget))
        return [p for k, p in enumerate(passages) if k in keep]
    metric = campaign.setting("selection_metric", DEFAULT_METRIC)
    subs = [v.submission for v in campaign.systems]
    segments = (stored_segments(campaign.testset, subs, system_labels(campaign), metric, field="selection_metric")
                if len(subs) >= 2 else {})
    spans = [Span(p.label, p.document, p.start, p.end) for p in passages]
    chosen = {s.key for s in choose_spans(spans, budget, method, segments, campaign.seed, metric=metric,
                                          field="selection", metric_field="selection_metric")}
    return [p for p in passages if p.label in chosen]
