"""Error Span Annotation (ESA; Kocmi et al., WMT 2024) on plain files.

:mod:`.appraise` reads and writes Appraise's score-export CSV, :mod:`.summary`
is ``python -m humaneval esa`` (per-system mean, z and spans). No web framework,
no database: the platform's ESA protocol calls these functions.
"""

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
from .summary import EsaSummary, SystemSummary, scored_rows, standardise, summarize, summary_table, z_scores

__all__ = ["COLUMNS", "ErrorSpan", "EsaSummary", "ScoreFile", "ScoreRow", "SystemSummary", "format_scores",
           "parse_scores", "parse_spans", "read_scores", "scored_rows", "standardise", "summarize",
           "summary_table", "write_scores", "z_scores"]
