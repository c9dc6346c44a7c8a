"""Reader-study design: ~300-word chunks and counterbalanced reading orders."""

from collections import Counter, defaultdict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from humaneval import Slot, chunk_segments, count_words, counterbalance


def words(n: int) -> str:
    return " ".join(["w"] * n)


def test_chunks_of_about_300_words():
    assert chunk_segments([words(100)] * 9) == [(0, 3), (3, 6), (6, 9)]
    # 250 + 100 overshoots by as much as 250 falls short: ties stop the chunk.
    assert chunk_segments([words(250), words(100), words(200)]) == [(0, 1), (1, 3)]
    # 270 + 40 = 310 is closer to 300 than 270.
    assert chunk_segments([words(270), words(40), words(300)]) == [(0, 2), (2, 3)]
    # A long paragraph is never split; it is a chunk of its own.
    assert chunk_segments([words(50), words(900), words(100)]) == [(0, 1), (1, 2), (2, 3)]
    # An empty paragraph joins the chunk it follows.
    assert chunk_segments([words(300), "", words(300)]) == [(0, 2), (2, 3)]
    assert chunk_segments([]) == []
    assert chunk_segments([""]) == [(0, 1)]


def test_short_tail_joins_the_previous_chunk():
    # 100 x 7: 300, 300, then a 100-word tail; 400 is closer to 300 than 100 is.
    assert chunk_segments([words(100)] * 7) == [(0, 3), (3, 7)]
    # A 200-word tail stays: 500 would be further from 300 than 200.
    assert chunk_segments([words(100)] * 8) == [(0, 3), (3, 6), (6, 8)]


def test_cjk_counts_characters():
    zh = "我" * 150
    assert count_words(zh, "zh") == 150 and count_words(zh, "en") == 1
    assert count_words("私は 猫", "ja-JP") == 3
    assert chunk_segments([zh, zh, zh, zh], lang="zh") == [(0, 2), (2, 4)]
    assert chunk_segments([zh, zh, zh, zh], lang="en") == [(0, 4)]  # 4 "words": one chunk
    with pytest.raises(ValueError):
        chunk_segments(["a"], target_words=0)


@given(st.lists(st.integers(0, 700), max_size=40), st.integers(1, 600))
@settings(max_examples=200, deadline=None)
def test_chunks_cover_every_segment_in_order(sizes, target):
    chunks = chunk_segments([words(n) for n in sizes], target)
    assert [s for a, b in chunks for s in range(a, b)] == list(range(len(sizes)))
    assert all(a < b for a, b in chunks)


def test_lait_two_readers_two_documents():
    slots = counterbalance(["reader1", "reader2"], ["doc1", "doc2"])
    assert len(slots) == 4
    assert {(s.reader, s.document) for s in slots} == {(r, d) for r in ("reader1", "reader2")
                                                       for d in ("doc1", "doc2")}
    for doc in ("doc1", "doc2"):
        assert sorted(s.first_version for s in slots if s.document == doc) == [1, 2]
    for reader in ("reader1", "reader2"):
        assert sorted(s.first_version for s in slots if s.reader == reader) == [1, 2]
    assert isinstance(slots[0], Slot) and slots[0] == (slots[0].reader, slots[0].document, slots[0].first_version)
    # Ordered by document, then reader, as given.
    assert [(s.document, s.reader) for s in slots] == [("doc1", "reader1"), ("doc1", "reader2"),
                                                       ("doc2", "reader1"), ("doc2", "reader2")]


def test_deterministic_for_a_seed():
    readers, docs = [f"r{i}" for i in range(7)], [f"d{i}" for i in range(9)]
    assert counterbalance(readers, docs, 3, 4, seed=5) == counterbalance(readers, docs, 3, 4, seed=5)
    designs = {tuple(counterbalance(readers, docs, 3, 4, seed=s)) for s in range(10)}
    assert len(designs) > 1


def test_impossible_designs_are_refused():
    with pytest.raises(ValueError, match="only 2 readers"):
        counterbalance(["a", "b"], ["d"], readers_per_document=3)
    with pytest.raises(ValueError, match="need 8 readings.*allow only 4"):
        counterbalance(["a", "b"], ["d1", "d2", "d3", "d4"], 2, 2)
    with pytest.raises(ValueError, match="distinct"):
        counterbalance(["a", "a"], ["d"])
    with pytest.raises(ValueError, match="positive integer"):
        counterbalance(["a", "b"], ["d"], readers_per_document=0)
    assert counterbalance(["a", "b"], []) == []


def _balanced(counter: Counter) -> bool:
    return abs(counter[1] - counter[2]) <= 1


@given(st.integers(1, 14), st.integers(0, 14), st.integers(1, 6), st.integers(1, 8), st.integers(0, 2**16))
@settings(max_examples=400, deadline=None)
def test_counterbalance_properties(n_readers, n_docs, per_doc, per_reader, seed):
    readers = [f"r{i}" for i in range(n_readers)]
    docs = [f"d{i}" for i in range(n_docs)]
    possible = per_doc <= n_readers and n_docs * per_doc <= n_readers * per_reader
    if n_docs and not possible:
        with pytest.raises(ValueError):
            counterbalance(readers, docs, per_doc, per_reader, seed)
        return
    slots = counterbalance(readers, docs, per_doc, per_reader, seed)
    assert len({(s.reader, s.document) for s in slots}) == len(slots)  # nobody reads a document twice
    by_doc: dict[str, Counter] = defaultdict(Counter)
    by_reader: dict[str, Counter] = defaultdict(Counter)
    for s in slots:
        assert s.first_version in (1, 2) and s.reader in readers and s.document in docs
        by_doc[s.document][s.first_version] += 1
        by_reader[s.reader][s.first_version] += 1
    assert all(sum(by_doc[d].values()) == per_doc for d in docs)
    loads = [sum(by_reader[r].values()) for r in readers]
    assert max(loads) - min(loads) <= 1 and max(loads) <= per_reader
    if n_docs * per_doc == n_readers * per_reader:
        assert set(loads) == {per_reader}
    assert all(_balanced(c) for c in by_doc.values())
    assert all(_balanced(c) for c in by_reader.values())
    assert _balanced(Counter(s.first_version for s in slots))
    assert slots == counterbalance(readers, docs, per_doc, per_reader, seed)
