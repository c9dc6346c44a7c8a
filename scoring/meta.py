"""Meta-evaluation: how well each automatic metric agrees with the human scores, on plain files.

Inputs are the ``--json`` outputs of the project's command lines:

* human scores: ``python -m mqm score FILE --json`` (``{"higher_is_better", "scores":
  {system: {"score": ...}}}``), or any JSON object of the same shape, where a
  score may also be a bare number (a rubric or reader result exported that way);
* metric scores: ``python -m scoring score ... --json`` (``{"systems": [{"name",
  "scores": {metric: {"score", "higher_is_better"}}}]}``).

Systems are matched by name; a scored submission's name is the final path
component without extension (``data/demo/systems/strong-mt`` -> ``strong-mt``,
``out/team1.txt`` -> ``team1``).

What is computed, per metric (system level, over the systems both sides score)
-----------------------------------------------------------------------------

* **Orientation.** Values are *oriented* before anything is computed: a
  lower-is-better score (TER, google-mqm) is negated, so that on both sides
  higher means better. A positive correlation therefore always means "the metric
  agrees with the humans"; TER perfectly tracking google-mqm gives +1, not -1.
  The directions used are reported (``metric_higher_is_better``,
  ``human_higher_is_better``).
* ``pearson``: Pearson's r (``scipy.stats.pearsonr``).
* ``spearman``: Spearman's rho (``scipy.stats.spearmanr``), with
  ``variance_explained`` = rho² x 100 (DITING's "variance explained").
* ``kendall``: Kendall's tau, **tau-b** by default (``scipy.stats.kendalltau``,
  ``variant="b"``: adjusted for ties on either side); ``tau-c`` on request. The
  variant is written in the output.
* ``pairwise_accuracy``: the share of system pairs that the metric orders the
  same way as the humans (Kocmi et al. 2021). **Ties:** pairs the humans score
  exactly equal are left out (there is no order to agree with); a pair the
  humans order but the metric scores exactly equal counts as *not* agreeing.
  ``n_pairs`` is the number of pairs counted.
* **Confidence intervals**: every statistic has a 95% percentile bootstrap
  interval over systems: ``n_boot`` resamples (default 1000) of the systems with
  replacement, from ``numpy.random.default_rng(seed)`` (default seed 12345);
  resamples where the statistic is undefined (e.g. every drawn system has the
  same score) are skipped and ``n_valid`` says how many were used.
* **Rank flips**: systems whose rank by the metric differs from their rank by
  the humans (ranks by oriented score, 1 = best, ties share the average rank),
  largest ``|metric rank - human rank|`` first; and the discordant pairs (the
  humans prefer one system, the metric the other).

Segment (item) level: :func:`item_level` correlates per-item scores keyed the
same way on both sides (``{system: {item: score}}``), pooled over every
(system, item) pair both sides have ("no grouping"). Neither ``python -m mqm
score --json`` nor ``python -m scoring score --json`` writes per-segment scores
today, so the command line reports segment level as not available, with that reason.

This module is pure: numpy and scipy only.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

DEFAULT_BOOT = 1000
DEFAULT_SEED = 12345
DEFAULT_CONFIDENCE = 0.95
KENDALL_VARIANTS = ("b", "c")
MIN_SYSTEMS = 3


class MetaInputError(ValueError):
    """Bad input to the meta-evaluation; ``path`` names the file when there is one."""

    def __init__(self, message: str, path: str | Path | None = None):
        self.path = None if path is None else str(path)
        super().__init__(f"{path}: {message}" if path is not None else message)


# ---------------------------------------------------------------------------
# Reading the two JSON files


@dataclass
class HumanScores:
    scores: dict[str, float]
    higher_is_better: bool
    label: str = "human"


@dataclass
class MetricScores:
    metric: str
    scores: dict[str, float]
    higher_is_better: bool
    name: str = ""


def _read_json(path: str | Path) -> Any:
    p = Path(path)
    if not p.is_file():
        raise MetaInputError("no such file", path)
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise MetaInputError("not UTF-8 text", path) from None
    except json.JSONDecodeError as exc:
        raise MetaInputError(f"invalid JSON ({exc})", path) from None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def human_from_obj(obj: Any, path: str | Path | None = None) -> HumanScores:
    """Human system scores from ``python -m mqm score --json`` (``by`` must be "system") or the same shape."""
    if not isinstance(obj, dict):
        raise MetaInputError("expected a JSON object with 'scores' (the --json output of python -m mqm score)", path)
    if obj.get("by", "system") != "system":
        raise MetaInputError(f"scores are by {obj['by']!r}; meta-evaluation needs scores by system "
                             "(python -m mqm score FILE --json, without --by)", path)
    raw = obj.get("scores")
    if raw is None and isinstance(obj.get("systems"), dict):
        raw = obj["systems"]
    if not isinstance(raw, dict):
        raise MetaInputError("no 'scores' object of system scores", path)
    hib = obj.get("higher_is_better", True)
    if not isinstance(hib, bool):
        raise MetaInputError("'higher_is_better' must be true or false", path)
    scores = {}
    for name, value in raw.items():
        v = _number(value.get("score") if isinstance(value, dict) else value)
        if v is not None:          # a system without a score (null) is left out
            scores[str(name)] = v
    if not scores:
        raise MetaInputError("no system has a human score", path)
    label = str(obj.get("scheme") or "human")
    return HumanScores(scores=scores, higher_is_better=hib, label=label)


def system_name(name: str) -> str:
    """A scored submission's name: the final path component without extension."""
    return Path(str(name).rstrip("/\\")).stem or str(name)


