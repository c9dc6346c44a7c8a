"""Reader-study results from the export (see :mod:`humaneval.export` for the format).

Everything is counted per version key ("1", "2") and, where the versions'
kinds tell the human from the machine translation (exactly one version is a
system output), per kind ("reference", "system") as well. Binomial tests are
exact, two-sided, against 0.5. Results are plain dicts that serialise to JSON.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Sequence
from itertools import permutations
from statistics import fmean, median
from typing import Any

from .agreement import WEIGHTS, gwet, gwet_interval
from .clustered import Judgment, clustered_preference_test
from .export import (
    DIFFICULTIES,
    KINDS,
    QUESTIONS,
    VERSION_KEYS,
    ChunkRecord,
    ExcerptRecord,
    ReaderExport,
    machine_version,
)
from .preference import binomial_test
from .words import word_spans

SCALE = (1, 2, 3, 4, 5)


def reader_results(export: ReaderExport, weights: str = "quadratic") -> dict[str, Any]:
    """``{"studies": {study: study_results(...)}}`` for every study in the export."""
    return {"studies": {name: study_results(export.study(name), weights) for name in export.studies()}}


def study_results(export: ReaderExport, weights: str = "quadratic") -> dict[str, Any]:
    """All the statistics of one study; ``weights`` are AC2's for the 1-5 ratings."""
    if weights not in WEIGHTS:
        raise ValueError(f"unknown weights {weights!r}: use one of {', '.join(WEIGHTS)}")
    ex, ch = export.excerpts, export.chunks
    return {
        "documents": len({r.document for r in (*ex, *ch)}),
        "readers": len({r.reader for r in (*ex, *ch, *export.posts)}),
        "records": {"excerpt": len(ex), "chunk": len(ch), "post": len(export.posts)},
        "versions": _version_names([*ex, *ch]),
        "excerpt_preference": excerpt_preference(ex),
        "chunk_preference": chunk_preference(ch),
        "ratings": rating_summary(ex),
        "choices": {"dialogue": _choice_counts(r.dialogue for r in ex),
                    "word_choice": _choice_counts(r.word_choice for r in ex)},
        "reading_ms": reading_times(ex),
        "agreement": reader_agreement(ex, ch, weights),
        "span_overlap": span_overlap(ch),
        "highlights": highlight_density(ch),
        "highlight_balance": highlight_balance(ch),
        "machine_detection": machine_detection(ex),
        "origin_guess": origin_guess_accuracy(ex),
    }


def _version_names(records: Sequence[ExcerptRecord | ChunkRecord]) -> dict[str, Any]:
    out: dict[str, Any] = {k: {"labels": [], "kinds": []} for k in VERSION_KEYS}
    for r in records:
        for k, v in r.versions.items():
            for field, value in (("labels", v.label), ("kinds", v.kind)):
                if value not in out[k][field]:
                    out[k][field].append(value)
    return out


def _test(successes: int, trials: int) -> dict[str, Any]:
    return binomial_test(successes, trials).to_dict()


def _shown_first(record: ExcerptRecord | ChunkRecord) -> str | None:
    """The version read (excerpt) or displayed (chunk, leftmost) first; None when unknown."""
    if isinstance(record, ChunkRecord):
        return record.displayed[0] if record.displayed else None
    return record.first


def _by_kind(records: Iterable[ExcerptRecord | ChunkRecord], chosen: Callable[[Any], str | None]) -> dict[str, Any]:
    """Choices counted as "reference" or "system", where exactly one version is a system; test on reference.

    ``test`` is the exact binomial test over every judgment (the paper's own figures); ``clustered``
    accounts for judgments clustered by reader and document, with the reading order as covariate
    (:mod:`humaneval.clustered`).
    """
    counts = dict.fromkeys(KINDS, 0)
    judgments = []
    for r in records:
        machine, choice = machine_version(r.versions), chosen(r)
        if machine is not None and choice is not None:
            counts["system" if choice == machine else "reference"] += 1
            first = _shown_first(r)
            judgments.append(Judgment(r.reader, r.document, choice != machine,
                                      None if first is None else first != machine))
    n = sum(counts.values())
    return {"n": n, **counts, "test": _test(counts["reference"], n),
            "clustered": clustered_preference_test(judgments).to_dict()}


