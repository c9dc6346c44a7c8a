"""The ESA^AI budget filter: items the suggester found flawless are left out at the start.

The ESA^AI paper's saving: a segment where the quality estimator found no error and
scored at least a threshold need not be shown. The ESA page shows whole documents, so the
unit left out is an item: one document range in one version is left out when **every**
segment of it has a suggestion with no span and a score at least the threshold
(:func:`humaneval.esa.suggestions.skippable`). A segment without a suggestion (none asked,
or the LLM failed on it) keeps its item in.

The filter acts once, when the campaign starts (:func:`filter_plans`, called by the ESA
protocol's ``build_items``); afterwards :func:`budget_saved` compares the plan with the items
the start made, so the dashboard can say what was saved.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from humaneval.esa.suggestions import Suggestion as FileSuggestion
from humaneval.esa.suggestions import skippable

from ....campaigns.models import Campaign
from ....campaigns.protocol import ItemPlan
from ....extensions import db
from .models import Suggester, Suggestion
from .source import get_suggester
from .spans import span_from_json


@dataclass(frozen=True)
class Budget:
    """What the filter leaves out (or left out) of a campaign."""

    threshold: float | None
    items: int                 # items planned without the filter
    items_left_out: int
    segments: int
    segments_left_out: int
    words: int                 # source words of the items planned
    words_left_out: int

    @property
    def share_saved(self) -> float:
        """The share of the annotation budget saved, by segments."""
        return self.segments_left_out / self.segments if self.segments else 0.0


def _skippable_segments(suggester: Suggester) -> set[tuple[int, int, int]]:
    """(version, document, position) of every segment the suggester found flawless enough to skip."""
    if suggester.skip_threshold is None:
        return set()
    rows = db.session.execute(select(Suggestion.version_id, Suggestion.document_id, Suggestion.position,
                                     Suggestion.spans, Suggestion.score)
                              .where(Suggestion.suggester_id == suggester.id, Suggestion.state == "ok")).all()
    return {(v, d, p) for v, d, p, spans, score in rows
            if skippable(FileSuggestion("", "", tuple(span_from_json(s) for s in spans or ()), score),
                         suggester.skip_threshold)}


def _left_out(plan: ItemPlan, skip: set[tuple[int, int, int]]) -> bool:
    return bool(skip) and all((v, plan.document_id, p) in skip
                              for v in plan.version_ids for p in range(plan.seg_start, plan.seg_end))


def filter_plans(campaign: Campaign, plans: list[ItemPlan]) -> list[ItemPlan]:
    """``plans`` without the items the budget filter leaves out (all of them when it is off)."""
    suggester = get_suggester(campaign)
    if suggester is None or suggester.skip_threshold is None:
        return plans
    skip = _skippable_segments(suggester)
    kept = [p for p in plans if not _left_out(p, skip)]
    return kept or plans      # never leave a campaign without items: then the filter has nothing to save


def budget_saved(campaign: Campaign, plans: list[ItemPlan]) -> Budget | None:
    """What the filter leaves out of ``plans`` (the protocol's plan before the filter); None when it is off."""
    suggester = get_suggester(campaign)
    if suggester is None or suggester.skip_threshold is None:
        return None
    if campaign.items:           # started: what the start actually left out
        made = {(i.document_id, i.seg_start, i.seg_end, tuple(iv.version_id for iv in i.versions))
                for i in campaign.items}
        out = [p for p in plans if (p.document_id, p.seg_start, p.seg_end, tuple(p.version_ids)) not in made]
    else:
        kept = filter_plans(campaign, plans)
        out = [p for p in plans if p not in kept]
    return Budget(suggester.skip_threshold, len(plans), len(out),
                  sum(p.seg_end - p.seg_start for p in plans), sum(p.seg_end - p.seg_start for p in out),
                  sum(p.source_words for p in plans), sum(p.source_words for p in out))
