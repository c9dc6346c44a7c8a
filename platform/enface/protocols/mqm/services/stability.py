"""An MQM campaign's judgments for the dashboard's ranking stability (:mod:`enface.campaigns.stability`): each
segment a rater judged in a finished assignment, in the order the assignments were finished, scored by the
mqm library as the results score a system (:func:`mqm.scores.group_score` over its judged segments)."""

from __future__ import annotations

from collections import defaultdict

import mqm
from mqm.scores import group_score

from ....campaigns.contract import RankingJudgments
from ....campaigns.models import Campaign
from .results import _global_offsets, build_data, load_rows
from .scheme import get_scheme, scheme_name, word_counter


def ranking_judgments(campaign: Campaign) -> RankingJudgments:
    rows = load_rows(campaign)
    data = build_data(campaign, rows=rows)
    if not data.errors and not data.no_errors:
        return RankingJudgments([], dict, "segment judgments")
    prepared = mqm.prepare(data, get_scheme(scheme_name(campaign)), word_counter(campaign))
    items = {i.id: i for i in rows.items}
    offsets = _global_offsets(campaign.testset)
    pairs = []
    finished = sorted((a for a in rows.assignments if a.state == "finished"),
                      key=lambda a: (a.finished_at is None, a.finished_at, a.id))
    for a in finished:
        item = items[a.item_id]
        system, rater = rows.system(item), a.annotator.rater
        for pos in range(item.seg_start, item.seg_end):
            seg = (system, item.document.name, str(pos + 1), str(offsets[item.document_id] + pos + 1))
            if rater in prepared.rated.get(seg, ()):   # (an attention-check segment is not a judgment)
                pairs.append((seg, rater))

    def scores(judged) -> dict[str, float]:
        by_system = defaultdict(list)
        for seg, rater in judged:
            by_system[seg[0]].append((seg, rater))
        return {s: v for s, ps in by_system.items() if (v := group_score(prepared, ps)["score"]) is not None}

    return RankingJudgments(pairs, scores, "segment judgments")
