"""``python -m mqm``: MQM scores, agreement and format conversion on plain files.

    python -m mqm score FILE [--scheme S] [--source-words MODE] [--by system|rater|doc] [--json]
    python -m mqm agreement FILE [--scheme S] [--source-words MODE] [--json]
    python -m mqm convert IN OUT
    python -m mqm errors FILE [--scheme S] [--json]
    python -m mqm wilcoxon FILE [--scheme S] [--unit doc|segment] [--alpha A] [--json]
    python -m mqm schemes [NAME] [--json]

FILE is a Marot/Anthea TSV (.tsv, .tsv.gz, or a .tar.gz holding one .tsv) or the
JSON form (.json). Exit status: 0 success, 1 bad input (the message names the
file and the line), 2 usage error.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .agreement import agreement as compute_agreement
from .agreement import error_counts
from .files import load, save
from .model import MQMData, MQMInputError
from .schemes import DEFAULT_SCHEME, Scheme, SchemeError, available_schemes, load_scheme
from .scores import ranked, score
from .significance import clusters, rank_ranges, wilcoxon_pairs
from .words import MODES, WordCounter

EXIT_OK, EXIT_INPUT, EXIT_USAGE = 0, 1, 2
PROG = "python -m mqm"
FILE_HELP = "Marot/Anthea TSV (.tsv, .tsv.gz, .tar.gz with one .tsv) or the JSON form (.json)"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse exits 2 on usage errors; keep that, with our prefix
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _scheme_options(p: argparse.ArgumentParser, words: bool = True) -> None:
    p.add_argument("--scheme", default=DEFAULT_SCHEME,
                   help=f"scheme name ({', '.join(available_schemes())}) or a scheme JSON file "
                        f"(default {DEFAULT_SCHEME})")
    p.add_argument("--zero-source-errors", action="store_true",
                   help="source errors (e.g. 'Source issue') weigh 0")
    p.add_argument("--zero-category", action="append", default=[], metavar="CATEGORY",
                   help="errors in this category (prefix match, e.g. 'Accuracy/Creative Reinterpretation') "
                        "weigh 0; repeatable")
    p.add_argument("--strict", action="store_true", help="reject a <v> without </v> instead of warning")
    if words:
        p.add_argument("--source-words", default="auto", choices=MODES,
                       help="how to count source words (default auto: jieba for Chinese, whitespace otherwise)")
        p.add_argument("--source-lang", help="source language code (default: guessed from the script)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="MQM scores, agreement and format conversion on plain files.",
                     epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    sc = sub.add_parser("score", help="system scores")
    sc.add_argument("file", help=FILE_HELP)
    _scheme_options(sc)
    sc.add_argument("--by", default="system", choices=("system", "rater", "doc"))
    sc.add_argument("--json", action="store_true", help="print one JSON object")

    ag = sub.add_parser("agreement", help="per-annotator scores, Pearson/Kendall matrices, Krippendorff's alpha")
    ag.add_argument("file", help=FILE_HELP)
    _scheme_options(ag)
    ag.add_argument("--json", action="store_true")

    cv = sub.add_parser("convert", help="convert between TSV (.tsv, .tsv.gz, .tar.gz) and JSON (.json)")
    cv.add_argument("input")
    cv.add_argument("output", help=".json, .tsv or .tsv.gz")
    cv.add_argument("--scheme", help="also check severities against this scheme")
    cv.add_argument("--strict", action="store_true", help="reject a <v> without </v> instead of warning")

    er = sub.add_parser("errors", help="error counts per system x category x severity (Figure 4)")
    er.add_argument("file", help=FILE_HELP)
    _scheme_options(er, words=False)
    er.add_argument("--json", action="store_true")

    wx = sub.add_parser("wilcoxon", help="paired Wilcoxon tests between systems and the ranking clusters")
    wx.add_argument("file", help=FILE_HELP)
    _scheme_options(wx)
    wx.add_argument("--unit", default="doc", choices=("doc", "segment"))
    wx.add_argument("--alpha", type=float, default=0.05)
    wx.add_argument("--json", action="store_true")

    sh = sub.add_parser("schemes", help="list the packaged schemes, or show one typology")
    sh.add_argument("name", nargs="?")
    sh.add_argument("--json", action="store_true")
    return parser


def _fmt(value: float | None, digits: int = 4) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _table(header: list[str], rows: list[list[str]]) -> str:
    columns = list(zip(header, *rows, strict=True))
    widths = [max(len(str(c)) for c in col) for col in columns]
    left = [any(c and not _numeric(str(c)) for c in col[1:]) for col in columns]
    lines = ["  ".join(str(c).ljust(w) if lft else str(c).rjust(w)
                       for c, w, lft in zip(r, widths, left, strict=True)).rstrip() for r in [header, *rows]]
    return "\n".join(lines)


def _numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return text in ("n/a", "-")
    return True


def _attention(data: MQMData) -> str:
    summary = data.attention_summary()
    if not summary:
        return ""
    parts = [f"{r} found {c['found']}, missed {c['missed']}" for r, c in summary.items()]
    return "attention checks (excluded from scores): " + "; ".join(parts)


def _score_text(result: dict[str, Any], scheme: Scheme, data: MQMData, order: list[str]) -> str:
    """A table, best first (by rater/doc: systems in ``order``, then best first within each)."""
    direction = "higher" if scheme.higher_is_better else "lower"
    out = [f"MQM scores, scheme {scheme.name} ({direction} is better)",
           f"source words: {result['source_words_method']}"]
    sev = scheme.severity_names
    scores = result["scores"]
    if result["by"] == "system":
        rows = [[str(i), s, _fmt(scores[s]["score"]), str(scores[s]["segments"]), str(scores[s]["source_words"]),
                 *(str(scores[s]["errors"].get(n, 0)) for n in sev)] for i, s in enumerate(order, 1)]
        out.append(_table(["rank", "system", "score", "segments", "words", *sev], rows))
    else:
        rows = []
        for s in order:
            for k in ranked(scores[s], scheme.higher_is_better):
                row = scores[s][k]
                rows.append([s, k, _fmt(row["score"]), str(row["segments"]), str(row["source_words"]),
                             *(str(row["errors"].get(n, 0)) for n in sev)])
        out.append(_table(["system", result["by"], "score", "segments", "words", *sev], rows))
    if (att := _attention(data)):
        out.append(att)
    return "\n".join(out)


def _matrix_text(title: str, raters: list[str], m: dict, vs_mean: dict) -> str:
    rows = [[a, *(("-" if i == j else _fmt(m[a][b], 3)) if j <= i else "" for j, b in enumerate(raters))]
            for i, a in enumerate(raters)]
    rows.append(["average", *(_fmt(vs_mean[r], 3) for r in raters)])
    return title + "\n" + _table(["", *raters], rows)


def _agreement_text(res: dict[str, Any], scheme: Scheme) -> str:
    raters, scores = res["raters"], res["scores"]
    direction = "higher" if scheme.higher_is_better else "lower"
    rows = [[s, *(_fmt(scores[s].get(r), 2) for r in raters), _fmt(res["average"].get(s), 2)]
            for s in res["systems"]]
    out = [f"Per-annotator scores, scheme {scheme.name} ({direction} is better)",
           _table(["system", *raters, "average"], rows), "",
           _matrix_text("Pearson correlation between annotators (average = with the mean of all annotators)",
                        raters, res["pearson"], res["pearson_vs_mean"]), "",
           _matrix_text("Kendall tau-b between annotators", raters, res["kendall"], res["kendall_vs_mean"]), "",
           f"Krippendorff's alpha (interval), systems as units: {_fmt(res['krippendorff_alpha'], 3)}",
           f"Krippendorff's alpha (interval), segments as units: {_fmt(res['krippendorff_alpha_segments'], 3)}"]
    return "\n".join(out)


def _scheme(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Scheme:
    name = args.scheme
    if name not in available_schemes() and not Path(name).is_file():
        parser.error(f"unknown scheme {name!r} (packaged: {', '.join(available_schemes())}; "
                     "or give a scheme JSON file)")
    return load_scheme(name, zero_source_errors=getattr(args, "zero_source_errors", False),
                       zero_categories=getattr(args, "zero_category", []))


def _words(args: argparse.Namespace, data: MQMData) -> WordCounter:
    return WordCounter.for_texts((s.source for s in data.segments.values()), args.source_words,
                                 args.source_lang)


def _emit(obj: Any) -> None:
    print(json.dumps(obj, ensure_ascii=False, indent=1))


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if args.command == "schemes":
        if args.name is None:
            names = available_schemes()
            if args.json:
                _emit(names)
            else:
                for n in names:
                    s = load_scheme(n)
                    print(f"{n}{' (default)' if n == DEFAULT_SCHEME else ''}: {s.title}")
            return EXIT_OK
        args.scheme = args.name
        scheme = _scheme(args, parser)
        if args.json:
            _emit(scheme.to_dict())
        else:
            print(f"{scheme.name}: {scheme.title}\n{scheme.score_formula}\n")
            print("severities: " + ", ".join(f"{s.name} ({s.short}) {s.weight:g}" for s in scheme.severities))
            print("marked on the target unless [sides] say otherwise")

            def sides(cat: Any) -> str:
                return "" if cat.sides == ("target",) else f" [{', '.join(cat.sides)}]"
            for c in scheme.categories:
                print(f"\n{c.name}{sides(c) if not c.subcategories else ''}: {c.definition}")
                for sc in c.subcategories:
                    print(f"  {c.name}/{sc.name}{sides(sc)}: {sc.definition}"
                          + (f"\n    e.g. {sc.example}" if sc.example else ""))
        return EXIT_OK

    if args.command == "convert":
        scheme = _scheme(args, parser) if args.scheme else None
        data = load(args.input, scheme=scheme, strict=args.strict)
        _warn(data)
        if Path(args.output).resolve() == Path(args.input).resolve():
            parser.error("the output must not overwrite the input")
        save(data, args.output)
        return EXIT_OK

    scheme = _scheme(args, parser)
    data = load(args.file, scheme=scheme, strict=args.strict)
    _warn(data)
    if not data.errors and not data.no_errors:
        raise MQMInputError("no annotation rows to score (no errors and no No-error rows)", data.path)
    if args.command == "score":
        words = _words(args, data)
        result = score(data, scheme, by=args.by, words=words)
        if args.json:
            _emit(result)
        else:
            systems = result["scores"] if args.by == "system" else score(data, scheme, words=words)["scores"]
            print(_score_text(result, scheme, data, ranked(systems, scheme.higher_is_better)))
    elif args.command == "agreement":
        res = compute_agreement(data, scheme, _words(args, data))
        _emit(res) if args.json else print(_agreement_text(res, scheme))
    elif args.command == "errors":
        counts = error_counts(data, scheme)
        if args.json:
            _emit({"scheme": scheme.name, "counts": counts})
        else:
            sev = scheme.severity_names
            rows = [[s, c, *(str(v.get(n, 0)) for n in sev)] for s, cats in counts.items() for c, v in cats.items()]
            print(_table(["system", "category", *sev], rows))
    elif args.command == "wilcoxon":
        words = _words(args, data)
        system_scores = score(data, scheme, words=words)["scores"]
        order = ranked(system_scores, scheme.higher_is_better)
        pairs = wilcoxon_pairs(data, scheme, unit=args.unit, systems=order, words=words, alpha=args.alpha)
        groups = clusters(order, pairs)
        if args.json:
            _emit({"scheme": scheme.name, "unit": args.unit, "alpha": args.alpha, "ranking": order,
                   "clusters": groups, "ranks": rank_ranges(order, pairs), "pairs": pairs})
        else:
            for i, group in enumerate(groups, 1):
                print(f"cluster {i}: " + ", ".join(f"{s} ({_fmt(system_scores[s]['score'])})" for s in group))
    return EXIT_OK


def _warn(data: MQMData) -> None:
    for w in data.warnings:
        print(f"mqm: warning: {w}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return run(args, parser)
    except MQMInputError as exc:
        print(f"mqm: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except SchemeError as exc:
        print(f"mqm: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except BrokenPipeError:  # e.g. piped into head
        return EXIT_OK
