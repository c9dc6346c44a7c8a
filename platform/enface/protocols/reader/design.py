"""The reader study's settings, guidelines and per-reader plan (pure: no database).

A plan is what the start decides for one reader and one book, stored in ``Assignment.plan``::

    {"first": "1"|"2",            # the campaign version read first (Translation 1 to this reader)
     "chunks": [[s, e], ...],     # close-reading chunks: segment offsets in the item, half-open
     "display": [["2", "1"], ...],# per chunk, the campaign versions shown left (T1) and right (T2)
     "post": bool}                # the post-study questions are asked on this assignment (the reader's last)

Campaign versions "1" and "2" are the campaign's first and second chosen version (by default
reference 1 and a system); presentation labels are the reader's "Translation 1/2" and "T1/T2".
"""

from __future__ import annotations

import math
import random
import re
from typing import Any

from humaneval.reader_design import chunk_segments

from .display import count_words, normalise

VERSIONS = ("1", "2")
# The stages of one book: Part 1, Part 2 (after the break), the final questions (on the last book).
STAGES = ("immersive", "close", "post")


STAGE_TITLES = {"immersive": "Part 1 · Immersive reading", "close": "Part 2 · Close reading",
                "post": "Final questions"}

DEFAULTS: dict[str, Any] = {
    "readers_per_document": 2,
    "documents_per_reader": 2,
    "lock_hours": 24.0,
    "chunk_words": 300,
    "passphrase": "",
    "guidelines": "",
    "fast_words_per_second": 8.0,
}

# Shown to readers: no word here may tell which version is which (see check_blind_text).
DEFAULT_GUIDELINES = """\
Thank you for taking part in this reading study.

You will read the opening of a novel in two different translations and tell us about your \
reading experience. Each book has two parts.

Part 1, immersive reading ({part1}). Read Translation 1 from beginning to end, as you would \
read a book for pleasure, then answer eight questions about it. Then read Translation 2 on its own \
and answer the same questions. Last, compare the two translations in seven questions. Read at your \
usual pace: the page records reading time. You can stop at any moment; it remembers where you were.

A break: Part 2 opens {lock} after you finish Part 1, so that you come back with fresh eyes.

Part 2, close reading ({part2}). The two translations are shown side by side, in chunks of \
about {words} words; T1 is the left column and T2 the right one, and which translation is on which \
side changes from chunk to chunk. For each chunk:
  1. Highlight wording that sounds especially good or poor: select the words, then choose Good or \
Poor. Click a highlight to remove it.
  2. Choose the translation you prefer.
  3. Explain your choice in a few sentences (refer to the translations as T1 and T2).
  4. Say whether the choice was difficult.

After your last book, four short questions close the study.

Everything you enter is saved as you go."""

# Words that would tell a reader which version is which (the origin question's options aside).
BLIND_WORDS = ("human", "machine", "reference", "system", "mt", "ht", "gpt", "llm")


