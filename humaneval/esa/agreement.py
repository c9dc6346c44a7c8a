"""Agreement between ESA annotators on the segments two or more of them rated.

A shared segment is one system's translation of one source segment (see
:mod:`~humaneval.esa.segments`) with counted TGT ratings by at least two annotators (re-submissions:
the later one). Every pair of annotators on a shared segment is one **rating pair**,
ordered by annotator id.

* **Scores**: Pearson's r and Kendall's tau-b (``scipy.stats``) between the first
  and the second score of every rating pair, pooled over the shared segments.
* **Span overlap**, character level, micro-averaged over the rating pairs. Each
  rating marks a set of characters of the translation: the characters
  ``start_i .. end_i`` (inclusive) of each span, and one extra "character" for the
  ``[missing]`` marker. With A and B the two sets of a pair, summed over all pairs:

  - ``span_f1`` = 2 Σ|A ∩ B| / (Σ|A| + Σ|B|) (the Dice coefficient; the F1 of one
    annotator's characters against the other's, symmetric);
  - ``span_jaccard`` = Σ|A ∩ B| / Σ|A ∪ B|;
  - ``span_f1_severity``: as ``span_f1``, but a character only matches when both gave
    it the same severity (where one annotator's spans overlap, a character takes the
    most severe: major over minor over anything else).

  A pair where neither marked anything adds nothing to the sums; when no pair marked
  anything the overlaps are None. Pearson and Kendall are None with fewer than two
  pairs or constant scores.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from itertools import combinations
from typing import Any

from .appraise import ErrorSpan, ScoreRow
from .segments import latest, segment_keys

MISSING_CHAR = -1
_RANK = {"major": 2, "minor": 1}


@dataclass(frozen=True)
class RaterAgreement:
    segments: int            # shared segments
    pairs: int               # rating pairs on them
    pearson: float | None
    pearson_p: float | None
    kendall: float | None
    kendall_p: float | None
    span_f1: float | None
    span_jaccard: float | None
    span_f1_severity: float | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def marked_characters(spans: Iterable[ErrorSpan]) -> dict[int, str]:
    """``{character: severity}`` of a rating's spans (``[missing]`` is the character -1)."""
    out: dict[int, str] = {}
    for span in spans:
        chars = [MISSING_CHAR] if span.missing else range(span.start, span.end + 1)
        for c in chars:
            if c not in out or _RANK.get(span.severity, 0) > _RANK.get(out[c], 0):
                out[c] = span.severity
    return out


def span_overlap(pairs: Iterable[tuple[Sequence[ErrorSpan], Sequence[ErrorSpan]]]) -> dict[str, float | None]:
    """``span_f1``, ``span_jaccard`` and ``span_f1_severity`` of rating pairs (see the module's doc)."""
    inter = union = total = same = 0
    for spans_a, spans_b in pairs:
        a, b = marked_characters(spans_a), marked_characters(spans_b)
        common = a.keys() & b.keys()
        inter += len(common)
        union += len(a.keys() | b.keys())
        total += len(a) + len(b)
        same += sum(a[c] == b[c] for c in common)
    if not total:
        return {"span_f1": None, "span_jaccard": None, "span_f1_severity": None}
    return {"span_f1": 2 * inter / total, "span_jaccard": inter / union, "span_f1_severity": 2 * same / total}


def shared_segments(rows: Iterable[ScoreRow]) -> dict[tuple[str, int], dict[str, ScoreRow]]:
    """``{segment: {annotator: row}}`` for the segments that two or more annotators rated (counted TGT rows)."""
    scored = latest(r for r in rows if r.counts and not r.is_bad)
    by_segment: dict[tuple[str, int], dict[str, ScoreRow]] = defaultdict(dict)
    for row, key in zip(scored, segment_keys(scored), strict=True):
        by_segment[key][row.annotator] = row
    return {key: ratings for key, ratings in by_segment.items() if len(ratings) > 1}


def rating_pairs(shared: dict[tuple[str, int], dict[str, ScoreRow]]) -> list[tuple[ScoreRow, ScoreRow]]:
    """Every pair of different annotators' ratings of one shared segment, ordered by annotator id."""
    return [(ratings[a], ratings[b]) for ratings in shared.values() for a, b in combinations(sorted(ratings), 2)]


def _correlation(kind: str, xs: list[float], ys: list[float]) -> tuple[float | None, float | None]:
    if len(xs) < 2 or len(set(xs)) < 2 or len(set(ys)) < 2:
        return None, None
    from scipy.stats import kendalltau, pearsonr

    result = pearsonr(xs, ys) if kind == "pearson" else kendalltau(xs, ys)
    return float(result.statistic), float(result.pvalue)


def rater_agreement(rows: Iterable[ScoreRow]) -> RaterAgreement:
    """Score correlations and span overlap on the shared segments (see the module's doc)."""
    shared = shared_segments(rows)
    pairs = rating_pairs(shared)
    xs, ys = [a.score for a, _ in pairs], [b.score for _, b in pairs]
    pearson, pearson_p = _correlation("pearson", xs, ys)
    kendall, kendall_p = _correlation("kendall", xs, ys)
    overlap = span_overlap((a.spans, b.spans) for a, b in pairs)
    return RaterAgreement(segments=len(shared), pairs=len(pairs), pearson=pearson, pearson_p=pearson_p,
                          kendall=kendall, kendall_p=kendall_p, **overlap)
