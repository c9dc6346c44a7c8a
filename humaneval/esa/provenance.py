"""ESA^AI: what became of the suggested spans, and how good the suggestions were.

:func:`provenance` compares one segment's suggested spans with the annotator's final
spans and labels every span:

* ``kept``: a final span equal to a suggestion (same offsets and severity);
* ``edited``: a final span that overlaps a suggestion (or marks ``[missing]`` where a
  suggestion did) but differs from it in offsets or severity;
* ``deleted``: a suggestion that no final span equals or overlaps;
* ``human``: a final span that overlaps no suggestion (added by the annotator).

A suggestion that a final span keeps or edits is not also counted as deleted. When
the platform records provenance as the annotator works, it should prefer that record;
this is the reconstruction from the two span lists (what an export holds).

:func:`suggestion_quality` is the suggestions' precision and recall against the final
spans, at the character level and micro-averaged over segments (characters as in
:mod:`~humaneval.esa.agreement`: inclusive offsets, ``[missing]`` one extra character, severity not
considered): precision = Σ|S ∩ F| / Σ|S|, recall = Σ|S ∩ F| / Σ|F|.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from .agreement import marked_characters
from .appraise import ErrorSpan

LABELS = ("kept", "edited", "deleted", "human")


def _overlap(a: ErrorSpan, b: ErrorSpan) -> bool:
    if a.missing or b.missing:
        return a.missing and b.missing
    return a.start <= b.end and b.start <= a.end


def provenance(suggested: Sequence[ErrorSpan], final: Sequence[ErrorSpan]) -> list[tuple[str, ErrorSpan]]:
    """``(label, span)`` for every final span (kept, edited, human) and every deleted suggestion."""
    used: set[int] = set()
    out: list[tuple[str, ErrorSpan]] = []
    for span in final:
        same = next((i for i, s in enumerate(suggested) if i not in used and s == span), None)
        if same is not None:
            used.add(same)
            out.append(("kept", span))
            continue
        near = [i for i, s in enumerate(suggested) if _overlap(s, span)]
        used.update(near)
        out.append(("edited" if near else "human", span))
    out += [("deleted", s) for i, s in enumerate(suggested) if i not in used]
    return out


def provenance_shares(segments: Iterable[tuple[Sequence[ErrorSpan], Sequence[ErrorSpan]]]) -> dict[str, float]:
    """The share of each label over many ``(suggested, final)`` segments (all 0 when there is no span)."""
    counts = Counter(label for suggested, final in segments for label, _ in provenance(suggested, final))
    total = sum(counts.values())
    return {label: (counts[label] / total if total else 0.0) for label in LABELS}


def suggestion_quality(segments: Iterable[tuple[Sequence[ErrorSpan], Sequence[ErrorSpan]]]) -> dict[str, float | None]:
    """``{"precision", "recall"}`` of suggested against final spans (None where nothing was marked)."""
    hit = suggested_total = final_total = 0
    for suggested, final in segments:
        s, f = marked_characters(suggested).keys(), marked_characters(final).keys()
        hit += len(s & f)
        suggested_total += len(s)
        final_total += len(f)
    return {"precision": hit / suggested_total if suggested_total else None,
            "recall": hit / final_total if final_total else None}
