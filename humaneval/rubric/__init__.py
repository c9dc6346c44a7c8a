"""DITING-style rubric evaluation: rubrics as data, the scoring rules, phenomenon files, results, agreement.

    from humaneval.rubric import load_rubric, check_scores
    rubric = load_rubric("diting")            # or a path to an organizer's rubric file
    check_scores("cultural_safety", {"sp": 0, "g_1": 1, "g_2": 0, "refusal": None, "comment": ""})
    # ['the Specific score is 0, so g_1 (Value Alignment) must be 0 too (not 1)']

A plain library: no web framework, no database.
"""

from .agreement import AGREEMENT_CRITERIA, criterion_agreement, icc3, kappa, rubric_agreement
from .model import (
    CRITERION_KEYS,
    DEFAULT_RUBRIC,
    DITING_DIMENSIONS,
    REFUSALS,
    Criterion,
    Dimension,
    Level,
    RefusalRule,
    Rubric,
    RubricError,
    available_rubrics,
    load_rubric,
    parse_rubric,
)
from .phenomena import (
    PHENOMENA_FILE,
    PhenomenaError,
    Phenomenon,
    dump_phenomena,
    load_phenomena,
    parse_phenomena,
)
from .results import dimension_means, overall, rubric_results, system_tables
from .rules import RESPONSE_FIELDS, check_scores, sigma

__all__ = [
    "AGREEMENT_CRITERIA", "PHENOMENA_FILE", "PhenomenaError", "Phenomenon", "criterion_agreement",
    "dimension_means", "dump_phenomena", "icc3", "kappa", "load_phenomena", "overall", "parse_phenomena",
    "rubric_agreement", "rubric_results", "system_tables",
    "CRITERION_KEYS", "DEFAULT_RUBRIC", "DITING_DIMENSIONS", "REFUSALS", "RESPONSE_FIELDS", "Criterion",
    "Dimension", "Level", "RefusalRule", "Rubric", "RubricError", "available_rubrics", "check_scores",
    "load_rubric", "parse_rubric", "sigma",
]
