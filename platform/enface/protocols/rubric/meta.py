"""A released rubric campaign for the meta-evaluation page: the human raters' scores as a human source,
each LLM judge's scores as one more "metric" beside BLEU, chrF and COMET (DITING's MetricAlign)."""

from __future__ import annotations

from collections import defaultdict
from statistics import fmean
from typing import Any

from sqlalchemy import select

from humaneval.rubric import rubric_results
from scoring.meta import HumanSource, MetricScores
from scoring.meta.human import rubric_sources

from ...campaigns.models import Campaign
from ...campaigns.services import version_labels
from ...extensions import db
from ...models import TestSet
from .results import response_rows
from .settings import campaign_rubric


def _submission_keys(campaign: Campaign) -> dict[str, str]:
    """{version label: submission id as a string} (a reference keeps its label)."""
    labels = version_labels(campaign)
    return {labels[v.id]: (str(v.submission_id) if v.submission_id is not None else labels[v.id])
            for v in campaign.systems}


def meta_sources(campaign: Campaign) -> list[HumanSource]:
    """The people's scores only: a judge is compared with them, never pooled into them."""
    rows = [r for r in response_rows(campaign) if not r["machine"]]
    if not rows:
        return []
    obj = rubric_results(rows, campaign_rubric(campaign))
    keys = _submission_keys(campaign)
    return [source.renamed(keys, key=f"{source.key}:{campaign.id}", label=f"{source.label} · {campaign.name}")
            for source in rubric_sources(obj)]


def judge_metrics(ts: TestSet) -> dict[str, MetricScores]:
    """Every LLM judge of a released rubric campaign on ``ts``: its average Σ per system (the rubric's
    overall score) and its Σ per scored segment (averaged over the segment's phenomena)."""
    campaigns = db.session.scalars(select(Campaign).where(Campaign.testset_id == ts.id,
                                                          Campaign.protocol == "rubric",
                                                          Campaign.state == "released")).all()
    out: dict[str, MetricScores] = {}
    for campaign in campaigns:
        keys = _submission_keys(campaign)
        by_rater: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for row in response_rows(campaign):
            if row["machine"]:
                by_rater[row["rater"]].append(row)
        rubric = campaign_rubric(campaign)
        for rater, rows in sorted(by_rater.items()):
            res = rubric_results(rows, rubric)
            scores = {keys[s["system"]]: float(s["overall"]) for s in res["systems"]
                      if s.get("overall") is not None and s["system"] in keys}
            segments: dict[str, dict[tuple[str, int], list[float]]] = defaultdict(lambda: defaultdict(list))
            for item in res["items"]:
                if item["system"] in keys and item.get("sigma") is not None:
                    segments[keys[item["system"]]][(item["document"], item["segment"] - 1)].append(item["sigma"])
            metric = f"judge:{campaign.id}:{rater}"
            out[metric] = MetricScores(metric, scores, True, f"LLM judge {rater} (rubric Σ, {campaign.name})",
                                       {s: {k: fmean(v) for k, v in segs.items()} for s, segs in segments.items()})
    return out
