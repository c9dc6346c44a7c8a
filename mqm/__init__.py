"""MQM for MT evaluation campaigns: typologies, severity schemes, spans, scores, agreement.

A plain library (no web framework, no database) for researchers and for the
Enface platform::

    import mqm
    scheme = mqm.load_scheme("google-mqm")            # or "wmt23-literary" (the default)
    data = mqm.load("mqm_ted_ende.tsv.gz", scheme=scheme)
    result = mqm.score(data, scheme)                    # {"scores": {system: {"score", ...}}}
    table = mqm.agreement(data, scheme)                 # Tables 4 and 5 of the WMT23 literary findings
    pairs = mqm.wilcoxon_pairs(data, scheme, unit="doc")

The command line is ``python -m mqm`` (see :mod:`mqm.cli`).
"""

from .agreement import (
    agreement,
    agreement_from_table,
    annotator_table,
    error_counts,
    interval_alpha,
    krippendorff_alpha,
)
from .files import load, save
from .jsonio import from_json_obj, read_json, to_json_obj, write_json
from .model import (
    AttentionCheck,
    Error,
    MQMData,
    MQMInputError,
    NoError,
    Segment,
    non_translation,
    split_category,
)
from .schemes import DEFAULT_SCHEME, Scheme, SchemeError, available_schemes, load_scheme
from .scores import prepare, score, segment_scores, unit_scores
from .significance import clusters, wilcoxon_pairs
from .tsv import format_tsv, parse_tsv, read_tsv, write_tsv
from .words import WordCounter, count_words, guess_language

__all__ = [
    "DEFAULT_SCHEME", "AttentionCheck", "Error", "MQMData", "MQMInputError", "NoError", "Scheme",
    "SchemeError", "Segment", "WordCounter", "agreement", "agreement_from_table", "annotator_table",
    "available_schemes", "clusters", "count_words", "error_counts", "format_tsv", "from_json_obj",
    "guess_language", "interval_alpha", "krippendorff_alpha", "load", "load_scheme", "non_translation", "parse_tsv",
    "prepare", "read_json", "read_tsv", "save", "score", "segment_scores", "split_category",
    "to_json_obj", "unit_scores", "wilcoxon_pairs", "write_json", "write_tsv",
]
