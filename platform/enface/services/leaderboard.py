"""The WMT-style leaderboard of a test set, cached until its scores change.

``get_leaderboard(testset_id)`` builds every row once per ``scores_version``
of the test set (raised in the transaction that writes scores, withdraws a
submission or switches the primary), so the cache is right in every web
process without any message between them. Who sees which rows is decided
afterwards by :func:`visible_leaderboard`.
"""

from __future__ import annotations

import csv
import io
import threading
from collections import OrderedDict

from flask import current_app
from sqlalchemy import select
from sqlalchemy.orm import selectinload

from scoring.metrics import DISPLAY, HIGHER_IS_BETTER

from ..extensions import db
from ..models import METRICS, ScoreRow, Submission, TestSet, User
from . import NotFound

#: (metric, column title, higher is better) in the WMT 2023 literary task's order; directions are the library's.
COLUMNS = [(key, {"chrf": "chrF"}.get(key, DISPLAY[key]), HIGHER_IS_BETTER[key]) for key in METRICS]
GROUPS = [("baseline", "Baselines"), ("primary-constrained", "Primary systems, constrained"),
          ("primary-unconstrained", "Primary systems, unconstrained ⋆"), ("contrastive", "Contrastive systems")]

_lock = threading.Lock()
_cache: OrderedDict[int, tuple[int, dict]] = OrderedDict()
_CACHE_SIZE = 64


def clear_cache() -> None:
    with _lock:
        _cache.clear()


def _build(ts: TestSet) -> dict:
    subs = db.session.scalars(
        select(Submission)
        .options(selectinload(Submission.scores.and_(ScoreRow.scope == "corpus")), selectinload(Submission.team))
        .where(Submission.testset_id == ts.id, Submission.state == "scored", Submission.withdrawn_at.is_(None),
               (Submission.slot.is_not(None)) | (Submission.label == "baseline"))).all()
    rows = []
    signatures: dict[str, list[str]] = {}
    reasons: dict[str, str] = {}
    for sub in subs:
        scores = {}
        corpus = sub.corpus_scores()
        for key, _name, _hib in COLUMNS:
            s = corpus.get(key)
            scores[key] = {"score": s.value if s else None, "reason": (s.reason if s else "not computed"),
                           "signature": s.signature if s else None}
            if s is not None and s.value is not None and s.signature:
                sigs = signatures.setdefault(key, [])
                if s.signature not in sigs:
                    sigs.append(s.signature)
            elif s is not None and s.value is None and s.reason and not sub.document_level:
                reasons.setdefault(key, s.reason)
        rows.append({"submission_id": sub.id, "team": sub.owner_name, "team_id": sub.team_id,
                     "system": sub.system_name, "label": sub.label, "constrained": sub.constrained,
                     "baseline": sub.label == "baseline", "group": sub.group, "document_level": sub.document_level,
                     "description": sub.description, "scores": scores})
    sort_key = next((k for k in ("comet", "bleu", "dbleu") if any(r["scores"][k]["score"] is not None for r in rows)),
                    "bleu")
    hib = {k: h for k, _n, h in COLUMNS}

    def order(row):
        v = row["scores"][sort_key]["score"]
        return (v is None, -(v if v is not None else 0) if hib[sort_key] else (v or 0), row["system"].lower())

    rows.sort(key=order)
    for group, _title in GROUPS:
        members = [r for r in rows if r["group"] == group]
        for key, _name, higher in COLUMNS:
            values = [r["scores"][key]["score"] for r in members if r["scores"][key]["score"] is not None]
            if len(values) < 2:   # "best" means something only against another system
                continue
            best = max(values) if higher else min(values)
            for r in members:
                r["scores"][key]["best"] = r["scores"][key]["score"] == best
        if group.startswith("primary") and members and members[0]["scores"][sort_key]["score"] is not None:
            members[0]["top"] = True
    return {"testset_id": ts.id, "testset": ts.name, "task": ts.task.name, "src_lang": ts.src_lang,
            "tgt_lang": ts.tgt_lang, "sort_metric": sort_key, "order_by": sort_key,
            "columns": [{"key": k, "name": n, "higher_is_better": h} for k, n, h in COLUMNS],
            "signatures": signatures, "na_reasons": reasons, "rows": rows}


