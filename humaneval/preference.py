"""Exact tests for preferences: the two-sided binomial test and the sign test."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class BinomialTest:
    """``successes`` out of ``trials`` against chance ``p``, exact and two-sided."""

    successes: int
    trials: int
    p: float
    share: float | None  # successes / trials; None without trials
    p_value: float  # 1.0 without trials: no evidence either way

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class SignTest:
    """Paired values: how often the first is larger, smaller or equal, and the exact p."""

    positive: int  # first > second
    negative: int  # first < second
    ties: int  # left out of the test, as the sign test does
    p_value: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def binomial_test(successes: int, trials: int, p: float = 0.5) -> BinomialTest:
    """Exact two-sided binomial test (scipy's ``binomtest``), e.g. 34 of 60 preferences: p = 0.366."""
    if trials < 0 or not 0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials, got {successes} of {trials}")
    if not 0 <= p <= 1:
        raise ValueError(f"p must be a probability, got {p}")
    if trials == 0:
        return BinomialTest(0, 0, p, None, 1.0)
    from scipy.stats import binomtest  # here: importing scipy.stats takes half a second

    result = binomtest(successes, trials, p, alternative="two-sided")
    return BinomialTest(successes, trials, p, successes / trials, float(result.pvalue))


def sign_test(first: Sequence[float], second: Sequence[float]) -> SignTest:
    """Two-sided sign test on paired values; ties are dropped."""
    if len(first) != len(second):
        raise ValueError(f"paired values differ in length: {len(first)} and {len(second)}")
    if any(v != v for v in (*first, *second)):
        raise ValueError("paired values include NaN")
    positive = sum(1 for a, b in zip(first, second) if a > b)
    negative = sum(1 for a, b in zip(first, second) if a < b)
    ties = len(first) - positive - negative
    return SignTest(positive, negative, ties, binomial_test(positive, positive + negative).p_value)
