"""Every metric against every human source, at every level the inputs allow."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from . import clusters as cl
from .chunks import chunk_level, chunk_scores_from_segments
from .errors import MetaInputError
from .human import HumanSource, read_human
from .item import item_level
from .metric_files import MetricScores, document_scores, read_metrics
from .permutation import PermutationParams
from .stats import DEFAULT_BOOT, DEFAULT_CONFIDENCE, DEFAULT_SEED
from .system import MIN_SYSTEMS, PAIRWISE_TIES, system_level

ITEMS_NOT_GIVEN = ("no per-item scores on both sides: the human file has none (MQM: use --by doc; rubric: "
                   "'items') or the metrics file has none (python -m scoring score --json --segments)")


def _metric_items(ms: MetricScores, unit: str) -> dict[str, dict]:
    if unit == "document":
        return {s: document_scores(segs) for s, segs in ms.segments.items()}
    return ms.segments


def evaluate_source(source: HumanSource, metrics: Mapping[str, MetricScores], *, n_boot: int = DEFAULT_BOOT,
                    seed: int | None = DEFAULT_SEED, confidence: float = DEFAULT_CONFIDENCE,
                    kendall_variant: str = "b", cluster_permutations: int = 1000) -> dict[str, Any]:
    """System-, item- and chunk-level results of every metric against one human source.

    Beside the correlations: each metric's soft pairwise accuracy (system level, from segment
    scores) and acc_eq (segment level), and ``clusters``: the metrics ranked into significance
    clusters by the toolkit's permutation tests (``cluster_permutations`` draws; 0: none).
    """
    boot = {"n_boot": n_boot, "seed": seed, "confidence": confidence}
    out: dict[str, Any] = {**source.describe(), "metrics": {}, "skipped": {}, "unmatched": {}}
    metric_systems = sorted({s for ms in metrics.values() for s in ms.scores})
    out["unmatched"] = {"human_only": sorted(set(source.systems) - set(metric_systems)),
                        "metrics_only": sorted(set(metric_systems) - set(source.systems))}
    for key, ms in metrics.items():
        common = [s for s in source.systems if s in ms.scores]
        if len(common) < MIN_SYSTEMS:
            out["skipped"][key] = (f"{len(common)} system(s) with both a human and a {ms.name} score; "
                                   f"correlations need at least {MIN_SYSTEMS}")
            continue
        out["metrics"][key] = {"name": ms.name, **system_level(
            source.systems, ms.scores, human_higher_is_better=source.higher_is_better,
            metric_higher_is_better=ms.higher_is_better, kendall_variant=kendall_variant, **boot)}
        out["metrics"][key]["soft_pairwise_accuracy"] = cl.soft_pairwise_accuracy(source, ms, common)
    items: dict[str, Any] = {"available": False, "unit": source.item_unit, "metrics": {}}
    if source.items:
        for key, ms in metrics.items():
            if not ms.segments:
                items["metrics"][key] = {"name": ms.name, "available": False, "n": 0,
                                         "reason": f"no segment scores of {ms.name}"}
                continue
            res = item_level(source.items, _metric_items(ms, source.item_unit or "segment"),
                             human_higher_is_better=source.higher_is_better,
                             metric_higher_is_better=ms.higher_is_better, kendall_variant=kendall_variant, **boot)
            items["metrics"][key] = {"name": ms.name, **res}
            if res["available"]:
                items["metrics"][key]["acc_eq"] = cl.acc_eq(source, ms, list(source.items))
        items["available"] = any(r["available"] for r in items["metrics"].values())
    if not items["available"]:
        items["reason"] = ITEMS_NOT_GIVEN
    out["item_level"] = items
    chunks: dict[str, Any] = {"available": False, "metrics": {}}
    if source.chunks:
        for key, ms in metrics.items():
            scores = chunk_scores_from_segments(source.chunks, ms.segments)
            chunks["metrics"][key] = {"name": ms.name, "metric_higher_is_better": ms.higher_is_better,
                                      **chunk_level(source.chunks, scores, metric_higher_is_better=ms.higher_is_better,
                                                    kendall_variant=kendall_variant)}
        chunks["available"] = any(r["available"] for r in chunks["metrics"].values())
        chunks["versions"] = list(dict.fromkeys(v for j in source.chunks for v in j.versions))
    out["chunk_level"] = chunks
    if cluster_permutations and len(out["metrics"]) >= 2:
        out["clusters"] = cl.source_clusters(source, {k: metrics[k] for k in out["metrics"]},
                                             PermutationParams(k=cluster_permutations, seed=seed or 0))
    return out


def meta_evaluate(sources: Sequence[HumanSource] | HumanSource, metrics: Mapping[str, MetricScores], *,
                  n_boot: int = DEFAULT_BOOT, seed: int | None = DEFAULT_SEED, confidence: float = DEFAULT_CONFIDENCE,
                  kendall_variant: str = "b", human_path: str | None = None,
                  metrics_path: str | None = None) -> dict[str, Any]:
    """Every metric against every human source; raises :class:`MetaInputError` when nothing can be compared.

    The top-level ``metrics`` (per metric ``pearson``, ``spearman``, ``kendall``,
    ``pairwise_accuracy``) and ``segment_level`` are those of the first source; ``sources``
    has them all.
    """
    if isinstance(sources, HumanSource):
        sources = [sources]
    if not sources:
        raise MetaInputError("no human scores", human_path)
    results = [evaluate_source(s, metrics, n_boot=n_boot, seed=seed, confidence=confidence,
                               kendall_variant=kendall_variant) for s in sources]
    if not any(r["metrics"] or r["item_level"]["available"] or r["chunk_level"]["available"] for r in results):
        metric_systems = sorted({s for ms in metrics.values() for s in ms.scores})
        human_systems = sorted({s for src in sources for s in (*src.systems, *src.items)}
                               | {v for src in sources for j in src.chunks for v in j.versions})
        common = set(metric_systems) & set(human_systems)
        if not common:
            raise MetaInputError(f"no systems in common with the human scores (metric systems: {metric_systems}; "
                                 f"human systems: {human_systems})", metrics_path)
        reasons = "; ".join(f"{k}: {v}" for r in results for k, v in r["skipped"].items())
        raise MetaInputError(f"nothing to correlate: fewer than {MIN_SYSTEMS} systems in common with the human "
                             f"scores for every metric ({reasons}), and no item or chunk scores on both sides "
                             f"(systems in common: {sorted(common)}; only in the human file: "
                             f"{sorted(set(human_systems) - common)})", metrics_path)
    first = results[0]
    return {"human": {"label": first["label"], "kind": first["kind"], "higher_is_better": first["higher_is_better"],
                      "systems": first["systems"]},
            "kendall_variant": f"tau-{kendall_variant}", "pairwise_accuracy_ties": PAIRWISE_TIES, "oriented": True,
            "bootstrap": {"n_boot": n_boot, "seed": seed, "confidence": confidence},
            "metrics": first["metrics"], "skipped": first["skipped"], "unmatched": first["unmatched"],
            "segment_level": first["item_level"], "sources": results}


def meta_from_files(human_path: str | Path, metrics_path: str | Path, **kwargs) -> dict[str, Any]:
    sources = read_human(human_path)
    metrics = read_metrics(metrics_path)
    return meta_evaluate(sources, metrics, human_path=str(human_path), metrics_path=str(metrics_path), **kwargs)