def get_leaderboard(testset_id: int) -> dict:
    """All rows of a test set's leaderboard (cached per scores_version)."""
    ts = db.session.get(TestSet, testset_id)
    if ts is None:
        raise NotFound("test set")
    version = db.session.scalar(select(TestSet.scores_version).where(TestSet.id == testset_id))
    use_cache = current_app.config.get("LEADERBOARD_CACHE", True)
    if use_cache:
        with _lock:
            hit = _cache.get(testset_id)
            if hit is not None and hit[0] == version:
                _cache.move_to_end(testset_id)
                return hit[1]
    board = _build(ts)
    for hook in _board_hooks:
        hook(board)
    board = order_by_human(board)   # before caching: the cached board is the ordered one
    if use_cache:
        with _lock:
            _cache[testset_id] = (version, board)
            _cache.move_to_end(testset_id)
            while len(_cache) > _CACHE_SIZE:
                _cache.popitem(last=False)
    return board


def order_by_human(board: dict) -> dict:
    """The board ordered and highlighted by its released human ranking (``board["mqm"]``), if any.

    Rows group by group (the page's groups in the WMT order), within each group the
    systems the human evaluation ranked in that group by their rank (best first), then
    the others in the automatic order. ``top`` marks the
    systems of each primary group's first human cluster; a primary group the human
    evaluation did not rank keeps its automatic highlight. ``order_by`` becomes
    ``"mqm"``; ``sort_metric`` stays the automatic metric and the per-metric ``best``
    marks are untouched. Without a released human ranking the board is returned as is.
    Returns a new board; the rows given are not changed.
    """
    human = board.get("mqm")
    if not human:
        return board

    def ranked(row) -> dict | None:
        m = row.get("mqm")
        if m and m.get("score") is not None and m.get("rank") is not None and m.get("group") == row["group"]:
            return m
        return None

    group_index = {key: n for n, (key, _title) in enumerate(GROUPS)}
    # sorted() is stable: equal keys (the systems without a human rank) keep the automatic order
    rows = [dict(r) for r in sorted(board["rows"], key=lambda r: (
        group_index.get(r["group"], len(GROUPS)), ranked(r) is None, ranked(r)["rank"] if ranked(r) else 0))]
    unranked = []
    for group, _title in GROUPS:
        members = [r for r in rows if r["group"] == group]
        if not group.startswith("primary") or not members:
            continue
        if not any(ranked(r) for r in members):
            unranked.append(group)     # keeps its automatic highlight
            continue
        for r in members:
            r.pop("top", None)
            if ranked(r) and ranked(r)["cluster"] == 1:
                r["top"] = True
    out = dict(board)
    out["rows"] = rows
    out["order_by"] = "mqm"
    out["order_unranked_groups"] = unranked
    return out


def api_payload(board: dict) -> dict:
    """The leaderboard as the API and the JSON download give it."""
    return {"testset_id": board["testset_id"], "testset": board["testset"], "task": board["task"],
            "released": board["released"], "scope": board["scope"], "sort_metric": board["sort_metric"],
            "order_by": board.get("order_by", board["sort_metric"]),
            "columns": board["columns"], "signatures": board["signatures"], "rows": api_rows(board)}


def can_see(user: User | None, ts: TestSet) -> bool:
    """Whether ``user`` gets a leaderboard page for ``ts`` (the rule of :func:`visible_leaderboard`):
    pages link to a leaderboard only for those who may open it."""
    authed = user is not None and getattr(user, "is_authenticated", False)
    return ts.released or (authed and (user.is_organizer or user.team_id is not None))


