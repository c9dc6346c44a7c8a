"""Budget-aware item selection (subset2evaluate) and the live ranking's stability.

:func:`select_items` chooses which items (segments, paragraphs) a campaign with a budget should
have annotated, from automatic metrics' segment scores, by the methods of ``subset2evaluate``
(Zouhar et al., "How to Select Datapoints for Efficient Human Evaluation of NLG Models?"):

* ``metric_var``: the items on which the metric's scores vary most across systems;
* ``metric_cons``: the items whose system order (by the metric) agrees best with the metric's
  order over all items (Kendall's tau-c);
* ``metric_avg``: the items with the lowest average metric score (the hardest ones);
* ``random``: uniform, for comparison.

``subset2evaluate`` is installed without its dependencies (``make venv``): its other methods need
``datasets`` and ``sentence-transformers``, whose releases would move ``transformers`` past what
unbabel-comet 2.2.7 allows; these four need only numpy and scipy.

:func:`ranking_stability` is the dashboard's figure: how many system pairs changed order between
the ranking after the first nine tenths of the annotations and the ranking after all of them.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

METHODS = ("metric_var", "metric_cons", "metric_avg", "random")
DEFAULT_METHOD = "metric_var"
DEFAULT_TAIL = 0.1
_METRIC = "metric"   # the key the scores go under in subset2evaluate's item format

A = TypeVar("A")


def item_utilities(segment_scores: Mapping[Hashable, Mapping[str, float]], method: str = DEFAULT_METHOD,
                   seed: int | None = None) -> dict[Hashable, float]:
    """``{item: utility}`` by a subset2evaluate method (higher: more worth annotating).

    ``segment_scores`` is ``{item: {system: metric score}}``, higher is better, every item scored
    for the same systems (subset2evaluate compares systems item by item)."""
    if method not in METHODS:
        raise ValueError(f"unknown selection method {method!r}; use one of {', '.join(METHODS)}")
    if not segment_scores:
        raise ValueError("no items to choose from")
    systems = None
    for item, scores in segment_scores.items():
        if systems is None:
            systems = set(scores)
        if set(scores) != systems or len(systems) < 2:
            raise ValueError(f"item {item!r}: every item needs scores for the same two or more systems")
        bad = [s for s, v in scores.items() if not isinstance(v, (int, float)) or not math.isfinite(v)]
        if bad:
            raise ValueError(f"item {item!r}: no finite score for {', '.join(map(str, bad))}")
    try:
        import subset2evaluate.select_subset
    except ImportError:   # (it is not in pyproject's dependencies: see the module docstring)
        raise RuntimeError("subset2evaluate is not installed: run `make venv`, or "
                           "`pip install --no-deps subset2evaluate==1.0.27`") from None
    items = list(segment_scores)
    data = [{"i": k, "scores": {s: {_METRIC: float(v)} for s, v in segment_scores[item].items()}}
            for k, item in enumerate(items)]
    extra = {"seed": seed} if method == "random" else {}
    ranked = subset2evaluate.select_subset.basic(data, method=method, metric=_METRIC, **extra)
    return {items[d["i"]]: float(d["subset2evaluate_utility"]) for d in ranked}


def select_items(segment_scores: Mapping[Hashable, Mapping[str, float]], budget: int,
                 method: str = DEFAULT_METHOD, seed: int | None = None) -> list[Hashable]:
    """The ``budget`` items of highest utility (:func:`item_utilities`), best first; ties keep the
    items' given order."""
    if budget < 1:
        raise ValueError("the budget must be at least one item")
    utilities = item_utilities(segment_scores, method, seed)
    order = {item: k for k, item in enumerate(segment_scores)}
    ranked = sorted(utilities, key=lambda item: (-utilities[item], order[item]))
    return ranked[:budget]


@dataclass(frozen=True)
class RankingStability:
    """``changed`` of ``pairs`` system pairs ordered differently after ``before`` annotations than after
    all ``annotations``; ``changed_pairs`` names them. A tie on one side and an order on the other
    counts as a change. Pairs with a system not yet scored after ``before`` are left out."""

    annotations: int
    before: int
    pairs: int
    changed: int
    changed_pairs: list[tuple[str, str]]

    @property
    def share(self) -> float | None:
        return self.changed / self.pairs if self.pairs else None

    def to_dict(self) -> dict[str, Any]:
        return {"annotations": self.annotations, "before": self.before, "pairs": self.pairs,
                "changed": self.changed, "share": self.share,
                "changed_pairs": [list(p) for p in self.changed_pairs]}


def mean_scores(annotations: Sequence[tuple[str, float]]) -> dict[str, float]:
    """``{system: mean score}`` of (system, score) annotations."""
    values: dict[str, list[float]] = defaultdict(list)
    for system, value in annotations:
        values[system].append(float(value))
    return {s: math.fsum(v) / len(v) for s, v in values.items()}


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def ranking_stability(annotations: Sequence[A], scores: Callable[[Sequence[A]], Mapping[str, float]] = mean_scores,
                      tail: float = DEFAULT_TAIL) -> RankingStability:
    """How many system pairs changed order in the last ``tail`` (a tenth) of the annotations, given in
    the order they came in. ``scores`` turns annotations into system scores: :func:`mean_scores` for
    (system, score) pairs, :func:`humaneval.bws.counting_scores` for BWS judgments. The order is the
    direction of each pair's score difference, so higher- and lower-is-better scores count alike."""
    if not 0 < tail < 1:
        raise ValueError("tail must be between 0 and 1")
    n = len(annotations)
    before = n - math.ceil(n * tail) if n else 0
    if before < 1:
        return RankingStability(n, before, 0, 0, [])
    early, final = scores(annotations[:before]), scores(annotations)
    systems = sorted(s for s in final if s in early)
    changed = [(a, b) for a, b in itertools.combinations(systems, 2)
               if _sign(early[a] - early[b]) != _sign(final[a] - final[b])]
    pairs = len(systems) * (len(systems) - 1) // 2
    return RankingStability(n, before, pairs, len(changed), changed)
