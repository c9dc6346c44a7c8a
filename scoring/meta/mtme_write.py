"""Writing a test set, its outputs and scores in mt-metrics-eval's layout (see :mod:`~scoring.meta.mtme`).

Names follow the toolkit's rules: a score file is split on whitespace and a file name on dots,
so system, metric and human score names have whitespace and dots replaced by ``_``. Scores are
written higher-is-better, as the toolkit expects: a lower-is-better metric (TER) or human score
(google-mqm) is negated. A metric is written as ``METRIC-REF`` with REF ``all`` (Enface's metrics
use every reference) or ``src`` when it takes none.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field

from .human import HumanSource
from .metric_files import MetricScores
from .mtme import human_score_path, metric_score_path, score_file_text

ALL_REFERENCES = "all"
NO_REFERENCE = "src"
_UNSAFE = re.compile(r"[\s.]+")
_SPACE = re.compile(r"\s+")


def layout_name(name: str) -> str:
    """A metric, human score or reference name the toolkit reads back as one field of a file name."""
    return _UNSAFE.sub("_", name.strip()) or "_"


def field_name(name: str) -> str:
    """A system, document or domain name that stays one whitespace-separated field (dots are fine: the toolkit
    strips only a file's extension)."""
    return _SPACE.sub("_", name.strip()) or "_"


def _text(lines: Sequence[str]) -> str:
    return "".join(line.replace("\n", " ") + "\n" for line in lines)


@dataclass
class LayoutExport:
    """What to write for one language pair; ``segment_keys`` give the segment order ((document, position))."""
    lp: str
    segment_keys: list[tuple[str, int]]
    domains: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    references: dict[str, list[str]] = field(default_factory=dict)
    outputs: dict[str, list[str]] = field(default_factory=dict)
    metrics: dict[str, MetricScores] = field(default_factory=dict)
    reference_free: set[str] = field(default_factory=set)
    humans: list[HumanSource] = field(default_factory=list)


def human_names(humans: Sequence[HumanSource]) -> dict[str, str]:
    """{source key: the layout's NAME}: the kind (``mqm``) when it is the only one of its kind, else the key."""
    kinds = [h.kind for h in humans]
    return {h.key: layout_name(h.kind if kinds.count(h.kind) == 1 else h.key.replace(":", "-")) for h in humans}


def _oriented(v: float | None, higher_is_better: bool) -> float | None:
    return None if v is None else (float(v) if higher_is_better else -float(v))


def _seg_scores(per_system: Mapping[str, Mapping[Hashable, float]], keys: Sequence[tuple[str, int]],
                higher_is_better: bool) -> dict[str, list[float | None]]:
    return {field_name(s): [_oriented(items.get(k), higher_is_better) for k in keys]
            for s, items in per_system.items()}


def layout_files(ex: LayoutExport) -> dict[str, str]:
    """{path under the root: text} of every file of the layout for ``ex``."""
    lp, keys = ex.lp, ex.segment_keys
    files: dict[str, str] = {}
    if keys:
        domains = ex.domains or ["default"] * len(keys)
        files[f"documents/{lp}.docs"] = "".join(f"{field_name(dom)}\t{field_name(doc)}\n"
                                                for dom, (doc, _pos) in zip(domains, keys, strict=True))
    if ex.sources:
        files[f"sources/{lp}.txt"] = _text(ex.sources)
    for ref, lines in ex.references.items():
        files[f"references/{lp}.{layout_name(ref)}.txt"] = _text(lines)
    for system, lines in ex.outputs.items():
        files[f"system-outputs/{lp}/{field_name(system)}.txt"] = _text(lines)
    for key, ms in ex.metrics.items():
        ref = NO_REFERENCE if key in ex.reference_free else ALL_REFERENCES
        name = layout_name(ms.metric)
        if ms.scores:
            files[metric_score_path(lp, name, ref, "sys")] = score_file_text(
                {field_name(s): [_oriented(v, ms.higher_is_better)] for s, v in ms.scores.items()})
        if ms.segments and keys:
            files[metric_score_path(lp, name, ref, "seg")] = score_file_text(
                _seg_scores(ms.segments, keys, ms.higher_is_better))
    names = human_names(ex.humans)
    for h in ex.humans:
        if h.systems:
            files[human_score_path(lp, names[h.key], "sys")] = score_file_text(
                {field_name(s): [_oriented(v, h.higher_is_better)] for s, v in h.systems.items()})
        if h.items and h.item_unit == "segment" and keys:
            files[human_score_path(lp, names[h.key], "seg")] = score_file_text(
                _seg_scores(h.items, keys, h.higher_is_better))
    return files