def excerpt_preference(excerpts: Sequence[ExcerptRecord]) -> dict[str, Any]:
    """Which version readers would rather continue reading, how strongly, and the binomial p (on version 1)."""
    voted = [r for r in excerpts if r.continue_version is not None]
    counts = {k: sum(1 for r in voted if r.continue_version == k) for k in VERSION_KEYS}
    strength = {k: {s: sum(1 for r in voted if r.continue_version == k and r.continue_strength == s)
                    for s in ("clearly", "slightly")} for k in VERSION_KEYS}
    for k in VERSION_KEYS:
        strength[k]["unspecified"] = counts[k] - sum(strength[k].values())
    return {"n": len(voted), "counts": counts, "strength": strength, "test": _test(counts["1"], len(voted)),
            "by_kind": _by_kind(voted, lambda r: r.continue_version)}


def chunk_preference(chunks: Sequence[ChunkRecord]) -> dict[str, Any]:
    """Chunk-by-chunk preferences with their strength, overall and without "similar" ones."""
    voted = [r for r in chunks if r.preference is not None]
    counts = {k: sum(1 for r in voted if r.preference == k) for k in VERSION_KEYS}
    strength = {k: {d: sum(1 for r in voted if r.preference == k and r.difficulty == d) for d in DIFFICULTIES}
                for k in VERSION_KEYS}
    for k in VERSION_KEYS:
        strength[k]["unspecified"] = counts[k] - sum(strength[k].values())
    clear = [r for r in voted if r.difficulty in ("significantly_better", "better")]
    clear_counts = {k: sum(1 for r in clear if r.preference == k) for k in VERSION_KEYS}
    return {"n": len(voted), "counts": counts, "strength": strength, "test": _test(counts["1"], len(voted)),
            "by_kind": _by_kind(voted, lambda r: r.preference),
            "excluding_similar": {"n": len(clear), "counts": clear_counts,
                                  "test": _test(clear_counts["1"], len(clear)),
                                  "by_kind": _by_kind(clear, lambda r: r.preference)}}


def _describe(values: Sequence[float], scale: Sequence[int] | None = SCALE) -> dict[str, Any]:
    out: dict[str, Any] = {"n": len(values), "mean": fmean(values) if values else None,
                           "median": median(values) if values else None}
    if scale is not None:
        out["distribution"] = {str(s): sum(1 for v in values if v == s) for s in scale}
    return out


def rating_summary(excerpts: Sequence[ExcerptRecord]) -> dict[str, Any]:
    """Per question: mean, median and the 1-5 distribution per version and per kind."""
    extra = sorted({q for r in excerpts for a in r.ratings.values() for q in a} - set(QUESTIONS))
    out: dict[str, Any] = {}
    for q in (*QUESTIONS, *extra):
        per_version: dict[str, list[int]] = {k: [] for k in VERSION_KEYS}
        per_kind: dict[str, list[int]] = {k: [] for k in KINDS}
        for r in excerpts:
            for k, answers in r.ratings.items():
                value = answers.get(q)
                if value is not None:
                    per_version[k].append(value)
                    if machine_version(r.versions) is not None:
                        per_kind[r.versions[k].kind].append(value)
        out[q] = {**{k: _describe(v) for k, v in per_version.items()},
                  "by_kind": {k: _describe(v) for k, v in per_kind.items()}}
    return out


def _choice_counts(values: Iterable[str | None]) -> dict[str, int]:
    counts = dict.fromkeys((*VERSION_KEYS, "none"), 0)
    for v in values:
        if v is not None:
            counts[v] += 1
    return counts


def reading_times(excerpts: Sequence[ExcerptRecord]) -> dict[str, Any]:
    """Reading time in milliseconds per version, and per position (the version read first or second)."""
    per_version: dict[str, list[int]] = {k: [] for k in VERSION_KEYS}
    per_position: dict[str, list[int]] = {"first": [], "second": []}
    for r in excerpts:
        for k, ms in r.reading_ms.items():
            if ms is None:
                continue
            per_version[k].append(ms)
            if r.first is not None:
                per_position["first" if k == r.first else "second"].append(ms)
    return {**{k: _describe(v, None) for k, v in per_version.items()},
            "by_position": {k: _describe(v, None) for k, v in per_position.items()}}


# -- agreement between the readers of the same document ----------------------------------------------


