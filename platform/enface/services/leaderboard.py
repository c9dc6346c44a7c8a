"""The WMT-style leaderboard of a test set, cached until its scores change.

``get_leaderboard(testset_id)`` builds every row once per ``scores_version``
of the test set (raised in the transaction that writes scores, withdraws a
submission, switches the primary or releases a human evaluation) and version of
its automatic clusters, so the cache is right in every web process without any
message between them (CTFd's standings cache, keyed instead of cleared). Who
sees which rows is decided afterwards by :func:`visible_leaderboard`.
"""

from __future__ import annotations

import copy
import io
import threading
import time
from collections import OrderedDict

from flask import current_app
from sqlalchemy import event, select
from sqlalchemy.orm import Session, selectinload

from scoring import csvsafe
from scoring.metrics import REGISTRY

from ..extensions import db
from ..models import AutoRanking, ScoreRow, Submission, TestSet, User
from . import NotFound, auto_ranking
from .reasons import public_reason
from .testsets import LEADERBOARD_CHANGES, SCORES_CHANGES

GROUPS = [("baseline", "Baselines"), ("primary-constrained", "Primary systems, constrained"),
          ("primary-unconstrained", "Primary systems, unconstrained ⋆"), ("contrastive", "Contrastive systems")]

_lock = threading.Lock()
#: (testset id, frozen) -> (cache key, built at (monotonic), board)
_cache: OrderedDict[tuple[int, bool], tuple[tuple, float, dict]] = OrderedDict()
_CACHE_SIZE = 64
#: a board whose automatic clusters are still being computed is rebuilt (and the job queued again) this often
PENDING_TTL = 30.0
#: how long a process trusts the versions it read (no query per request): another process's write shows up
#: within this many seconds; this process's own writes at once (:func:`forget_versions`)
VERSION_CHECK_SECONDS = 1.0
_checked: dict[int, tuple[float, tuple[int, int | None]]] = {}


def columns() -> list[dict]:
    """The metric columns, from the registry (its order is the WMT 2023 literary task's)."""
    return [{"key": k, "name": spec.title, "higher_is_better": spec.higher_is_better} for k, spec in REGISTRY.items()]


def clear_cache() -> None:
    with _lock:
        _cache.clear()
        _checked.clear()


def forget_versions(testset_id: int | None = None) -> None:
    """Called where scores_version is raised: this process reads the versions again on its next request."""
    with _lock:
        if testset_id is None:
            _checked.clear()
        else:
            _checked.pop(testset_id, None)


def _sort_metric(rows: list[dict], keys: list[str]) -> str:
    """The automatic metric the board is ordered by: a learned (model) metric first, as WMT, else the first
    sacrebleu one (BLEU; d-BLEU for document-level submissions) that some row has."""
    preferred = sorted(keys, key=lambda k: REGISTRY[k].engine != "model")
    return next((k for k in preferred if any(r["scores"][k]["score"] is not None for r in rows)), keys[0])


def _build(ts: TestSet, auto: AutoRanking | None) -> dict:
    subs = db.session.scalars(
        select(Submission)
        .options(selectinload(Submission.scores.and_(ScoreRow.scope == "corpus")), selectinload(Submission.team))
        .where(Submission.testset_id == ts.id, auto_ranking.on_leaderboard())).all()
    cols = columns()
    rows = []
    signatures: dict[str, list[str]] = {}
    reasons: dict[str, str] = {}
    for sub in subs:
        scores = {}
        corpus = sub.corpus_scores()
        for c in cols:
            key = c["key"]
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
    keys = [c["key"] for c in cols]
    sort_key = _sort_metric(rows, keys)
    hib = {c["key"]: c["higher_is_better"] for c in cols}
    rows.sort(key=automatic_order(sort_key))
    for group, _title in GROUPS:
        members = [r for r in rows if r["group"] == group]
        for key in keys:
            values = [r["scores"][key]["score"] for r in members if r["scores"][key]["score"] is not None]
            if len(values) < 2:   # "best" means something only against another system
                continue
            best = max(values) if hib[key] else min(values)
            for r in members:
                r["scores"][key]["best"] = r["scores"][key]["score"] == best
        if group.startswith("primary") and members and members[0]["scores"][sort_key]["score"] is not None:
            members[0]["top"] = True
    board = {"testset_id": ts.id, "testset": ts.name, "task": ts.task.name, "src_lang": ts.src_lang,
             "tgt_lang": ts.tgt_lang, "sort_metric": sort_key, "order_by": sort_key, "columns": cols,
             "signatures": signatures, "na_reasons": reasons, "rows": rows}
    attach_auto_clusters(board, auto.results if auto is not None and auto.scores_version == ts.scores_version
                         else None)
    return board


