"""Reading time: when a segment counts as read, and which annotators read implausibly fast or slowly.

Pure functions of texts and times (no Flask, no database), for any protocol that shows texts to
read: the MQM page today, a reader study or a rubric later.

**Dwell.** A segment counts as read once the annotator has spent at least its *minimum dwell
time* on it (the page's clock runs only while the segment is the current one, the tab is visible
and the annotator is active; times add up over visits). The minimum comes from a reading speed
far above anyone's real one, so that it only catches skipping, never careful work::

    dwell_ms = reading_words(source + target) / words_per_second * 1000

with ``words_per_second`` = :data:`DEFAULT_WORDS_PER_SECOND` (20; people read 3-5 words a second,
so 20 is four times a fast skim). Both sides count: judging a translation means reading the source
and the translation. :func:`reading_words` counts whitespace-separated tokens, except that
Chinese and Japanese characters (Han, Hiragana, Katakana), which are written without spaces, count
``1 / CJK_CHARS_PER_WORD`` (1/1.5) of a word each, about one word per 1.5 characters. (Scripts such
as Thai, also written without spaces, are counted by their whitespace tokens and so get a
shorter minimum; the minimum stays a floor, not a norm.)

**Pace outliers.** For the organizer's dashboard: per annotator, the median over their items of
the milliseconds per *source* word read; an annotator is flagged ``fast`` when that median is
below a quarter (1/:data:`PACE_FACTOR`) of the median of the other annotators' medians, ``slow``
when above four times it. Leave-one-out, so that with few annotators the outlier does not drag
its own yardstick; a ratio, not a z-score, because a campaign often has two to five annotators,
too few for a spread estimate. Annotators with fewer than :data:`PACE_MIN_WORDS` words read are
neither flagged nor used as a yardstick.
"""

from __future__ import annotations

import statistics
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import regex

DEFAULT_WORDS_PER_SECOND = 20
CJK_CHARS_PER_WORD = 1.5
PACE_FACTOR = 4.0
PACE_MIN_WORDS = 50

_CJK = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}]")


def reading_words(text: str) -> float:
    """Words to read in ``text``: whitespace tokens, CJK characters at 1/1.5 of a word each."""
    words = 0.0
    for token in text.split():
        cjk = len(_CJK.findall(token))
        words += cjk / CJK_CHARS_PER_WORD
        if cjk < len(token) and _CJK.sub("", token).strip():
            words += 1   # the token's other letters, digits or punctuation make one word
    return words


def min_dwell_ms(text: str, words_per_second: float = DEFAULT_WORDS_PER_SECOND) -> int:
    """The least time (ms) that reading ``text`` can take at ``words_per_second``."""
    if words_per_second <= 0:
        raise ValueError(f"words_per_second must be positive, not {words_per_second!r}")
    return round(reading_words(text) / words_per_second * 1000)


def segment_dwell_ms(segments: Sequence[Mapping[str, str]],
                     words_per_second: float = DEFAULT_WORDS_PER_SECOND) -> list[int]:
    """The minimum dwell of each segment ({"source", "target"}): its source and its translation."""
    return [min_dwell_ms(f"{s.get('source') or ''}\n{s.get('target') or ''}", words_per_second)
            for s in segments]


def _ms(times: Mapping[str, float], i: int) -> float:
    return float(times.get(str(i), 0) or 0)


def unread_segments(times: Mapping[str, float], dwell: Sequence[int]) -> list[int]:
    """Indexes of the segments whose accumulated time ({"<index>": ms}) is below their dwell."""
    return [i for i, need in enumerate(dwell) if _ms(times, i) < need]


def read_prefix(times: Mapping[str, float], dwell: Sequence[int]) -> int:
    """The last index of the run of read segments from the first one (-1: the first is unread)."""
    for i, need in enumerate(dwell):
        if _ms(times, i) < need:
            return i - 1
    return len(dwell) - 1


def clip_furthest(requested: int, times: Mapping[str, float], dwell: Sequence[int]) -> int:
    """``requested`` (the furthest segment a page says it reached), never past an unread segment."""
    return min(requested, read_prefix(times, dwell))


def describe_segments(indexes: Sequence[int], labels: Sequence[int | str] | None = None, limit: int = 12) -> str:
    """"3, 4, 7" (by label where given), shortened after ``limit`` ("… and 9 more")."""
    names = [str(labels[i]) if labels is not None else str(i + 1) for i in indexes]
    text = ", ".join(names[:limit])
    return text + (f" … and {len(names) - limit} more" if len(names) > limit else "")


@dataclass(frozen=True)
class Pace:
    ms_per_word: float | None     # the annotator's median over items (None: nothing read)
    words: float                  # words read, all items
    reference: float | None       # the median of the other annotators' medians
    ratio: float | None           # ms_per_word / reference
    flag: str | None              # "fast", "slow" or None


def pace_outliers(samples: Mapping[Hashable, Sequence[tuple[float, float]]], *, factor: float = PACE_FACTOR,
                  min_words: float = PACE_MIN_WORDS) -> dict[Hashable, Pace]:
    """Per annotator, their pace and whether it is an outlier (see the module's docstring).

    ``samples``: {annotator: [(milliseconds, words read) per item]}; items with no word read or
    no time are left out.
    """
    medians: dict[Hashable, float | None] = {}
    words: dict[Hashable, float] = {}
    for key, items in samples.items():
        rates = [ms / w for ms, w in items if w > 0 and ms > 0]
        words[key] = sum(w for ms, w in items if w > 0 and ms > 0)
        medians[key] = statistics.median(rates) if rates else None
    eligible = {k: m for k, m in medians.items() if m is not None and words[k] >= min_words}
    out = {}
    for key, mine in medians.items():
        others = [m for k, m in eligible.items() if k != key]
        reference = statistics.median(others) if others else None
        ratio = mine / reference if mine is not None and reference else None
        flag = None
        if ratio is not None and key in eligible:
            flag = "fast" if ratio < 1 / factor else "slow" if ratio > factor else None
        out[key] = Pace(ms_per_word=mine, words=words[key], reference=reference, ratio=ratio, flag=flag)
    return out