def _coefficient(table: dict[Hashable, dict[str, Any]], weights: str = "identity",
                 categories: Sequence[Any] | None = None) -> dict[str, Any]:
    """Gwet's AC1/AC2 as a dict, with its standard error and 95 % interval (irrCAC); value None (with the
    reason) when no item has two ratings."""
    table = {item: row for item, row in table.items() if row}
    try:
        out = gwet(table, weights, categories).to_dict()
        interval = gwet_interval(table, weights, categories)
        return out | {"se": interval.se, "interval": [interval.low, interval.high],
                      "confidence": interval.confidence, "p_value": interval.p_value,
                      "interval_reason": interval.reason}
    except ValueError as exc:
        return {"coefficient": "ac1" if weights == "identity" else "ac2", "weights": weights, "value": None,
                "items": len(table), "raters": len({r for row in table.values() for r in row}),
                "reason": str(exc)}


def _table(records: Iterable[Any], item: Callable[[Any], Hashable],
           value: Callable[[Any], Any]) -> dict[Hashable, dict[str, Any]]:
    table: dict[Hashable, dict[str, Any]] = defaultdict(dict)
    for r in records:
        v = value(r)
        if v is not None:
            table[item(r)][r.reader] = v
    return table


def reader_agreement(excerpts: Sequence[ExcerptRecord], chunks: Sequence[ChunkRecord],
                     weights: str = "quadratic") -> dict[str, Any]:
    """Gwet's AC1 on binary judgments and AC2 on each 1-5 question, between the readers of each document.

    Items: documents (excerpt preference, the guess of which version is the
    machine's), (document, version) pairs (the human/machine guess per version,
    the 1-5 ratings, categories 1..5) and (document, chunk) pairs (chunk
    preference). The filtered chunk analyses keep a chunk only when every
    reader of it rated the difference "better" or "significantly better"
    (``excluding_similar``), or every reader "significantly better".
    """
    by_chunk: dict[tuple[str, int], list[ChunkRecord]] = defaultdict(list)
    for r in chunks:
        by_chunk[(r.document, r.chunk)].append(r)

    def chunk_table(keep: Callable[[list[ChunkRecord]], bool]) -> dict[Hashable, dict[str, Any]]:
        kept = [r for group in by_chunk.values() if keep(group) for r in group]
        return _table(kept, lambda r: (r.document, r.chunk), lambda r: r.preference)

    origin: dict[Hashable, dict[str, Any]] = defaultdict(dict)
    for r in excerpts:
        for k, guess in r.origin_guess.items():
            if guess is not None:
                origin[(r.document, k)][r.reader] = guess
    ratings, ratings_all = {}, {}
    for q in QUESTIONS:
        table: dict[Hashable, dict[str, Any]] = defaultdict(dict)
        for r in excerpts:
            for k, answers in r.ratings.items():
                if answers.get(q) is not None:
                    table[(r.document, k)][r.reader] = answers[q]
        ratings[q] = _coefficient(table, weights, SCALE)
        ratings_all[q] = {w: _coefficient(table, w, SCALE) for w in WEIGHTS}
    return {
        "excerpt_preference": _coefficient(_table(excerpts, lambda r: r.document, lambda r: r.continue_version)),
        "mt_guess": _coefficient(_table(excerpts, lambda r: r.document, lambda r: r.ai_version)),
        "origin_guess": _coefficient(origin),
        "chunk_preference": _coefficient(chunk_table(lambda g: True)),
        "chunk_preference_excluding_similar": _coefficient(chunk_table(
            lambda g: all(r.difficulty in ("significantly_better", "better") for r in g))),
        "chunk_preference_both_significantly_better": _coefficient(chunk_table(
            lambda g: all(r.difficulty == "significantly_better" for r in g))),
        "ratings_weights": weights,
        "ratings": ratings,
        "ratings_by_weights": ratings_all,   # AC1 (identity) and AC2 with linear, quadratic, ordinal weights
    }


# -- highlights -----------------------------------------------------------------------------------------


def _overlaps(a_start: int, a_end: int, b_start: int, b_end: int) -> bool:
    return a_start < b_end and b_start < a_end


def span_overlap(chunks: Sequence[ChunkRecord]) -> dict[str, Any]:
    """Share of one reader's spans that intersect a span of another reader of the same chunk and version.

    Counted over every ordered pair of readers of a chunk (with two readers,
    each span of each reader once): ``any_label`` counts an intersecting span of
    either label, ``same_label`` only one of the same label.
    """
    by_chunk: dict[tuple[str, int], list[ChunkRecord]] = defaultdict(list)
    for r in chunks:
        by_chunk[(r.document, r.chunk)].append(r)
    labels = {label: {"spans": 0, "same_label": 0} for label in ("good", "poor")}
    spans = any_hits = same_hits = pairs = 0
    for group in by_chunk.values():
        for a, b in permutations(group, 2):
            pairs += 1
            for s in a.highlights:
                hits = [t for t in b.highlights if t.version == s.version and _overlaps(s.start, s.end, t.start, t.end)]
                same = any(t.label == s.label for t in hits)
                spans += 1
                any_hits += bool(hits)
                same_hits += same
                labels[s.label]["spans"] += 1
                labels[s.label]["same_label"] += same
    for entry in labels.values():
        entry["share"] = entry["same_label"] / entry["spans"] if entry["spans"] else None
    return {"reader_pairs": pairs, "spans": spans, "any_label": any_hits / spans if spans else None,
            "same_label": same_hits / spans if spans else None, "by_label": labels}


