"""MQM scores of systems (and per rater, per document, per segment).

``per_source_word`` schemes (wmt23-literary): for each annotator,
``S = 100 * (1 - sum of penalties / source words)`` over the segments that
annotator judged, clamped at 0; a system's score is the mean over its
annotators. Higher is better.

``segment_sum`` schemes (google-mqm): a segment's score is the sum of its error
weights for each rater, averaged over the raters of that segment; a system's
score is the mean over its segments. Lower is better.

A segment counts as judged by a rater when the rater has an error or a
``No-error`` row for it; attention-check rows never count. Every error row
adds its weight, a Major Non-translation mark (25) included: errors the same rater
marked next to it still add, as in the scores Anthea stores with its data.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from statistics import fmean
from typing import Any

from .model import MQMData, MQMInputError, SegKey
from .schemes import Scheme
from .words import WordCounter

BY = ("system", "rater", "doc")


@dataclass
class Prepared:
    """Per (segment, rater) penalties and severity counts, and per-segment source words."""

    scheme: Scheme
    rated: dict[SegKey, set[str]]
    penalty: dict[tuple[SegKey, str], float]
    counts: dict[tuple[SegKey, str], Counter]
    words: dict[SegKey, int]
    words_method: str


def prepare(data: MQMData, scheme: Scheme, words: WordCounter | None = None) -> Prepared:
    if words is None:
        words = WordCounter.for_texts((s.source for s in data.segments.values()))
    penalty: dict[tuple[SegKey, str], float] = defaultdict(float)
    counts: dict[tuple[SegKey, str], Counter] = defaultdict(Counter)
    for error in data.errors:
        sev = scheme.severity(error.severity)
        if sev is None:
            raise MQMInputError(f"unknown severity {error.severity!r} for scheme {scheme.name} "
                                f"(expected one of: {', '.join(scheme.severity_names)})", data.path, error.line)
        penalty[(error.key, error.rater)] += scheme.weight(error.full_category, sev.name)
        counts[(error.key, error.rater)][sev.name] += 1
    return Prepared(scheme=scheme, rated=data.rated(), penalty=penalty, counts=counts,
                    words={key: words(seg.source) for key, seg in data.segments.items()},
                    words_method=words.method)


def _per_word(p: Prepared, segs: list[SegKey], rater: str) -> float | None:
    total = sum(p.words[s] for s in segs)
    if total <= 0:
        return None
    return max(0.0, 100.0 * (1.0 - sum(p.penalty.get((s, rater), 0.0) for s in segs) / total))


def group_score(p: Prepared, pairs: list[tuple[SegKey, str]]) -> dict[str, Any]:
    """Score, segments, source words and error counts of a set of (segment, rater) judgements."""
    by_rater: dict[str, list[SegKey]] = defaultdict(list)
    by_seg: dict[SegKey, list[str]] = defaultdict(list)
    errors: Counter = Counter({name: 0 for name in p.scheme.severity_names})
    for seg, rater in pairs:
        by_rater[rater].append(seg)
        by_seg[seg].append(rater)
        errors.update(p.counts.get((seg, rater), {}))
    if p.scheme.scoring == "per_source_word":
        values = [v for r, segs in by_rater.items() if (v := _per_word(p, segs, r)) is not None]
    else:
        values = [fmean(p.penalty.get((s, r), 0.0) for r in raters) for s, raters in by_seg.items()]
    return {"score": fmean(values) if values else None, "segments": len(by_seg),
            "source_words": sum(p.words[s] for s in by_seg), "errors": dict(errors)}


def _pairs(p: Prepared, key: Callable[[SegKey, str], tuple[str, ...]]) -> dict[tuple[str, ...], list]:
    groups: dict[tuple[str, ...], list[tuple[SegKey, str]]] = defaultdict(list)
    for seg, raters in p.rated.items():
        for rater in sorted(raters):
            groups[key(seg, rater)].append((seg, rater))
    return groups


def grouped(p: Prepared, by: str = "system") -> dict[str, Any]:
    """{system: row} for by="system", else {system: {rater|doc: row}}."""
    if by not in BY:
        raise ValueError(f"by must be one of {', '.join(BY)}")
    keyfn = {"system": lambda s, r: (s[0],), "rater": lambda s, r: (s[0], r),
             "doc": lambda s, r: (s[0], s[1])}[by]
    out: dict[str, Any] = {}
    for key, pairs in sorted(_pairs(p, keyfn).items()):
        row = group_score(p, pairs)
        if by == "system":
            out[key[0]] = row
        else:
            out.setdefault(key[0], {})[key[1]] = row
    return out


def score(data: MQMData, scheme: Scheme, *, by: str = "system", words: WordCounter | None = None) -> dict[str, Any]:
    """The ``python -m mqm score --json`` object."""
    p = prepare(data, scheme, words)
    return {"scheme": scheme.name, "higher_is_better": scheme.higher_is_better, "by": by,
            "source_words_method": p.words_method, "scores": grouped(p, by),
            "attention_checks": data.attention_summary()}


def segment_scores(p: Prepared) -> dict[SegKey, float]:
    """Each segment's score, averaged over its raters (per-word schemes: per-segment S)."""
    out = {}
    for seg, raters in p.rated.items():
        if p.scheme.scoring == "per_source_word":
            values = [v for r in raters if (v := _per_word(p, [seg], r)) is not None]
            if values:
                out[seg] = fmean(values)
        else:
            out[seg] = fmean(p.penalty.get((seg, r), 0.0) for r in raters)
    return out


def unit_scores(p: Prepared, unit: str = "doc") -> dict[str, dict[Any, float]]:
    """{system: {unit: score}} with units that line up across systems (docs or segments)."""
    out: dict[str, dict[Any, float]] = defaultdict(dict)
    if unit == "doc":
        for system, docs in grouped(p, "doc").items():
            out[system] = {doc: row["score"] for doc, row in docs.items() if row["score"] is not None}
    elif unit == "segment":
        for (system, doc, doc_seg, seg_id), value in segment_scores(p).items():
            out[system][(doc, doc_seg, seg_id)] = value
    else:
        raise ValueError("unit must be 'doc' or 'segment'")
    return dict(out)


def ranked(scores: dict[str, Any], higher_is_better: bool) -> list[str]:
    """Systems best first (systems without a score last)."""
    def key(system: str) -> tuple[int, float]:
        value = scores[system]["score"]
        if value is None:
            return (1, 0.0)
        return (0, -value if higher_is_better else value)
    return sorted(scores, key=key)
