"""Which passages a BWS campaign with a budget evaluates: all of them, a uniform sample, or those that
subset2evaluate (:mod:`humaneval.selection`) finds most worth annotating from an automatic metric's segment
scores of the campaign's systems (a passage's score: the mean of its segments'), e.g. where the metric's
scores vary most across systems (``metric_var``) or whose system order agrees best with the metric's
overall order (``metric_cons``). The passages keep their test-set order; the seed makes the choice
reproducible, so the dashboard's design before the start is the one the start builds.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from statistics import fmean

from humaneval.selection import METHODS, select_items

from ...campaigns.models import Campaign
from ...campaigns.services import bad, version_labels

SELECTIONS = ("uniform", *(m for m in METHODS if m != "random"))
DEFAULT_SELECTION = "uniform"
DEFAULT_METRIC = "chrf"


def _segment_scores(campaign: Campaign, metric: str) -> dict[int, dict[tuple[str, int], float]]:
    """{submission id: {(document, 0-based position): score}}, higher is better, for the campaign's systems."""
    # the stored score rows, read as the meta-evaluation reads them
    from ...metaeval.service import stored_metrics

    subs = [v.submission for v in campaign.systems]
    found = stored_metrics(campaign.testset, subs, {str(s.id): str(s.id) for s in subs}).get(metric)
    if found is None or not found.segments:
        raise bad("no_segment_scores", f"the metric {metric!r} has no segment scores for this campaign's systems: "
                  "choose another metric or a uniform sample", 409, field="selection_metric")
    sign = 1.0 if found.higher_is_better else -1.0
    return {s.id: {k: sign * v for k, v in found.segments.get(str(s.id), {}).items()} for s in subs}


def select_passages(campaign: Campaign, passages: Sequence) -> list:
    """The passages to evaluate (all of them without a budget, or when the budget covers them all)."""
    budget = int(campaign.setting("passage_budget", 0) or 0)
    if not budget or budget >= len(passages):
        return list(passages)
    method = campaign.setting("selection", DEFAULT_SELECTION)
    if method == "uniform":
        keep = set(random.Random(f"bws-select:{campaign.seed}").sample(range(len(passages)), budget))
        return [p for k, p in enumerate(passages) if k in keep]
    if len(campaign.systems) < 2:
        raise bad("too_few_systems", "subset2evaluate compares systems: choose two or more, or a uniform sample", 409)
    segments = _segment_scores(campaign, campaign.setting("selection_metric", DEFAULT_METRIC))
    labels = version_labels(campaign)
    scores = {}
    for k, p in enumerate(passages):
        per_system = {}
        for v in campaign.systems:
            values = [segments[v.submission_id].get((p.document, i)) for i in range(p.start, p.end)]
            if any(x is None for x in values):
                raise bad("no_segment_scores", f"{labels[v.id]} has no {campaign.setting('selection_metric')} score "
                          f"for {p.label}: choose a uniform sample", 409, field="selection_metric")
            per_system[labels[v.id]] = fmean(values)
        scores[k] = per_system
    keep = set(select_items(scores, budget, method, seed=campaign.seed))
    return [p for k, p in enumerate(passages) if k in keep]
