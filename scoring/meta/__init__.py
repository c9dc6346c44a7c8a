"""Meta-evaluation: how well each automatic metric (or LLM judge) agrees with the human scores, on plain files.

* :mod:`~scoring.meta.human`: reading HUMAN files (MQM, rubric results, reader-study exports); :mod:`~scoring.meta.metric_files`:
  METRICS files; :mod:`~scoring.meta.files`: reading files with errors that name them;
* :mod:`~scoring.meta.mtme`: mt-metrics-eval's data layout (read a root, write score files);
  :mod:`~scoring.meta.toolkit`: the toolkit's statistics (pairwise accuracy, soft pairwise accuracy,
  groupings, acc_eq, Kendall variants, Kendall-like); :mod:`~scoring.meta.permutation`: its permutation
  tests between metrics and the clusters; :mod:`~scoring.meta.mtme_eval`: ``python -m scoring meta --mtme``;
* :mod:`~scoring.meta.system`: system-level Pearson, Spearman (rho² x 100), Kendall (tau-b by default), pairwise
  accuracy, bootstrap intervals over systems, rank flips;
* :mod:`~scoring.meta.item`: segment/item-level correlations (DITING's MetricAlign: item-level Spearman);
* :mod:`~scoring.meta.chunks`: reader studies, the metric's per-chunk difference against the readers' choices;
* :mod:`~scoring.meta.evaluate`: all of it for every metric and every human source;
* :mod:`~scoring.meta.svg`: scatter plots as SVG text; :mod:`~scoring.meta.text`: the plain-text report.

Pure: numpy and scipy (and :mod:`humaneval` to read reader exports), nothing of the platform.
"""

from .chunks import ChunkJudgement, chunk_level, chunk_scores_from_segments
from .errors import MetaInputError
from .evaluate import evaluate_source, meta_evaluate, meta_from_files
from .files import system_name
from .human import HumanSource, human_from_obj, human_kind, read_human
from .item import item_level
from .metric_files import MetricScores, metrics_from_obj, read_metrics
from .stats import KENDALL_VARIANTS, bootstrap_ci, orient, pairwise_accuracy_untied
from .svg import scatter_svg
from .system import MIN_SYSTEMS, rank_flips, system_level
from .text import format_text

__all__ = ["KENDALL_VARIANTS", "MIN_SYSTEMS", "ChunkJudgement", "HumanSource", "MetaInputError", "MetricScores",
           "bootstrap_ci", "chunk_level", "chunk_scores_from_segments", "evaluate_source", "format_text",
           "human_from_obj", "human_kind", "item_level", "meta_evaluate", "meta_from_files", "metrics_from_obj",
           "orient", "pairwise_accuracy_untied", "rank_flips", "read_human", "read_metrics", "scatter_svg",
           "system_level", "system_name"]
