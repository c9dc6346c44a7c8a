"""A BWS campaign's judgments, scores, reliability, ranking and progress, computed by :mod:`humaneval.bws`.

A judgment is a finished assignment's choice: its ``item`` is the passage (``document:first-last``),
its ``versions`` the tuple's versions by their organizer-facing names (systems, "reference N"), in
the order the annotator saw them. Scores are the counting scores ``(best - worst) / appearances`` with
95 % bootstrap intervals; agreement is the split-half reliability over the campaign's ``splits``
random splits; the official ranking ranks every version by its counting score, with clusters from
the campaign's paired test over the passages (a version's unit score: its counting score on that
passage).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from humaneval.bws import Judgment, counting_scores, item_scores, scores_with_intervals, split_half
from humaneval.selection import ranking_stability

from ...campaigns.models import Assignment, Campaign, CampaignAnnotator, Item
from ...campaigns.services import version_labels
from ...campaigns.services.ranking import official_ranking
from ...extensions import db
from .page import display_order
from .responses import choice_of
from .settings import splits

NAME = "BWS"
UNIT = "passage"


def assignments(campaign: Campaign) -> list[Assignment]:
    return list(db.session.scalars(
        select(Assignment).where(Assignment.campaign_id == campaign.id)
        .options(selectinload(Assignment.responses),
                 selectinload(Assignment.annotator).selectinload(CampaignAnnotator.user),
                 selectinload(Assignment.item).selectinload(Item.document),
                 selectinload(Assignment.item).selectinload(Item.versions))
        .order_by(Assignment.finished_at, Assignment.id)))


def passage_label(item: Item) -> str:
    start, end = item.seg_start + 1, item.seg_end
    return f"{item.document.name}:{start}-{end}" if end > start else f"{item.document.name}:{start}"


def judgment_of(asg: Assignment, labels: dict[int, str]) -> Judgment | None:
    """A finished assignment's judgment (None when unfinished or incomplete)."""
    best, worst = choice_of(asg)
    if asg.state != "finished" or best is None or worst is None:
        return None
    by_slot = {iv.slot: labels.get(iv.version_id, "?") for iv in asg.item.versions}
    return Judgment(item=passage_label(asg.item), annotator=asg.annotator.rater,
                    versions=tuple(by_slot[s] for s in display_order(asg)), best=by_slot[best], worst=by_slot[worst])


def judgments(campaign: Campaign, found: list[Assignment] | None = None) -> list[Judgment]:
    """Every finished judgment, in the order they were finished."""
    labels = version_labels(campaign)
    out = []
    for asg in found if found is not None else assignments(campaign):
        j = judgment_of(asg, labels)
        if j is not None:
            out.append(j)
    return out


def ranking(campaign: Campaign, js: list[Judgment]) -> dict[str, Any] | None:
    """The official ranking with clusters (None without judgments)."""
    if not js:
        return None
    return official_ranking(campaign, item_scores(js), scores=counting_scores(js), higher_is_better=True,
                            unit=UNIT, name=NAME)


def results(campaign: Campaign, found: list[Assignment] | None = None, *, with_ranking: bool = True) -> dict[str, Any]:
    js = judgments(campaign, found)
    labels = version_labels(campaign)
    by_label = {labels[v.id]: v for v in campaign.versions}
    scores = scores_with_intervals(js, seed=campaign.seed) if js else {}
    rows = []
    for label, v in by_label.items():
        s = scores.get(label)
        rows.append({"version": label, "submission_id": v.submission_id, "reference": v.reference,
                     "score": s.score if s else None, "low": s.low if s else None, "high": s.high if s else None,
                     "best": s.best if s else 0, "worst": s.worst if s else 0,
                     "appearances": s.appearances if s else 0})
    rows.sort(key=lambda r: (r["score"] is None, -(r["score"] or 0), r["version"]))
    reliability = split_half(js, n_splits=splits(campaign), seed=campaign.seed) if js else None
    return {"protocol": "bws", "campaign": {"id": campaign.id, "name": campaign.name, "state": campaign.state},
            "versions": rows, "judgments": len(js), "annotators": len({j.annotator for j in js}),
            "passages": len({j.item for j in js}),
            "split_half": reliability.to_dict() if reliability else {"value": None, "mean_r": None,
                                                                       "splits": splits(campaign), "defined": 0,
                                                                       "correlation": "spearman",
                                                                       "seed": campaign.seed},
            "ranking": ranking(campaign, js) if with_ranking else None,
            # the live ranking's stability: version pairs ordered differently before the last tenth of the judgments
            "stability": ranking_stability(js, counting_scores).to_dict(),
            "empty": not js}


def leaderboard_part(campaign: Campaign) -> dict[str, Any] | None:
    """A released campaign's part of its test set's leaderboard, frozen at release: per submission its
    counting score and, from the official ranking, ``rank``, ``rank_range``, ``cluster``, ``kind``."""
    res = campaign.results or {}
    ranking_ = res.get("ranking")
    ranked = {int(r["submission_id"]): r for r in (ranking_ or {}).get("rows", []) if r.get("submission_id")}
    by_sub = {}
    for v in res.get("versions", []):
        if v.get("submission_id") is None or v.get("score") is None:
            continue
        sid = int(v["submission_id"])
        row = ranked.get(sid, {})
        by_sub[sid] = {"score": v["score"], "low": v["low"], "high": v["high"], "appearances": v["appearances"],
                       "rank": row.get("rank"), "rank_range": row.get("rank_range"), "cluster": row.get("cluster"),
                       "kind": row.get("kind"), "group": row.get("kind")}
    if not by_sub:
        return None
    return {"campaign": {"id": campaign.id, "name": campaign.name,
                         "released_at": campaign.released_at.isoformat() if campaign.released_at else None},
            "by_submission": by_sub, "higher_is_better": True, "ranking": ranking_, "unit": UNIT,
            "split_half": res.get("split_half")}


def progress(campaign: Campaign, found: list[Assignment] | None = None) -> dict[str, Any]:
    found = found if found is not None else assignments(campaign)
    labels = version_labels(campaign)
    rows, counts = [], {"pending": 0, "started": 0, "finished": 0}
    for asg in sorted(found, key=lambda a: (a.annotator.position, a.number)):
        counts[asg.state] += 1
        best, worst = choice_of(asg)
        by_slot = {iv.slot: labels.get(iv.version_id, "?") for iv in asg.item.versions}
        rows.append({"assignment": asg, "rater": asg.annotator.rater, "user": asg.annotator.user,
                     "number": asg.number, "state": asg.state, "passage": passage_label(asg.item),
                     "tuple": [by_slot[s] for s in display_order(asg)],
                     "best": by_slot.get(best), "worst": by_slot.get(worst), "last_active_at": asg.last_active_at})
    return {"rows": rows, "counts": counts, "total": len(found)}
