"""What the leaderboard's rankings give besides the page: the head-to-head matrix and the paper's tables.

Everything is read from the (cached) board: the automatic clusters the ``rank`` job
computed and the human ranking frozen at release; no test runs per request.
"""

from __future__ import annotations

from scoring import tables

from . import NotFound
from .leaderboard import human_columns

#: (p-value bound, mark), strictest first
MARKS = [(0.001, "***"), (0.01, "**"), (0.05, "*")]


def mark(p_value: float | None, significant: bool) -> str:
    """``***`` p < 0.001, ``**`` p < 0.01, ``*`` p < 0.05, for a significant difference; else empty."""
    if not significant or p_value is None:
        return ""
    return next((m for bound, m in MARKS if p_value < bound), "")


def _all_rows(board: dict) -> None:
    if board.get("scope") != "all":
        raise NotFound("rankings (not released yet)")


#: the head-to-head choice (and paper table ``which``) of the human ranking that orders the board
ORDERING_CHOICE = "human"


def choice_rankings(board: dict) -> dict[str, str]:
    """{head-to-head choice / paper table ``which``: protocol key} of the board's human rankings."""
    return {c.choice: c.key for c in human_columns(board)}


def _released(board: dict, key: str) -> dict | None:
    """The released human ranking across all systems of protocol ``key`` on the board, or None."""
    return (board.get(key) or {}).get("ranking")


def metric_choices(board: dict) -> list[dict]:
    """The head-to-head page's choices: the released human rankings (in the protocols' order), then every
    metric with clusters."""
    _all_rows(board)
    out = []
    for c in human_columns(board):
        if _released(board, c.key):
            out.append({"key": c.choice, "name": board[c.key]["ranking"]["name"] + " (human)"})
    for c in board["columns"]:
        if "order" in board["auto"]["metrics"].get(c["key"], {}):
            out.append({"key": c["key"], "name": c["name"]})
    return out


def head_to_head(board: dict, metric: str) -> dict:
    """The matrix of one metric (a column key, or ``"human"``): systems best first; cell (row, column): the
    score difference row − column, its p-value and mark, and ``win``/``loss`` when significant."""
    _all_rows(board)
    choices = choice_rankings(board)
    if metric in choices:
        return _human_matrix(board, choices[metric])
    column = next((c for c in board["columns"] if c["key"] == metric), None)
    auto = board["auto"]["metrics"].get(metric) if column else None
    if auto is None or "order" not in auto:
        raise NotFound(f"significance results for {metric!r}")
    by_id = {r["submission_id"]: r for r in board["rows"]}
    systems = [{"id": sid, "name": by_id[sid]["system"], "score": by_id[sid]["scores"][metric]["score"],
                "rank_range": by_id[sid]["scores"][metric].get("rank_range"), "kind": by_id[sid]["group"]}
               for sid in auto["order"]]

    def pair(a: dict, b: dict):
        p, winner = auto["pairs"].get(f"{a['id']}-{b['id']}") or auto["pairs"].get(f"{b['id']}-{a['id']}") or (None,
                                                                                                               None)
        return p, winner == a["id"], winner == b["id"]

    test = {"bs": "paired bootstrap resampling", "ar": "paired approximate randomisation"}[board["auto"]["test"]]
    return _matrix(systems, pair, name=column["name"], higher_is_better=column["higher_is_better"],
                   test=f"{test}, {board['auto']['n_samples']} resamples")


def _human_matrix(board: dict, key: str) -> dict:
    ranking = _released(board, key)
    if not ranking:
        raise NotFound("released human ranking across all systems")
    systems = [{"id": r["system"], "name": r["system"], "score": r["score"], "rank_range": r["rank_range"],
                "kind": r["kind"]} for r in ranking["rows"]]
    pairs = {(p["a"], p["b"]): p for p in ranking["pairs"]}

    def pair(a: dict, b: dict):
        p = pairs.get((a["id"], b["id"])) or pairs.get((b["id"], a["id"]))
        if p is None:
            return None, False, False
        return p["p_value"], p["significant"] and p["better"] == a["id"], p["significant"] and p["better"] == b["id"]

    unit = {"segment": "segments", "doc": "documents", "phenomenon item": "phenomenon items"}.get(ranking["unit"],
                                                                                                 ranking["unit"])
    return _matrix(systems, pair, name=ranking["name"], higher_is_better=ranking["higher_is_better"],
                   test=f"{ranking['test_name']} over {unit}")


def _matrix(systems: list[dict], pair, *, name: str, higher_is_better: bool, test: str) -> dict:
    cells = []
    for a in systems:
        row = []
        for b in systems:
            if a is b:
                row.append(None)
                continue
            p, a_wins, b_wins = pair(a, b)
            delta = None if a["score"] is None or b["score"] is None else a["score"] - b["score"]
            row.append({"delta": delta, "p_value": p, "mark": mark(p, a_wins or b_wins),
                        "result": "win" if a_wins else "loss" if b_wins else ""})
        cells.append(row)
    return {"name": name, "higher_is_better": higher_is_better, "test": test, "systems": systems, "cells": cells}


# --------------------------------------------------------------------------- the paper's tables


def automatic_rows(board: dict) -> list[dict]:
    """The board's rows as :func:`scoring.tables.latex_automatic` takes them (the page's order)."""
    _all_rows(board)
    return [{"system": r["system"], "team": r["team"], "group": r["group"], "constrained": r["constrained"],
             "scores": {k: v["score"] for k, v in r["scores"].items()},
             "rank_ranges": {k: v["rank_range"] for k, v in r["scores"].items() if v.get("rank_range")}}
            for r in board["rows"]]


def human_ranking(board: dict, which: str = "human") -> dict:
    """The ranking of the human table ``which``: "human" is the first released one (the one that orders
    the board), another choice that protocol's (:attr:`LeaderboardColumn.choice`)."""
    _all_rows(board)
    key = choice_rankings(board).get(which)
    if which == ORDERING_CHOICE:
        key = next((c.key for c in human_columns(board) if _released(board, c.key)), None)
    ranking = _released(board, key) if key else None
    if not ranking:
        raise NotFound("released human ranking across all systems")
    return ranking


def table(board: dict, which: str, fmt: str) -> str:
    """``which``: "automatic" or "human"; ``fmt``: "tex" or "csv"."""
    caption = f"{board['testset']} ({board['src_lang']}→{board['tgt_lang']})"
    if which == "automatic":
        rows, metrics = automatic_rows(board), board["columns"]
        if fmt == "tex":
            test = board["auto"].get("test")
            note = (" Subscripts: rank ranges from paired bootstrap resampling (p < 0.05)." if test else "")
            return tables.latex_automatic(rows, metrics, caption=f"Automatic evaluation, {caption}.{note}",
                                          label=f"tab:automatic-{board['testset_id']}")
        return tables.csv_automatic(rows, metrics)
    if which == ORDERING_CHOICE or which in choice_rankings(board):
        ranking = human_ranking(board, which)
        if fmt == "tex":
            return tables.latex_human(ranking["rows"], name=ranking["name"],
                                      higher_is_better=ranking["higher_is_better"],
                                      caption=f"Human evaluation ({ranking['name']}), {caption}; clusters from the "
                                              f"{ranking['test_name']} (p < {ranking['alpha']}).",
                                      label=f"tab:human-{board['testset_id']}")
        return tables.csv_human(ranking["rows"], name=ranking["name"])
    raise NotFound(f"table {which!r}")
