"""The one small interface every metric shares: a Score with its signature."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace


class MetricUnavailable(RuntimeError):
    """A metric cannot run here (no model, no GPU, a package missing): its score is n/a with this reason."""


@dataclass
class Score:
    """One corpus-level score. ``value`` is None when the metric is n/a; ``reason`` says why."""

    metric: str                      # registry name: bleu, chrf, ter, dbleu, comet
    name: str                        # display name: BLEU, chrF2, TER, d-BLEU, COMET
    value: float | None
    signature: str | None = None
    versions: dict[str, str] = field(default_factory=dict)
    higher_is_better: bool = True
    reason: str | None = None
    segments: list[float] | None = None   # segment (or document, for d-BLEU) scores when the metric has them
    segment_signature: str | None = None  # how those were computed, when it differs from ``signature``
    details: dict = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    @property
    def available(self) -> bool:
        return self.value is not None and not math.isnan(self.value)

    def format(self, width: int = 2) -> str:
        if not self.available:
            return f"{self.name} = n/a ({self.reason})"
        return f"{self.name} = {self.value:.{width}f}"

    def to_dict(self, with_segments: bool = False) -> dict:
        # (asdict deep-copies the segment list; a shallow copy of it does, the values being floats)
        data = asdict(replace(self, segments=None))
        data["segments"] = list(self.segments) if self.segments is not None else None
        data["score"] = data.pop("value")
        if not with_segments:
            data.pop("segments")
            data.pop("segment_signature")
        return data

    @classmethod
    def not_available(cls, metric: str, name: str, reason: str, *, higher_is_better: bool = True) -> Score:
        return cls(metric, name, None, higher_is_better=higher_is_better, reason=reason)


def library_versions(*names: str) -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for name in names:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "not installed"
    return out
