"""Attention-check (BAD item) construction: deterministic, damaged where it says, the rest kept."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from humaneval.esa import ErrorSpan
from humaneval.esa.badcheck import bad_document, bad_segment, marked_the_damage, phrase_length

SEGMENT = "Der  schnelle braune Fuchs springt über den faulen Hund, und alle sehen zu."
DONORS = ["Die Zentralbank hebt die Zinsen erneut an, sagen Analysten.", "Das Wetter bleibt morgen wechselhaft."]


def test_phrase_lengths_follow_wmt():
    assert [phrase_length(n) for n in (1, 2, 5, 6, 8, 9, 15, 16, 20, 21, 80)] == [1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6]
    assert phrase_length(12, character_based=True) == 8


def test_the_damage_is_where_it_says_and_the_rest_is_kept():
    bad = bad_segment(SEGMENT, DONORS, seed=7)
    assert bad.text != SEGMENT and bad.original == SEGMENT
    assert bad.text[bad.start:bad.end + 1] == bad.inserted
    assert bad.inserted in DONORS[bad.donor]
    assert SEGMENT.index(bad.replaced) == bad.start
    assert bad.text[:bad.start] == SEGMENT[:bad.start]
    assert bad.text[bad.end + 1:] == SEGMENT[bad.start + len(bad.replaced):]
    assert len(bad.replaced.split()) == phrase_length(len(SEGMENT.split())) == len(bad.inserted.split()) == 4
    assert bad.text.startswith("Der ") and bad.text.endswith(" zu.")     # first and last word kept


def test_deterministic_under_a_seed():
    assert bad_segment(SEGMENT, DONORS, seed="c1/a2/d3") == bad_segment(SEGMENT, DONORS, seed="c1/a2/d3")
    assert len({bad_segment(SEGMENT, DONORS, seed=s).text for s in range(20)}) > 5


def test_character_based_languages():
    segment = "今天天气很好我们去公园散步吧"
    bad = bad_segment(segment, ["股票市场今日大幅下跌投资者担忧"], seed=1, character_based=True)
    assert len(bad.replaced) == len(bad.inserted) == phrase_length(len(segment), True) == 8
    assert bad.text[0] == segment[0] and bad.text[-1] == segment[-1]


def test_short_segments_and_short_donors():
    bad = bad_segment("Ja", ["Nein danke"], seed=3)
    assert bad.replaced == "Ja" and bad.inserted in ("Nein", "danke")
    bad = bad_segment("Ein zwei drei vier fünf sechs sieben", ["Hallo"], seed=3)   # a donor shorter than the phrase
    assert bad.inserted == "Hallo" and bad.text != "Ein zwei drei vier fünf sechs sieben"


def test_refusals():
    with pytest.raises(ValueError, match="no word"):
        bad_segment("   ", DONORS, seed=1)
    with pytest.raises(ValueError, match="no donor"):
        bad_segment("Ja", ["Ja", "  "], seed=1)
    with pytest.raises(ValueError, match="no other document"):
        bad_document(["Ein Satz."], "d1", {"d1": ["Ein Satz."]}, seed=1)


def test_a_bad_document_takes_text_from_other_documents_only():
    documents = {"d1": ["Erster Satz des Dokuments hier.", "Zweiter Satz folgt hier sogleich."],
                 "d2": ["Völlig anderer Text über Schiffe."], "d3": ["Noch etwas über Berge und Täler."]}
    bads = bad_document(documents["d1"], "d1", documents, seed="c/a")
    assert len(bads) == 2 and all(b.text != o for b, o in zip(bads, documents["d1"], strict=True))
    others = " ".join(documents["d2"] + documents["d3"])
    assert all(b.inserted in others for b in bads)
    assert bads == bad_document(documents["d1"], "d1", documents, seed="c/a")


def test_marked_the_damage():
    bad = bad_segment(SEGMENT, DONORS, seed=7)
    assert marked_the_damage([ErrorSpan(bad.end, bad.end + 3, "major")], bad)
    assert not marked_the_damage([ErrorSpan(None, None, "major"), ErrorSpan(0, bad.start - 1, "minor")], bad)


_word = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Zs", "Cc", "Zl", "Zp")), min_size=1,
                max_size=6)


@settings(max_examples=80, deadline=None)
@given(st.lists(_word, min_size=1, max_size=30), st.lists(st.lists(_word, min_size=1, max_size=10), min_size=1,
                                                            max_size=4), st.integers())
def test_any_segment_is_damaged_in_place(words, donor_words, seed):
    segment, donors = " ".join(words), [" ".join(d) for d in donor_words]
    try:
        bad = bad_segment(segment, donors, seed)
    except ValueError:
        # only when every phrase of every donor equals the phrase to replace
        assert all(set(d) <= set(words) for d in donor_words)
        return
    assert bad.text != segment
    assert bad.text[bad.start:bad.end + 1] == bad.inserted
    assert bad.text[:bad.start] + bad.replaced + bad.text[bad.end + 1:] == segment
