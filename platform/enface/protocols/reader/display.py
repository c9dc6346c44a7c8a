"""What a reader sees of a translation: display normalisation and the chunk texts.

LAIT (Appendix D, "Display normalization") applied "lightweight display normalization to
reduce typographic inconsistencies across texts, including normalizing quotation marks,
guillemets, apostrophes, and ellipses", in the interface only, and recorded span
highlights on the normalised text. Two versions that differ only in their quote style
would otherwise tell a reader which one is which.

``lait-display-v1`` (this module's :data:`NORMALISATION`), applied to each paragraph
(segment) on its own, in this order:

1. guillemets lose the spaces inside them (``« Oui »`` → ``«Oui»``);
2. every double quotation mark (“ ” „ ‟ « » 〝 〞 ＂ and ASCII ") becomes ASCII ``"``, every
   single one and apostrophe (‘ ’ ‚ ‛ ‹ › ʼ and ASCII ') ASCII ``'``;
3. ``...``, ``. . .`` and runs of more dots after them become one ``…`` (U+2026);
4. runs of spaces, tabs and no-break or thin spaces become one space; the ends are trimmed;
5. quotes are made typographic again, the same way in both versions: a ``"`` at the start,
   after a space, an opening bracket, a dash or another opening quote opens (“), any other
   closes (”); a ``'`` between two letters or digits, or after one, is an apostrophe (’),
   at the start or after a space or opening punctuation it opens (‘).

CJK corner brackets (「」『』) are left alone. Offsets of highlights are Unicode code
points (Python ``str`` indices) into the displayed chunk text: its paragraphs joined by
one ``\\n``. Empty paragraphs (a null alignment of reference 2) are not shown.
"""

from __future__ import annotations

import re

NORMALISATION = "lait-display-v1"

_GUILLEMET_SPACE_OPEN = re.compile(r"([«‹])[\s\u00a0\u202f\u2009]+")
_GUILLEMET_SPACE_CLOSE = re.compile(r"[\s\u00a0\u202f\u2009]+([»›])")
_DOUBLE = str.maketrans({c: '"' for c in "“”„‟«»〝〞＂"})
_SINGLE = str.maketrans({c: "'" for c in "‘’‚‛‹›ʼ"})
_ELLIPSIS = re.compile(r"\.(?:\s?\.){2,}|…")
_SPACES = re.compile(r"[ \t\u00a0\u2009\u202f\u2007\u200a]+")
_OPENERS = set(" \n([{<—–-/\u201c\u2018")


def normalise(text: str) -> str:
    """One paragraph as displayed (``lait-display-v1``)."""
    text = _GUILLEMET_SPACE_OPEN.sub(r"\1", text)
    text = _GUILLEMET_SPACE_CLOSE.sub(r"\1", text)
    text = text.translate(_DOUBLE).translate(_SINGLE)
    text = _ELLIPSIS.sub("…", text)
    text = _SPACES.sub(" ", text).strip()
    out = []
    for i, ch in enumerate(text):
        prev = out[-1] if out else ""
        if ch == '"':
            out.append("\u201c" if (not prev or prev in _OPENERS) else "\u201d")
        elif ch == "'":
            nxt = text[i + 1] if i + 1 < len(text) else ""
            if prev and prev.isalnum():
                out.append("\u2019")
            elif (not prev or prev in _OPENERS) and nxt and not nxt.isspace():
                out.append("\u2018")
            else:
                out.append("\u2019")
        else:
            out.append(ch)
    return "".join(out)


def paragraphs(segments: list[str]) -> list[str]:
    """The displayed paragraphs of a list of segments (normalised; empty ones dropped)."""
    out = []
    for s in segments:
        n = normalise(s or "")
        if n:
            out.append(n)
    return out


def chunk_text(segments: list[str]) -> str:
    """The displayed text of one chunk of one version: its paragraphs joined by one newline."""
    return "\n".join(paragraphs(segments))


_WORD = re.compile(r"\S+")


def count_words(text: str, lang: str = "en") -> int:
    """Words of displayed text, for reading speeds: whitespace tokens, or characters for CJK scripts."""
    if lang.split("-")[0].lower() in ("zh", "ja", "ko", "th"):
        return sum(1 for ch in text if not ch.isspace())
    return len(_WORD.findall(text))