def metrics_from_obj(obj: Any, path: str | Path | None = None) -> dict[str, MetricScores]:
    """Metric system scores from ``python -m scoring score --json``; unavailable scores (null) are left out."""
    systems = obj.get("systems") if isinstance(obj, dict) else None
    if not isinstance(systems, list):
        raise MetaInputError("expected a JSON object with a 'systems' list "
                             "(the --json output of python -m scoring score)", path)
    out: dict[str, MetricScores] = {}
    seen: dict[str, str] = {}
    for entry in systems:
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) \
                or not isinstance(entry.get("scores"), dict):
            raise MetaInputError("every system needs a 'name' and a 'scores' object", path)
        name = system_name(entry["name"])
        if name in seen:
            raise MetaInputError(f"two systems have the name {name!r} ({seen[name]!r} and {entry['name']!r})", path)
        seen[name] = entry["name"]
        for metric, score in entry["scores"].items():
            if not isinstance(score, dict):
                raise MetaInputError(f"{entry['name']}: score of {metric!r} is not an object", path)
            ms = out.setdefault(metric, MetricScores(metric=metric, scores={},
                                                     higher_is_better=bool(score.get("higher_is_better", True)),
                                                     name=str(score.get("name") or metric)))
            v = _number(score.get("score"))
            if v is not None:
                ms.scores[name] = v
    if not seen:
        raise MetaInputError("no systems", path)
    return out


# ---------------------------------------------------------------------------
# Statistics


def orient(values: Sequence[float], higher_is_better: bool) -> np.ndarray:
    """Scores with higher = better (lower-is-better scores are negated)."""
    arr = np.asarray(values, dtype=np.float64)
    return arr if higher_is_better else -arr


def pairwise_accuracy(human: Sequence[float], metric: Sequence[float]) -> tuple[float, int]:
    """(accuracy, pairs counted) on oriented scores. Human ties are left out; metric ties count as wrong."""
    h = np.asarray(human, dtype=np.float64)
    m = np.asarray(metric, dtype=np.float64)
    agree = counted = 0
    for i, j in combinations(range(len(h)), 2):
        dh = np.sign(h[i] - h[j])
        if dh == 0:
            continue
        counted += 1
        agree += int(np.sign(m[i] - m[j]) == dh)
    return (agree / counted if counted else math.nan), counted


