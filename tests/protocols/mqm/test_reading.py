"""Reading time rules (pure): minimum dwell per segment, clipping the furthest segment, pace outliers."""

from __future__ import annotations

import pytest
from enface.campaigns import reading
from enface.campaigns.reading import (
    DEFAULT_WORDS_PER_SECOND,
    clip_furthest,
    min_dwell_ms,
    pace_outliers,
    read_prefix,
    reading_words,
    segment_dwell_ms,
    unread_segments,
)


def test_words_to_read():
    assert reading_words("The old ferryman rowed slowly.") == 5
    assert reading_words("  spaced   out\ttext\n") == 3
    assert reading_words("") == 0
    # Chinese and Japanese are written without spaces: 1.5 characters make a word
    assert reading_words("他把灯笼挂在") == pytest.approx(4)
    assert reading_words("他把灯笼挂在门口，等着雨停。") == pytest.approx(12 / 1.5 + 1)   # + the punctuation
    assert reading_words("ひらがなカタカナ") == pytest.approx(8 / 1.5)
    assert reading_words("GPT-4 说") == pytest.approx(1 + 1 / 1.5)


def test_min_dwell_is_words_over_the_rate():
    assert DEFAULT_WORDS_PER_SECOND == 20
    assert min_dwell_ms("one two three four five six seven eight nine ten") == 500
    assert min_dwell_ms("one two three four", words_per_second=4) == 1000
    assert min_dwell_ms("") == 0
    with pytest.raises(ValueError):
        min_dwell_ms("x", words_per_second=0)
    # a segment's dwell counts its source and its translation
    segs = [{"source": "a b c d e f g h i j", "target": "k l m n o p q r s t"}, {"source": "", "target": ""}]
    assert segment_dwell_ms(segs) == [1000, 0]
    assert segment_dwell_ms(segs, words_per_second=10) == [2000, 0]


def test_unread_and_clipped_furthest():
    dwell = [500, 800, 0, 300]
    times = {"0": 600, "1": 100, "3": 5000}
    assert unread_segments(times, dwell) == [1]
    assert read_prefix(times, dwell) == 0
    assert clip_furthest(3, times, dwell) == 0          # cannot pass segment 1, read too fast
    assert clip_furthest(-1, times, dwell) == -1
    times["1"] = 800
    assert unread_segments(times, dwell) == [] and clip_furthest(3, times, dwell) == 3
    assert clip_furthest(2, times, dwell) == 2          # never past what the page says it reached
    assert read_prefix({}, [0, 0]) == 1                 # empty segments need no time
    assert read_prefix({}, [1, 0]) == -1
    assert reading.describe_segments([0, 1, 2], labels=[5, 6, 7]) == "5, 6, 7"
    assert reading.describe_segments(list(range(20)), limit=3) == "1, 2, 3 … and 17 more"


def test_fourteen_presses_in_a_second_read_nothing():
    """The issue's case: J pressed 14 times in one second over 14 ordinary segments."""
    segs = [{"source": "Nobody on the bank knew his name.", "target": "Niemand am Ufer kannte seinen Namen."}] * 14
    dwell = segment_dwell_ms(segs)
    times = {str(i): 70 for i in range(14)}
    assert min(dwell) == 650
    assert unread_segments(times, dwell) == list(range(14))
    assert clip_furthest(13, times, dwell) == -1


def test_pace_outliers():
    # ms and source words per item; rater3 reads 10x faster than the others, rater4 20x slower
    samples = {
        "rater1": [(60_000, 100), (66_000, 110), (1, 0)],       # ~600 ms/word (the item with no word is left out)
        "rater2": [(50_000, 100), (55_000, 100)],
        "rater3": [(6_000, 100), (5_000, 100)],
        "rater4": [(1_200_000, 100)],
        "rater5": [(100, 5)],                                    # too little read: neither flagged nor a yardstick
        "rater6": [],
    }
    p = pace_outliers(samples)
    assert p["rater1"].ms_per_word == pytest.approx(600) and p["rater1"].flag is None
    assert p["rater2"].flag is None
    assert p["rater3"].flag == "fast" and p["rater3"].ratio < 0.25
    assert p["rater3"].reference == pytest.approx(600)    # median of 600, 525, 12000 (leave-one-out)
    assert p["rater4"].flag == "slow"
    assert p["rater5"].flag is None and p["rater5"].ms_per_word == 20
    assert p["rater6"].ms_per_word is None and p["rater6"].flag is None
    # one annotator alone is never an outlier; two are compared with each other
    assert pace_outliers({"a": [(6_000, 100)]})["a"].flag is None
    two = pace_outliers({"a": [(6_000, 100)], "b": [(60_000, 100)]})
    assert two["a"].flag == "fast" and two["b"].flag == "slow"
    # the factor is a parameter
    assert pace_outliers({"a": [(30_000, 100)], "b": [(60_000, 100)]}, factor=1.5)["a"].flag == "fast"


def test_dashboard_flags_an_annotator_who_reads_too_fast(world):
    from tests.support.campaigns import assignments_of, new_campaign, read_all

    raters = ("ann1@example.org", "ann2@example.org", "ann3@example.org")
    cid = new_campaign(world, annotators=raters, redundancy=3, ranges="river.1")
    for email, ms in zip(raters, (30_000, 25_000, 1_500)):     # ann3: 1.5 s a segment, still above the dwell
        c = world.client(email)
        for a in assignments_of(world, cid, email):
            assert read_all(c, a["public_id"], a["segments"], ms=ms).status_code == 200
    html = world.client("org@example.org").get(f"/campaigns/{cid}").get_data(as_text=True)
    table = html[html.index('id="progress"'):html.index('id="items"')]
    rows = {email: row for email in raters for row in table.split("<tr>") if f"Annotator {email[3]}" in row}
    assert "too fast" in rows["ann3@example.org"]
    assert "too fast" not in rows["ann1@example.org"] and "too fast" not in rows["ann2@example.org"]
    assert "Time / word" in html and "20 words a second" in html


def test_the_reading_speed_is_a_campaign_setting(world):
    from tests.support.campaigns import assignments_of, new_campaign

    dwell = {}
    for wps in (20, 2):
        cid = new_campaign(world, annotators=("ann1@example.org",), redundancy=1, ranges="river.1",
                           systems=["zephyr-mt"], words_per_second=wps)
        pid = assignments_of(world, cid, "ann1@example.org")[0]["public_id"]
        state = world.client("ann1@example.org").get(f"/annotate/api/items/{pid}").get_json()
        assert state["words_per_second"] == wps
        dwell[wps] = state["dwell_ms"]
    assert [round(slow / fast) for slow, fast in zip(dwell[2], dwell[20])] == [10] * len(dwell[2])
    # and the server holds to it: 5 s on a segment is enough at 20 words a second, not at 2
    c = world.client("ann1@example.org")
    r = c.post(f"/annotate/api/items/{pid}/progress", json={"cursor": 0, "furthest": 0, "times": {"0": 5000}})
    assert r.get_json()["furthest"] == -1