def automatic_standings(ts: TestSet) -> dict:
    """The board from the automatic scores alone (no human ranking attached): what a freeze keeps."""
    return _build(ts, auto_ranking.stored(ts.id))


def automatic_order(sort_key: str):
    """The sort key of rows by the automatic metric ``sort_key`` (best first; no score last; then by name)."""
    higher = REGISTRY[sort_key].higher_is_better

    def order(row):
        v = row["scores"][sort_key]["score"]
        return (v is None, -(v if v is not None else 0) if higher else (v or 0), row["system"].lower())

    return order


def attach_auto_clusters(board: dict, results: dict | None) -> dict:
    """The automatic metrics' clusters (the ``rank`` job's results) on the board: per row and metric
    ``rank_range`` and ``cluster``; ``board["auto"]``: the test, and per metric its ranking (best first)
    with the p-value of every pair, or why there is none. ``results`` None: still being computed."""
    if results is None:
        board["auto"] = {"state": "pending", "metrics": {}}
        return board
    by_id = {r["submission_id"]: r for r in board["rows"]}
    metrics = {}
    for c in board["columns"]:
        res = results.get("metrics", {}).get(c["key"])
        if res is None or "rows" not in res:
            metrics[c["key"]] = {"reason": (res or {}).get("reason", "not computed for this metric")}
            continue
        order = [sid for sid in res["order"] if sid in by_id]
        for sid in order:
            info = res["rows"][str(sid)]
            by_id[sid]["scores"][c["key"]].update(rank_range=info["rank_range"], cluster=info["cluster"])
        metrics[c["key"]] = {"order": order,
                             "pairs": {f"{a}-{b}": [p, w] for a, b, p, w in res["pairs"]}}
    board["auto"] = {"state": "ready", "test": results["test"], "n_samples": results["n_samples"],
                     "seed": results["seed"], "alpha": results["alpha"], "metrics": metrics}
    return board


def _versions(testset_id: int) -> tuple[int, int | None] | None:
    """(scores_version, the automatic clusters' version) in one query; None: no such test set."""
    row = db.session.execute(select(TestSet.scores_version, AutoRanking.scores_version)
                             .outerjoin(AutoRanking, AutoRanking.testset_id == TestSet.id)
                             .where(TestSet.id == testset_id)).first()
    return None if row is None else (row[0], row[1])


@event.listens_for(Session, "after_commit")
def _forget_changed(session) -> None:
    """A committed write that changed a leaderboard (:func:`~enface.services.testsets.note_leaderboard_change`): read again."""
    for testset_id in session.info.pop(LEADERBOARD_CHANGES, ()):
        forget_versions(testset_id)


@event.listens_for(Session, "after_rollback")
def _drop_changed(session) -> None:
    session.info.pop(LEADERBOARD_CHANGES, None)
    session.info.pop(SCORES_CHANGES, None)


@db.after_write
def _rank_changed(session) -> None:
    """Scores changed (a scoring job, a withdrawal, a primary switch, a release): queue the clusters now, so
    that the first visitor after the change does not find them still being computed.

    Not with eager jobs (tests): there the first view computes them before it answers, so nobody sees them
    pending, and computing them after every write would make each scoring wait for the bootstrap."""
    changed = session.info.pop(SCORES_CHANGES, ())
    if current_app.config.get("JOBS") == "eager":
        return
    for testset_id in sorted(changed):
        auto_ranking.request(testset_id)


