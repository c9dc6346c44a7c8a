"""WMT24's AutoRank: the preliminary ranking from automatic metrics.

Kocmi et al. 2024 ("Preliminary WMT24 ranking of general MT systems and LLMs"): each chosen metric's
system scores are scaled linearly so that its best system gets 1 and its worst gets N (the number of
systems), ``1 + (N - 1) (best - x) / (best - worst)`` (mirrored for a lower-is-better metric), and a
system's AutoRank is the mean of its scaled values over the metrics; lower is better.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from statistics import fmean


@dataclass(frozen=True)
class AutoRank:
    systems: list[str]                              # best first (lowest AutoRank), ties by name
    autorank: dict[str, float]                      # system -> mean scaled rank
    scaled: dict[str, dict[str, float]] = field(default_factory=dict)   # metric -> system -> 1..N
    metrics: list[str] = field(default_factory=list)


def autorank(scores: Mapping[str, Mapping[str, float | None]], higher_is_better: Mapping[str, bool]) -> AutoRank:
    """``scores``: {metric: {system: score}}; every metric must score every system, with two different values."""
    if not scores:
        raise ValueError("AutoRank needs at least one metric")
    systems = sorted({s for per in scores.values() for s in per})
    if len(systems) < 2:
        raise ValueError(f"AutoRank needs at least two systems, got {len(systems)}")
    n = len(systems)
    scaled: dict[str, dict[str, float]] = {}
    for metric, per in scores.items():
        if metric not in higher_is_better:
            raise ValueError(f"metric {metric!r}: direction unknown (higher_is_better)")
        missing = [s for s in systems if per.get(s) is None]
        if missing:
            raise ValueError(f"metric {metric!r} has no score for {', '.join(missing)}")
        values = {s: float(per[s]) for s in systems}
        best = max(values.values()) if higher_is_better[metric] else min(values.values())
        worst = min(values.values()) if higher_is_better[metric] else max(values.values())
        if best == worst:
            raise ValueError(f"metric {metric!r} gives every system the same score: it cannot be scaled")
        scaled[metric] = {s: 1 + (n - 1) * (best - v) / (best - worst) for s, v in values.items()}
    mean = {s: fmean(scaled[m][s] for m in scaled) for s in systems}
    order = sorted(systems, key=lambda s: (mean[s], s))
    return AutoRank(order, mean, scaled, list(scaled))
