"""What the organizer sees of a judge: progress, per-item records, and judge vs humans side by side."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from sqlalchemy import func, select

from humaneval.judge.compare import judge_vs_humans
from humaneval.rubric.results import system_tables

from ..campaigns.models import Assignment, CampaignAnnotator, Response
from ..campaigns.protocol import protocol_of
from ..campaigns.services import version_labels
from ..extensions import db
from ..services import NotFound, is_ascii_int
from .models import Judge, JudgeItem
from .running import is_alive, tasks_of


def progress(judge: Judge, total: int | None = None) -> dict[str, Any]:
    """Counts by state, tokens, cost, and whether a run is alive (for the dashboard's progress bar)."""
    rows = db.session.execute(
        select(JudgeItem.state, func.count(), func.sum(JudgeItem.prompt_tokens), func.sum(JudgeItem.completion_tokens),
               func.sum(JudgeItem.cost), func.sum(JudgeItem.calls), func.sum(JudgeItem.retried_calls))
        .where(JudgeItem.judge_id == judge.id).group_by(JudgeItem.state)).all()
    by = {r[0]: r for r in rows}
    total = len(tasks_of(judge.campaign)) if total is None else total
    done = by["ok"][1] if "ok" in by else 0
    failed = by["failed"][1] if "failed" in by else 0
    return {"judge": judge.id, "state": judge.state, "alive": is_alive(judge), "message": judge.message,
            "outcome": outcome(judge.state, done, failed), "reasons": failure_reasons(judge) if failed else [],
            "total": total, "done": done, "failed": failed,
            "running": by["running"][1] if "running" in by else 0,
            "prompt_tokens": int(sum(r[2] or 0 for r in rows)), "completion_tokens": int(sum(r[3] or 0 for r in rows)),
            "cost": float(sum(r[4] or 0 for r in rows)), "calls": int(sum(r[5] or 0 for r in rows)),
            "retried_calls": int(sum(r[6] or 0 for r in rows)),
            "percent": round(100 * (done + failed) / total) if total else 0}


def outcome(state: str, done: int, failed: int) -> str:
    """The state as the organizer reads it: a finished run with failures never reads as plain "done"."""
    if state == "done" and failed:
        return "failed: no item scored" if not done else f"finished, {failed} failed"
    return state


#: the most distinct failure reasons a judge's page lists
MAX_REASONS = 3


def failure_reasons(judge: Judge) -> list[dict[str, Any]]:
    """``[{"reason", "count"}]``: why the judge's items failed, the commonest first (each item's error)."""
    rows = db.session.execute(select(JudgeItem.error, func.count()).where(
        JudgeItem.judge_id == judge.id, JudgeItem.state == "failed").group_by(JudgeItem.error)
        .order_by(func.count().desc(), JudgeItem.error).limit(MAX_REASONS)).all()
    return [{"reason": error or "no reason was recorded", "count": n} for error, n in rows]


def item_labels(judge: Judge) -> dict[tuple[int, str], str]:
    """{(item id, key): how the organizer names it}: the protocol's label (document:segment and system)
    and what the key scores (a rubric phenomenon's dimension), instead of the database's ids."""
    protocol = protocol_of(judge.campaign)
    return {(item.id, task.key): " · ".join(x for x in (protocol.item_label(item), task.item.get("dimension"))
                                               if x)
            for item, task in tasks_of(judge.campaign)}


def judge_items(judge: Judge) -> list[JudgeItem]:
    return list(db.session.scalars(select(JudgeItem).where(JudgeItem.judge_id == judge.id)
                                   .order_by(JudgeItem.item_id, JudgeItem.key)))


def judge_item(judge: Judge, judge_item_id: int) -> JudgeItem:
    row = db.session.get(JudgeItem, judge_item_id)
    if row is None or row.judge_id != judge.id:
        raise NotFound("judged item")
    return row


def _human_scores(judge: Judge) -> dict[tuple[int, str, str], dict[str, dict[str, Any]]]:
    """(item id, kind, key) -> {rater label: response data}: the latest live answer of each human."""
    machine = {j.annotator_id for j in db.session.scalars(select(Judge).where(Judge.campaign_id == judge.campaign_id))}
    rows = db.session.execute(
        select(Assignment.item_id, CampaignAnnotator.position, Response.kind, Response.key, Response.data)
        .join(Assignment, Response.assignment_id == Assignment.id)
        .join(CampaignAnnotator, Assignment.annotator_id == CampaignAnnotator.id)
        .where(Assignment.campaign_id == judge.campaign_id, Response.deleted.is_(False),
               CampaignAnnotator.id.not_in([m for m in machine if m is not None] or [-1]))
        .order_by(Response.updated_at, Response.id)).all()
    out: dict[tuple[int, str, str], dict[str, dict[str, Any]]] = defaultdict(dict)
    for item_id, position, kind, key, data in rows:
        out[(item_id, kind, key)][f"rater{position}"] = data   # later rows (newer) win
    return out


def side_by_side(judge: Judge) -> dict[str, Any]:
    """Per item: the text, each human's scores, the judge's scores and transcript; and agreement figures."""
    humans = _human_scores(judge)
    records = {(r.item_id, r.key): r for r in judge_items(judge)}
    rows, agreement_rows, raters = [], [], set()
    for item, task in tasks_of(judge.campaign):
        human = {r: d for r, d in humans.get((item.id, task.kind, task.key), {}).items()
                 if all(isinstance(d.get(k), int) for k in ("sp", "g_1", "g_2"))}
        raters.update(human)
        record = records.get((item.id, task.key))
        ident = f"{item.id}:{task.key}"
        for rater, data in human.items():
            agreement_rows.append({"item": ident, "rater": rater, **{k: data[k] for k in ("sp", "g_1", "g_2")}})
        if record is not None and record.state == "ok":
            agreement_rows.append({"item": ident, "rater": "judge", **record.scores})
        rows.append({"item": item, "task": task, "humans": human, "record": record})
    figures = judge_vs_humans(agreement_rows, "judge") if any(r["rater"] == "judge" for r in agreement_rows) else None
    return {"rows": rows, "raters": sorted(raters, key=lambda r: int(r[5:]) if is_ascii_int(r[5:]) else 0),
            "agreement": figures}


def judge_results(judge: Judge) -> dict[str, Any]:
    """``{"systems", "dimensions"}``: the judge's own per-system tables (sub-criterion means, Σ per dimension, the average Σ), by
    :func:`humaneval.rubric.results.system_tables` on its scores alone: what this judge says of each system."""
    labels = version_labels(judge.campaign)
    records = {(r.item_id, r.key): r for r in judge_items(judge) if r.state == "ok"}
    rows = []
    for item, task in tasks_of(judge.campaign):
        record = records.get((item.id, task.key))
        if record is not None:
            rows.append({"item": task.item["id"], "rater": "judge", "dimension": task.item["dimension"],
                         "system": labels.get(item.versions[0].version_id, "?"), **record.scores})
    tables = system_tables(rows)
    dimensions = list(dict.fromkeys(d for t in tables for d in t["dimensions"]))
    return {"systems": tables, "dimensions": dimensions}
