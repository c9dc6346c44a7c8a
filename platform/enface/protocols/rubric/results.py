"""A rubric campaign's results, progress and exports, computed by :mod:`humaneval.rubric`.

Results count the scores of finished items (an item is finished once every phenomenon on it is
scored completely). A results row's ``item`` is ``document:segment:dimension:system``: what was
scored, the same for every rater (and for a judge scoring the same campaign).
"""

from __future__ import annotations

import io
import json
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from humaneval.rubric import CRITERION_KEYS, rubric_results
from scoring import csvsafe

from ...campaigns.models import Assignment, Campaign, CampaignAnnotator, Item
from ...campaigns.services import version_labels
from ...extensions import db
from ...models import Phenomenon
from .ranking import UNIT as RANKING_UNIT
from .ranking import rubric_ranking
from .responses import live_scores, missing_scores
from .settings import campaign_rubric

CSV_COLUMNS = ("item", "document", "segment", "system", "rater", "dimension", *CRITERION_KEYS, "sigma",
               "refusal", "comment")


def _assignments(campaign: Campaign) -> list[Assignment]:
    return list(db.session.scalars(
        select(Assignment).where(Assignment.campaign_id == campaign.id)
        .options(selectinload(Assignment.responses),
                 selectinload(Assignment.annotator).selectinload(CampaignAnnotator.user),
                 selectinload(Assignment.item).selectinload(Item.document),
                 selectinload(Assignment.item).selectinload(Item.versions))
        .order_by(Assignment.id)))


def item_id(document: str, segment: int, dimension: str, system: str) -> str:
    return f"{document}:{segment}:{dimension}:{system}"


def response_rows(campaign: Campaign, assignments: list[Assignment] | None = None) -> list[dict[str, Any]]:
    """One row per score of a finished item: item, document, segment, system, rater, dimension, scores."""
    assignments = assignments if assignments is not None else _assignments(campaign)
    labels = version_labels(campaign)
    phenomena = {str(p.id): p for p in db.session.scalars(
        select(Phenomenon).where(Phenomenon.testset_id == campaign.testset_id))}
    rows = []
    for asg in assignments:
        if asg.state != "finished":
            continue
        system = labels.get(asg.item.versions[0].version_id, "?")
        for key, r in sorted(live_scores(asg).items(), key=lambda kv: int(kv[0])):
            p = phenomena.get(key)
            if p is None:
                continue
            doc, seg = asg.item.document.name, p.position + 1
            rows.append({"item": item_id(doc, seg, p.dimension, system), "document": doc, "segment": seg,
                         "system": system, "rater": asg.annotator.rater, "dimension": p.dimension,
                         "machine": not asg.annotator.user.active,   # an LLM judge (enface.judges)
                         **{k: r.data.get(k) for k in CRITERION_KEYS},
                         "refusal": r.data.get("refusal"), "comment": r.data.get("comment", "")})
    return rows


def results(campaign: Campaign, assignments: list[Assignment] | None = None, *,
            with_ranking: bool = False) -> dict[str, Any]:
    """The results JSON of :func:`humaneval.rubric.rubric_results` (systems, items, agreement) and the campaign;
    ``with_ranking``: also ``ranking``, the official human ranking (:mod:`~enface.protocols.rubric.ranking`; judges left out),
    computed once, at release."""
    rubric = campaign_rubric(campaign)
    rows = response_rows(campaign, assignments)
    out = rubric_results(rows, rubric)
    if with_ranking:
        out["ranking"] = rubric_ranking(campaign, rows)
    labels = version_labels(campaign)
    sub_ids = {labels[v.id]: v.submission_id for v in campaign.systems}
    for system in out["systems"]:
        system["submission_id"] = sub_ids.get(system["system"])
    out["campaign"] = {"id": campaign.id, "name": campaign.name, "state": campaign.state}
    out["dimensions"] = [{"key": d.key, "name": d.name} for d in rubric.dimensions]
    out["empty"] = not rows
    return out


def leaderboard_part(campaign: Campaign) -> dict[str, Any] | None:
    """A released campaign's part of its test set's leaderboard, frozen at release.

    Per submission: ``overall`` and the dimension Σs (all raters, as the results page), and from the
    official human ranking (people only) ``score``, ``rank``, ``rank_range``, ``cluster``, ``kind``.
    ``ranking``: that ranking (None in a snapshot released before it existed: no rank then).
    """
    res = campaign.results or {}
    ranking = res.get("ranking")
    ranked = {int(r["submission_id"]): r for r in (ranking or {}).get("rows", []) if r.get("submission_id")}
    by_sub = {}
    for s in res.get("systems", []):
        if s.get("submission_id") is None:
            continue
        sid = int(s["submission_id"])
        row = ranked.get(sid, {})
        by_sub[sid] = {"overall": s["overall"], "dimensions": {k: d["sigma"] for k, d in s["dimensions"].items()},
                       "score": row.get("score"), "rank": row.get("rank"), "rank_range": row.get("rank_range"),
                       "cluster": row.get("cluster"), "kind": row.get("kind"), "group": row.get("kind")}
    if not by_sub:
        return None
    return {"campaign": {"id": campaign.id, "name": campaign.name, "rubric": res.get("rubric"),
                         "released_at": campaign.released_at.isoformat() if campaign.released_at else None},
            "dimensions": res.get("dimensions", []), "by_submission": by_sub, "higher_is_better": True,
            "ranking": ranking, "unit": RANKING_UNIT}


def progress(campaign: Campaign, assignments: list[Assignment] | None = None) -> dict[str, Any]:
    assignments = assignments if assignments is not None else _assignments(campaign)
    labels = version_labels(campaign)
    rows, counts = [], {"pending": 0, "started": 0, "finished": 0}
    for asg in sorted(assignments, key=lambda a: (a.annotator.position, a.number)):
        counts[asg.state] += 1
        rows.append({"assignment": asg, "rater": asg.annotator.rater, "user": asg.annotator.user,
                     "number": asg.number, "state": asg.state,
                     "label": f"{labels.get(asg.item.versions[0].version_id, '?')} · "
                              f"{asg.item.document.name}:{asg.item.seg_start + 1}",
                     "open": len(missing_scores(asg)) if asg.state == "started" else None,
                     "last_active_at": asg.last_active_at})
    return {"rows": rows, "counts": counts, "total": len(assignments)}


def export_json(campaign: Campaign) -> str:
    return json.dumps(results(campaign), ensure_ascii=False, indent=1) + "\n"


def export_csv(campaign: Campaign) -> str:
    """One row per score; ``python -m humaneval rubric`` reads it back."""
    out = io.StringIO()
    writer = csvsafe.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in response_rows(campaign):
        row = {**row, "sigma": sum(row[k] for k in CRITERION_KEYS), "refusal": row["refusal"] or ""}
        writer.writerow([row[c] for c in CSV_COLUMNS])
    return out.getvalue()
