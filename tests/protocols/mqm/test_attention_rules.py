"""MQM's attention checks, pure (enface.protocols.mqm.attention): corruptions, their segments and items, words."""

from __future__ import annotations

import random

import pytest
from enface.campaigns import sampling
from enface.protocols.mqm import attention


@pytest.mark.parametrize("kind", ["words", "letters", "mixed"])
def test_attention_corruption_is_a_real_change_at_the_span(kind):
    text = "The ferryman carried letters, salt and sometimes a frightened child across."
    for seed in range(30):
        c = attention.inject_attention(text, kind, random.Random(seed))
        assert c is not None and c.text != text and len(c.text) == len(text)
        assert 0 <= c.start < c.end <= len(c.text)
        # outside the span nothing changed
        assert c.text[:c.start] == text[:c.start] and c.text[c.end:] == text[c.end:]
        if c.kind == "words":
            assert sorted(c.text[c.start:c.end].replace(",", " ").split()) == \
                sorted(text[c.start:c.end].replace(",", " ").split())
            assert c.text[c.start:c.end] != text[c.start:c.end]
        else:
            assert c.text[c.start:c.end].lower() == text[c.start:c.end][::-1].lower()
        if kind != "mixed":
            assert c.kind == kind


def test_attention_on_cjk_reverses_characters():
    text = "他说我们明天一起去北京看看长城吧。"
    c = attention.inject_attention(text, "words", random.Random(1))
    assert c is not None and c.kind == "words"
    assert c.end - c.start >= 4 and c.text[c.start:c.end] == text[c.start:c.end][::-1]
    # letters cannot be reversed inside a Chinese word: mixed falls back on characters
    assert attention.inject_attention(text, "letters", random.Random(1)) is None
    assert attention.inject_attention(text, "mixed", random.Random(1)) is not None


def test_attention_skips_segments_too_short_and_picks_share():
    seg, c = attention.choose_attention(["Yes.", "No.", "The quick brown fox jumps over the lazy dog."], "words",
                                    random.Random(0))
    assert seg == 2
    assert attention.choose_attention(["Yes.", "Oh"], "words", random.Random(0)) is None
    keys = list(range(40))
    assert len(sampling.pick_attention_items(keys, 0.1, 1)) == 4
    assert len(sampling.pick_attention_items(keys, 0.01, 1)) == 1
    assert sampling.pick_attention_items(keys, 0.0, 1) == set()


def test_words_snap_like_the_browser():
    # CJK characters are words of their own; punctuation is not a word
    assert [(a, b) for a, b in attention.words_in("Hello, 世界 don't")] == [(0, 5), (7, 8), (8, 9), (10, 15)]