def current_versions(testset_id: int) -> tuple[int, int | None] | None:
    """The versions :func:`get_leaderboard` builds for: read from the database at most once per
    VERSION_CHECK_SECONDS per process (at once after a change this process committed)."""
    if not current_app.config.get("LEADERBOARD_CACHE", True):
        return _versions(testset_id)
    return _current_versions(testset_id)


def _current_versions(testset_id: int) -> tuple[int, int | None] | None:
    """The versions, read from the database at most once per VERSION_CHECK_SECONDS per process."""
    now = time.monotonic()
    with _lock:
        hit = _checked.get(testset_id)
    if hit is not None and now - hit[0] < VERSION_CHECK_SECONDS:
        return hit[1]
    versions = _versions(testset_id)
    if versions is not None:
        with _lock:
            _checked[testset_id] = (now, versions)
    return versions


def get_leaderboard(testset_id: int, *, frozen: bool = False) -> dict:
    """All rows of a test set's leaderboard, cached until its scores, labels, releases or clusters change.

    ``frozen``: the automatic standings as of the freeze (:mod:`~enface.services.freeze`), when the test set is
    frozen, with the human rankings released since; else the live ones.

    The key is (scores_version, the clusters' version), read in one query per request:
    ``scores_version`` is raised in the transaction that writes scores, withdraws a
    submission, switches the primary or releases a human evaluation, so the cache is right
    in every web process without any message between them: at once in the process that
    wrote, within VERSION_CHECK_SECONDS in the others. When the automatic clusters are
    not computed for the current version, the ``rank`` job is queued (at once in eager mode).
    """
    use_cache = current_app.config.get("LEADERBOARD_CACHE", True)
    versions = _current_versions(testset_id) if use_cache else _versions(testset_id)
    if versions is None:
        raise NotFound("test set")
    key = (testset_id, frozen)
    if use_cache:
        with _lock:
            hit = _cache.get(key)
        if hit is not None and hit[0] == versions and (
                hit[2]["auto"]["state"] == "ready" or time.monotonic() - hit[1] < PENDING_TTL):
            with _lock:
                if key in _cache:
                    _cache.move_to_end(key)
            return hit[2]
    if versions[1] != versions[0]:
        auto_ranking.request(testset_id)     # eager (tests, make demo without a broker): computed now
        db.session.commit()                  # (nothing to write: ends the read snapshot, to see the job's row)
        forget_versions(testset_id)
        versions = _versions(testset_id)
    ts = db.session.get(TestSet, testset_id)
    if frozen and ts.frozen_board is not None:
        board = copy.deepcopy(ts.frozen_board)
        board.setdefault("auto", {"state": "hidden", "metrics": {}})   # frozen before clusters were kept
        board["frozen_at"] = ts.frozen_at.isoformat() if ts.frozen_at else None
        # The frozen standings are the record: a system withdrawn since stays in them, marked (docs:
        # operations/security, "Withdrawn after a freeze").
        later = set(db.session.scalars(select(Submission.id).where(Submission.testset_id == ts.id,
                                                                   Submission.withdrawn_at.is_not(None))))
        for row in board["rows"]:
            row["withdrawn_after_freeze"] = row["submission_id"] in later
    else:
        board = _build(ts, auto_ranking.stored(testset_id))
        board["frozen_at"] = None
    board["testset_frozen_at"] = ts.frozen_at.isoformat() if ts.frozen_at else None
    for hook in _board_hooks:
        hook(board)
    board = order_by_human(board)   # before caching: the cached board is the ordered one
    board["released"] = ts.released
    board["fragments"] = {}   # the pages' rendered content for this board (enface.leaderboard.views)
    if use_cache:
        with _lock:
            _cache[key] = (versions, time.monotonic(), board)
            _cache.move_to_end(key)
            while len(_cache) > _CACHE_SIZE:
                _cache.popitem(last=False)
    return board


