"""Segment (item) level: per-item human scores against per-item metric scores.

DITING's MetricAlign reports item-level Spearman (and rho² x 100 as "variance
explained"); WMT reports segment-level Pearson and Kendall. All of them are
computed here over every (system, item) pair both sides score, pooled ("no
grouping"), with a percentile bootstrap interval over those pairs.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

from .stats import (
    DEFAULT_BOOT,
    DEFAULT_CONFIDENCE,
    DEFAULT_SEED,
    correlations,
    kendall,
    orient,
)

MIN_ITEMS = 3
GROUPING = "none (pooled over every system and item both sides score)"


def item_level(human: Mapping[str, Mapping[Hashable, float]], metric: Mapping[str, Mapping[Hashable, float]], *,
               human_higher_is_better: bool = True, metric_higher_is_better: bool = True,
               kendall_variant: str = "b", n_boot: int = DEFAULT_BOOT, seed: int | None = DEFAULT_SEED,
               confidence: float = DEFAULT_CONFIDENCE) -> dict[str, Any]:
    """Item-level Pearson, Spearman (with rho² x 100) and Kendall over ``{system: {item: score}}`` pairs."""
    kendall(kendall_variant)     # an unknown variant fails before anything is computed
    keys = [(s, i) for s in human if s in metric for i in human[s] if i in metric[s]]
    if len(keys) < MIN_ITEMS:
        return {"available": False, "n": len(keys),
                "reason": f"{len(keys)} (system, item) pair(s) scored on both sides; need at least {MIN_ITEMS}"}
    h = orient([human[s][i] for s, i in keys], human_higher_is_better)
    m = orient([metric[s][i] for s, i in keys], metric_higher_is_better)
    out: dict[str, Any] = {"available": True, "grouping": GROUPING, "n": len(keys),
                           "n_systems": len({s for s, _i in keys}),
                           "bootstrap": {"n_boot": n_boot, "seed": seed, "confidence": confidence,
                                         "over": "(system, item) pairs"}}
    out.update(correlations(h, m, kendall_variant=kendall_variant, n_boot=n_boot, seed=seed, confidence=confidence))
    return out
