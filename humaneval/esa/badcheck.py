"""Building attention checks (BAD items): a copy of a segment with a phrase replaced by unrelated text.

WMT's quality control for human evaluation mixes into each annotator's work copies
of segments they also rate, damaged so that a careful annotator must score them
lower (:mod:`~humaneval.esa.attention` then tests that they did). :func:`bad_segment` damages one
segment: it picks a phrase of the segment and replaces it with a phrase of the same
length taken from a *donor*, a segment of another document. The phrase length grows
with the segment's length as in WMT's bad references:

    words in the segment   1   2-5   6-8   9-15   16-20   21+
    phrase length          1    2     3     4       5      6

For languages written without spaces (``character_based``, e.g. Chinese, Japanese)
words are characters and the phrase is twice as long. A segment long enough keeps
its first and last word, so the damage sits inside it. Everything else of the
segment, whitespace included, is kept as it was.

The choice is deterministic: the same segment, donors and ``seed`` (an int or a
string such as ``"campaign-7/annotator-3/doc-12"``) give the same damage on every
machine and Python version (:class:`random.Random`).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .appraise import ErrorSpan

_WORD = re.compile(r"\S+")
_CHAR = re.compile(r"\S")
#: (most words in the segment, phrase length)
_LENGTHS = ((1, 1), (5, 2), (8, 3), (15, 4), (20, 5))
_LONGEST = 6


@dataclass(frozen=True)
class BadSegment:
    """The damaged copy and where the damage is: ``text[start:end + 1] == inserted`` (ends inclusive, as
    Appraise's spans)."""

    text: str
    original: str
    start: int
    end: int
    replaced: str       # the phrase of the original that was replaced
    inserted: str       # the donor's phrase that replaced it
    donor: int          # the donor's index in the donors given


def phrase_length(words: int, character_based: bool = False) -> int:
    """How many words (characters) the damage replaces in a segment of ``words`` words (characters)."""
    length = next((n for most, n in _LENGTHS if words <= most), _LONGEST)
    return 2 * length if character_based else length


def _units(text: str, character_based: bool) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in (_CHAR if character_based else _WORD).finditer(text)]


def bad_segment(segment: str, donors: Sequence[str], seed: int | str, *,
                character_based: bool = False) -> BadSegment:
    """A damaged copy of ``segment`` with a phrase replaced by one from ``donors`` (see the module's doc).

    Donors should come from other documents; those without a word, and those all of whose phrases would
    leave the segment unchanged, are passed over. ValueError when the segment has no word or no donor works.
    """
    units = _units(segment, character_based)
    if not units:
        raise ValueError("the segment has no word to replace")
    rng = random.Random(seed)
    length = min(phrase_length(len(units), character_based), len(units))
    # keep the first and last word when there is room for the phrase between them
    first, last = (1, len(units) - length - 1) if len(units) >= length + 2 else (0, len(units) - length)
    position = rng.randint(first, last)
    start, end = units[position][0], units[position + length - 1][1]
    replaced = segment[start:end]
    order = list(range(len(donors)))
    rng.shuffle(order)
    for index in order:
        donor_units = _units(donors[index], character_based)
        if not donor_units:
            continue
        take = min(length, len(donor_units))
        first_try = rng.randint(0, len(donor_units) - take)
        # the drawn phrase first; if it equals the one it would replace, the donor's other phrases in turn
        for at in (first_try, *(a for a in range(len(donor_units) - take + 1) if a != first_try)):
            inserted = donors[index][donor_units[at][0]:donor_units[at + take - 1][1]]
            if inserted != replaced:
                text = segment[:start] + inserted + segment[end:]
                return BadSegment(text, segment, start, start + len(inserted) - 1, replaced, inserted, index)
    raise ValueError("no donor segment differs from the phrase to replace: give segments of other documents")


def bad_document(segments: Sequence[str], document: str, documents: Mapping[str, Sequence[str]], seed: int | str,
                 *, character_based: bool = False) -> list[BadSegment]:
    """A damaged copy of each segment of ``document``, donors from every *other* document of ``documents``
    (``{document id: segments}``); each segment's seed is derived from ``seed`` and its position."""
    donors = [s for doc, segs in documents.items() if doc != document for s in segs]
    if not donors:
        raise ValueError(f"no other document to take unrelated text from (only {document!r})")
    return [bad_segment(text, donors, f"{seed}/{i}", character_based=character_based)
            for i, text in enumerate(segments)]


def marked_the_damage(spans: Iterable[ErrorSpan], bad: BadSegment) -> bool:
    """Whether an annotator's spans on the BAD copy overlap the inserted phrase (``[missing]`` does not)."""
    return any(not s.missing and s.start <= bad.end and s.end >= bad.start for s in spans)
