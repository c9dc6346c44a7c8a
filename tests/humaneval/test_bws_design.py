"""Property tests for the balanced BWS tuple designs."""

import itertools
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from humaneval.bws.design import balanced_design, design_counts, item_designs


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 9), data=st.data())
def test_appearances_within_one_and_counts_consistent(n, data):
    size = data.draw(st.integers(2, n))
    count = data.draw(st.integers(1, 12))
    seed = data.draw(st.integers(0, 2**32 - 1))
    versions = [f"v{i}" for i in range(n)]
    design = balanced_design(versions, count, size, seed=seed, max_rounds=2000)
    assert len(design.tuples) == count
    assert all(len(t) == size and len(set(t)) == size and set(t) <= set(versions) for t in design.tuples)
    low, high = design.appearance_range
    assert high - low <= 1
    assert sum(design.appearances.values()) == count * size
    assert len(design.cooccurrence) == n * (n - 1) // 2
    assert sum(design.cooccurrence.values()) == count * size * (size - 1) // 2
    assert design == design_counts(versions, size, design.tuples)


@pytest.mark.parametrize(("n", "size", "count", "together"), [
    (5, 4, 5, 3),     # all 4-subsets of 5
    (7, 3, 7, 1),     # the Fano plane
    (9, 3, 12, 1),    # the affine plane of order 3
    (8, 4, 14, 3),    # a 3-(8,4,1) design
])
def test_finds_a_balanced_incomplete_block_design(n, size, count, together):
    design = balanced_design([f"v{i}" for i in range(n)], count, size, seed=1)
    assert design.cooccurrence_range == (together, together)


def test_pairs_as_even_as_the_numbers_allow_when_they_divide_unevenly():
    design = balanced_design([f"v{i}" for i in range(10)], 30, 4, seed=3)
    assert design.appearance_range == (12, 12)
    low, high = design.cooccurrence_range
    assert high - low <= 2   # 180 pair slots on 45 pairs: 4 each at best


def test_deterministic_under_a_seed_and_varies_with_it():
    versions = list("ABCDEFG")
    a = balanced_design(versions, 10, 4, seed=5)
    assert a == balanced_design(versions, 10, 4, seed=5)
    assert a.tuples != balanced_design(versions, 10, 4, seed=6).tuples


def test_to_dict_for_a_dashboard():
    d = balanced_design(list("ABCD"), 2, 3, seed=0).to_dict()
    assert d["size"] == 3 and len(d["tuples"]) == 2
    assert set(d["appearances"]) == set("ABCD") and len(d["cooccurrence"]) == 6
    assert d["appearance_range"][1] - d["appearance_range"][0] <= 1


@pytest.mark.parametrize("per_item", [1, 2, 3])
def test_item_designs_balance_the_campaign(per_item):
    designs = item_designs([f"p{i}" for i in range(7)], list("ABCDEF"), per_item, 4, seed=2)
    total = Counter()
    for design in designs.values():
        total.update(design.appearances)
        low, high = design.appearance_range
        assert high - low <= 1
    assert max(total.values()) - min(total.values()) <= 1


@pytest.mark.parametrize(("versions", "count", "size"), [
    (["A", "A", "B"], 1, 2), (["A", ""], 1, 2), (["A", "B"], 1, 3), (["A", "B"], 1, 1), (["A", "B"], 0, 2),
])
def test_bad_arguments(versions, count, size):
    with pytest.raises(ValueError):
        balanced_design(versions, count, size)


def test_item_designs_refuse_repeated_items():
    with pytest.raises(ValueError):
        item_designs(["p1", "p1"], list("ABCD"), 1)


def test_full_tuples_are_every_version():
    design = balanced_design(list("ABCD"), 3, 4)
    assert all(sorted(t) == list("ABCD") for t in design.tuples)
    assert design.cooccurrence_range == (3, 3)
    assert {frozenset(p) for p in design.cooccurrence} == {frozenset(p) for p in itertools.combinations("ABCD", 2)}
