"""Reading METRICS files, the output of ``python -m scoring score --json``.

The shape is ``{"systems": [{"name", "scores": {metric: {"score", "higher_is_better", "name"}}}]}``; with ``--segments`` each score
also has ``segments`` (one value per segment) and the file ``segment_keys`` ([document,
position] per segment). A scored submission's name is the final path component without
extension (``data/demo/systems/strong-mt`` -> ``strong-mt``).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from statistics import fmean
from typing import Any

from .errors import MetaInputError
from .files import number, read_json, system_name


@dataclass
class MetricScores:
    metric: str
    scores: dict[str, float]
    higher_is_better: bool
    name: str = ""
    segments: dict[str, dict[tuple[str, int], float]] = field(default_factory=dict)   # {system: {(doc, pos): v}}


def read_metrics(path: str | Path) -> dict[str, MetricScores]:
    return metrics_from_obj(read_json(path), path)


def metrics_from_obj(obj: Any, path: str | Path | None = None) -> dict[str, MetricScores]:
    """Metric system scores (and segment scores when present) from ``python -m scoring score --json``."""
    systems = obj.get("systems") if isinstance(obj, dict) else None
    if not isinstance(systems, list):
        raise MetaInputError("expected a JSON object with a 'systems' list "
                             "(the --json output of python -m scoring score)", path)
    keys = _segment_keys(obj.get("segment_keys"), path)
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
            hib = score.get("higher_is_better", True)
            if not isinstance(hib, bool):
                raise MetaInputError(f"{entry['name']}: {metric}: 'higher_is_better' must be true or false", path)
            ms = out.setdefault(metric, MetricScores(metric=metric, scores={}, higher_is_better=hib,
                                                     name=str(score.get("name") or metric)))
            if (v := number(score.get("score"))) is not None:
                ms.scores[name] = v
            segs = score.get("segments")
            if keys is not None and segs is not None:
                if not isinstance(segs, list) or len(segs) != len(keys):
                    raise MetaInputError(f"{entry['name']}: {metric}: 'segments' must be a list of one value per "
                                         f"segment_keys entry ({len(keys)})", path)
                ms.segments[name] = {k: v for k, s in zip(keys, segs, strict=True) if (v := number(s)) is not None}
    if not seen:
        raise MetaInputError("no systems", path)
    return out


def _segment_keys(raw: Any, path) -> list[tuple[str, int]] | None:
    if raw is None:
        return None
    if not isinstance(raw, list) or not all(isinstance(k, list) and len(k) == 2 and isinstance(k[0], str)
                                            and isinstance(k[1], int) for k in raw):
        raise MetaInputError("'segment_keys' must be a list of [document, position] pairs", path)
    return [(k[0], k[1]) for k in raw]


def document_scores(segments: dict[tuple[str, int], float]) -> dict[str, float]:
    """Per document, the mean of its segment scores (to meet document-level human scores)."""
    by_doc: dict[str, list[float]] = defaultdict(list)
    for (doc, _pos), v in segments.items():
        by_doc[doc].append(v)
    return {d: fmean(v) for d, v in by_doc.items()}
