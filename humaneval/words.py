"""Word counts for chunking and for highlight densities.

The rule, everywhere in this package:

* For a CJK language (``zh``, ``ja``, ``yue`` and their regional tags such as
  ``zh-TW``), every non-whitespace character counts as one word: these scripts
  do not separate words with spaces, and characters are what CAT tools and
  translators' rates count.
* For any other language (Korean included: it separates words with spaces),
  a word is a whitespace-separated token.
* When the language is unknown (``lang=None``, e.g. highlights in an export),
  each Han or kana character is a word and so is each whitespace-separated run
  of other characters. On English text this is the whitespace rule; on Chinese
  or Japanese text it is the character rule except that a run of adjacent
  punctuation marks counts once.
"""

from __future__ import annotations

import regex

CJK_LANGUAGES = frozenset({"zh", "ja", "yue", "cmn", "lzh", "wuu"})

_CJK_CHAR = r"[\p{Han}\p{Hiragana}\p{Katakana}]"
_TOKEN = regex.compile(rf"{_CJK_CHAR}|(?:(?!{_CJK_CHAR})\S)+")


def is_cjk(lang: str | None) -> bool:
    """True for Chinese or Japanese language tags (``zh``, ``zh-Hant``, ``ja_JP``...)."""
    if not lang:
        return False
    return regex.split(r"[-_]", lang.strip().lower(), maxsplit=1)[0] in CJK_LANGUAGES


def word_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) code-point offsets of the words of ``text`` under the unknown-language rule."""
    return [m.span() for m in _TOKEN.finditer(text)]


def count_words(text: str, lang: str | None = None) -> int:
    """Words in ``text``: characters for CJK languages, whitespace tokens otherwise (see module doc)."""
    if lang is None:
        return len(word_spans(text))
    if is_cjk(lang):
        return sum(1 for ch in text if not ch.isspace())
    return len(text.split())
