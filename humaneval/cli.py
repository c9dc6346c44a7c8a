"""``python -m humaneval``: agreement coefficients and reader-study results on plain files.

Usage::

    python -m humaneval agreement RATINGS.csv --coefficient ac1|ac2|kappa|icc
                                  [--weights identity|linear|quadratic] [--categories 1,2,3,4,5] [--json]
    python -m humaneval reader EXPORT.jsonl [--weights identity|linear|quadratic] [--study NAME] [--json]
    python -m humaneval judge ITEMS.jsonl --base-url URL --model NAME [--mode single|debate] [--json] ...
                                  (LLM judges on rubric items: see humaneval.judge.cli)
    python -m humaneval rubric RESPONSES.csv|RESPONSES.jsonl [--rubric NAME|FILE] [--json]
    python -m humaneval esa SCORES.csv [--json]
    python -m humaneval esa-results SCORES.csv [--json] [--keep-failing] ...   (see humaneval.esa.cli)
    python -m humaneval bws JUDGMENTS.csv [--splits N] [--seed S] [--json]   (see humaneval.bws.cli)

RATINGS.csv has a header naming the columns item, rater, value (other columns
are ignored), then one rating a row; any number of raters, and an item may be
rated by fewer than all of them. Values are numbers for ac2, any label for ac1.
The categories are the values seen unless --categories lists them all.

Weights: ac1 is Gwet's nominal coefficient, identity weights only (asking for
other weights is a usage error: use ac2). ac2 defaults to quadratic weights;
ac2 with identity weights equals ac1 on the same numbers.

kappa is Cohen's kappa for exactly two raters, over the items both rated, with
identity (default), linear, quadratic or ordinal weights: the library's one
definition (humaneval.cohen_kappa), weights on the category values as in
irrCAC and Gwet's AC2 (on equally spaced numbers the same as scikit-learn's
rank weights); labels need --categories in their order for weighted kappa. icc is ICC(3,1) (two-way mixed, consistency,
single rater; numbers only, no weights) and needs complete data: every rater
rates every item.

rubric prints per-system DITING tables (sub-criterion means, dimension sums,
the overall average) and agreement per sub-criterion from rubric responses
(format: README, "Rubric evaluation"); --json prints the results JSON.

With --json, agreement prints one JSON object: {"coefficient", "weights",
"value", "items", "raters"}; items and raters count those with at least one
rating. reader prints {"studies": {NAME: results}}.

Exit status: 0 success, 1 bad input (the message names the file and the line),
2 usage error.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .agreement import WEIGHTS, gwet
from .bws.cli import add_bws_parser, run_bws
from .errors import HumanEvalInputError
from .esa.cli import add_esa_parsers, run_esa
from .export import load_export
from .judge.cli import add_judge_parser, run_judge
from .ratings_csv import parse_number, read_ratings
from .reader import reader_results
from .report import results_text

EXIT_OK, EXIT_INPUT, EXIT_USAGE = 0, 1, 2
COEFFICIENTS = ("ac1", "ac2", "kappa", "icc")
PROG = "python -m humaneval"
AGREEMENT_EPILOG = """\
weights: ac1 takes identity weights only (other weights are a usage error:
use ac2); ac2 defaults to quadratic weights, 1 - (x - y)^2 / (max - min)^2;
linear is 1 - |x - y| / (max - min); ac2 with identity weights equals ac1.
kappa: Cohen's kappa of exactly two raters, identity weights by default,
linear/quadratic on the category ranks (as scikit-learn). icc: ICC(3,1) on
complete data (every rater rates every item), no weights.

