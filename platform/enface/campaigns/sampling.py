"""What a campaign samples, for every protocol: the documents it shows (organizer-written ranges, or a
sample), and the items that carry an attention check.

No database and no Flask here, so that each rule is tested on plain data:

* :func:`sample_ranges` picks documents (or an excerpt of each) totalling about
  a number of source words, as WMT 2023 did (five documents, ~2,200 words).
* :func:`parse_ranges` reads organizer-written ranges (``doc`` or ``doc:3-40``).
* :func:`pick_attention_items` draws the share of items that get an attention check.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

from .errors import CampaignError

__all__ = ["CampaignError", "DocInfo", "Range", "candidate_ranges", "parse_ranges", "pick_attention_items",
           "sample_ranges"]


@dataclass(frozen=True)
class DocInfo:
    """A test-set document as the sampler sees it."""

    name: str
    sources: tuple[str, ...]


@dataclass(frozen=True)
class Range:
    """Segments ``start``..``end`` (1-based, inclusive) of a document."""

    doc: str
    start: int
    end: int

    def __str__(self) -> str:
        return f"{self.doc}:{self.start}-{self.end}"


_RANGE = re.compile(r"^(?P<doc>.+?)(?::(?P<a>\d+)(?:-(?P<b>\d+))?)?$")


def parse_ranges(text: str, docs: Sequence[DocInfo]) -> list[Range]:
    """Ranges written one per line (or comma-separated): ``doc`` or ``doc:3`` or ``doc:3-40``.

    Document names may hold dots and colons; the last ``:N-M`` is the range.
    Raises :class:`CampaignError` naming the line and the problem.
    """
    by_name = {d.name: d for d in docs}
    out: list[Range] = []
    parts = [p.strip() for line in text.splitlines() for p in line.split(",")]
    for n, part in enumerate((p for p in parts if p), 1):
        m = _RANGE.match(part)
        doc_name, a, b = (m.group("doc"), m.group("a"), m.group("b")) if m else (part, None, None)
        if doc_name not in by_name and part in by_name:  # a document whose name ends in ":N"
            doc_name, a, b = part, None, None
        doc = by_name.get(doc_name)
        if doc is None:
            known = ", ".join(sorted(by_name)[:8]) + ("..." if len(by_name) > 8 else "")
            raise CampaignError(f"range {n} ({part!r}): no document {doc_name!r} in this test set (known: {known})")
        length = len(doc.sources)
        start = int(a) if a else 1
        end = int(b) if b else (start if a else length)
        if not 1 <= start <= end <= length:
            raise CampaignError(f"range {n} ({part!r}): segments {start}-{end} are outside 1-{length} "
                                f"of document {doc_name!r}")
        for other in out:
            if other.doc == doc_name and not (end < other.start or start > other.end):
                raise CampaignError(f"range {n} ({part!r}) overlaps {other}")
        out.append(Range(doc_name, start, end))
    if not out:
        raise CampaignError("no documents or segment ranges given")
    return out


def sample_ranges(docs: Sequence[DocInfo], n_docs: int, target_words: int, count: Callable[[str], int],
                  seed: int = 0) -> list[Range]:
    """``n_docs`` documents drawn at random, each cut to about ``target_words / n_docs`` source words.

    Each excerpt starts at the document's first segment (a reader needs the
    beginning) and ends at the segment boundary nearest the word budget. With
    ``target_words`` 0, whole documents are taken.
    """
    usable = _usable(docs, n_docs)
    rng = random.Random(seed)
    chosen = rng.sample(usable, n_docs)
    order = {d.name: i for i, d in enumerate(docs)}
    chosen.sort(key=lambda d: order[d.name])
    return [_excerpt(doc, n_docs, target_words, count) for doc in chosen]


def candidate_ranges(docs: Sequence[DocInfo], n_docs: int, target_words: int,
                     count: Callable[[str], int]) -> list[Range]:
    """Every document with segments, cut as :func:`sample_ranges` cuts the ``n_docs`` it draws: what a
    campaign choosing its documents by another rule (:mod:`~enface.campaigns.selection`) chooses among."""
    return [_excerpt(doc, n_docs, target_words, count) for doc in _usable(docs, n_docs)]


def _usable(docs: Sequence[DocInfo], n_docs: int) -> list[DocInfo]:
    if n_docs < 1:
        raise CampaignError("sample at least one document")
    usable = [d for d in docs if d.sources]
    if len(usable) < n_docs:
        raise CampaignError(f"the test set has {len(usable)} documents; cannot sample {n_docs}")
    return usable


def _excerpt(doc: DocInfo, n_docs: int, target_words: int, count: Callable[[str], int]) -> Range:
    budget = target_words / n_docs if target_words > 0 else None
    end, words = len(doc.sources), 0
    if budget is not None:
        for i, src in enumerate(doc.sources, 1):
            before = words
            words += count(src)
            if words >= budget:
                # stop at the boundary nearest the budget (at least one segment)
                end = i if (words - budget) <= (budget - before) or i == 1 else i - 1
                break
    return Range(doc.name, 1, end)


def pick_attention_items(keys: Sequence[Hashable], share: float, seed: int) -> set[Hashable]:
    """``round(share * len(keys))`` of ``keys`` (at least one when share > 0), chosen at random."""
    if share <= 0 or not keys:
        return set()
    n = min(len(keys), max(1, round(share * len(keys))))
    return set(random.Random(seed).sample(list(keys), n))
