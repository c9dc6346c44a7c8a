"""Best–Worst Scaling (BWS) on plain files: judgments, counting scores, split-half reliability, designs.

:mod:`~humaneval.bws.judgments` reads the judgments CSV, :mod:`~humaneval.bws.scores` computes the counting scores, their
bootstrap intervals, split-half reliability and the ranking, :mod:`~humaneval.bws.design` builds balanced tuple
designs. No web framework, no database: the platform's BWS protocol calls these functions.
"""

from .design import Design, balanced_design, design_counts, item_designs
from .judgments import Judgment, check_judgment, check_judgments, read_judgments
from .scores import (
    SplitHalf,
    VersionScore,
    bws_ranking,
    counting_scores,
    counts,
    item_scores,
    scores_with_intervals,
    spearman_brown,
    split_half,
)

__all__ = ["Design", "Judgment", "balanced_design", "design_counts", "item_designs", "SplitHalf", "VersionScore", "bws_ranking", "check_judgment", "check_judgments",
           "counting_scores", "counts", "item_scores", "read_judgments", "scores_with_intervals",
           "spearman_brown", "split_half"]
