"""``python -m scoring``: validate and score system outputs on plain files.

Usage::

    python -m scoring validate TESTSET_DIR SUBMISSION [--document-level] [--json]
    python -m scoring score TESTSET_DIR SUBMISSION [SUBMISSION ...] [-m bleu chrf ter dbleu comet]
    python -m scoring score --src SRC --ref REF1 --ref REF2 [--docs DOCIDS] HYP [HYP ...]
    python -m scoring meta --human HUMAN.json --metrics METRICS.json [--json]
    python -m scoring meta --mtme ROOT --lp LP --human NAME [--level sys|seg] [--metrics M1,M2,...]
                           [--include-human] [--json]
    python -m scoring autorank SCORES.json [--metrics M1,M2] [--json]
    python -m scoring autorank --mtme ROOT --lp LP --metrics M1,M2 [--include-human] [--json]

Exit status: 0 success, 1 invalid input (the report says why), 2 usage error.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .metrics import DEFAULT_METRICS, HIGHER_IS_BETTER, REGISTRY
from .metrics.base import ReferenceRequired
from .testset import TestSet, TestSetError, load_flat, load_system_output, load_testset

EXIT_OK, EXIT_INVALID, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse exits 2 on usage errors, as we want, with our prefix
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m scoring", description="Validate and score system outputs on plain files.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    val = sub.add_parser("validate", help="check a submission against a test set")
    val.add_argument("testset", help="test-set directory (testset.json, source/, ref1/, ref2/)")
    val.add_argument("submission", help="a directory of <doc>.txt files, or one file with every segment")
    val.add_argument("--document-level", action="store_true",
                     help="accept outputs whose line counts differ from the source (only d-BLEU is computed)")
    val.add_argument("--max-bytes", type=int, default=50 * 1024 * 1024, help="size cap per file (default 50 MiB)")
    val.add_argument("--json", action="store_true", help="print the report as JSON")

    sc = sub.add_parser("score", help="score one or more submissions",
                        description="Score submissions against both references. Give a test-set directory "
                                    "and submissions, or plain files with --src/--ref/--docs. TER's edit distance "
                                    "runs compiled; ENFACE_TER=sacrebleu runs sacrebleu's own code (same scores). "
                                    "A TER score's details.backend says which ran.")
    sc.add_argument("inputs", nargs="+", metavar="PATH",
                    help="test-set directory then submissions; with --src, only hypothesis files")
    sc.add_argument("-m", "--metrics", nargs="+", default=None, choices=list(REGISTRY),
                    metavar="METRIC", help=f"metrics to compute (default: {' '.join(DEFAULT_METRICS)}; "
                                           f"comet alone when the test set has no reference)")
    sc.add_argument("--src", help="flat form: source file, one segment per line")
    sc.add_argument("--ref", action="append", default=[],
                    help="flat form: a reference file (repeat for each; none: only a reference-free COMET "
                         "checkpoint such as CometKiwi scores, signature ref:none)")
    sc.add_argument("--docs", help="flat form: document id of every line (for d-BLEU)")
    sc.add_argument("--src-lang", default="", help="flat form: source language code")
    sc.add_argument("--tgt-lang", default="", help="flat form: target language code (picks BLEU's tokenizer)")
    sc.add_argument("--document-level", action="store_true", help="accept document-level submissions")
    sc.add_argument("--comet-model", help="local COMET-family checkpoint (dir or .ckpt): wmt22-comet-da, "
                                          "CometKiwi (no reference), xCOMET, ...; default $ENFACE_COMET_MODEL")
    sc.add_argument("--comet-batch-size", type=int, default=16)
    sc.add_argument("--comet-device", help="cpu, cuda, cuda:1, ... (default: cuda when available)")
    sig = sc.add_mutually_exclusive_group()
    sig.add_argument("--paired-bs", action="store_true", help="paired bootstrap resampling, all pairs")
    sig.add_argument("--paired-ar", action="store_true", help="paired approximate randomisation, all pairs")
    sc.add_argument("--paired-n", type=int, help="samples (default: 1000 for bs, 10000 for ar)")
    sc.add_argument("--seed", type=int, default=12345, help="random seed of the significance tests (default 12345)")
    sc.add_argument("--workers", type=int, help="processes for BLEU/chrF/TER (default: all cores)")
    sc.add_argument("--width", type=int, default=2, help="decimals in the text table")
    sc.add_argument("--json", action="store_true", help="one JSON object on standard output")
    sc.add_argument("--segments", action="store_true",
                    help="with --json: each score's per-segment values (metrics that have them) and the file's "
                         "segment_keys ([document, position]), for python -m scoring meta's item level")

    me = sub.add_parser("meta", help="correlate metric scores with human scores",
                        description="Meta-evaluation: every metric of METRICS.json (the --json output of "
                                    "python -m scoring score) against every human score of HUMAN.json: the --json "
                                    "output of python -m mqm score (by system, or --by doc for document level), "
                                    "rubric results ({\"protocol\": \"rubric\", ...}) or a reader-study export "
                                    "(JSON Lines). Systems are matched by name; a scored submission's name is its "
                                    "final path component without extension. Scores are oriented (lower-is-better "
                                    "ones negated) so that a positive correlation means agreement. System level: "
                                    "Pearson, Spearman (with rho^2 x 100), Kendall tau-b (or tau-c), pairwise "
                                    "accuracy (mt-metrics-eval's: every pair counts) and pairwise_accuracy_untied "
                                    "(human ties left out), each with a percentile bootstrap interval over systems, "
                                    "soft pairwise accuracy and metric clusters; item level (with acc_eq) where both "
                                    "sides have per-item scores (score --segments); chunk level for reader studies. "
                                    "With --mtme ROOT --lp LP --human NAME: a root in mt-metrics-eval's layout "
                                    "(the WMT Metrics task's), with the toolkit's statistics at --level sys or seg.")
    me.add_argument("--human", required=True, metavar="HUMAN.json|NAME",
                    help="human scores (MQM, rubric or reader export); with --mtme the human score NAME of the "
                         "file names (human-scores/LP.NAME.sys.score), e.g. mqm")
    me.add_argument("--metrics", metavar="METRICS.json|M1,M2,...",
                    help="python -m scoring score --json output; with --mtme a comma-separated list of METRIC-REF "
                         "names (default: every one with a score file at the level)")
    me.add_argument("--mtme", metavar="ROOT",
                    help="a test-set root in mt-metrics-eval's layout (e.g. its wmt23 folder): the toolkit's "
                         "statistics of every metric against --human")
    me.add_argument("--lp", help="with --mtme: the language pair, e.g. en-de")
    me.add_argument("--level", choices=["sys", "seg"], default="sys",
                    help="with --mtme: system level (Pearson, Spearman, Kendall, pairwise accuracy, soft pairwise "
                         "accuracy) or segment level (Pearson without grouping, acc_eq by item)")
    me.add_argument("--include-human", action="store_true",
                    help="with --mtme: keep human translations (systems named like a reference) in the correlations")
    me.add_argument("--clusters", action="store_true",
                    help="with --mtme: rank the metrics into significance clusters by the toolkit's permutation "
                         "tests (each metric gets 'ranks'; slow with many metrics)")
    me.add_argument("--k", type=int, default=1000, help="with --clusters: permutation draws per pair (default 1000)")
    me.add_argument("--kendall", choices=["b", "c"], default="b", help="Kendall's tau variant (default b)")
    me.add_argument("--n-boot", type=int, default=1000, help="bootstrap resamples (default 1000)")
    me.add_argument("--seed", type=int, default=12345, help="bootstrap seed (default 12345)")
    me.add_argument("--confidence", type=float, default=0.95, help="interval coverage (default 0.95)")
    me.add_argument("--json", action="store_true", help="one JSON object on standard output")

    ar = sub.add_parser("autorank", help="WMT24's AutoRank of systems from metric scores",
                        description="AutoRank (WMT24's preliminary ranking): each metric's system scores are "
                                    "scaled linearly so that its best system gets 1 and its worst N (the number "
                                    "of systems); a system's AutoRank is the mean over the metrics, lower is "
                                    "better. Input: SCORES.json (python -m scoring score --json output; "
                                    "lower-is-better metrics such as TER are mirrored) or --mtme ROOT --lp LP "
                                    "(system-level score files in mt-metrics-eval's layout). Every metric must "
                                    "score every system. Exit 1 on a bad file, 2 on a usage error.")
    ar.add_argument("scores", nargs="?", metavar="SCORES.json", help="python -m scoring score --json output")
    ar.add_argument("--metrics", metavar="M1,M2,...",
                    help="comma-separated metrics (default with SCORES.json: every metric with a score; "
                         "required with --mtme: METRIC-REF names)")
    ar.add_argument("--mtme", metavar="ROOT", help="a test-set root in mt-metrics-eval's layout")
    ar.add_argument("--lp", help="with --mtme: the language pair, e.g. en-de")
    ar.add_argument("--include-human", action="store_true",
                    help="with --mtme: rank human translations (systems named like a reference) too")
    ar.add_argument("--json", action="store_true", help="one JSON object on standard output")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "validate":
            return cmd_validate(args)
        if args.command == "meta":
            return cmd_meta(args)
        if args.command == "autorank":
            from .autorank_cli import cmd_autorank

            return cmd_autorank(args, UsageError)
        return cmd_score(args)
    except UsageError as exc:
        print(f"python -m scoring: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except TestSetError as exc:
        print(f"python -m scoring: invalid test set: {exc}", file=sys.stderr)
        return EXIT_INVALID


def cmd_meta(args) -> int:
    from .meta import MetaInputError, format_text, meta_from_files

    if args.mtme is not None:
        from .meta_mtme_cli import cmd_meta_mtme

        return cmd_meta_mtme(args, UsageError)
    if args.metrics is None:
        raise UsageError("meta: --metrics METRICS.json is required (or --mtme ROOT --lp LP)")
    if args.lp is not None or args.include_human or args.clusters or args.level != "sys":
        raise UsageError("meta: --lp, --level, --include-human and --clusters need --mtme ROOT")
    if args.n_boot < 1:
        raise UsageError("--n-boot must be at least 1")
    if not 0 < args.confidence < 1:
        raise UsageError("--confidence must be between 0 and 1")
    try:
        result = meta_from_files(args.human, args.metrics, n_boot=args.n_boot, seed=args.seed,
                                 confidence=args.confidence, kendall_variant=args.kendall)
    except MetaInputError as exc:
        print(f"python -m scoring meta: error: {exc}", file=sys.stderr)
        return EXIT_INVALID
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=2))
    else:
        print(format_text(result))
    return EXIT_OK


def _load_testset(path: str) -> TestSet:
    if not Path(path).exists():
        raise UsageError(f"{path}: no such test set directory")
    return load_testset(path)


def cmd_validate(args) -> int:
    from .validate import validate_submission

    testset = _load_testset(args.testset)
    report = validate_submission(testset, args.submission, document_level=args.document_level,
                                 max_bytes=args.max_bytes)
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False, indent=2))
    else:
        print(report.format_text())
    return EXIT_OK if report.ok else EXIT_INVALID


def _progress_printer():
    """A progress bar on a terminal; quiet when standard error is not one."""
    if not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    bars: dict[str, tqdm] = {}

    def update(name: str, done: int, total: int) -> None:
        bar = bars.get(name)
        if bar is None:
            bar = bars[name] = tqdm(total=total, desc=f"scoring {name}", unit="seg", leave=False, file=sys.stderr)
        bar.update(done - bar.n)
        if done >= total:
            bar.close()

    return update


def cmd_score(args) -> int:
    from .scorer import Scorer
    from .validate import validate_submission

    if args.src:
        for path in [args.src, *args.ref, *([args.docs] if args.docs else [])]:
            if not Path(path).is_file():
                raise UsageError(f"{path}: no such file")
        testset = load_flat(args.src, args.ref, args.docs, src_lang=args.src_lang, tgt_lang=args.tgt_lang)
        submissions = args.inputs
    else:
        if len(args.inputs) < 2:
            raise UsageError("give a test-set directory and at least one submission (or use --src/--ref)")
        testset = _load_testset(args.inputs[0])
        submissions = args.inputs[1:]
    if len(set(submissions)) != len(submissions):
        raise UsageError("a submission is given twice")

    outputs, doc_level = {}, {}
    for path in submissions:
        report = validate_submission(testset, path, document_level=args.document_level)
        if not report.ok:
            print(f"{path}: invalid submission, not scored", file=sys.stderr)
            print(report.format_text(), file=sys.stderr)
            return EXIT_INVALID
        for warning in report.warnings:
            print(f"{path}: warning: {warning.location()} {warning.message}", file=sys.stderr)
        outputs[path] = load_system_output(testset, path, document_level=report.document_level)
        doc_level[path] = report.document_level

    if args.metrics is None:
        args.metrics = list(DEFAULT_METRICS) if testset.num_refs else ["comet"]
    try:
        with Scorer(testset, args.metrics, workers=args.workers, comet_model=args.comet_model,
                    comet_batch_size=args.comet_batch_size, comet_device=args.comet_device,
                    progress=_progress_printer()) as scorer:
            results = scorer.score_many(outputs, document_level=doc_level)
    except ReferenceRequired as exc:
        print(f"python -m scoring score: error: {exc}", file=sys.stderr)
        return EXIT_INVALID

    significance = None
    if args.paired_bs or args.paired_ar:
        if len(results) < 2:
            raise UsageError("paired tests need at least two submissions")
        significance = _significance(results, testset, args)

    if args.json:
        payload = {"testset": testset.name,
                   "systems": [results[p].to_dict(with_segments=args.segments) for p in submissions],
                   "significance": significance}
        if args.segments:
            payload["segment_keys"] = [[d.name, i] for d in testset.documents for i in range(len(d.source))]
        # With segment scores (tens of thousands of numbers) the object is printed on one line: json's
        # C encoder does not indent, and an indented file would hold one number per line.
        print(json.dumps(payload, ensure_ascii=False, indent=None if args.segments else 2))
    else:
        print(format_table(results, args.metrics, args.width))
        if significance:
            for name, block in significance.items():
                print(f"\n{name}: {block['text']}")
    for res in results.values():
        for score in res.scores.values():
            for warning in score.warnings:
                print(f"{res.name}: {score.name}: warning: {warning}", file=sys.stderr)
    return EXIT_OK


def _significance(results, testset, args) -> dict:
    from .significance import metric_stats, paired_test

    test = "bs" if args.paired_bs else "ar"
    out = {}
    for key in args.metrics:
        stats = {name: r.stats[key] for name, r in results.items() if key in r.stats}
        if len(stats) < 2:
            continue
        result = paired_test(metric_stats(key, testset.tgt_lang, stats), test=test, n_samples=args.paired_n,
                             seed=args.seed)
        out[key] = result.to_dict() | {"text": result.format_text()}
    return out


def format_table(results, metrics, width: int = 2) -> str:
    """A text table of every system and metric, then the signatures."""
    from .metrics import DISPLAY

    names = list(results)
    name_w = max(len("System"), *(len(n) for n in names))
    header = f"{'System':<{name_w}}" + "".join(
        f"  {DISPLAY[m] + ('↑' if HIGHER_IS_BETTER[m] else '↓'):>10}" for m in metrics)
    lines = [header, "-" * len(header)]
    signatures, reasons = {}, {}
    for name in names:
        row = f"{name:<{name_w}}"
        for m in metrics:
            score = results[name].scores.get(m)
            if score is None or not score.available:
                row += f"  {'n/a':>10}"
                if score is not None and score.reason:
                    reasons.setdefault(m, score.reason)
            else:
                row += f"  {score.value:>10.{width}f}"
                signatures.setdefault(m, score.signature)
        lines.append(row)
    lines.append("")
    for m in metrics:
        if m in signatures:
            lines.append(f"{DISPLAY[m]}: {signatures[m]}")
        elif m in reasons:
            lines.append(f"{DISPLAY[m]}: n/a: {reasons[m]}")
    return "\n".join(lines)
