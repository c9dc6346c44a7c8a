"""Attention checks: does an annotator score the damaged copies (BAD items) below the originals?

A BAD item is a copy of a segment the same annotator also rates as a TGT item, with a
span of it replaced by unrelated text (:mod:`~humaneval.esa.badcheck` builds them). Each BAD row is
paired with the annotator's TGT row of the same segment (:mod:`~humaneval.esa.segments`: document
without ``#bad<n>``, position in the document; re-submissions: the later one). An
annotator passes when a **one-sided test** finds the BAD scores significantly lower
than the originals at ``alpha`` (default 0.05):

* ``"wilcoxon"`` (default): the paired Wilcoxon signed-rank test,
  ``scipy.stats.wilcoxon(bad, original, alternative="less")``;
* ``"mannwhitney"``: what Appraise computes, ``scipy.stats.mannwhitneyu(bad, original,
  alternative="less")`` over the same pairs (Appraise,
  ``Campaign/management/commands/ComputeAnnotatorMetrics.py``: per annotator it pairs each
  BAD item with the TGT item of the same segment and system, runs that test, and with
  ``--p-value P`` lists the annotators whose p is not below P as failing quality control;
  WMT uses P = 0.05).

Pairs whose scores are all equal give p = 1 (fail). An annotator with no pair has no
verdict (``passed`` None) and is not excluded: there is nothing to judge them by.
``lower_share`` is the share of pairs where the BAD copy scored strictly lower (the ESA
paper's attention-check summary).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from statistics import fmean
from typing import Any

from .appraise import ScoreRow
from .segments import latest, segment_keys

TESTS = {"wilcoxon": "one-sided paired Wilcoxon signed-rank test (BAD < original)",
         "mannwhitney": "one-sided Mann-Whitney U test (BAD < original), as Appraise"}
DEFAULT_TEST = "wilcoxon"
DEFAULT_ALPHA = 0.05


@dataclass(frozen=True)
class AnnotatorCheck:
    annotator: str
    pairs: int                    # BAD items matched with their original
    bad_checks: int               # BAD rows that count, matched or not
    bad_mean: float | None
    original_mean: float | None
    lower_share: float | None     # share of pairs where the BAD copy scored lower
    p_value: float | None
    passed: bool | None           # None: no pair to judge by

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def check_pairs(rows: Iterable[ScoreRow]) -> dict[str, list[tuple[float, float]]]:
    """``{annotator: [(BAD score, original score), ...]}`` from the rows that count."""
    counted = latest(r for r in rows if r.counts)
    keys = segment_keys(counted)
    originals = {(r.annotator, k): r.score for r, k in zip(counted, keys, strict=True) if not r.is_bad}
    out: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for row, key in zip(counted, keys, strict=True):
        if row.is_bad and (row.annotator, key) in originals:
            out[row.annotator].append((row.score, originals[(row.annotator, key)]))
    return dict(out)


def one_sided_p(bad: list[float], original: list[float], test: str = DEFAULT_TEST) -> float:
    """p of "BAD scores are lower than the originals" (1.0 when every pair is tied)."""
    if test not in TESTS:
        raise ValueError(f"unknown attention-check test {test!r}; use one of {', '.join(TESTS)}")
    if not bad or all(b == o for b, o in zip(bad, original, strict=True)):
        return 1.0
    from scipy.stats import mannwhitneyu, wilcoxon

    if test == "wilcoxon":
        return float(wilcoxon(bad, original, alternative="less").pvalue)
    return float(mannwhitneyu(bad, original, alternative="less").pvalue)


def attention_checks(rows: Iterable[ScoreRow], *, test: str = DEFAULT_TEST,
                     alpha: float = DEFAULT_ALPHA) -> list[AnnotatorCheck]:
    """One verdict per annotator with a counted row, sorted by annotator id."""
    if not 0 < alpha < 1:
        raise ValueError("alpha must be between 0 and 1")
    rows = [r for r in rows if r.counts]
    pairs = check_pairs(rows)
    bad_rows: dict[str, int] = defaultdict(int)
    for row in rows:
        bad_rows[row.annotator] += row.is_bad
    out = []
    for annotator in sorted({r.annotator for r in rows}):
        got = pairs.get(annotator, [])
        if not got:
            out.append(AnnotatorCheck(annotator, 0, bad_rows[annotator], None, None, None, None, None))
            continue
        bad, original = [b for b, _ in got], [o for _, o in got]
        p = one_sided_p(bad, original, test)
        out.append(AnnotatorCheck(annotator, len(got), bad_rows[annotator], fmean(bad), fmean(original),
                                  sum(b < o for b, o in got) / len(got), p, p < alpha))
    return out


def failing(checks: Iterable[AnnotatorCheck]) -> set[str]:
    """The annotators who failed (not those without a verdict)."""
    return {c.annotator for c in checks if c.passed is False}
