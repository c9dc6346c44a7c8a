"""The reader study's data and pure helpers: the paper's questionnaires, display normalisation, chunks, orders."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from enface.protocols.reader import display, questions
from enface.protocols.reader.design import (
    blind_words_in,
    chunk_plan,
    chunk_sides,
    default_guidelines,
    display_orders,
    make_plan,
    reading_order,
)


def test_questionnaires_follow_the_paper():
    q = questions
    # Table 16: eight questions after each reading, Q1-Q4 and Q8 on 5-point scales coded 1-5
    assert [x.number for x in q.SINGLE] == list(range(1, 9))
    assert [x.id for x in q.SINGLE] == ["acceptability", "smoothness", "immersion", "continue", "positive",
                                         "negative", "origin", "origin_confidence"]
    assert q.SINGLE[0].text == ("How acceptable did this translation feel overall as a published version of the "
                                "book?")
    assert [lab for _v, lab in q.SINGLE[0].options] == ["completely unacceptable", "somewhat unacceptable",
                                                         "acceptable with some issues", "mostly acceptable",
                                                         "fully acceptable"]
    for x in (q.SINGLE[i] for i in (0, 1, 2, 3, 7)):
        assert x.type == q.SCALE and x.values == (1, 2, 3, 4, 5)
    assert q.SINGLE[6].options == (("human", "human-translated"), ("machine", "machine-translated"))
    assert q.SINGLE[7].options[-1] == (5, "extremely confident")
    # Table 17: seven comparison questions
    assert [x.number for x in q.COMPARE] == list(range(1, 8))
    assert q.COMPARE[2].values == ("1-clearly", "1-slightly", "2-slightly", "2-clearly")
    assert [lab for _v, lab in q.COMPARE[2].options][0] == "Translation 1 (clearly better)"
    assert q.COMPARE[0].values == ("1", "2", "none") and q.COMPARE[0].tag == "Dialogue"
    assert q.COMPARE[4].text == "Which version is more likely to be AI-translated?"
    assert "Use T1 to refer to Translation 1 and T2 to refer to Translation 2." in q.COMPARE[3].help
    # Table 18: the four steps of a chunk
    assert q.CHUNK_HIGHLIGHT.text == "Step 1. Highlight wording quality"
    assert [x.text for x in q.CHUNK] == ["Step 2. Which translation do you prefer?",
                                         "Step 3. Explain your choice (refer to translations as T1 and T2).",
                                         "Step 4. Was this choice difficult?"]
    assert q.CHUNK[2].options == (
        ("significantly_better", "No, because the translation I chose was significantly better."),
        ("better", "No, because the translation I chose was better."),
        ("similar", "Yes, because both translations were of similar quality."))
    # Table 29: four open post-study questions; Q2 carries the reader's result
    assert len(q.POST) == 4 and all(x.type == q.TEXT for x in q.POST) and not q.POST[3].required
    text = q.accuracy_question([q.BookVerdict(1, True), q.BookVerdict(2, False)])
    assert text == ("You correctly identified the AI-translated version of Book 1, and incorrectly identified the "
                    "AI-translated version of Book 2. Are you surprised by your accuracy?")


@pytest.mark.parametrize("raw,shown", [
    ('"You are late," she said.', "“You are late,” she said."),
    ("“Oui”, dit-il… « Non » ‹ peut-être ›", "“Oui”, dit-il… “Non” ‘peut-être’"),
    ("It's the baker's 'best' bread . . . and more...", "It’s the baker’s ‘best’ bread … and more…"),
    ("Two  spaces\u00a0and\ttabs ", "Two spaces and tabs"),
    ("„Gut“, sagte er.", "“Gut”, sagte er."),
    ("(\"quoted\") and —\"dash\"", "(“quoted”) and —“dash”"),
    ("「こんにちは」と言った。", "「こんにちは」と言った。"),
])
def test_display_normalisation(raw, shown):
    assert display.normalise(raw) == shown
    assert display.normalise(shown) == shown          # idempotent


def test_chunk_text_and_words():
    assert display.chunk_text(["One.", "", "Two “x”."]) == "One.\nTwo “x”."
    assert display.count_words("a b  c") == 3
    assert display.count_words("我们走吧", "zh") == 4


def test_chunks_are_shared_and_cover_the_item():
    v1 = [" ".join(["word"] * n) for n in (50, 50, 120, 10, 10, 200, 40)]
    v2 = [s + " more" for s in v1]
    v2[3] = ""                                          # a null alignment in version 2
    chunks = chunk_plan({"1": v1, "2": v2}, 100, "en")
    assert chunks[0][0] == 0 and chunks[-1][1] == len(v1)
    assert all(a[1] == b[0] for a, b in zip(chunks, chunks[1:]))


def test_display_orders_are_balanced_and_seeded():
    for n in range(1, 30):
        orders = display_orders(n, random.Random(n))
        c = Counter(tuple(o) for o in orders)
        assert c[("1", "2")] + c[("2", "1")] == n and abs(c[("1", "2")] - c[("2", "1")]) <= 1
    assert make_plan(1, [[0, 2], [2, 5]], "s") == make_plan(1, [[0, 2], [2, 5]], "s")


def test_presentation_labels_map_to_campaign_versions():
    plan = {"first": "2", "display": [["2", "1"], ["1", "2"]]}
    assert reading_order(plan) == {"1": "2", "2": "1"}
    assert chunk_sides(plan, 1) == {"1": "2", "2": "1"} and chunk_sides(plan, 2) == {"1": "1", "2": "2"}


def test_guidelines_are_blind():
    text = default_guidelines(24, 300)
    assert "one day" in text and "300 words" in text
    assert blind_words_in(text, ["nightjar-mt", "Heron"]) == []
    assert blind_words_in("It was human made", []) == ["human"]
    assert blind_words_in("by Nightjar-MT, team heron", ["nightjar-mt", "Heron"]) == ["nightjar-mt", "Heron"]
    assert blind_words_in("preference, referenced, humane", []) == []


def test_the_break_is_said_in_words():
    from enface.protocols.reader.design import lock_phrase

    assert [lock_phrase(h) for h in (0, 0.05, 1 / 60, 1, 12, 24, 72)] == [
        "right", "3 minutes", "1 minute", "1 hour", "12 hours", "one day", "3 days"]


def test_time_estimates_follow_the_length():
    from enface.protocols.reader.design import duration_phrase, time_estimates

    assert duration_phrase(3) == "about 5 minutes" and duration_phrase(31) == "about 30 minutes"
    assert duration_phrase(61) == "about 1 hour" and duration_phrase(100) == "about 1.5 hours"
    # 2,500 words: two readings at 250 a minute + 3 questionnaires; Part 2 at 100 a minute + 3 per chunk of 300
    assert time_estimates(2500, 300) == ("about 35 minutes", "about 1.5 hours")
    short, long_ = time_estimates(400, 300), time_estimates(20000, 300)
    assert short == ("about 20 minutes", "about 15 minutes") and long_ == ("about 3 hours", "about 10 hours")
    assert "its time depends on the book's length" in default_guidelines(24, 300)
    assert "(about 35 minutes)" in default_guidelines(24, 300, words=2500)
