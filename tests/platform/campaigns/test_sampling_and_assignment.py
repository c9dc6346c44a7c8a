"""The pure rules of every protocol's campaign: assignment (enface.campaigns.assignment), ranges and samples
(enface.campaigns.sampling), text direction (enface.campaigns.text_direction)."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from enface.campaigns import assignment, sampling
from enface.campaigns.assignment import AnnotatorSpec, ItemSpec
from enface.campaigns.errors import CampaignError
from enface.campaigns.sampling import DocInfo, Range
from enface.campaigns.text_direction import text_direction


def _items(n_systems, n_docs, teams=None, words=100):
    teams = teams or [f"team{s}" for s in range(n_systems)]
    return [ItemSpec(key=(s, d), team=teams[s], words=words, doc=f"doc{d}")
            for d in range(n_docs) for s in range(n_systems)]


@pytest.mark.parametrize("seed", range(12))
def test_assignment_is_balanced_and_distinct(seed):
    rng = random.Random(seed)
    n_sys, n_docs, n_ann = rng.randint(2, 8), rng.randint(1, 6), rng.randint(2, 9)
    red = rng.randint(1, min(n_ann, 4))
    items = _items(n_sys, n_docs)
    anns = [AnnotatorSpec(key=f"a{i}") for i in range(n_ann)]
    plan = assignment.plan_assignments(items, anns, red, seed=seed)
    load = Counter(a for chosen in plan.values() for a in chosen)
    assert sum(load.values()) == len(items) * red
    counts = [load.get(a.key, 0) for a in anns]
    assert max(counts) - min(counts) <= 1, counts
    for chosen in plan.values():
        assert len(chosen) == red == len(set(chosen))


@pytest.mark.parametrize("seed", range(8))
def test_assignment_never_gives_an_annotator_their_own_team(seed):
    rng = random.Random(seed)
    n_sys = 4
    items = _items(n_sys, 3)
    # annotators from teams 0 and 1, and independent ones
    anns = [AnnotatorSpec(key="t0a", teams=frozenset({"team0"})), AnnotatorSpec(key="t0b", teams=frozenset({"team0"})),
            AnnotatorSpec(key="t1", teams=frozenset({"team1"}))] + [AnnotatorSpec(key=f"x{i}") for i in range(3)]
    red = rng.randint(1, 3)
    plan = assignment.plan_assignments(items, anns, red, seed=seed)
    teams = {a.key: a.teams for a in anns}
    for item in items:
        for a in plan[item.key]:
            assert item.team not in teams[a]
    # still balanced: the constrained items went first
    load = Counter(a for chosen in plan.values() for a in chosen)
    assert max(load.values()) - min(load.get(a.key, 0) for a in anns) <= 2


def test_assignment_explains_what_is_impossible():
    items = _items(2, 1)
    anns = [AnnotatorSpec(key="a", teams=frozenset({"team0"})), AnnotatorSpec(key="b")]
    with pytest.raises(CampaignError, match="eligible annotators"):
        assignment.plan_assignments(items, anns, 2)
    with pytest.raises(CampaignError, match="no annotators"):
        assignment.plan_assignments(items, [], 1)
    assert assignment.plan_assignments(items, anns, 1)[(0, 0)] == ["b"]


def test_assignment_is_reproducible_from_its_seed():
    items, anns = _items(5, 3), [AnnotatorSpec(key=f"a{i}") for i in range(4)]
    assert assignment.plan_assignments(items, anns, 2, seed=3) == assignment.plan_assignments(items, anns, 2, seed=3)


DOCS = [DocInfo("a", tuple(["one two three"] * 10)), DocInfo("b.v2", tuple(["x y"] * 4)),
        DocInfo("talk:3", ("w",) * 3)]


def test_parse_ranges():
    assert sampling.parse_ranges("a:2-5\nb.v2", DOCS) == [Range("a", 2, 5), Range("b.v2", 1, 4)]
    assert sampling.parse_ranges("a:3, b.v2:2", DOCS) == [Range("a", 3, 3), Range("b.v2", 2, 2)]
    assert sampling.parse_ranges("talk:3", DOCS) == [Range("talk:3", 1, 3)]   # a document name with a colon
    for bad, message in (("zzz", "no document"), ("a:0-2", "outside"), ("a:5-11", "outside"),
                         ("a:4-2", "outside"), ("a:1-5\na:5-6", "overlaps"), ("", "no documents")):
        with pytest.raises(CampaignError, match=message):
            sampling.parse_ranges(bad, DOCS)


def test_sample_ranges_cuts_at_the_word_budget():
    count = lambda s: len(s.split())  # noqa: E731
    out = sampling.sample_ranges(DOCS[:2], 2, 20, count, seed=1)
    assert {r.doc for r in out} == {"a", "b.v2"}
    a = next(r for r in out if r.doc == "a")
    assert (a.start, a.end) == (1, 3)       # 10-word budget: 3 segments of 3 words (9) is nearest
    assert next(r for r in out if r.doc == "b.v2").end == 4   # 4 x 2 = 8 words: all of it
    assert sampling.sample_ranges(DOCS[:2], 1, 0, count, seed=1)[0].end in (10, 4)   # whole document
    with pytest.raises(CampaignError):
        sampling.sample_ranges(DOCS, 5, 100, count)


def test_text_direction():
    assert text_direction("ar") == text_direction("he-IL") == "rtl"
    assert text_direction("zh") == text_direction("en") == "ltr"
    assert text_direction("", ["שלום עולם"]) == "rtl"
