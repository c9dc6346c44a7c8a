"""Error Span Annotation (ESA; Kocmi et al., WMT 2024) on plain files.

:mod:`~humaneval.esa.appraise` reads and writes Appraise's score-export CSV, :mod:`~humaneval.esa.summary`
is ``python -m humaneval esa`` (per-system mean, z and spans), :mod:`~humaneval.esa.results` the
results page's statistics (:mod:`~humaneval.esa.attention`, :mod:`~humaneval.esa.agreement`, :mod:`~humaneval.esa.segments`). No web framework,
no database: the platform's ESA protocol calls these functions.
"""

from .agreement import RaterAgreement, rater_agreement, span_overlap
from .appraise import (
    COLUMNS,
    ErrorSpan,
    ScoreFile,
    ScoreRow,
    format_scores,
    parse_scores,
    parse_spans,
    read_scores,
    write_scores,
)
from .attention import AnnotatorCheck, attention_checks
from .results import EsaResults, SystemResult, Timing, esa_results
from .summary import EsaSummary, SystemSummary, scored_rows, standardise, summarize, summary_table, z_scores

__all__ = ["AnnotatorCheck", "COLUMNS", "ErrorSpan", "EsaResults", "EsaSummary", "RaterAgreement",
           "SystemResult", "Timing", "attention_checks", "esa_results", "rater_agreement", "span_overlap", "ScoreFile", "ScoreRow", "SystemSummary", "format_scores",
           "parse_scores", "parse_spans", "read_scores", "scored_rows", "standardise", "summarize",
           "summary_table", "write_scores", "z_scores"]
