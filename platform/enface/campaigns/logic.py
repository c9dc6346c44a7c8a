"""The pure parts of an MQM campaign: sampling, assignment, attention checks, spans.

No database and no Flask here, so that each rule is tested on plain data:

* :func:`sample_ranges` picks documents (or an excerpt of each) totalling about
  a number of source words, as WMT 2023 did (five documents, ~2,200 words).
* :func:`parse_ranges` reads organizer-written ranges (``doc`` or ``doc:3-40``).
* :func:`plan_assignments` gives each item to N distinct annotators, balancing
  load and never giving an annotator a system of their own team.
* :func:`inject_attention` corrupts a target segment (a reversed run of words or
  a word with its letters reversed) and returns the span the annotator should mark.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field

import regex  # (a dependency of sacrebleu) for \p{...} classes, as in annotate.js

# One word for span snapping and attention checks: a CJK character on its own,
# else a run of letters, marks and digits (with inner apostrophes or hyphens).
# The same rule as annotate.js, so that server-side spans and the UI's word snapping agree.
_CJK_CHAR = r"[\p{Han}\p{Hiragana}\p{Katakana}]"
_CJK = regex.compile(_CJK_CHAR)
_WORD = regex.compile(rf"{_CJK_CHAR}|(?:(?!{_CJK_CHAR})[\p{{L}}\p{{M}}\p{{N}}])+"
                      rf"(?:['\u2019\-](?:(?!{_CJK_CHAR})[\p{{L}}\p{{M}}\p{{N}}])+)*")


class CampaignError(ValueError):
    """A campaign cannot be built as asked; the message says why and what to change."""


# --- documents and ranges --------------------------------------------------------------------------

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
    if n_docs < 1:
        raise CampaignError("sample at least one document")
    usable = [d for d in docs if d.sources]
    if len(usable) < n_docs:
        raise CampaignError(f"the test set has {len(usable)} documents; cannot sample {n_docs}")
    rng = random.Random(seed)
    chosen = rng.sample(usable, n_docs)
    order = {d.name: i for i, d in enumerate(docs)}
    chosen.sort(key=lambda d: order[d.name])
    budget = target_words / n_docs if target_words > 0 else None
    out = []
    for doc in chosen:
        end, words = len(doc.sources), 0
        if budget is not None:
            for i, src in enumerate(doc.sources, 1):
                before = words
                words += count(src)
                if words >= budget:
                    # stop at the boundary nearest the budget (at least one segment)
                    end = i if (words - budget) <= (budget - before) or i == 1 else i - 1
                    break
        out.append(Range(doc.name, 1, end))
    return out


# --- assignment ----------------------------------------------------------------------------------

@dataclass
class ItemSpec:
    key: Hashable
    team: Hashable | None  # the team whose system this item shows
    words: int
    doc: str
    teams: frozenset = field(default_factory=frozenset)  # more teams, when the item shows several systems

    def conflicts(self, annotator: AnnotatorSpec) -> bool:
        return (self.team is not None and self.team in annotator.teams) or bool(self.teams & annotator.teams)


@dataclass
class AnnotatorSpec:
    key: Hashable
    teams: frozenset = field(default_factory=frozenset)  # teams the annotator belongs to


def plan_assignments(items: Sequence[ItemSpec], annotators: Sequence[AnnotatorSpec], redundancy: int,
                     seed: int = 0) -> dict[Hashable, list[Hashable]]:
    """{item key: [annotator keys]}: each item to ``redundancy`` distinct annotators.

    An annotator never gets an item whose system belongs to one of their teams.
    Load is balanced by item count, then by source words; ties go to annotators
    who already have the same document (denser agreement tables), then at
    random (``seed``). The most constrained items are placed first, so own-team
    exclusions do not starve an item. Raises :class:`CampaignError` when some
    item has fewer than ``redundancy`` eligible annotators.
    """
    if redundancy < 1:
        raise CampaignError("redundancy must be at least 1")
    if not annotators:
        raise CampaignError("the campaign has no annotators yet: invite or add some first")
    rng = random.Random(seed)
    tiebreak = {a.key: rng.random() for a in annotators}
    eligible = {it.key: [a for a in annotators if not it.conflicts(a)] for it in items}
    for it in items:
        if len(eligible[it.key]) < redundancy:
            raise CampaignError(
                f"item {it.doc} (a system of team {it.team}) has {len(eligible[it.key])} eligible annotators "
                f"(annotators of the system's own team are excluded) but redundancy is {redundancy}: "
                "add annotators or lower the redundancy")
    shuffled = list(items)
    rng.shuffle(shuffled)
    order = sorted(shuffled, key=lambda it: len(eligible[it.key]))  # stable: most constrained first
    load_items = {a.key: 0 for a in annotators}
    load_words = {a.key: 0 for a in annotators}
    docs: dict[Hashable, set[str]] = {a.key: set() for a in annotators}
    plan: dict[Hashable, list[Hashable]] = {}
    for it in order:
        ranked = sorted(eligible[it.key], key=lambda a: (load_items[a.key], load_words[a.key],
                                                          it.doc not in docs[a.key], tiebreak[a.key]))
        chosen = [a.key for a in ranked[:redundancy]]
        for key in chosen:
            load_items[key] += 1
            load_words[key] += it.words
            docs[key].add(it.doc)
        plan[it.key] = chosen
    return {it.key: plan[it.key] for it in items}


def plan_by_document(items: Sequence[ItemSpec], annotators: Sequence[AnnotatorSpec], redundancy: int,
                     seed: int = 0) -> dict[Hashable, list[Hashable]]:
    """Like :func:`plan_assignments`, but all items of one document (every system's version of it)
    go to the same ``redundancy`` annotators, documents balanced over annotators by count and words.

    This is how Google's MQM data was collected: per-annotator scores then compare
    systems on the same documents. An annotator of any of the document's systems' teams is excluded.
    """
    by_doc: dict[str, list[ItemSpec]] = {}
    for it in items:
        by_doc.setdefault(it.doc, []).append(it)
    groups = [ItemSpec(key=doc, team=None, words=sum(i.words for i in its), doc=doc,
                       teams=frozenset(t for i in its for t in ({i.team} if i.team is not None else set()) | i.teams))
              for doc, its in by_doc.items()]
    plan = plan_assignments(groups, annotators, redundancy, seed)
    return {it.key: list(plan[it.doc]) for it in items}


# --- attention checks ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Corruption:
    text: str   # the corrupted target shown to the annotator
    start: int  # the span the annotator should mark (code points into text)
    end: int
    kind: str   # "words" (a reversed run of words) or "letters" (a word spelled backwards)


def words_in(text: str) -> list[tuple[int, int]]:
    """(start, end) of each word: a CJK character, or a run of letters/digits."""
    return [m.span() for m in _WORD.finditer(text)]


def _reverse_words(text: str, rng: random.Random) -> Corruption | None:
    spans = words_in(text)
    cjk = [s for s in spans if _CJK.fullmatch(text[s[0]:s[1]])]
    if len(cjk) >= len(spans) / 2 and len(cjk) >= 6:
        # CJK: reverse a run of 4-6 consecutive characters (each a word of its own)
        runs = []
        for i in range(len(spans)):
            j = i
            while j + 1 < len(spans) and spans[j + 1][0] == spans[j][1] and _CJK.fullmatch(text[slice(*spans[j + 1])]):
                j += 1
            if j - i + 1 >= 4 and _CJK.fullmatch(text[slice(*spans[i])]):
                runs.append((i, j))
        rng.shuffle(runs)
        for i, j in runs:
            n = min(j - i + 1, rng.randint(4, 6))
            a, b = spans[i][0], spans[i + n - 1][1]
            chunk = text[a:b]
            if chunk[::-1] != chunk:
                return Corruption(text[:a] + chunk[::-1] + text[b:], a, b, "words")
        return None
    if len(spans) < 4:
        return None
    starts = list(range(len(spans) - 2))
    rng.shuffle(starts)
    for i in starts:
        n = min(len(spans) - i, rng.randint(3, 5))
        if n < 3:
            continue
        run = spans[i:i + n]
        words = [text[a:b] for a, b in run]
        if words[::-1] == words:
            continue
        # Reverse the words, keep the gaps (spaces, commas) where they were.
        pieces, last = [], run[0][0]
        for (a, b), word in zip(run, reversed(words)):
            pieces.append(text[last:a])
            pieces.append(word)
            last = b
        a, b = run[0][0], run[-1][1]
        new = "".join(pieces)
        return Corruption(text[:a] + new + text[b:], a, a + len(new), "words")
    return None


def _reverse_letters(text: str, rng: random.Random) -> Corruption | None:
    spans = [(a, b) for a, b in words_in(text) if b - a >= 5 and not _CJK.match(text[a])]
    rng.shuffle(spans)
    for a, b in spans:
        word = text[a:b]
        backwards = word[::-1]
        if backwards.lower() == word.lower():
            continue
        if word[0].isupper() and word[1:].islower():  # keep the capital where readers expect it
            backwards = backwards[0].upper() + backwards[1:].lower()
        return Corruption(text[:a] + backwards + text[b:], a, b, "letters")
    return None


def inject_attention(text: str, kind: str, rng: random.Random) -> Corruption | None:
    """Corrupt ``text`` (``kind``: "words", "letters" or "mixed"); None when it cannot be done."""
    kinds = {"words": ["words"], "letters": ["letters"], "mixed": rng.sample(["words", "letters"], 2)}[kind]
    for k in kinds:
        out = (_reverse_words if k == "words" else _reverse_letters)(text, rng)
        if out is not None:
            return out
    return None


def choose_attention(targets: Sequence[str], kind: str, rng: random.Random) -> tuple[int, Corruption] | None:
    """(segment index, corruption) for one of ``targets``, preferring segments with more words."""
    indices = [i for i, t in enumerate(targets) if len(words_in(t)) >= 6]
    rng.shuffle(indices)
    for i in indices + [i for i in range(len(targets)) if i not in indices]:
        out = inject_attention(targets[i], kind, rng)
        if out is not None:
            return i, out
    return None


def pick_attention_items(keys: Sequence[Hashable], share: float, seed: int) -> set[Hashable]:
    """``round(share * len(keys))`` of ``keys`` (at least one when share > 0), chosen at random."""
    if share <= 0 or not keys:
        return set()
    n = min(len(keys), max(1, round(share * len(keys))))
    return set(random.Random(seed).sample(list(keys), n))


def overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


# --- text direction and small helpers ------------------------------------------------------------

RTL_LANGS = {"ar", "arc", "ckb", "dv", "fa", "he", "iw", "ku", "ps", "sd", "syr", "ug", "ur", "yi"}


def text_direction(lang: str | None, sample: Iterable[str] = ()) -> str:
    """"rtl" or "ltr" for a language code (falls back on the script of ``sample``)."""
    base = (lang or "").lower().replace("_", "-").split("-")[0]
    if base in RTL_LANGS:
        return "rtl"
    if not base:
        for text in sample:
            for ch in text:
                bidi = unicodedata.bidirectional(ch)
                if bidi in ("R", "AL"):
                    return "rtl"
                if bidi == "L":
                    return "ltr"
    return "ltr"