def highlighted_words(record: ChunkRecord) -> dict[str, dict[str, int]]:
    """Per version: its words and how many of them a good or a poor span touches.

    Words follow :mod:`humaneval.words` (language unknown: Han and kana
    characters one by one, other text by whitespace); a word counts once per
    label however many spans of that label touch it.
    """
    out = {}
    for k in VERSION_KEYS:
        tokens = word_spans(record.texts[k])
        row = {"words": len(tokens)}
        for label in ("good", "poor"):
            spans = [(h.start, h.end) for h in record.highlights if h.version == k and h.label == label]
            row[label] = sum(1 for a, b in tokens if any(_overlaps(a, b, s, e) for s, e in spans))
        out[k] = row
    return out


def _density(rows: list[dict[str, int]]) -> dict[str, Any]:
    words = sum(r["words"] for r in rows)
    good, poor = sum(r["good"] for r in rows), sum(r["poor"] for r in rows)
    return {"words": words, "good_words": good, "poor_words": poor,
            "good_per_1000": 1000 * good / words if words else None,
            "poor_per_1000": 1000 * poor / words if words else None}


def highlight_density(chunks: Sequence[ChunkRecord]) -> dict[str, Any]:
    """Highlighted words per 1,000 words read, good and poor, per version and per kind."""
    per_version: dict[str, list[dict[str, int]]] = {k: [] for k in VERSION_KEYS}
    per_kind: dict[str, list[dict[str, int]]] = {k: [] for k in KINDS}
    for r in chunks:
        counted = highlighted_words(r)
        for k, row in counted.items():
            per_version[k].append(row)
            if machine_version(r.versions) is not None:
                per_kind[r.versions[k].kind].append(row)
    return {**{k: _density(v) for k, v in per_version.items()},
            "by_kind": {k: _density(v) for k, v in per_kind.items()}}


def highlight_balance(chunks: Sequence[ChunkRecord]) -> dict[str, Any]:
    """How often the version with the better net balance (good minus poor highlighted words) is the one preferred.

    One case per chunk record with a preference; ties of the balance are left out.
    """
    agree = ties = n = 0
    for r in chunks:
        if r.preference is None:
            continue
        counted = highlighted_words(r)
        net = {k: counted[k]["good"] - counted[k]["poor"] for k in VERSION_KEYS}
        if net["1"] == net["2"]:
            ties += 1
            continue
        n += 1
        agree += r.preference == ("1" if net["1"] > net["2"] else "2")
    return {"n": n, "agree": agree, "ties": ties, "share": agree / n if n else None, "test": _test(agree, n)}


# -- telling the machine from the human translation -----------------------------------------------------


def machine_detection(excerpts: Sequence[ExcerptRecord]) -> dict[str, Any]:
    """How often readers named the machine version as the AI one (where exactly one version is a system)."""
    cases = [(r.ai_version == machine_version(r.versions), r.ai_confidence) for r in excerpts
             if machine_version(r.versions) is not None and r.ai_version is not None]
    correct = sum(ok for ok, _ in cases)
    by_confidence = {str(c): {"n": sum(1 for _, conf in cases if conf == c),
                              "correct": sum(1 for ok, conf in cases if ok and conf == c)} for c in SCALE}
    return {"n": len(cases), "correct": correct, "share": correct / len(cases) if cases else None,
            "test": _test(correct, len(cases)), "by_confidence": by_confidence}


def origin_guess_accuracy(excerpts: Sequence[ExcerptRecord]) -> dict[str, Any]:
    """How often the per-version guess "human"/"machine" matched the version's kind."""
    cases = [(g == "machine") == (r.versions[k].kind == "system")
             for r in excerpts for k, g in r.origin_guess.items() if g is not None]
    correct = sum(cases)
    return {"n": len(cases), "correct": correct, "share": correct / len(cases) if cases else None,
            "test": _test(correct, len(cases))}