def _pearson(h: np.ndarray, m: np.ndarray) -> float:
    from scipy.stats import pearsonr

    if np.ptp(h) == 0 or np.ptp(m) == 0:
        return math.nan
    return float(pearsonr(h, m).statistic)


def _spearman(h: np.ndarray, m: np.ndarray) -> float:
    from scipy.stats import spearmanr

    if np.ptp(h) == 0 or np.ptp(m) == 0:
        return math.nan
    return float(spearmanr(h, m).statistic)


def _kendall(variant: str) -> Callable[[np.ndarray, np.ndarray], float]:
    def fn(h: np.ndarray, m: np.ndarray) -> float:
        from scipy.stats import kendalltau

        if np.ptp(h) == 0 or np.ptp(m) == 0:
            return math.nan
        return float(kendalltau(h, m, variant=variant).statistic)

    return fn


def _p_value(name: str, h: np.ndarray, m: np.ndarray, variant: str) -> float | None:
    from scipy.stats import kendalltau, pearsonr, spearmanr

    if np.ptp(h) == 0 or np.ptp(m) == 0:
        return None
    if name == "pearson":
        p = pearsonr(h, m).pvalue
    elif name == "spearman":
        p = spearmanr(h, m).pvalue
    else:
        p = kendalltau(h, m, variant=variant).pvalue
    return float(p) if math.isfinite(p) else None


def bootstrap_ci(stat: Callable[[np.ndarray, np.ndarray], float], h: np.ndarray, m: np.ndarray, *,
                 n_boot: int = DEFAULT_BOOT, seed: int | None = DEFAULT_SEED,
                 confidence: float = DEFAULT_CONFIDENCE) -> tuple[float | None, float | None, int]:
    """Percentile bootstrap interval of ``stat`` over systems: (low, high, resamples where it was defined)."""
    rng = np.random.default_rng(seed)
    n = len(h)
    idx = rng.integers(0, n, size=(n_boot, n))
    values = []
    for row in idx:
        v = stat(h[row], m[row])
        if not math.isnan(v):
            values.append(v)
    if not values:
        return None, None, 0
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return float(low), float(high), len(values)


def _clean(v: float) -> float | None:
    return None if v is None or math.isnan(v) else float(v)


def ranks(values: Sequence[float]) -> list[float]:
    """1 = best (highest oriented score); ties share the average rank."""
    from scipy.stats import rankdata

    return [float(r) for r in rankdata(-np.asarray(values, dtype=np.float64), method="average")]


def rank_flips(systems: Sequence[str], human: Sequence[float], metric: Sequence[float]) -> dict[str, Any]:
    """Systems ranked differently by the metric (largest |difference| first) and the discordant pairs."""
    hr, mr = ranks(human), ranks(metric)
    flips = [{"system": s, "human_rank": a, "metric_rank": b, "difference": b - a}
             for s, a, b in zip(systems, hr, mr, strict=True) if a != b]
    flips.sort(key=lambda r: (-abs(r["difference"]), r["human_rank"], r["system"]))
    pairs = []
    for i, j in combinations(range(len(systems)), 2):
        dh, dm = np.sign(human[i] - human[j]), np.sign(metric[i] - metric[j])
        if dh and dm and dh != dm:
            hi, lo = (i, j) if dh > 0 else (j, i)
            pairs.append({"human_prefers": systems[hi], "metric_prefers": systems[lo]})
    return {"systems": flips, "discordant_pairs": pairs}


