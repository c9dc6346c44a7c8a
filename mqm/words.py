"""Source word counts, per language, for the per-word MQM score.

Modes:

``whitespace``
    whitespace-separated tokens (space-delimited languages).
``jieba``
    jieba's segmentation (Chinese; also used for Japanese when MeCab is missing); only
    tokens with a letter or a digit count, not punctuation or spaces.
``chars``
    the CAT-tool convention: each CJK character (Han, kana) is one word, plus each
    whitespace-separated run of other text holding a letter or a digit.
``auto``
    jieba for Chinese; MeCab (through ``ipadic``, installed with sacrebleu[ja]) for
    Japanese, else jieba; whitespace otherwise. The language is guessed from the script
    when not given.

The method actually used is reported (:attr:`WordCounter.method`) and is
stored with every score.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

from scoring.languages import primary_language

MODES = ("auto", "whitespace", "jieba", "chars")

_CJK = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
                  r"\U00020000-\U0003134f]")
_KANA = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]")
_HANGUL = re.compile(r"[\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]")


def _has_alnum(token: str) -> bool:
    return any(unicodedata.category(ch)[0] in "LN" for ch in token)


def guess_language(texts: Iterable[str] | str) -> str | None:
    """"zh", "ja" or "ko" from the script of the texts; None for anything else."""
    if isinstance(texts, str):
        texts = [texts]
    han = kana = hangul = letters = 0
    for text in texts:
        han += len(_HAN.findall(text))
        kana += len(_KANA.findall(text))
        hangul += len(_HANGUL.findall(text))
        letters += sum(1 for ch in text if ch.isalpha())
    if not letters:
        return None
    if kana and kana >= 0.05 * letters:
        return "ja"
    if hangul >= 0.3 * letters:
        return "ko"
    if han >= 0.3 * letters:
        return "zh"
    return None


@lru_cache(maxsize=1)
def _jieba():
    # Imported lazily: jieba loads a 5 MB dictionary and builds a prefix index on first
    # use (about a second), which English-only users should not pay for.
    import logging
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # jieba 0.42 imports the deprecated pkg_resources
        import jieba
    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    return jieba


@lru_cache(maxsize=1)
def _mecab():
    """A MeCab wakati tagger with the ipadic dictionary, or None when not installed."""
    try:  # optional: comes with sacrebleu[ja]; imported lazily for the same reason as jieba
        import ipadic
        import MeCab
        return MeCab.Tagger(ipadic.MECAB_ARGS + " -Owakati")
    except Exception:  # ImportError, or a RuntimeError from a broken dictionary
        return None


def count_whitespace(text: str) -> int:
    return len(text.split())


def count_jieba(text: str) -> int:
    return sum(1 for tok in _jieba().lcut(text) if _has_alnum(tok))


def count_mecab(text: str) -> int:
    tagger = _mecab()
    if tagger is None:
        return count_jieba(text)
    return sum(1 for tok in tagger.parse(text).split() if _has_alnum(tok))


def count_chars(text: str) -> int:
    cjk = len(_CJK.findall(text))
    rest = _CJK.sub(" ", text)
    return cjk + sum(1 for tok in rest.split() if _has_alnum(tok))


_COUNTERS = {"whitespace": count_whitespace, "jieba": count_jieba, "chars": count_chars, "mecab": count_mecab}


def resolve_mode(mode: str, lang: str | None) -> str:
    """The concrete method for a mode and a language (``auto`` -> jieba/mecab/whitespace)."""
    if mode not in MODES:
        raise ValueError(f"unknown word-count mode {mode!r} (expected one of: {', '.join(MODES)})")
    if mode != "auto":
        return mode
    base = primary_language(lang)
    if base == "zh":
        return "jieba"
    if base == "ja":
        return "mecab" if _mecab() is not None else "jieba"
    return "whitespace"


class WordCounter:
    """Counts source words with one method; ``method`` describes it for the record."""

    def __init__(self, mode: str = "auto", lang: str | None = None):
        self.mode, self.lang = mode, lang
        self.resolved = resolve_mode(mode, lang)
        self._count = _COUNTERS[self.resolved]
        self._cache: dict[str, int] = {}

    @classmethod
    def for_texts(cls, texts: Iterable[str], mode: str = "auto", lang: str | None = None) -> WordCounter:
        """A counter whose language is guessed from ``texts`` when ``lang`` is not given."""
        return cls(mode, lang or guess_language(texts))

    @property
    def method(self) -> str:
        if self.resolved == "jieba":
            from importlib.metadata import version
            detail = f"jieba {version('jieba')}, tokens with a letter or digit"
        elif self.resolved == "mecab":
            detail = "MeCab + ipadic, tokens with a letter or digit"
        elif self.resolved == "chars":
            detail = "CJK characters + other whitespace tokens"
        else:
            detail = "whitespace tokens"
        return f"{self.resolved} ({detail}; language {self.lang or 'unknown'})"

    def __call__(self, text: str) -> int:
        n = self._cache.get(text)
        if n is None:
            n = self._cache[text] = self._count(text)
        return n


def count_words(text: str, mode: str = "auto", lang: str | None = None) -> int:
    """Words in ``text``; with ``mode="auto"`` and no ``lang`` the language is guessed."""
    return WordCounter.for_texts([text], mode, lang)(text)
