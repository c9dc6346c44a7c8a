"""An ESA campaign's results: its answers as Appraise rows (:mod:`enface.protocols.esa.rows`) through :mod:`humaneval.esa`.

Per system the mean score, the mean per-annotator z-score, a 95 % bootstrap interval, the item
count and the error spans per severity; attention checks per annotator (the library's one-sided
paired test, failing annotators left out unless the campaign counts them); agreement on shared
segments; time per segment and per span; and the official ranking with clusters and rank ranges
through the campaign's test (Mann-Whitney by default), ranked with the core's
:func:`~enface.campaigns.services.ranking.official_ranking` so that it carries submissions,
teams and kinds like every protocol's ranking.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from humaneval.esa import ErrorSpan, ScoreRow, esa_results, scored_rows, z_scores
from humaneval.esa.badcheck import BadSegment, marked_the_damage
from humaneval.esa.results import unit_scores

from ...campaigns.models import Assignment, Campaign
from ...campaigns.services import bad, system_labels, version_labels
from ...campaigns.services.ranking import official_ranking
from .responses import live_answers
from .rows import AnswerRow, answer_rows, campaign_assignments, score_row
from .settings import settings_of

NAME = "ESA"
UNIT = "segment"


def _damage_marked(rows: list[AnswerRow]) -> dict[str, dict[str, int]]:
    """{rater: {"segments", "marked"}}: BAD segments, and those where a span covers the inserted phrase."""
    out: dict[str, dict[str, int]] = defaultdict(lambda: {"segments": 0, "marked": 0})
    for r in rows:
        if not r.is_bad:
            continue
        d = r.assignment.plan["bad"]["segments"][r.line - r.assignment.item.seg_start]
        damage = BadSegment(d["text"], "", d["start"], d["end"], d["replaced"], d["inserted"], 0)
        spans = [ErrorSpan(x.start, x.end, x.severity) for x in r.answer.errors]
        counts = out[r.assignment.annotator.rater]
        counts["segments"] += 1
        counts["marked"] += marked_the_damage(spans, damage)
    return dict(out)


def kept_rows(rows: list[ScoreRow], excluded: list[str]) -> list[ScoreRow]:
    """The scored TGT rows of the annotators who count (the library's own choice of rows)."""
    return scored_rows([r for r in rows if r.counts and r.annotator not in set(excluded)])


def compute_results(campaign: Campaign, rows_of=answer_rows) -> dict[str, Any]:
    """Everything the results page shows; ``{"empty": True}`` before any finished item. ``rows_of(campaign)``:
    the answers as :class:`AnswerRow` (contrastive ESA's come from its own columns)."""
    answers = rows_of(campaign)
    rows = [score_row(r, campaign) for r in answers]
    if not any(not r.is_bad for r in rows):
        return {"empty": True, "systems": []}
    s = settings_of(campaign)
    res = esa_results(rows, exclude_failing=s["exclude_failing"], attention_test=s["attention_test"],
                      attention_alpha=s["attention_alpha"], ranking_test=s["significance_test"],
                      ranking_by=s["ranking_by"], seed=campaign.seed)
    out = res.to_dict()
    scored = kept_rows(rows, res.excluded)
    zs = z_scores(scored)
    units = unit_scores(scored, zs if s["ranking_by"] == "z" else None)
    scores = {x.system: (x.z if s["ranking_by"] == "z" else x.score) for x in res.systems}
    out["ranking"] = official_ranking(campaign, units, scores=scores, higher_is_better=True, unit=UNIT,
                                      name=NAME if s["ranking_by"] == "score" else f"{NAME} z",
                                      test=s["significance_test"])
    out["ranking"]["by"] = s["ranking_by"]
    subs = {label: sid for sid, label in system_labels(campaign).items()}
    for system in out["systems"]:
        system["submission_id"] = subs.get(system["system"])
    marked = _damage_marked(answers)
    for check in out["attention"]:
        check["damage"] = marked.get(check["annotator"], {"segments": 0, "marked": 0})
    out["counts"] = {"rows": len(rows), "bad_rows": sum(r.is_bad for r in rows),
                     "annotators": len({r.annotator for r in rows})}
    out["empty"] = False
    return out


def results_for(campaign: Campaign, organizer: bool = False, rows_of=answer_rows) -> dict[str, Any]:
    """The frozen snapshot of a released campaign (for everyone but its organizers), else live."""
    if campaign.state == "released" and campaign.results and not organizer:
        return campaign.results
    return compute_results(campaign, rows_of)


def release_snapshot(campaign: Campaign, rows_of=answer_rows) -> dict[str, Any]:
    res = compute_results(campaign, rows_of)
    if res.get("empty"):
        raise bad("no_results", "no finished item yet: nothing to release", 409)
    res["campaign"] = {"id": campaign.id, "name": campaign.name, "ranges": campaign.ranges,
                       "redundancy": campaign.redundancy, "strategy": campaign.strategy}
    return res


def leaderboard_part(campaign: Campaign) -> dict[str, Any] | None:
    """A released campaign's column and official ranking on its test set's leaderboard (from the snapshot)."""
    res = campaign.results or {}
    ranking = res.get("ranking")
    ranked = {int(r["submission_id"]): r for r in (ranking or {}).get("rows", []) if r.get("submission_id")}
    by_sub = {}
    for system in res.get("systems", []):
        sid = system.get("submission_id")
        if sid is None:
            continue
        row = ranked.get(int(sid), {})
        by_sub[int(sid)] = {"score": system["score"], "z": system["z"], "ci_low": system["ci_low"],
                            "ci_high": system["ci_high"], "items": system["items"], "spans": system["spans"],
                            "rank": row.get("rank"), "rank_range": row.get("rank_range"),
                            "cluster": row.get("cluster"), "kind": row.get("kind"), "group": row.get("kind")}
    if not by_sub:
        return None
    return {"campaign": {"id": campaign.id, "name": campaign.name,
                         "released_at": campaign.released_at.isoformat() if campaign.released_at else None},
            "by_submission": by_sub, "higher_is_better": True, "ranking": ranking, "unit": UNIT, "name": NAME}


def progress(campaign: Campaign, assignments: list[Assignment] | None = None) -> dict[str, Any]:
    """Per assignment: rater, item, state, segments scored, spans, time; and the counts."""
    assignments = assignments if assignments is not None else campaign_assignments(campaign, finished_only=False)
    labels = version_labels(campaign)
    rows, counts = [], {"pending": 0, "started": 0, "finished": 0}
    for asg in sorted(assignments, key=lambda a: (a.annotator.position, a.number)):
        counts[asg.state] += 1
        answers = live_answers(asg)
        item = asg.item
        rows.append({"assignment": asg, "rater": asg.annotator.rater, "user": asg.annotator.user,
                     "number": asg.number, "state": asg.state, "bad": bool((asg.plan or {}).get("bad")),
                     "label": f"{labels.get(item.versions[0].version_id, '?')} · {item.document.name}:"
                              f"{item.seg_start + 1}-{item.seg_end}",
                     "segments": item.num_segments,
                     "scored": sum(a.score is not None for a in answers.values()),
                     "spans": sum(len(a.errors) for a in answers.values()),
                     "time_ms": asg.time_ms, "last_active_at": asg.last_active_at})
    return {"rows": rows, "counts": counts, "total": len(assignments)}
