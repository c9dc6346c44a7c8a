"""The results of an ESA campaign: what the ESA protocol's results page shows, from plain rows.

:func:`esa_results` takes the rows of an Appraise export (or rows the platform builds,
:class:`~humaneval.esa.appraise.ScoreRow`) and gives:

* **attention checks** per annotator (:mod:`~humaneval.esa.attention`); with ``exclude_failing``
  (the default, as WMT does) every row of an annotator who failed is left out of
  everything below, and ``excluded`` names them;
* **systems**, best first: the mean score, the mean per-annotator z-score (as
  :mod:`~humaneval.esa.summary`: population deviation over each annotator's counted TGT scores,
  computed after the exclusion), a 95 % percentile bootstrap interval of the mean score
  (``scipy.stats.bootstrap``, ``n_resamples`` resamples of the system's items, seeded),
  the item count and the error spans per severity;
* the **official ranking** with clusters and rank ranges
  (:func:`scoring.human_ranking.rank_systems`), by default with the unpaired Wilcoxon
  rank-sum / Mann-Whitney test on the items' scores (``ranking_test``; ``ranking_by``
  ``"z"`` ranks on z-scores instead). Units are source segments (:func:`~humaneval.esa.segments.source_keys`;
  a segment rated twice for one system counts with its mean), which is what the paired
  tests need; the systems are ordered by the same means as the system table;
* **agreement** between raters on shared segments (:mod:`~humaneval.esa.agreement`);
* **time**: seconds per segment (end - start of each counted TGT row; mean and median,
  as recorded, nothing clipped) and seconds per error span (all those seconds over all
  spans marked, the ESA^AI paper's "time per span"), overall and per system.

Rows of tutorials and ``#duplicate`` documents never count; BAD rows only in the
attention checks (see :mod:`~humaneval.esa.summary`). ``to_dict()`` is JSON-ready.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from statistics import fmean, median
from typing import Any

from .agreement import RaterAgreement, rater_agreement
from .appraise import ScoreRow
from .attention import DEFAULT_ALPHA, DEFAULT_TEST, AnnotatorCheck, attention_checks, failing
from .segments import source_keys
from .summary import order_systems, scored_rows, z_scores

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 12345
CONFIDENCE = 0.95


@dataclass(frozen=True)
class Timing:
    segments: int
    spans: int
    seconds: float                       # all counted TGT rows together
    seconds_per_segment: float | None    # mean
    median_seconds_per_segment: float | None
    seconds_per_span: float | None       # seconds / spans

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class SystemResult:
    system: str
    score: float
    z: float
    ci_low: float | None                 # 95 % bootstrap interval of the mean score (None: one item)
    ci_high: float | None
    items: int
    spans: dict[str, int]
    timing: Timing

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class EsaResults:
    systems: list[SystemResult]
    ranking: dict[str, Any]
    agreement: RaterAgreement
    timing: Timing
    attention: list[AnnotatorCheck]
    excluded: list[str]
    settings: dict[str, Any] = field(default_factory=dict)

    def system(self, name: str) -> SystemResult:
        return next(s for s in self.systems if s.system == name)

    def to_dict(self) -> dict[str, Any]:
        return {"systems": [s.to_dict() for s in self.systems], "ranking": self.ranking,
                "agreement": self.agreement.to_dict(), "timing": self.timing.to_dict(),
                "attention": [c.to_dict() for c in self.attention], "excluded": list(self.excluded),
                "settings": dict(self.settings)}


def timing(rows: Sequence[ScoreRow]) -> Timing:
    """Seconds per segment and per span over the given (scored) rows."""
    seconds = [r.seconds for r in rows]
    spans = sum(len(r.spans) for r in rows)
    total = float(sum(seconds))
    return Timing(segments=len(rows), spans=spans, seconds=total,
                  seconds_per_segment=fmean(seconds) if seconds else None,
                  median_seconds_per_segment=float(median(seconds)) if seconds else None,
                  seconds_per_span=total / spans if spans else None)


def bootstrap_interval(values: Sequence[float], n_resamples: int = DEFAULT_RESAMPLES,
                       seed: int | None = DEFAULT_SEED) -> tuple[float | None, float | None]:
    """The 95 % percentile bootstrap interval of the mean; (None, None) with fewer than two values,
    (v, v) when all values are one value v."""
    if len(values) < 2:
        return None, None
    if len(set(values)) == 1:
        return float(values[0]), float(values[0])
    import numpy as np
    from scipy.stats import bootstrap

    result = bootstrap((np.asarray(values, dtype=float),), np.mean, n_resamples=n_resamples,
                       confidence_level=CONFIDENCE, method="percentile", rng=np.random.default_rng(seed))
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def unit_scores(scored: Sequence[ScoreRow], values: Sequence[float] | None = None
                ) -> dict[str, dict[tuple[str, int], float]]:
    """``{system: {source segment: mean score}}`` of scored rows (or of ``values``, e.g. their z-scores, one
    per row): the segment-level scores a ranking or a meta-evaluation compares systems on."""
    values = [r.score for r in scored] if values is None else values
    units: dict[str, dict[tuple[str, int], list[float]]] = defaultdict(lambda: defaultdict(list))
    for row, key, value in zip(scored, source_keys(scored), values, strict=True):
        units[row.system][key].append(value)
    return {s: {k: fmean(v) for k, v in u.items()} for s, u in units.items()}


def esa_results(rows: Iterable[ScoreRow], *, exclude_failing: bool = True, attention_test: str = DEFAULT_TEST,
                attention_alpha: float = DEFAULT_ALPHA, ranking_test: str = "mannwhitney",
                ranking_by: str = "score", ranking_alpha: float = 0.05, cluster_method: str = "wmt",
                n_resamples: int = DEFAULT_RESAMPLES, seed: int | None = DEFAULT_SEED) -> EsaResults:
    """Everything the results page shows (see the module's doc)."""
    from scoring.human_ranking import rank_systems

    if ranking_by not in ("score", "z"):
        raise ValueError(f"ranking_by must be 'score' or 'z', not {ranking_by!r}")
    rows = [r for r in rows if r.counts]
    checks = attention_checks(rows, test=attention_test, alpha=attention_alpha)
    excluded = sorted(failing(checks)) if exclude_failing else []
    kept = [r for r in rows if r.annotator not in set(excluded)]
    scored = scored_rows(kept)
    zs = z_scores(scored)
    by_system: dict[str, list[int]] = defaultdict(list)
    for i, row in enumerate(scored):
        by_system[row.system].append(i)
    means = {s: fmean(scored[i].score for i in idx) for s, idx in by_system.items()}
    systems = []
    for name in order_systems(means):
        idx = by_system[name]
        low, high = bootstrap_interval([scored[i].score for i in idx], n_resamples, seed)
        spans = Counter(span.severity for i in idx for span in scored[i].spans)
        systems.append(SystemResult(name, means[name], fmean(zs[i] for i in idx), low, high, len(idx),
                                    dict(sorted(spans.items())), timing([scored[i] for i in idx])))
    ranking = rank_systems(unit_scores(scored, zs if ranking_by == "z" else None),
                           scores={s.system: (s.z if ranking_by == "z" else s.score) for s in systems},
                           test=ranking_test, alpha=ranking_alpha, method=cluster_method, seed=seed)
    ranking["by"] = ranking_by
    settings = {"exclude_failing": exclude_failing, "attention_test": attention_test,
                "attention_alpha": attention_alpha, "ranking_test": ranking_test, "ranking_by": ranking_by,
                "ranking_alpha": ranking_alpha, "cluster_method": cluster_method, "n_resamples": n_resamples,
                "seed": seed, "confidence": CONFIDENCE}
    return EsaResults(systems, ranking, rater_agreement(kept), timing(scored), checks, excluded, settings)