def lock_phrase(hours: float) -> str:
    """The break in words: "one day", "3 days", "12 hours", "1 hour", "3 minutes" ("right": none)."""
    if hours <= 0:
        return "right"
    if hours % 24 == 0:
        days = int(hours // 24)
        return "one day" if days == 1 else f"{days} days"
    if hours < 1:
        minutes = max(1, round(hours * 60))
        return "1 minute" if minutes == 1 else f"{minutes} minutes"
    return "1 hour" if hours == 1 else f"{hours:g} hours"


#: The time estimates of the default guidelines, from the book's length: reading for pleasure at about 250
#: words a minute (an adult's usual pace), close reading of two versions side by side at about 100, five
#: minutes for each of Part 1's three questionnaires and three for each chunk's questions in Part 2.
PLEASURE_WPM, CLOSE_WPM, QUESTIONNAIRE_MINUTES, CHUNK_QUESTIONS_MINUTES = 250, 100, 5, 3
UNKNOWN_LENGTH = "its time depends on the book's length"


def duration_phrase(minutes: float) -> str:
    """"about 25 minutes" (to 5 minutes), "about 1 hour", "about 1.5 hours" (to half hours)."""
    if minutes < 55:
        return f"about {max(5, 5 * round(minutes / 5))} minutes"
    hours = max(1.0, round(minutes / 30) / 2)
    return "about 1 hour" if hours == 1 else f"about {hours:g} hours"


def time_estimates(words: int, chunk_words: int) -> tuple[str, str]:
    """(Part 1, Part 2) of a book whose versions have about ``words`` words each."""
    part1 = 2 * words / PLEASURE_WPM + 3 * QUESTIONNAIRE_MINUTES
    part2 = 2 * words / CLOSE_WPM + math.ceil(words / max(1, chunk_words)) * CHUNK_QUESTIONS_MINUTES
    return duration_phrase(part1), duration_phrase(part2)


def default_guidelines(lock_hours: float, chunk_words: int, words: int | None = None) -> str:
    """The guidelines readers get unless the organizer writes their own; with ``words`` (a book's length) the
    parts' times are estimated for that book, else the text says that the length decides."""
    part1, part2 = time_estimates(words, chunk_words) if words else (UNKNOWN_LENGTH, UNKNOWN_LENGTH)
    text = DEFAULT_GUIDELINES.format(lock=lock_phrase(lock_hours), words=chunk_words, part1=part1, part2=part2)
    if lock_hours <= 0:
        text = text.replace("Part 2 opens right after you finish Part 1, so that you come back with fresh eyes.",
                            "take a break before Part 2 if you can, so that you come back with fresh eyes.")
    return text


def blind_words_in(text: str, names: list[str]) -> list[str]:
    """The words and names in ``text`` that would unblind a reader (case-insensitive, whole words)."""
    found = []
    for word in (*BLIND_WORDS, *names):
        word = (word or "").strip()
        if len(word) < 2:
            continue
        if re.search(r"(?<![\w-])" + re.escape(word) + r"(?![\w-])", text, re.IGNORECASE):
            found.append(word)
    return found


def chunk_plan(texts: dict[str, list[str]], target_words: int, lang: str) -> list[list[int]]:
    """Chunk boundaries shared by both versions: per segment, the longer of the two displayed versions."""
    a, b = texts["1"], texts["2"]
    longest = []
    for x, y in zip(a, b):
        nx, ny = normalise(x or ""), normalise(y or "")
        longest.append(nx if count_words(nx, lang) >= count_words(ny, lang) else ny)
    return [[s, e] for s, e in chunk_segments(longest, target_words=target_words, lang=lang)]


def display_orders(n: int, rng: random.Random) -> list[list[str]]:
    """Left/right orders of ``n`` chunks: each order (almost) equally often, in a random sequence."""
    orders = [["1", "2"] if i % 2 == 0 else ["2", "1"] for i in range(n)]
    if n % 2 and rng.random() < 0.5:
        orders[-1] = ["2", "1"]
    rng.shuffle(orders)
    return orders


def make_plan(first: int | str, chunks: list[list[int]], seed: str) -> dict[str, Any]:
    rng = random.Random(seed)
    return {"first": str(first), "chunks": chunks, "display": display_orders(len(chunks), rng), "post": False}


# -- presentation labels <-> campaign versions -----------------------------------------------------------


def reading_order(plan: dict) -> dict[str, str]:
    """{"1": campaign version read first, "2": the other}: Translation 1/2 -> campaign version."""
    first = plan.get("first", "1")
    return {"1": first, "2": "2" if first == "1" else "1"}


def chunk_sides(plan: dict, chunk: int) -> dict[str, str]:
    """{"1": campaign version in the left column (T1), "2": right (T2)} for chunk ``chunk`` (1-based)."""
    left, right = plan["display"][chunk - 1]
    return {"1": left, "2": right}
