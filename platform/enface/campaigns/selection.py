"""Budget-aware choice of what a campaign evaluates, for every protocol: of candidate spans (a document's
excerpt, a protocol's passage), the ``budget`` that subset2evaluate (:mod:`humaneval.selection`) finds most
worth annotating from an automatic metric's stored segment scores of the campaign's systems, e.g. where
the metric varies most across systems (``metric_var``), whose system order agrees best with the
metric's overall order (``metric_cons``), or the hardest (``metric_avg``). A span's score per system is
the mean of its segments' scores. The chosen spans keep their given (test-set) order.

The core chooses the sampled documents of a campaign with it (:func:`choose_documents`, called by
``create_campaign``); a protocol may choose its own units with :func:`choose_spans` (BWS's passages).
The rules on plain data (:func:`span_scores`, :func:`choose_spans`) need no database.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from statistics import fmean
from typing import Any

from humaneval.selection import METHODS, select_items

from ..services import ServiceError
from . import sampling

#: subset2evaluate's methods a campaign may choose by ("random" is the uniform sample, the default)
METRIC_METHODS = tuple(m for m in METHODS if m != "random")
UNIFORM = "uniform"
SELECTIONS = (UNIFORM, *METRIC_METHODS)
DEFAULT_METRIC = "chrf"
TITLES = {UNIFORM: "a uniform random sample",
          "metric_var": "subset2evaluate: where the metric varies most across systems",
          "metric_cons": "subset2evaluate: where the systems' order agrees best with the metric's",
          "metric_avg": "subset2evaluate: the hardest (lowest average metric score)"}

Segments = Mapping[str, Mapping[tuple[str, int], float]]   # {system: {(document, 0-based position): score}}


@dataclass(frozen=True)
class Span:
    """Segments ``start`` .. ``end - 1`` (0-based) of ``document``; ``key`` names it in errors and results."""

    key: Hashable
    document: str
    start: int
    end: int


def _bad(code: str, message: str, status: int, field: str) -> ServiceError:
    return ServiceError(code, message, status, {"field": field})


def check_method(method: Any, field: str = "doc_selection") -> str:
    """``method`` if it is one of :data:`SELECTIONS`, else a 400 naming ``field``."""
    if method in (None, ""):
        return UNIFORM
    if method not in SELECTIONS:
        raise _bad("invalid_field", f"unknown selection {method!r} (known: {', '.join(SELECTIONS)})", 400, field)
    return str(method)


def span_scores(spans: Sequence[Span], segments: Segments, metric: str = "the metric",
                field: str = "doc_selection_metric") -> dict[Hashable, dict[str, float]]:
    """``{span key: {system: mean segment score}}``; a 409 naming ``field`` when a system lacks a segment's score."""
    out = {}
    for span in spans:
        per_system = {}
        for system, scores in segments.items():
            values = [scores.get((span.document, i)) for i in range(span.start, span.end)]
            if not values or any(v is None for v in values):
                raise _bad("no_segment_scores", f"{system} has no {metric} score for every segment of {span.key}: "
                           "choose another metric or a uniform sample", 409, field)
            per_system[system] = fmean(values)
        out[span.key] = per_system
    return out


def choose_spans(spans: Sequence[Span], budget: int, method: str, segments: Segments, seed: int = 0, *,
                 metric: str = "the metric", field: str = "doc_selection",
                 metric_field: str = "doc_selection_metric") -> list[Span]:
    """The ``budget`` spans subset2evaluate's ``method`` ranks first, in their given order (all of them when
    the budget covers them). Needs two or more systems (a 409 naming ``field``)."""
    method = check_method(method, field)
    if method == UNIFORM:
        raise ValueError("a uniform sample is drawn by the caller (its seeding is the caller's)")
    if budget >= len(spans):
        return list(spans)
    if len(segments) < 2:
        raise _bad("too_few_systems", "subset2evaluate compares systems: choose two or more systems, or a uniform "
                   "sample", 409, field)
    keep = set(select_items(span_scores(spans, segments, metric, metric_field), budget, method, seed=seed))
    return [s for s in spans if s.key in keep]


def stored_segments(testset, submissions: Sequence, labels: Mapping[int, str], metric: str,
                    field: str = "doc_selection_metric") -> dict[str, dict[tuple[str, int], float]]:
    """The stored segment scores of ``metric`` for ``submissions`` (by ``labels[submission id]``), signed so that
    higher is better; a 409 naming ``field`` when the metric has none for them."""
    # (read as the meta-evaluation reads them; imported here: metaeval imports the campaign core)
    from ..metaeval.service import stored_metrics

    found = stored_metrics(testset, list(submissions), {str(s.id): str(s.id) for s in submissions}).get(metric)
    if found is None or not found.segments:
        raise _bad("no_segment_scores", f"the metric {metric!r} has no segment scores for the chosen systems: "
                   "choose another metric or a uniform sample", 409, field)
    sign = 1.0 if found.higher_is_better else -1.0
    return {labels[s.id]: {k: sign * v for k, v in found.segments.get(str(s.id), {}).items()} for s in submissions}


def segment_metrics(testset, submissions: Sequence) -> list[str]:
    """The metrics with stored segment scores for some of ``submissions`` (what a form offers; the creation
    checks that every chosen system has them)."""
    from ..metaeval.service import stored_metrics

    if not submissions:
        return []
    found = stored_metrics(testset, list(submissions), {str(s.id): str(s.id) for s in submissions})
    return [key for key, ms in found.items() if any(ms.segments.values())]


def choose_documents(testset, submissions: Sequence, labels: Mapping[int, str], docs: Sequence[sampling.DocInfo],
                     n_docs: int, words: int, count: Callable[[str], int], method: str, metric: str,
                     seed: int) -> list[sampling.Range]:
    """A campaign's sampled documents chosen by subset2evaluate: of every document cut as
    :func:`~enface.campaigns.sampling.sample_ranges` cuts them, the ``n_docs`` that ``method`` ranks first
    from ``metric``'s segment scores of ``submissions`` (the campaign's systems)."""
    if len(submissions) < 2:
        raise _bad("too_few_systems", "subset2evaluate compares systems: choose two or more systems, or a uniform "
                   "sample", 409, "doc_selection")
    candidates = sampling.candidate_ranges(docs, n_docs, words, count)
    spans = [Span(str(r), r.doc, r.start - 1, r.end) for r in candidates]
    segments = stored_segments(testset, submissions, labels, metric)
    chosen = {s.key for s in choose_spans(spans, n_docs, method, segments, seed, metric=metric)}
    return [r for r in candidates if str(r) in chosen]


def describe(choice: Mapping[str, Any] | None) -> str | None:
    """How a campaign's documents were chosen, in words (None: a campaign from before the choice was kept)."""
    if not choice:
        return None
    method = choice.get("method")
    if method == "ranges":
        return "the documents or ranges the organizer wrote"
    if method == UNIFORM:
        return "a uniform random sample (by the seed)"
    return (f"by subset2evaluate ({method}) from the {choice.get('metric')} segment scores of "
            f"{choice.get('systems')} systems")
