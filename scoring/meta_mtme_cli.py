"""``python -m scoring meta --mtme ROOT --lp LP --human NAME ...``: the toolkit's statistics on a root in its layout.

Exit 0 with the report; 1 when a file is bad (the message names the file and the line);
2 on a usage error (a missing --lp, a root, language pair, human score or metric that is not there).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

EXIT_OK, EXIT_INVALID = 0, 1


def cmd_meta_mtme(args, usage_error: type[Exception]) -> int:
    from .meta import MetaInputError
    from .meta.mtme import lps_in, read_mtme
    from .meta.mtme_eval import evaluate_mtme
    from .meta.permutation import PermutationParams

    if not args.lp:
        raise usage_error("meta: --mtme needs --lp LP (e.g. --lp en-de)")
    root = Path(args.mtme)
    if not root.is_dir():
        raise usage_error(f"{root}: no such test-set folder")
    if args.lp not in lps_in(root):
        raise usage_error(f"{root}: no language pair {args.lp} (there are: {', '.join(lps_in(root)) or 'none'})")
    if args.n_boot < 1 or args.k < 1:
        raise usage_error("--n-boot and --k must be at least 1")
    if not 0 < args.confidence < 1:
        raise usage_error("--confidence must be between 0 and 1")
    metrics = None
    if args.metrics is not None:
        metrics = [m.strip() for m in args.metrics.split(",") if m.strip()]
        if not metrics:
            raise usage_error("--metrics: give metric names, comma-separated (METRIC-REF, e.g. BLEU-refA)")
    try:
        ms = read_mtme(root, args.lp, texts=False)
    except MetaInputError as exc:
        print(f"python -m scoring meta: error: {exc}", file=sys.stderr)
        return EXIT_INVALID
    if (args.human, args.level) not in ms.human:
        raise usage_error(f"no human score {args.human!r} at {args.level} level for {args.lp} "
                          f"(there are: {', '.join(ms.human_names(args.level)) or 'none'})")
    if metrics is not None:
        unknown = [m for m in metrics if (m, args.level) not in ms.metrics]
        if unknown:
            raise usage_error(f"--metrics: no {args.level}-level score file for {', '.join(unknown)} in "
                              f"{root / 'metric-scores' / args.lp}")
    clusters = PermutationParams(k=args.k, seed=args.seed) if args.clusters else None
    try:
        result = evaluate_mtme(ms, args.human, level=args.level, metrics=metrics, include_human=args.include_human,
                               kendall_variant=args.kendall, n_boot=args.n_boot, seed=args.seed,
                               confidence=args.confidence, clusters=clusters)
    except MetaInputError as exc:
        print(f"python -m scoring meta: error: {exc}", file=sys.stderr)
        return EXIT_INVALID
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=2))
    else:
        print(format_mtme_text(result))
    return EXIT_OK


def _num(v) -> str:
    if isinstance(v, dict):
        v = v.get("value")
    return "n/a" if v is None else f"{v:.4f}"


def format_mtme_text(result: dict) -> str:
    level = result["level"]
    cols = (("pearson", "spearman", "kendall", "pairwise_accuracy", "soft_pairwise_accuracy") if level == "sys"
            else ("pearson", "acc_eq"))
    lines = [f"{result['lp']} {result['human']} {level} level, {len(result['systems'])} systems: "
             f"{', '.join(result['systems'])}", "",
             f"{'metric':<36}" + "".join(f"{c[:12]:>14}" for c in cols)]
    for name, block in result["metrics"].items():
        lines.append(f"{name:<36}" + "".join(f"{_num(block.get(c)):>14}" for c in cols))
    if level == "seg":
        lines += ["", "acc_eq: grouped by item, tie threshold per metric (see --json)"]
    return "\n".join(lines)