def human_columns(board: dict) -> list:
    """The human rankings released campaigns put on the board (their protocols'
    :class:`~enface.campaigns.contract.LeaderboardColumn`, each with its ``key`` and ``name``), in the
    order in which they order the board when several are released on one test set (the protocols' order)."""
    return list(board.get("human_columns") or [])


def human_names(board: dict) -> dict[str, str]:
    return {c.key: c.name for c in human_columns(board)}


def _human_rank(row: dict, key: str) -> dict | None:
    """``row[key]`` when the human ranking ``key`` ranked that row's system, else None."""
    m = row.get(key)
    if m and m.get("score") is not None and m.get("rank") is not None:
        return m
    return None


def ordering_human(board: dict) -> str | None:
    """The key of the released human ranking that orders the board (the first of :func:`human_columns`
    that ranks some row), or None."""
    return next((c.key for c in human_columns(board)
                 if board.get(c.key) and any(_human_rank(r, c.key) for r in board["rows"])), None)


def order_by_human(board: dict) -> dict:
    """The board ordered and highlighted by its released human ranking, if any.

    With several (e.g. an MQM and a rubric campaign on one test set), the first protocol's
    orders it (:func:`human_columns`); ``order_by`` names the one that does. The human ranking
    ranks all systems together; the page keeps its groups (in the WMT order), and within
    each group the systems the human evaluation ranked come by their human rank (best
    first), then the others in the automatic order. ``top`` marks the primary systems in
    the human ranking's first cluster; a primary group the human evaluation did not rank
    keeps its automatic highlight. ``sort_metric`` stays the automatic metric and the
    per-metric ``best`` marks are untouched. Without a released human ranking the board
    is returned as is. Returns a new board; the rows given are not changed.
    """
    key = ordering_human(board)
    if key is None:
        return board

    def ranked(row) -> dict | None:
        return _human_rank(row, key)

    group_index = {g: n for n, (g, _title) in enumerate(GROUPS)}
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
    out["order_by"] = key
    out["order_by_name"] = human_names(board)[key]
    out["order_unranked_groups"] = unranked
    return out


def human_rankings(board: dict) -> list[dict]:
    """The released human rankings across all systems on the board (the protocols' order): key, name,
    campaign, test."""
    out = []
    for key, name in human_names(board).items():
        ranking = (board.get(key) or {}).get("ranking")
        if ranking:
            out.append({"key": key, "name": name, "campaign": board[key]["campaign"],
                        "test": ranking["test"], "test_name": ranking["test_name"], "alpha": ranking["alpha"],
                        "unit": ranking["unit"], "higher_is_better": ranking["higher_is_better"],
                        "orders_board": board.get("order_by") == key})
    return out


def api_payload(board: dict) -> dict:
    """The leaderboard as the API and the JSON download give it."""
    return {"testset_id": board["testset_id"], "testset": board["testset"], "task": board["task"],
            "released": board["released"], "scope": board["scope"], "sort_metric": board["sort_metric"],
            "order_by": board.get("order_by", board["sort_metric"]),
            "columns": board["columns"], "signatures": board["signatures"],
            "auto": {k: v for k, v in board["auto"].items() if k != "metrics"},
            "human_rankings": human_rankings(board) if board["scope"] == "all" else [], "rows": api_rows(board)}


def can_see(user: User | None, ts: TestSet) -> bool:
    """Whether ``user`` gets a leaderboard page for ``ts`` (the rule of :func:`visible_leaderboard`):
    pages link to a leaderboard only for those who may open it."""
    authed = user is not None and getattr(user, "is_authenticated", False)
    return ts.released or (authed and (user.is_organizer or user.team_id is not None))


