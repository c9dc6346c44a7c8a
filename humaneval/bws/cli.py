"""``python -m humaneval bws``: Best–Worst Scaling scores and split-half reliability from a judgments CSV.

    python -m humaneval bws JUDGMENTS.csv [--splits N] [--seed S] [--json]
"""

from __future__ import annotations

import argparse
import json

from ..argtypes import whole_number
from .scores import DEFAULT_SEED, DEFAULT_SPLITS

EPILOG = ('JUDGMENTS.csv: a header naming item, annotator, versions, best, worst (other columns ignored); '
          'versions separated by "|"; best and worst two different members of them.\n'
          '--json prints {"versions": {VERSION: {"score", "best", "worst", "appearances"}}, '
          '"split_half": {"value", "splits"}, "judgments"}; score = (best - worst) / appearances, '
          "split_half.value the mean Spearman correlation of random halves, Spearman-Brown corrected.\n"
          "exit status: 0 success, 1 bad input (file and line named), 2 usage error.")






def add_bws_parser(sub) -> None:
    """The ``bws`` subcommand."""
    p = sub.add_parser("bws", help="Best-Worst Scaling counting scores and split-half reliability",
                       description="Per version: times chosen best, worst, shown, and the counting score "
                                   "(best - worst) / appearances with a 95% bootstrap interval; split-half "
                                   "reliability over random splits of the judgments (Spearman correlation "
                                   "of the halves' scores, averaged, Spearman-Brown corrected).",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", metavar="JUDGMENTS.csv", help="CSV with the columns item, annotator, versions, best, worst")
    p.add_argument("--splits", type=whole_number(1), default=DEFAULT_SPLITS,
                   help=f"random splits for split-half reliability (default {DEFAULT_SPLITS})")
    p.add_argument("--seed", type=whole_number(0), default=DEFAULT_SEED, help=f"random seed (default {DEFAULT_SEED})")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:+.3f}"


def results_table(judgments, scores, reliability) -> str:
    """The human-readable form: versions best first, then the split-half line."""
    rows = sorted(scores.values(), key=lambda s: (-s.score, s.version))
    width = max(len("version"), *(len(s.version) for s in rows))
    lines = [f"{'version':<{width}}  {'score':>6}  {'95% interval':>16}  {'best':>5}  {'worst':>5}  {'shown':>5}"]
    for s in rows:
        interval = "n/a" if s.low is None else f"[{s.low:+.3f}, {s.high:+.3f}]"
        lines.append(f"{s.version:<{width}}  {s.score:+.3f}  {interval:>16}  {s.best:>5}  {s.worst:>5}  "
                     f"{s.appearances:>5}")
    value = "undefined (no split had varying scores in both halves)" if reliability.value is None else (
        f"{reliability.value:.3f} (mean Spearman r {reliability.mean_r:.3f} of the halves, Spearman-Brown "
        f"corrected; {reliability.defined} of {reliability.splits} splits defined)")
    lines += ["", f"split-half reliability: {value}", f"judgments: {len(judgments)}"]
    return "\n".join(lines)


def run_bws(args: argparse.Namespace) -> int:
    from .judgments import read_judgments
    from .scores import counts, scores_with_intervals, split_half

    judgments = read_judgments(args.file)
    reliability = split_half(judgments, n_splits=args.splits, seed=args.seed)
    if args.json:
        out = {"versions": {v: s.to_dict() for v, s in counts(judgments).items()},
               "split_half": {"value": reliability.value, "splits": reliability.splits},
               "judgments": len(judgments)}
        print(json.dumps(out, ensure_ascii=False))
    else:
        print(results_table(judgments, scores_with_intervals(judgments, seed=args.seed), reliability))
    return 0