def system_level(human: Mapping[str, float], metric: Mapping[str, float], *, human_higher_is_better: bool = True,
                 metric_higher_is_better: bool = True, n_boot: int = DEFAULT_BOOT, seed: int | None = DEFAULT_SEED,
                 confidence: float = DEFAULT_CONFIDENCE, kendall_variant: str = "b") -> dict[str, Any]:
    """Every system-level statistic of one metric against the human scores, on the systems both have."""
    if kendall_variant not in KENDALL_VARIANTS:
        raise ValueError(f"kendall_variant must be one of {KENDALL_VARIANTS}, not {kendall_variant!r}")
    systems = [s for s in human if s in metric]
    if len(systems) < MIN_SYSTEMS:
        raise MetaInputError(f"{len(systems)} system(s) in common; correlations need at least {MIN_SYSTEMS}")
    h = orient([human[s] for s in systems], human_higher_is_better)
    m = orient([metric[s] for s in systems], metric_higher_is_better)
    boot = {"n_boot": n_boot, "seed": seed, "confidence": confidence}
    out: dict[str, Any] = {"systems": systems, "n_systems": len(systems), "oriented": True,
                           "human_higher_is_better": human_higher_is_better,
                           "metric_higher_is_better": metric_higher_is_better, "bootstrap": boot}
    stats = {"pearson": _pearson, "spearman": _spearman, "kendall": _kendall(kendall_variant)}
    for name, fn in stats.items():
        low, high, valid = bootstrap_ci(fn, h, m, n_boot=n_boot, seed=seed, confidence=confidence)
        out[name] = {"value": _clean(fn(h, m)), "ci": [low, high], "n_valid": valid,
                     "p_value": _p_value(name, h, m, kendall_variant)}
    rho = out["spearman"]["value"]
    out["spearman"]["variance_explained"] = None if rho is None else rho * rho * 100
    out["kendall"]["variant"] = f"tau-{kendall_variant}"

    def acc(a: np.ndarray, b: np.ndarray) -> float:
        return pairwise_accuracy(a, b)[0]

    value, counted = pairwise_accuracy(h, m)
    low, high, valid = bootstrap_ci(acc, h, m, n_boot=n_boot, seed=seed, confidence=confidence)
    out["pairwise_accuracy"] = {"value": _clean(value), "ci": [low, high], "n_valid": valid, "n_pairs": counted,
                                "ties": "human ties left out; metric ties on human-ordered pairs count as wrong"}
    out["rank_flips"] = rank_flips(systems, list(h), list(m))
    return out


def item_level(human: Mapping[str, Mapping[Any, float]], metric: Mapping[str, Mapping[Any, float]], *,
               human_higher_is_better: bool = True, metric_higher_is_better: bool = True,
               kendall_variant: str = "b") -> dict[str, Any]:
    """Segment/item-level Pearson and Kendall over every (system, item) both sides score ("no grouping")."""
    keys = [(s, i) for s in human if s in metric for i in human[s] if i in metric[s]]
    if len(keys) < MIN_SYSTEMS:
        return {"available": False, "reason": f"{len(keys)} (system, item) pairs in common"}
    h = orient([human[s][i] for s, i in keys], human_higher_is_better)
    m = orient([metric[s][i] for s, i in keys], metric_higher_is_better)
    return {"available": True, "grouping": "none (pooled over systems and items)", "n": len(keys),
            "pearson": _clean(_pearson(h, m)), "kendall": _clean(_kendall(kendall_variant)(h, m)),
            "kendall_variant": f"tau-{kendall_variant}"}


SEGMENT_LEVEL_REASON = ("the inputs carry no per-segment scores (neither python -m mqm score --json nor "
                        "python -m scoring score --json writes them); only system-level statistics are computed")


