"""MQM's attention checks, pure: a target segment corrupted where the annotator must mark an error.

No database and no Flask here, so that each rule is tested on plain data.
:func:`inject_attention` corrupts a target segment (a reversed run of words or a word with its
letters reversed) and returns the span the annotator should mark; :func:`choose_attention` picks
the segment (the items are the core's :func:`~enface.campaigns.sampling.pick_attention_items`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import regex  # (a dependency of sacrebleu) for \p{...} classes, as in the client kit's spans.js

# One word for span snapping and attention checks: a CJK character on its own,
# else a run of letters, marks and digits (with inner apostrophes or hyphens).
# The same rule as static/kit/spans.js, so that server-side spans and the UI's word snapping agree.
_CJK_CHAR = r"[\p{Han}\p{Hiragana}\p{Katakana}]"
_CJK = regex.compile(_CJK_CHAR)
_WORD = regex.compile(rf"{_CJK_CHAR}|(?:(?!{_CJK_CHAR})[\p{{L}}\p{{M}}\p{{N}}])+"
                      rf"(?:['\u2019\-](?:(?!{_CJK_CHAR})[\p{{L}}\p{{M}}\p{{N}}])+)*")


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


def overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]