def visible_leaderboard(user: User | None, testset_id: int) -> dict:
    """The leaderboard as ``user`` may see it (organizers the live one, the others the frozen one if frozen).

    Released: everyone sees every row. Before release: organizers see every
    row, a team sees only its own rows, and anyone else gets NotFound.
    """
    authed = user is not None and getattr(user, "is_authenticated", False)
    if authed and user.is_organizer:
        return get_leaderboard(testset_id) | {"scope": "all", "viewer": "organizer"}
    ts = db.session.get(TestSet, testset_id)
    if ts is None:
        raise NotFound("test set")
    # Asked before the board is built: building it computes and stores the clusters, which a visitor
    # who gets a 404 must not be able to set off (nor learn anything from the time it takes).
    if not can_see(user, ts):
        raise NotFound("leaderboard (not released yet)")
    board = _public_view(get_leaderboard(testset_id, frozen=True))
    if board["released"]:
        return board | {"scope": "all"}
    if authed and user.team_id is not None:
        # Best-in-group marks, clusters and human rankings compare with other teams: not shown before release.
        human = board.get("human_keys", [])
        rows = sorted((_without_marks(r, human) for r in board["rows"] if r["team_id"] == user.team_id),
                      key=automatic_order(board["sort_metric"]))
        return board | {"rows": rows, "scope": "team", "auto": {"state": "hidden", "metrics": {}},
                        **{key: None for key in human}, "human_keys": [], "order_by": board["sort_metric"],
                        "order_unranked_groups": []}
    raise NotFound("leaderboard (not released yet)")


def _public_view(board: dict) -> dict:
    """The board without the operator's instructions in its n/a reasons (how to configure COMET, server
    paths); made once per cached board, with its own rendered fragments."""
    view = board.get("public_view")
    if view is None:
        view = board | {"na_reasons": {k: public_reason(v) for k, v in board["na_reasons"].items()},
                        "rows": [_public_reasons(r) for r in board["rows"]], "viewer": "public",
                        "fragments": {}}
        view.pop("public_view", None)
        board["public_view"] = view
    return view


def _public_reasons(row: dict) -> dict:
    row = dict(row)
    row["scores"] = {k: {**v, "reason": public_reason(v.get("reason"))} for k, v in row["scores"].items()}
    return row


def _without_marks(row: dict, human_keys=()) -> dict:
    row = dict(row)
    row.pop("top", None)
    for key in human_keys:
        row[key] = None
    row["scores"] = {k: {kk: vv for kk, vv in v.items() if kk not in ("best", "rank_range", "cluster")}
                     for k, v in row["scores"].items()}
    return row


def grouped(board: dict) -> list[dict]:
    return [{"key": key, "title": title, "rows": [r for r in board["rows"] if r["group"] == key]}
            for key, title in GROUPS]


#: what the API gives of a row's place in a human ranking
HUMAN_ROW_FIELDS = ("score", "rank", "rank_range", "cluster")


def api_rows(board: dict) -> list[dict]:
    """The rows as the API gives them: per metric the score (or why not) and its automatic ``rank_range`` and
    ``cluster`` (None while not computed, or hidden); ``human``: per released human ranking the row's
    ``score``, ``rank``, ``rank_range`` and ``cluster`` (None outside it); and as before, the part of each
    protocol whose column has ``api_row_field`` under its key."""
    keys = [c.key for c in human_columns(board) if board.get(c.key)]
    fields = board.get("api_row_fields") or []
    return [{"submission_id": r["submission_id"], "team": r["team"], "system": r["system"], "label": r["label"],
             "constrained": r["constrained"], "baseline": r["baseline"], "group": r["group"],
             "document_level": r["document_level"],
             "scores": {k: {"score": v["score"], "reason": v["reason"] if v["score"] is None else None,
                            "rank_range": v.get("rank_range"), "cluster": v.get("cluster")}
                        for k, v in r["scores"].items()},
             "human": {key: ({f: r[key].get(f) for f in HUMAN_ROW_FIELDS} if _human_rank(r, key) else None)
                       for key in keys},
             **{key: r.get(key) for key in fields}} for r in board["rows"]]


