"""``python -m humaneval esa`` and ``esa-results``: ESA on an Appraise score export::

    python -m humaneval esa SCORES.csv [--json]
    python -m humaneval esa-results SCORES.csv [--json] [--keep-failing] [--attention-test wilcoxon|mannwhitney]
        [--ranking-test mannwhitney|wilcoxon|ar] [--ranking-by score|z] [--resamples N] [--seed N]

The definitions are in the manual's ESA page (docs/libraries/esa.md).
"""

from __future__ import annotations

import argparse
import json

from ..argtypes import open_fraction, whole_number
from .attention import DEFAULT_ALPHA
from .attention import TESTS as ATTENTION_TESTS

SUMMARY_EPILOG = ('--json prints {"systems": {SYSTEM: {"score", "items", "z", "spans": {SEVERITY: n}}}, '
                  '"annotators", "attention_checks"}.\n'
                  "exit status: 0 success, 1 bad input (file and line named), 2 usage error.")
RESULTS_EPILOG = ("--json prints {\"systems\": [...], \"ranking\", \"agreement\", \"timing\", \"attention\", "
                  "\"excluded\", \"settings\"} (docs: libraries/esa).\n"
                  "exit status: 0 success, 1 bad input (file and line named), 2 usage error.")






def add_esa_parsers(sub) -> None:
    """The ``esa`` and ``esa-results`` subcommands."""
    es = sub.add_parser("esa", help="ESA system scores, z-scores and error spans from an Appraise score export",
                        description="Per system: the mean of its TGT scores, the mean of per-annotator z-scores "
                                    "(population standard deviation over each annotator's counted TGT scores), "
                                    "the item count and the error spans per severity, from an Appraise score "
                                    "export (CSV, no header, 12 columns). Rows whose system or document id "
                                    "contains 'tutorial', or whose document id contains '#duplicate', do not "
                                    "count; BAD rows count only as attention checks.",
                        epilog=SUMMARY_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    es.add_argument("file", metavar="SCORES.csv", help="an Appraise score export (CSV, no header)")
    es.add_argument("--json", action="store_true", help="print one JSON object")

    from scoring.human_ranking import ALL_TESTS

    er = sub.add_parser("esa-results", help="ESA results: attention checks, systems with bootstrap intervals, "
                                            "ranking with clusters, rater agreement, time",
                        description="The ESA results page on a file: each annotator's attention checks (a "
                                    "one-sided test of BAD against original scores; failing annotators are "
                                    "left out unless --keep-failing), per system the mean score, mean z, a 95% "
                                    "bootstrap interval, items and spans, the official ranking with clusters and "
                                    "rank ranges, agreement between raters on shared segments and the time per "
                                    "segment and per error span.",
                        epilog=RESULTS_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    er.add_argument("file", metavar="SCORES.csv", help="an Appraise score export (CSV, no header)")
    er.add_argument("--json", action="store_true", help="print one JSON object")
    er.add_argument("--keep-failing", action="store_true",
                    help="keep annotators who fail the attention checks (default: excluded, as WMT does)")
    er.add_argument("--attention-test", choices=list(ATTENTION_TESTS), default="wilcoxon",
                    help="wilcoxon: paired signed-rank (default); mannwhitney: Appraise's rank-sum on the pairs")
    er.add_argument("--attention-alpha", type=open_fraction, default=DEFAULT_ALPHA,
                    help=f"an annotator passes when p < this (default {DEFAULT_ALPHA})")
    er.add_argument("--ranking-test", choices=list(ALL_TESTS), default="mannwhitney",
                    help="the official ranking's test (default mannwhitney: unpaired rank-sum)")
    er.add_argument("--ranking-by", choices=["score", "z"], default="score", help="rank on scores or z-scores")
    er.add_argument("--ranking-alpha", type=open_fraction, default=0.05, help="significance level of the ranking")
    er.add_argument("--resamples", type=whole_number(1), default=1000, help="bootstrap resamples (default 1000)")
    er.add_argument("--seed", type=int, default=12345, help="seed of the bootstrap (default 12345)")


def run_esa(args: argparse.Namespace) -> int:
    from .appraise import read_scores

    rows = read_scores(args.file).rows
    if args.command == "esa":
        from .summary import summarize, summary_table

        summary = summarize(rows)
        print(json.dumps(summary.to_dict(), ensure_ascii=False) if args.json else summary_table(summary))
        return 0
    from .report import results_text
    from .results import esa_results

    results = esa_results(rows, exclude_failing=not args.keep_failing, attention_test=args.attention_test,
                          attention_alpha=args.attention_alpha, ranking_test=args.ranking_test,
                          ranking_by=args.ranking_by, ranking_alpha=args.ranking_alpha,
                          n_resamples=args.resamples, seed=args.seed)
    print(json.dumps(results.to_dict(), ensure_ascii=False) if args.json else results_text(results))
    return 0
