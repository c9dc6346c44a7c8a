"""Reader studies: each metric's per-chunk difference between the two versions against the readers' choices.

A reader study (LAIT, ``humaneval``) shows two versions of each chunk side by side
and asks which one the reader prefers. Per judgment (one reader, one chunk):

* the readers' signed preference is +1 when the reader preferred version "1", -1 for "2"
  (version 1 is conventionally the human translation, so positive favours it, as in LAIT);
* the metric's difference is oriented score(version 1) - oriented score(version 2),
  positive when the metric favours version 1 (lower-is-better metrics are negated first).

``kendall`` is Kendall's tau (tau-b by default: the readers' side is all ties but two
values) between the differences and the signed preferences over every judgment;
``agreement`` is how often the metric prefers the version the reader preferred (a chunk
the metric scores equal counts as not agreeing; ``metric_ties`` says how many).
``readers_agree`` repeats both over the judgments of chunks where every reader (at least
two) chose the same version.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .stats import clean, kendall, p_value

VERSIONS = ("1", "2")
MIN_JUDGEMENTS = 3


@dataclass(frozen=True)
class ChunkJudgement:
    """One reader's choice between the two versions of one chunk."""

    document: str
    chunk: int
    reader: str
    versions: tuple[str, str]              # the systems (names) shown as version "1" and "2"
    preference: str                        # "1" or "2"
    #: the chunk's segments: (test-set document, first position, end position), 0-based, end exclusive
    segments: tuple[str, int, int] | None = None

    @property
    def signed(self) -> int:
        return 1 if self.preference == "1" else -1


ChunkScores = Mapping[tuple[str, int, str], float]   # (document, chunk, system) -> metric score


def _stats(diffs: np.ndarray, signed: np.ndarray, variant: str) -> dict[str, Any]:
    tau = kendall(variant)
    agree = int(np.sum(np.sign(diffs) == signed))
    return {"n": len(diffs), "kendall": clean(tau(diffs, signed)), "kendall_p_value": p_value("kendall", diffs, signed,
                                                                                            variant),
            "agreement": agree / len(diffs) if len(diffs) else None, "agreements": agree,
            "metric_ties": int(np.sum(diffs == 0))}


def chunk_level(judgements: Sequence[ChunkJudgement], scores: ChunkScores, *, metric_higher_is_better: bool = True,
                kendall_variant: str = "b") -> dict[str, Any]:
    """The metric's chunk differences against the readers' signed preferences (see the module's text)."""
    rows, missing = [], []
    for j in judgements:
        a, b = (scores.get((j.document, j.chunk, v)) for v in j.versions)
        if a is None or b is None or math.isnan(a) or math.isnan(b):
            missing.append(j)
            continue
        diff = (a - b) if metric_higher_is_better else (b - a)
        rows.append((j, diff))
    if len(rows) < MIN_JUDGEMENTS:
        why = f"{len(rows)} chunk judgement(s) with a metric score of both versions; need at least {MIN_JUDGEMENTS}"
        if missing:
            lacking = sorted({v for j in missing for v in j.versions
                              if scores.get((j.document, j.chunk, v)) is None})
            why += f" (no score for: {', '.join(lacking)})" if lacking else ""
        return {"available": False, "reason": why, "n": len(rows)}
    diffs = np.array([d for _j, d in rows], dtype=np.float64)
    signed = np.array([j.signed for j, _d in rows], dtype=np.float64)
    out: dict[str, Any] = {"available": True, "kendall_variant": f"tau-{kendall_variant}",
                           "sign": "positive = favours version 1", "skipped": len(missing),
                           **_stats(diffs, signed, kendall_variant)}
    # what each side prefers overall: readers per judgement, the metric per chunk
    out["readers_prefer"] = {"1": int(np.sum(signed > 0)), "2": int(np.sum(signed < 0))}
    per_chunk = {(j.document, j.chunk): d for j, d in rows}
    vals = np.array(list(per_chunk.values()))
    out["metric_prefers"] = {"1": int(np.sum(vals > 0)), "2": int(np.sum(vals < 0)), "tie": int(np.sum(vals == 0))}
    out["mean_difference"] = float(np.mean(vals))
    by_chunk: dict[tuple[str, int], set[str]] = defaultdict(set)
    count: dict[tuple[str, int], int] = defaultdict(int)
    for j, _d in rows:
        by_chunk[(j.document, j.chunk)].add(j.preference)
        count[(j.document, j.chunk)] += 1
    agreed = [k for k, prefs in by_chunk.items() if len(prefs) == 1 and count[k] >= 2]
    keep = [n for n, (j, _d) in enumerate(rows) if (j.document, j.chunk) in set(agreed)]
    out["readers_agree"] = ({"chunks": len(agreed), **_stats(diffs[keep], signed[keep], kendall_variant)}
                            if keep else {"chunks": 0, "n": 0})
    return out


def chunk_scores_from_segments(judgements: Sequence[ChunkJudgement],
                               segments: Mapping[str, Mapping[tuple[str, int], float]]) -> dict:
    """Per chunk and version, the mean of the version's segment scores over the chunk's segments.

    ``segments`` is ``{system: {(document, segment position 0-based): score}}``. A chunk gets a
    score only when every one of its segments has one (LAIT averages paragraph scores per chunk).
    """
    out: dict[tuple[str, int, str], float] = {}
    for j in judgements:
        if j.segments is None:
            continue
        doc, start, end = j.segments
        for system in j.versions:
            seg = segments.get(system)
            if seg is None or (j.document, j.chunk, system) in out:
                continue
            values = [seg.get((doc, p)) for p in range(start, end)]
            if values and all(v is not None for v in values):
                out[(j.document, j.chunk, system)] = float(np.mean(values))
    return out


def versions_of(judgements: Sequence[ChunkJudgement]) -> list[str]:
    """The systems compared, in the order first seen."""
    return list(dict.fromkeys(v for j in judgements for v in j.versions))
