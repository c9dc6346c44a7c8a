"""One ranking module: the WMT cluster rule and rank ranges, shared by automatic metrics and MQM.

Pure Python (no numpy, no scipy): ``scoring.significance`` (paired bootstrap /
randomisation on sacrebleu statistics) and ``mqm.significance`` (paired Wilcoxon
on MQM units) both build their clusters and ranges here. ``mqm`` may import
``scoring`` (``import scoring`` is light and ``scoring`` never imports ``mqm``,
so the import graph stays acyclic, see tests/test_import_cycles.py).

Input everywhere: a best-first ``order`` of systems and ``beats``, the set of
``(winner, loser)`` pairs where the winner is *significantly* better.

Two notions that used to share the name "rank range"
----------------------------------------------------

* **significance rank range** (:func:`significance_rank_ranges`, the fields
  ``rank_low``/``rank_high`` of :func:`rank_and_cluster`): ``losses + 1 .. N - wins``.
  A system's best possible rank is 1 + the number of systems significantly better
  than it; its worst is N - the number of systems it is significantly better than.
* **cluster rank range** (:func:`cluster_rank_ranges`, the field
  ``cluster_rank_range``): the positions its cluster spans in the ranking
  (a cluster of three systems at positions 2, 3, 4 gives ``2..4`` to each of them).
  (The MQM leaderboard once showed this as "rank_range"; ``rank_range`` now always
  names the significance rank range, as text: ``"2–4"``.)

Cluster rules (``method``)
--------------------------

* ``"wmt"`` (the WMT findings convention since WMT20): a boundary falls between
  positions k and k+1 exactly when every one of the top k systems is
  significantly better than every one of the remaining N-k.
* ``"rank_range"``: a boundary falls between k and k+1 when the significance rank
  ranges of the top k do not overlap those of the rest (max ``rank_high`` above <
  min ``rank_low`` below), the older WMT13-16 convention. Every "wmt" boundary is
  also a "rank_range" boundary.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

CLUSTER_METHODS = ("wmt", "rank_range")


def _beats(systems: Sequence[str], better: Iterable[tuple[str, str]], strict: bool) -> set[tuple[str, str]]:
    known = set(systems)
    beats = set()
    for a, b in better:
        if a not in known or b not in known:
            if strict:
                raise ValueError(f"unknown system in significant pair ({a!r}, {b!r})")
            continue
        beats.add((a, b))
    return beats


def wins_losses(systems: Sequence[str], better: Iterable[tuple[str, str]], *,
                strict: bool = True) -> dict[str, tuple[int, int]]:
    """``{system: (wins, losses)}``: how many systems it significantly beats / is beaten by."""
    beats = _beats(systems, better, strict)
    return {s: (sum((s, t) in beats for t in systems if t != s), sum((t, s) in beats for t in systems if t != s))
            for s in systems}


def significance_rank_ranges(systems: Sequence[str], better: Iterable[tuple[str, str]], *,
                             strict: bool = True) -> dict[str, tuple[int, int]]:
    """``{system: (losses + 1, N - wins)}``: the best and worst rank the significant pairs allow."""
    n = len(systems)
    return {s: (losses + 1, n - wins) for s, (wins, losses) in wins_losses(systems, better, strict=strict).items()}


def cluster_boundaries(order: Sequence[str], better: Iterable[tuple[str, str]], *, method: str = "wmt",
                       strict: bool = True) -> list[bool]:
    """For k = 1 .. N-1: whether a cluster boundary falls between positions k and k+1 of ``order``."""
    if method not in CLUSTER_METHODS:
        raise ValueError(f"unknown cluster method {method!r}; use one of {CLUSTER_METHODS}")
    beats = _beats(order, better, strict)
    out = []
    if method == "wmt":
        for k in range(1, len(order)):
            out.append(all((a, b) in beats for a in order[:k] for b in order[k:]))
    else:
        ranges = significance_rank_ranges(order, beats)
        for k in range(1, len(order)):
            out.append(max(ranges[a][1] for a in order[:k]) < min(ranges[b][0] for b in order[k:]))
    return out


def clusters(order: Sequence[str], better: Iterable[tuple[str, str]], *, method: str = "wmt",
             strict: bool = True) -> list[list[str]]:
    """Split a best-first ``order`` into clusters (see the module's doc for the rules)."""
    cuts = cluster_boundaries(order, better, method=method, strict=strict)
    out: list[list[str]] = []
    for i, system in enumerate(order):
        if i == 0 or cuts[i - 1]:
            out.append([])
        out[-1].append(system)
    return out


def cluster_rank_ranges(groups: Sequence[Sequence[str]]) -> dict[str, tuple[int, int]]:
    """``{system: (first, last)}``: the 1-based positions its cluster spans in the ranking."""
    out, position = {}, 0
    for group in groups:
        first, last = position + 1, position + len(group)
        for system in group:
            out[system] = (first, last)
        position = last
    return out


def format_range(low: int, high: int, dash: str = "–") -> str:
    """``"3"`` for a single rank, ``"2–4"`` for a range."""
    return str(low) if low == high else f"{low}{dash}{high}"


def order_by_score(scores: Mapping[str, float], higher_is_better: bool = True) -> list[str]:
    """Systems best first; equal scores keep the input order."""
    pos = {s: i for i, s in enumerate(scores)}
    return sorted(scores, key=lambda s: ((-scores[s] if higher_is_better else scores[s]), pos[s]))


def ranking_rows(order: Sequence[str], better: Iterable[tuple[str, str]], *, method: str = "wmt",
                 strict: bool = True) -> list[dict]:
    """One row per system of a best-first ``order``: the one place where rows of a ranking are built.

    ``system``, ``rank`` (position), ``wins``, ``losses``, ``rank_low`` (= losses + 1),
    ``rank_high`` (= N - wins), ``rank_range`` (their text, "2–4": the significance rank
    range, the only meaning of ``rank_range``), ``cluster`` (1-based) and
    ``cluster_rank_range`` ([first, last] positions of its cluster).
    """
    beats = _beats(order, better, strict)
    wl = wins_losses(order, beats)
    n = len(order)
    groups = clusters(order, beats, method=method)
    spans = cluster_rank_ranges(groups)
    cluster_of = {s: i for i, g in enumerate(groups, 1) for s in g}
    return [{"system": s, "rank": i, "wins": wl[s][0], "losses": wl[s][1], "rank_low": wl[s][1] + 1,
             "rank_high": n - wl[s][0], "rank_range": format_range(wl[s][1] + 1, n - wl[s][0]),
             "cluster": cluster_of[s], "cluster_rank_range": list(spans[s])}
            for i, s in enumerate(order, 1)]


def rank_and_cluster(scores: Mapping[str, float], better: Iterable[tuple[str, str]], *,
                     higher_is_better: bool = True, method: str = "wmt") -> list[dict]:
    """Rank ranges and clusters from scores and significant pairwise wins.

    Returns :func:`ranking_rows` of the systems ordered by score (best first), each
    with its ``score``.
    """
    if method not in CLUSTER_METHODS:
        raise ValueError(f"unknown cluster method {method!r}; use one of {CLUSTER_METHODS}")
    rows = ranking_rows(order_by_score(scores, higher_is_better), better, method=method)
    for row in rows:
        row["score"] = scores[row["system"]]
    return rows
