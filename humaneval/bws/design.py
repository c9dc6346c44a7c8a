"""Balanced tuple designs for Best–Worst Scaling.

A design is a list of tuples of ``size`` versions drawn from ``versions``. It is balanced when
every version appears equally often (counts differ by at most one when the numbers do not divide)
and every pair of versions is shown together as evenly as possible. Kiritchenko and Mohammad
(2016) build theirs from random tuples with each term in about the same number of tuples; here:

1. the tuples are built one at a time, taking the versions shown least so far, then those that
   have been shown least often with the tuple's members so far, ties broken at random; this makes
   the appearance counts exact (within one);
2. a local search then swaps versions between two tuples (which keeps every appearance count)
   whenever the swap lowers the sum of squared pair counts, until the pair counts are within one
   of each other (the best any design can do) or ``max_rounds`` swaps were tried.

Everything is drawn from ``numpy.random.default_rng(seed)``: the same arguments give the same design.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

DEFAULT_TUPLE_SIZE = 4
DEFAULT_SEED = 12345
DEFAULT_MAX_ROUNDS = 50000
STALL_ROUNDS = 10000


@dataclass(frozen=True)
class Design:
    """The tuples, and what a dashboard shows of them: per version its appearances, per pair its
    co-occurrences (every pair listed, 0 when never together)."""

    versions: tuple[str, ...]
    size: int
    tuples: tuple[tuple[str, ...], ...]
    appearances: dict[str, int]
    cooccurrence: dict[tuple[str, str], int]

    @property
    def appearance_range(self) -> tuple[int, int]:
        return min(self.appearances.values()), max(self.appearances.values())

    @property
    def cooccurrence_range(self) -> tuple[int, int]:
        values = self.cooccurrence.values()
        return (min(values), max(values)) if values else (0, 0)

    def to_dict(self) -> dict[str, Any]:
        return {"versions": list(self.versions), "size": self.size, "tuples": [list(t) for t in self.tuples],
                "appearances": dict(self.appearances),
                "cooccurrence": [{"a": a, "b": b, "n": n} for (a, b), n in self.cooccurrence.items()],
                "appearance_range": list(self.appearance_range),
                "cooccurrence_range": list(self.cooccurrence_range)}


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


def design_counts(versions: Sequence[str], size: int, tuples: Sequence[Sequence[str]]) -> Design:
    """The :class:`Design` of given tuples (e.g. one a campaign stored)."""
    order = tuple(versions)
    shown = Counter(v for t in tuples for v in t)
    together = Counter(_pair(a, b) for t in tuples for a, b in itertools.combinations(t, 2))
    pairs = {_pair(a, b): together[_pair(a, b)] for a, b in itertools.combinations(sorted(order), 2)}
    return Design(order, size, tuple(tuple(t) for t in tuples), {v: shown[v] for v in order}, pairs)


def _check(versions: Sequence[str], size: int, count: int) -> None:
    if len(set(versions)) != len(versions):
        raise ValueError("the versions repeat a name")
    if any(not isinstance(v, str) or not v for v in versions):
        raise ValueError("every version needs a non-empty name")
    if not 2 <= size <= len(versions):
        raise ValueError(f"a tuple needs 2 to {len(versions)} versions (there are {len(versions)}), not {size}")
    if count < 1:
        raise ValueError("a design needs at least one tuple")


def balanced_design(versions: Sequence[str], count: int, size: int = DEFAULT_TUPLE_SIZE,
                    seed: int | None = DEFAULT_SEED, max_rounds: int = DEFAULT_MAX_ROUNDS,
                    earlier: Counter | None = None) -> Design:
    """``count`` tuples of ``size`` versions, balanced (module docstring); each tuple's order is random.

    ``earlier``: appearance counts from earlier designs of the same campaign; among versions shown
    equally often here, those shown less there come first (see :func:`item_designs`)."""
    import numpy as np

    versions = list(versions)
    earlier = earlier or Counter()
    _check(versions, size, count)
    rng = np.random.default_rng(seed)
    shown = Counter({v: 0 for v in versions})
    together: Counter = Counter()
    tuples: list[list[str]] = []
    for _ in range(count):
        chosen: list[str] = []
        for _ in range(size):
            noise = rng.random(len(versions))
            free = [(shown[v], earlier[v], sum(together[_pair(v, c)] for c in chosen), noise[i], v)
                    for i, v in enumerate(versions) if v not in chosen]
            chosen.append(min(free)[-1])
        for v in chosen:
            shown[v] += 1
        for a, b in itertools.combinations(chosen, 2):
            together[_pair(a, b)] += 1
        tuples.append(chosen)
    _improve(tuples, versions, together, rng, max_rounds)
    for t in tuples:
        rng.shuffle(t)
    return design_counts(versions, size, tuples)


def _spread_ok(together: Counter, versions: Sequence[str]) -> bool:
    values = [together[_pair(a, b)] for a, b in itertools.combinations(versions, 2)]
    return max(values) - min(values) <= 1


def _improve(tuples: list[list[str]], versions: Sequence[str], together: Counter, rng, max_rounds: int) -> None:
    """Swap versions between tuples while that lowers the sum of squared pair counts."""
    if len(tuples) < 2 or len(tuples[0]) == len(versions):
        return
    squares = sum(n * n for n in together.values())
    best, since = squares, 0
    for round_ in range(max_rounds):
        if round_ % 64 == 0 and _spread_ok(together, versions):
            return
        if since > STALL_ROUNDS:   # no better design found for a long while: as even as it gets
            return
        since += 1
        i, j = rng.choice(len(tuples), size=2, replace=False)
        t1, t2 = tuples[i], tuples[j]
        only1 = [v for v in t1 if v not in t2]
        only2 = [v for v in t2 if v not in t1]
        if not only1:
            continue
        a, b = only1[rng.integers(len(only1))], only2[rng.integers(len(only2))]
        change: Counter = Counter()
        for x in t1:
            if x != a:
                change[_pair(a, x)] -= 1
                change[_pair(b, x)] += 1
        for y in t2:
            if y != b:
                change[_pair(b, y)] -= 1
                change[_pair(a, y)] += 1
        delta = sum((together[p] + d) ** 2 - together[p] ** 2 for p, d in change.items())
        if delta < 0 or (delta == 0 and rng.random() < 0.3):   # sideways moves get it off plateaus
            t1[t1.index(a)], t2[t2.index(b)] = b, a
            together.update(change)
            squares += delta
            if squares < best:
                best, since = squares, 0


def item_designs(items: Sequence[str], versions: Sequence[str], per_item: int, size: int = DEFAULT_TUPLE_SIZE,
                 seed: int | None = DEFAULT_SEED, max_rounds: int = DEFAULT_MAX_ROUNDS) -> dict[str, Design]:
    """A balanced design per item (source paragraph), ``per_item`` tuples each. When the numbers do not
    divide, the versions shown once more on an item are those shown least on the earlier items, so the
    campaign as a whole stays balanced too (its appearance counts within one of each other)."""
    if len(set(items)) != len(items):
        raise ValueError("the items repeat a name")
    import numpy as np

    seeds = np.random.SeedSequence(seed).spawn(len(items))
    out: dict[str, Design] = {}
    campaign: Counter = Counter()
    for item, item_seed in zip(items, seeds):
        out[item] = balanced_design(versions, per_item, size, seed=int(item_seed.generate_state(1)[0]),
                                    max_rounds=max_rounds, earlier=campaign)
        campaign.update(out[item].appearances)
    return out