#: The columns of the CSV download per released human ranking: header after its name, field of ``row[key]``.
HUMAN_CSV_COLUMNS = [("", "score"), (" rank", "rank"), (" rank range", "rank_range"), (" cluster", "cluster")]


def _number(value) -> str:
    """A score cell: 4 decimals (the page shows 2, the JSON download full precision); empty when missing."""
    return "" if value is None else f"{value:.4f}"


def to_csv(board: dict) -> str:
    """The scores as a plain table that pandas and spreadsheets read as is.

    Rows in the page's order (its groups in the WMT order, within a group the page's
    order), a ``group`` column, numbers in the metric columns (an empty cell where the
    page says n/a), a released human ranking's columns under its name (e.g. "MQM", "MQM
    rank", ...), no comment lines: the signatures are in :func:`signatures_csv`.
    """
    out = io.StringIO()
    writer = csvsafe.writer(out)
    keys = [c["key"] for c in board["columns"]]
    human = [(c.key, c.name) for c in human_columns(board)
             if board.get(c.key) is not None and (c.shown_without_ranking or board[c.key].get("ranking"))]
    writer.writerow(["group", "team", "system", "label", "constrained", "baseline", "submission_id",
                     *[c["name"] for c in board["columns"]],
                     *[name + h for _key, name in human for h, _f in HUMAN_CSV_COLUMNS]])
    for group in grouped(board):
        for r in group["rows"]:
            cells = [r["group"], r["team"], r["system"], r["label"],
                     "yes" if r["constrained"] else "no", "yes" if r["baseline"] else "no", r["submission_id"],
                     *[_number(r["scores"][k]["score"]) for k in keys]]
            for key, _name in human:   # empty cells for a system outside the human evaluation
                place = r.get(key) or {}
                cells += [_number(place.get("score")),
                          *["" if place.get(f) is None else place[f] for _h, f in HUMAN_CSV_COLUMNS[1:]]]
            writer.writerow(cells)
    return out.getvalue()


def signatures_csv(board: dict) -> str:
    """The sidecar of :func:`to_csv`: one row per metric signature (columns metric, signature).

    ``metric`` is the metric's column title in the scores CSV; a metric scored under
    several signatures has several rows, one without a score has none.
    """
    out = io.StringIO()
    writer = csvsafe.writer(out)
    writer.writerow(["metric", "signature"])
    for c in board["columns"]:
        for sig in board["signatures"].get(c["key"], []):
            writer.writerow([c["name"], sig])
    return out.getvalue()


_board_hooks: list = []


def add_board_hook(hook) -> None:
    """``hook(board)`` adds columns to every leaderboard built (the campaigns' human rankings).

    Registered by the app factory, so that the leaderboard imports no campaign code.
    """
    if hook not in _board_hooks:
        _board_hooks.append(hook)


def cluster_panels(board: dict) -> list[dict]:
    """Per metric with clusters: its ranking best first (system, score, rank range, a line above a new
    cluster), for the page's "Significance clusters" section (all rows only: clusters compare teams)."""
    if board.get("scope") != "all":
        return []
    by_id = {r["submission_id"]: r for r in board["rows"]}
    out = []
    for c in board["columns"]:
        auto = board["auto"]["metrics"].get(c["key"], {})
        if "order" not in auto:
            continue
        rows, prev = [], None
        for sid in auto["order"]:
            s = by_id[sid]["scores"][c["key"]]
            rows.append({"system": by_id[sid]["system"], "group": by_id[sid]["group"], "score": s["score"],
                         "rank_range": s.get("rank_range"), "break": prev is not None and s.get("cluster") != prev})
            prev = s.get("cluster")
        out.append({"key": c["key"], "name": c["name"], "higher_is_better": c["higher_is_better"], "rows": rows})
    return out