--json prints {"coefficient", "weights", "value", "items", "raters"} (icc: "weights": null).
exit status: 0 success, 1 bad input (file and line named), 2 usage error."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse exits 2 on usage errors; keep that, with our prefix
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="Agreement coefficients and reader-study results on plain files.",
                     epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    ag = sub.add_parser("agreement", help="Gwet's AC1/AC2, Cohen's kappa or ICC(3,1) from an item,rater,value CSV",
                        description="Gwet's AC1 (nominal) or AC2 (weighted) for any number of raters, items "
                                    "rated by fewer than all raters allowed; Cohen's kappa for two raters; "
                                    "ICC(3,1) on complete data.",
                        epilog=AGREEMENT_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    ag.add_argument("file", metavar="RATINGS.csv", help="CSV with the columns item, rater, value")
    ag.add_argument("--coefficient", required=True, choices=COEFFICIENTS,
                    help="ac1: nominal categories; ac2: ordinal, weighted; kappa: Cohen's kappa (two raters); "
                         "icc: ICC(3,1) (complete data)")
    ag.add_argument("--weights", choices=WEIGHTS,
                    help="ac2's weights (default quadratic); kappa's (default identity); "
                         "ac1 takes identity only, icc none")
    ag.add_argument("--categories", metavar="C1,C2,...",
                    help="every possible category, comma-separated (default: the values seen); "
                         "a category nobody used still counts in the chance agreement")
    ag.add_argument("--json", action="store_true", help="print one JSON object")

    rd = sub.add_parser("reader", help="reader-study results from the platform's JSON Lines export",
                        description="Preferences, ratings, agreement between readers, highlights and "
                                    "machine detection from a reader-study export (format: README).")
    rd.add_argument("file", metavar="EXPORT.jsonl", help="the reader-study export (JSON Lines)")
    rd.add_argument("--weights", choices=WEIGHTS, default="quadratic",
                    help="AC2 weights for the 1-5 ratings (default quadratic)")
    rd.add_argument("--study", help="only this study (default: every study in the file)")
    rd.add_argument("--json", action="store_true", help="print one JSON object")
    add_judge_parser(sub)

    rb = sub.add_parser("rubric", help="DITING rubric results and agreement from rubric responses",
                        description="Per-system tables (sub-criterion means on 0-2, dimension sums on 0-6, the "
                                    "overall average sum) and agreement per sub-criterion, from rubric "
                                    "responses in CSV or JSON Lines (format: README).")
    rb.add_argument("file", metavar="RESPONSES", help="responses, .csv or .jsonl")
    rb.add_argument("--rubric", default="diting", help="a shipped rubric's name or a rubric file (default diting)")
    rb.add_argument("--json", action="store_true", help="print the results JSON")

    add_esa_parsers(sub)
    add_bws_parser(sub)
    return parser


def _categories(text: str | None, numeric: bool, parser: argparse.ArgumentParser) -> list[str] | None:
    if text is None:
        return None
    cats = [c.strip() for c in text.split(",")]
    if any(not c for c in cats):
        parser.error(f"--categories has an empty entry: {text!r}")
    if numeric and any(parse_number(c) is None for c in cats):
        parser.error(f"--categories must be numbers for ac2: {text!r}")
    values = [parse_number(c) if numeric else c for c in cats]
    if len(set(values)) != len(values):
        parser.error(f"--categories repeats a category: {text!r}")
    return cats


def _emit(obj: Any) -> None:
    print(json.dumps(obj, ensure_ascii=False))


def _agreement(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if args.coefficient in ("kappa", "icc"):
        return _kappa_or_icc(args, parser)
    if args.coefficient == "ac1" and args.weights not in (None, "identity"):
        parser.error(f"ac1 is unweighted; use --coefficient ac2 for {args.weights} weights")
    weights = args.weights or ("identity" if args.coefficient == "ac1" else "quadratic")
    numeric = args.coefficient == "ac2"
    categories = _categories(args.categories, numeric, parser)
    ratings = read_ratings(args.file, numeric=numeric, categories=categories)
    try:
        result = gwet(ratings.table, weights, ratings.categories)
    except ValueError as exc:
        raise HumanEvalInputError(str(exc), args.file) from None
    if args.json:
        _emit({"coefficient": args.coefficient, "weights": weights, "value": result.value,
               "items": ratings.items, "raters": ratings.raters})
    else:
        name = "Gwet's AC1" if args.coefficient == "ac1" else f"Gwet's AC2 ({weights} weights)"
        cats = ",".join(map(str, result.categories))
        print(f"{name} = {result.value:.4f}  ({ratings.items} items, {ratings.raters} raters, "
              f"categories {cats}; observed agreement {result.pa:.4f}, chance agreement {result.pe:.4f})")
    return EXIT_OK


def _kappa_or_icc(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from .rubric.agreement import icc3, kappa  # (scikit-learn / pingouin: only for these coefficients)

    icc = args.coefficient == "icc"
    if icc and args.weights is not None:
        parser.error("icc takes no weights (ICC(3,1) is computed on the numbers themselves)")
    if icc and args.categories is not None:
        parser.error("icc takes no --categories (ICC(3,1) is computed on the numbers themselves)")
    weights = None if icc else (args.weights or "identity")
    categories = _categories(args.categories, icc, parser)
    ratings = read_ratings(args.file, numeric=icc, categories=categories)
    raters = sorted({r for row in ratings.table.values() for r in row})
    if icc:
        missing = [(i, r) for i, row in ratings.table.items() for r in raters if r not in row]
        if missing:
            shown = "; ".join(f"item {i!r} by rater {r!r}" for i, r in missing[:10])
            more = f" and {len(missing) - 10} more" if len(missing) > 10 else ""
            raise HumanEvalInputError(f"icc needs complete data: missing {shown}{more}", args.file)
        value, _ = icc3(ratings.table)
        if value is None:
            raise HumanEvalInputError("ICC(3,1) is undefined: it needs at least two items and two raters, "
                                      "and ratings that vary", args.file)
        name = "ICC(3,1)"
    else:
        if len(raters) != 2:
            raise HumanEvalInputError(f"Cohen's kappa needs exactly two raters; the file has {len(raters)} "
                                      f"({', '.join(raters[:10])})", args.file)
        both = [row for row in ratings.table.values() if len(row) == 2]
        if not both:
            raise HumanEvalInputError("no item is rated by both raters", args.file)
        a, b = raters
        try:
            value = kappa([row[a] for row in both], [row[b] for row in both], weights, ratings.categories)
        except ValueError as exc:
            raise HumanEvalInputError(str(exc), args.file) from None
        if value is None:
            raise HumanEvalInputError("Cohen's kappa is undefined: chance agreement is 1 (both raters gave one "
                                      "and the same category throughout)", args.file)
        name = "Cohen's kappa" + ("" if weights == "identity" else f" ({weights} weights)")
    if args.json:
        _emit({"coefficient": args.coefficient, "weights": weights, "value": value,
               "items": ratings.items, "raters": ratings.raters})
    else:
        print(f"{name} = {value:.4f}  ({ratings.items} items, {ratings.raters} raters)")
    return EXIT_OK


def _rubric(args: argparse.Namespace) -> int:
    from .rubric import load_rubric
    from .rubric.report import results_table
    from .rubric.responses import read_responses
    from .rubric.results import rubric_results

    rubric = load_rubric(args.rubric)
    results = rubric_results(read_responses(args.file, rubric), rubric)
    _emit(results) if args.json else print(results_table(results, rubric))
    return EXIT_OK


def _reader(args: argparse.Namespace) -> int:
    export = load_export(args.file)
    if args.study is not None:
        if args.study not in export.studies():
            raise HumanEvalInputError(f"no study {args.study!r} (studies: {', '.join(export.studies())})",
                                      args.file)
        export = export.study(args.study)
    results = reader_results(export, args.weights)
    _emit(results) if args.json else print(results_text(results))
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "agreement":
            return _agreement(args, parser)
        if args.command == "judge":
            return run_judge(args, parser)
        if args.command == "rubric":
            return _rubric(args)
        if args.command in ("esa", "esa-results"):
            return run_esa(args)
        if args.command == "bws":
            return run_bws(args)
        return _reader(args)
    except HumanEvalInputError as exc:
        print(f"humaneval: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except BrokenPipeError:  # e.g. piped into head
        return EXIT_OK
