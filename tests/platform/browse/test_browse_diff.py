"""The word-level diff (CJK by character) and the span overlay, on constructed texts with known answers."""

from __future__ import annotations

from enface.browse.diff import similarity, tokens, word_diff
from enface.browse.evidence import SpanFilter
from enface.browse.overlay import pieces
from hypothesis import given
from hypothesis import strategies as st


def test_words_differ_as_words():
    left, right = word_diff("The cat sat on the mat.", "The dog sat on a mat!")
    assert left == [("same", "The "), ("del", "cat"), ("same", " sat on "), ("del", "the"), ("same", " mat"),
                    ("del", ".")]
    assert right == [("same", "The "), ("ins", "dog"), ("same", " sat on "), ("ins", "a"), ("same", " mat"),
                     ("ins", "!")]


def test_cjk_differs_by_character():
    assert tokens("林清远推开门。He left") == ["林", "清", "远", "推", "开", "门", "。", "He", " ", "left"]
    left, right = word_diff("林清远推开门", "林清远打开门")
    assert left == [("same", "林清远"), ("del", "推"), ("same", "开门")]
    assert right == [("same", "林清远"), ("ins", "打"), ("same", "开门")]


def test_identical_empty_and_disjoint():
    assert word_diff("same text", "same text") == ([("same", "same text")], [("same", "same text")])
    assert word_diff("", "") == ([], [])
    assert word_diff("", "new") == ([], [("ins", "new")])
    assert similarity("a b", "a b") == 1.0 and similarity("abc", "xyz") == 0.0


@given(st.text(max_size=60), st.text(max_size=60))
def test_each_side_rebuilds_its_text(a, b):
    left, right = word_diff(a, b)
    assert "".join(t for _k, t in left) == a and "".join(t for _k, t in right) == b
    assert {k for k, _t in left} <= {"same", "del"} and {k for k, _t in right} <= {"same", "ins"}


def test_overlapping_spans_take_the_worst_severity():
    ps = pieces("abcdefgh", [{"start": 1, "end": 4, "severity": "Minor"}, {"start": 3, "end": 6, "severity": "Major"}])
    assert [(p["text"], p["severity"], len(p["spans"])) for p in ps] == [
        ("a", None, 0), ("bc", "Minor", 1), ("d", "Major", 2), ("ef", "Major", 1), ("gh", None, 0)]


@given(st.text(max_size=30), st.lists(st.tuples(st.integers(-5, 40), st.integers(-5, 40)), max_size=5))
def test_overlay_rebuilds_the_text_and_clips(text, spans):
    ps = pieces(text, [{"start": a, "end": b, "severity": "Minor"} for a, b in spans])
    assert "".join(p["text"] for p in ps) == text


def test_span_filter_slices_like_marot():
    e = {"campaign_id": 3, "submission_id": 7, "reference": None, "document": "d", "rater": "rater1",
         "category": "Accuracy", "subcategory": "Mistranslation", "severity": "Major"}
    assert SpanFilter().matches(e)
    assert SpanFilter(category="Accuracy").matches(e) and SpanFilter(category="Accuracy/Mistranslation").matches(e)
    assert not SpanFilter(category="Accuracy/Addition").matches(e)
    assert not SpanFilter(category="Accur").matches(e)
    assert SpanFilter(system="7", doc="d", rater="rater1", severity="Major", campaign="3").matches(e)
    for bad in (SpanFilter(system="8"), SpanFilter(doc="e"), SpanFilter(rater="rater2"),
                SpanFilter(severity="Minor"), SpanFilter(campaign="4"), SpanFilter(system="ref1")):
        assert not bad.matches(e)
    assert SpanFilter(system="ref2").matches({**e, "submission_id": None, "reference": 2})
    assert SpanFilter(severity="Minor").as_args(severity="Major", rater="r") == {"severity": "Major", "rater": "r"}