def meta_evaluate(human: HumanScores, metrics: Mapping[str, MetricScores], *, n_boot: int = DEFAULT_BOOT,
                  seed: int | None = DEFAULT_SEED, confidence: float = DEFAULT_CONFIDENCE,
                  kendall_variant: str = "b", metrics_path: str | None = None) -> dict[str, Any]:
    """Every metric against the human scores. Raises :class:`MetaInputError` when no metric can be compared."""
    out: dict[str, Any] = {"human": {"label": human.label, "higher_is_better": human.higher_is_better,
                                     "systems": len(human.scores)},
                           "kendall_variant": f"tau-{kendall_variant}",
                           "pairwise_accuracy_ties": "human ties left out; metric ties count as wrong",
                           "oriented": True, "metrics": {}, "skipped": {},
                           "segment_level": {"available": False, "reason": SEGMENT_LEVEL_REASON}}
    common_any = set()
    for key, ms in metrics.items():
        common = [s for s in human.scores if s in ms.scores]
        common_any.update(common)
        if len(common) < MIN_SYSTEMS:
            out["skipped"][key] = (f"{len(common)} system(s) with both a human and a {ms.name} score; "
                                   f"correlations need at least {MIN_SYSTEMS}")
            continue
        out["metrics"][key] = {"name": ms.name, **system_level(
            human.scores, ms.scores, human_higher_is_better=human.higher_is_better,
            metric_higher_is_better=ms.higher_is_better, n_boot=n_boot, seed=seed, confidence=confidence,
            kendall_variant=kendall_variant)}
    if not out["metrics"]:
        if not common_any:
            names = sorted({s for ms in metrics.values() for s in ms.scores})
            raise MetaInputError(f"no systems in common with the human scores (metric systems: {names}; human "
                                 f"systems: {sorted(human.scores)})", metrics_path)
        raise MetaInputError(f"fewer than {MIN_SYSTEMS} systems in common with the human scores for every metric "
                             f"({'; '.join(f'{k}: {v}' for k, v in out['skipped'].items())})", metrics_path)
    return out


def meta_from_files(human_path: str | Path, metrics_path: str | Path, **kwargs) -> dict[str, Any]:
    human = human_from_obj(_read_json(human_path), human_path)
    metrics = metrics_from_obj(_read_json(metrics_path), metrics_path)
    return meta_evaluate(human, metrics, metrics_path=str(metrics_path), **kwargs)


# ---------------------------------------------------------------------------
# Text


def _fmt(stat: dict[str, Any]) -> str:
    if stat["value"] is None:
        return "n/a"
    low, high = stat["ci"]
    ci = f" [{low:+.3f}, {high:+.3f}]" if low is not None else ""
    return f"{stat['value']:+.3f}{ci}"


def format_text(result: dict[str, Any]) -> str:
    h = result["human"]
    lines = [f"Meta-evaluation against {h['label']} ({'higher' if h['higher_is_better'] else 'lower'} is better), "
             f"scores oriented so that higher = better on both sides; Kendall {result['kendall_variant']}; "
             f"95% bootstrap intervals over systems."]
    for r in result["metrics"].values():
        lines.append("")
        lines.append(f"{r['name']} ({'higher' if r['metric_higher_is_better'] else 'lower'} is better), "
                     f"{r['n_systems']} systems")
        flips = r["rank_flips"]["systems"]
        if flips:
            lines.append("  rank flips (metric rank - human rank):")
            for f in flips:
                lines.append(f"    {f['system']}: human {f['human_rank']:g}, metric {f['metric_rank']:g} "
                             f"({f['difference']:+g})")
        else:
            lines.append("  rank flips: none (the metric ranks the systems as the humans do)")
        sp = r["spearman"]
        ve = f", variance explained {sp['variance_explained']:.1f}%" if sp["variance_explained"] is not None else ""
        pa = r["pairwise_accuracy"]
        lines += [f"  Pearson r           {_fmt(r['pearson'])}",
                  f"  Spearman rho        {_fmt(sp)}{ve}",
                  f"  Kendall {r['kendall']['variant']:<11} {_fmt(r['kendall'])}",
                  f"  pairwise accuracy   {_fmt(pa)} ({pa['n_pairs']} pairs)"]
    for key, why in result["skipped"].items():
        lines += ["", f"{key}: skipped: {why}"]
    lines += ["", f"segment level: {result['segment_level']['reason']}"]
    return "\n".join(lines)
