"""Statistics for human evaluation of translation: agreement, preference tests, reader studies.

A plain library (no web framework, no database) for researchers and for the
Enface platform::

    import humaneval
    humaneval.gwet_ac1({"doc1": {"r1": "HT", "r2": "MT"}, "doc2": {"r1": "HT", "r2": "HT"}})
    humaneval.gwet_ac2(ratings, weights="quadratic", categories=[1, 2, 3, 4, 5])
    humaneval.binomial_test(34, 60).p_value           # 0.366
    humaneval.counterbalance(["r1", "r2"], ["d1", "d2"])
    results = humaneval.reader_results(humaneval.load_export("export.jsonl"))

Error Span Annotation (ESA, ESA^AI) on Appraise exports is :mod:`humaneval.esa`.
The command line is ``python -m humaneval`` (see :mod:`humaneval.cli`).
"""

from .agreement import (
    WEIGHTS,
    Agreement,
    cohen_kappa,
    gwet,
    gwet_ac1,
    gwet_ac2,
    percent_agreement,
    rating_table,
    weight_matrix,
)
from .errors import HumanEvalInputError
from .export import ChunkRecord, ExcerptRecord, PostRecord, ReaderExport, load_export, parse_export
from .preference import BinomialTest, SignTest, binomial_test, sign_test
from .ratings_csv import Ratings, read_ratings
from .reader import reader_results, study_results
from .reader_design import Slot, chunk_segments, counterbalance
from .words import count_words

__all__ = [
    "WEIGHTS", "Agreement", "BinomialTest", "ChunkRecord", "ExcerptRecord", "HumanEvalInputError", "PostRecord",
    "Ratings", "ReaderExport", "SignTest", "Slot", "binomial_test", "chunk_segments", "cohen_kappa",
    "count_words", "counterbalance", "gwet", "gwet_ac1", "gwet_ac2", "load_export", "parse_export",
    "percent_agreement", "rating_table", "read_ratings", "reader_results", "sign_test", "study_results",
    "weight_matrix",
]