def visible_leaderboard(user: User | None, testset_id: int) -> dict:
    """The leaderboard as ``user`` may see it.

    Released: everyone sees every row. Before release: organizers see every
    row, a team sees only its own rows, and anyone else gets NotFound.
    """
    ts = db.session.get(TestSet, testset_id)
    if ts is None:
        raise NotFound("test set")
    board = get_leaderboard(testset_id)
    authed = user is not None and getattr(user, "is_authenticated", False)
    if ts.released or (authed and user.is_organizer):
        rows, scope = board["rows"], "all"
    elif authed and user.team_id is not None:
        rows, scope = [r for r in board["rows"] if r["team_id"] == user.team_id], "team"
    else:
        raise NotFound("leaderboard (not released yet)")
    out = dict(board)
    out["rows"] = rows
    out["released"] = ts.released
    out["scope"] = scope
    if scope == "team":
        # Best-in-group marks compare with other teams: not shown before release.
        out["rows"] = [_without_marks(r) for r in rows]
    return out


def _without_marks(row: dict) -> dict:
    row = dict(row)
    row.pop("top", None)
    row["scores"] = {k: {kk: vv for kk, vv in v.items() if kk != "best"} for k, v in row["scores"].items()}
    return row


def grouped(board: dict) -> list[dict]:
    return [{"key": key, "title": title, "rows": [r for r in board["rows"] if r["group"] == key]}
            for key, title in GROUPS]


def api_rows(board: dict) -> list[dict]:
    return [{"submission_id": r["submission_id"], "team": r["team"], "system": r["system"], "label": r["label"],
             "constrained": r["constrained"], "baseline": r["baseline"], "group": r["group"],
             "document_level": r["document_level"],
             "scores": {k: {"score": v["score"], "reason": v["reason"] if v["score"] is None else None}
                        for k, v in r["scores"].items()}, "mqm": r.get("mqm")} for r in board["rows"]]


#: The MQM columns of the CSV download (present when a human ranking is released): header, field of ``row["mqm"]``.
MQM_CSV_COLUMNS = [("MQM", "score"), ("MQM rank", "rank"), ("MQM rank range", "rank_range"),
                   ("MQM cluster", "cluster")]


def _number(value) -> str:
    """A score cell: 4 decimals (the page shows 2, the JSON download full precision); empty when missing."""
    return "" if value is None else f"{value:.4f}"


def to_csv(board: dict) -> str:
    """The scores as a plain table that pandas and spreadsheets read as is.

    Rows in the page's order (its groups in the WMT order, within a group the page's
    order), a ``group`` column, numbers in the metric columns (an empty cell where the
    page says n/a), MQM columns when a human ranking is released, no comment lines:
    the signatures are in :func:`signatures_csv`.
    """
    out = io.StringIO()
    writer = csv.writer(out)
    keys = [c["key"] for c in board["columns"]]
    mqm = board.get("mqm") is not None
    writer.writerow(["group", "team", "system", "label", "constrained", "baseline", "submission_id",
                     *[c["name"] for c in board["columns"]], *([h for h, _f in MQM_CSV_COLUMNS] if mqm else [])])
    for group in grouped(board):
        for r in group["rows"]:
            cells = [r["group"], _csv_safe(r["team"]), _csv_safe(r["system"]), r["label"],
                     "yes" if r["constrained"] else "no", "yes" if r["baseline"] else "no", r["submission_id"],
                     *[_number(r["scores"][k]["score"]) for k in keys]]
            if mqm:   # empty cells for a system outside the human evaluation
                human = r.get("mqm") or {}
                cells += [_number(human.get("score")),
                          *["" if human.get(f) is None else human[f] for _h, f in MQM_CSV_COLUMNS[1:]]]
            writer.writerow(cells)
    return out.getvalue()


def signatures_csv(board: dict) -> str:
    """The sidecar of :func:`to_csv`: one row per metric signature (columns metric, signature).

    ``metric`` is the metric's column title in the scores CSV; a metric scored under
    several signatures has several rows, one without a score has none.
    """
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["metric", "signature"])
    for c in board["columns"]:
        for sig in board["signatures"].get(c["key"], []):
            writer.writerow([c["name"], sig])
    return out.getvalue()


def _csv_safe(text: str) -> str:
    """Keep spreadsheet programs from running a cell as a formula (CSV injection)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


_board_hooks: list = []


def add_board_hook(hook) -> None:
    """``hook(board)`` adds columns to every leaderboard built (the campaigns' human rankings).

    Registered by the app factory, so that the leaderboard imports no campaign code.
    """
    if hook not in _board_hooks:
        _board_hooks.append(hook)
