"""The per-system summary of an ESA campaign's Appraise export (``python -m humaneval esa``).

Which rows count
----------------
A row whose system id or document id contains ``tutorial``, or whose document id
contains ``#duplicate`` (Appraise's repeated documents for intra-annotator checks),
does not count at all. Of the rest, ``TGT`` rows are the scored items and ``BAD``
rows are attention checks only: they never enter a system's score, z or spans.
Rows are counted as they appear: an export that holds the same item twice (a
re-submission) counts it twice, as Appraise's own averages do.

The numbers
-----------
* ``score``: the mean of the system's counted TGT scores; ``items``: how many there are.
* ``z``: each annotator's counted TGT scores (all systems together) are standardised
  with that annotator's mean and *population* standard deviation; a system's ``z`` is
  the mean of its rows' z-scores. An annotator whose counted scores are all equal
  (deviation 0) gets z = 0 on each. BAD rows, tutorial and duplicate rows are not part
  of an annotator's mean or deviation.
* ``spans``: per severity, as written in the file (``minor``, ``major``, and whatever
  else is there, e.g. Appraise's ``undecided``), the error spans on the system's
  counted TGT rows; ``[missing]`` spans count like any other. Only severities that
  occur are listed.
* ``annotators``: distinct annotator ids among the rows that count (TGT and BAD);
  ``attention_checks``: the BAD rows that count.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from statistics import fmean, pstdev
from typing import Any

from .appraise import ScoreRow


@dataclass(frozen=True)
class SystemSummary:
    score: float
    items: int
    z: float
    spans: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        return {"score": self.score, "items": self.items, "z": self.z, "spans": dict(self.spans)}


@dataclass(frozen=True)
class EsaSummary:
    #: best first (by mean score, then name)
    systems: dict[str, SystemSummary]
    annotators: int
    attention_checks: int

    def to_dict(self) -> dict[str, Any]:
        """The CLI's JSON: ``{"systems": {SYSTEM: {"score", "items", "z", "spans"}}, "annotators",
        "attention_checks"}``."""
        return {"systems": {name: s.to_dict() for name, s in self.systems.items()},
                "annotators": self.annotators, "attention_checks": self.attention_checks}


def scored_rows(rows: Iterable[ScoreRow]) -> list[ScoreRow]:
    """The TGT rows that count (see the module's doc): the ones system scores and z are made of."""
    return [r for r in rows if r.counts and not r.is_bad]


def standardise(values: Sequence[float]) -> list[float]:
    """z-scores with the values' mean and population standard deviation; all 0 when the deviation is 0."""
    if not values:
        return []
    mean, sd = fmean(values), pstdev(values)
    return [0.0 if sd == 0 else (v - mean) / sd for v in values]


def z_scores(rows: Sequence[ScoreRow]) -> list[float]:
    """Each row's score standardised within its annotator, over exactly the ``rows`` given (in order)."""
    by_annotator: dict[str, list[int]] = defaultdict(list)
    for i, row in enumerate(rows):
        by_annotator[row.annotator].append(i)
    out = [0.0] * len(rows)
    for indices in by_annotator.values():
        for i, z in zip(indices, standardise([rows[i].score for i in indices]), strict=True):
            out[i] = z
    return out


def order_systems(means: Mapping[str, float]) -> list[str]:
    """Systems best first: higher mean first, ties by name."""
    return sorted(means, key=lambda s: (-means[s], s))


def summarize(rows: Iterable[ScoreRow]) -> EsaSummary:
    """The contract's summary of an export's rows (see the module's doc)."""
    rows = list(rows)
    counted = [r for r in rows if r.counts]
    scored = scored_rows(counted)
    zs = z_scores(scored)
    scores: dict[str, list[float]] = defaultdict(list)
    zeds: dict[str, list[float]] = defaultdict(list)
    spans: dict[str, Counter] = defaultdict(Counter)
    for row, z in zip(scored, zs, strict=True):
        scores[row.system].append(row.score)
        zeds[row.system].append(z)
        spans[row.system].update(span.severity for span in row.spans)
    means = {s: fmean(v) for s, v in scores.items()}
    systems = {s: SystemSummary(means[s], len(scores[s]), fmean(zeds[s]), dict(sorted(spans[s].items())))
               for s in order_systems(means)}
    return EsaSummary(systems, len({r.annotator for r in counted}), sum(r.is_bad for r in counted))


def summary_table(summary: EsaSummary) -> str:
    """The summary as a plain-text table (what the CLI prints without ``--json``)."""
    severities = sorted({k for s in summary.systems.values() for k in s.spans},
                        key=lambda k: ({"minor": 0, "major": 1}.get(k, 2), k))
    name_w = max([len("system")] + [len(s) for s in summary.systems])
    header = f"{'#':>3}  {'system':<{name_w}}  {'score':>7}  {'z':>7}  {'items':>6}"
    header += "".join(f"  {sev:>9}" for sev in severities)
    lines = [header, "-" * len(header)]
    for n, (name, s) in enumerate(summary.systems.items(), 1):
        line = f"{n:>3}  {name:<{name_w}}  {s.score:>7.2f}  {s.z:>+7.3f}  {s.items:>6}"
        line += "".join(f"  {s.spans.get(sev, 0):>9}" for sev in severities)
        lines.append(line)
    lines.append("")
    lines.append(f"{summary.annotators} annotators, {summary.attention_checks} attention-check (BAD) rows; "
                 f"score: mean 0-100, z: mean of per-annotator z-scores; spans per severity on the TGT rows "
                 f"(tutorial and #duplicate rows not counted)")
    return "\n".join(lines)
