"""A word-level diff of two translations of one segment (difflib on tokens; CJK by character).

Pure functions (no Flask, no database): the browser's diff page renders what they return.
"""

from __future__ import annotations

import difflib
import re

# One CJK character (Han, kana, hangul, CJK punctuation and full-width forms) is one token; elsewhere a
# word, a run of whitespace, or one other character. Whitespace is a token so that the pieces rebuild
# the text exactly.
_CJK = "\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef"
_TOKEN = re.compile(rf"[{_CJK}]|[^\s{_CJK}\W]+|\s+|[^\s{_CJK}]", re.UNICODE)


def tokens(text: str) -> list[str]:
    """The tokens of ``text``; ``"".join(tokens(text)) == text``."""
    return _TOKEN.findall(text)


def word_diff(a: str, b: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(left pieces, right pieces): each a list of (kind, text), kind ``same``, ``del`` (only in ``a``,
    on the left) or ``ins`` (only in ``b``, on the right). Joining a side's texts gives that side back."""
    ta, tb = tokens(a), tokens(b)
    left: list[tuple[str, str]] = []
    right: list[tuple[str, str]] = []
    matcher = difflib.SequenceMatcher(None, ta, tb, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            _add(left, "same", ta[i1:i2])
            _add(right, "same", tb[j1:j2])
            continue
        _add(left, "del", ta[i1:i2])
        _add(right, "ins", tb[j1:j2])
    return left, right


def _add(pieces: list[tuple[str, str]], kind: str, toks: list[str]) -> None:
    if not toks:
        return
    text = "".join(toks)
    if pieces and pieces[-1][0] == kind:
        pieces[-1] = (kind, pieces[-1][1] + text)
    else:
        pieces.append((kind, text))


def similarity(a: str, b: str) -> float:
    """The share of tokens the two texts have in common (difflib's ratio), 1.0 for two empty texts."""
    return difflib.SequenceMatcher(None, tokens(a), tokens(b), autojunk=False).ratio()
