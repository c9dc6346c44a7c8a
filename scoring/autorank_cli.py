"""``python -m scoring autorank``: WMT24's AutoRank of systems from metric scores already computed.

    python -m scoring autorank SCORES.json [--metrics M1,M2] [--json]
    python -m scoring autorank --mtme ROOT --lp LP --metrics M1,M2 [--include-human] [--json]

SCORES.json is the ``--json`` output of ``python -m scoring score``; ``--mtme`` reads the system-level
score files of a root in mt-metrics-eval's layout (METRIC-REF names, stored higher-is-better).
Exit 0 with the ranking; 1 when a file is bad or its scores cannot be ranked (the message names the
file); 2 on a usage error (no input, both inputs, a metric or language pair that is not there).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

EXIT_OK, EXIT_INVALID = 0, 1
PROG = "python -m scoring autorank"


def _metric_list(raw: str | None, usage_error) -> list[str] | None:
    if raw is None:
        return None
    names = [m.strip() for m in raw.split(",") if m.strip()]
    if not names:
        raise usage_error("autorank: --metrics: give metric names, comma-separated")
    return names


def _from_scores_json(path: str, metrics: list[str] | None, usage_error):
    """{metric: {system: score}}, {metric: higher_is_better} of a ``score --json`` file."""
    from .meta.metric_files import read_metrics

    found = read_metrics(path)
    if metrics is None:   # every metric that scored at least one system
        metrics = [m for m, ms in found.items() if ms.scores]
    missing = [m for m in metrics if m not in found]
    if missing:
        raise usage_error(f"{path}: no metric {', '.join(missing)} (there are: {', '.join(found) or 'none'})")
    return {m: found[m].scores for m in metrics}, {m: found[m].higher_is_better for m in metrics}


def _from_mtme(root: str, lp: str | None, metrics: list[str] | None, include_human: bool, usage_error):
    from .meta.mtme import lps_in, read_mtme

    if not lp:
        raise usage_error("autorank: --mtme needs --lp LP (e.g. --lp en-de)")
    if metrics is None:
        raise usage_error("autorank: --mtme needs --metrics M1,M2 (METRIC-REF names, e.g. BLEU-refA,CometKiwi-src)")
    if not Path(root).is_dir():
        raise usage_error(f"{root}: no such test-set folder")
    if lp not in lps_in(root):
        raise usage_error(f"{root}: no language pair {lp} (there are: {', '.join(lps_in(root)) or 'none'})")
    ms = read_mtme(root, lp, texts=False)
    missing = [m for m in metrics if (m, "sys") not in ms.metrics]
    if missing:
        raise usage_error(f"{root}: no system-level scores of {', '.join(missing)} for {lp} "
                          f"(there are: {', '.join(ms.metric_names('sys')) or 'none'})")
    leave_out = set() if include_human else ms.human_translations
    scores = {m: {s: v[0] for s, v in ms.metrics[(m, "sys")].items() if s not in leave_out} for m in metrics}
    # The toolkit stores every metric higher-is-better (lower-is-better ones negated).
    return scores, {m: True for m in metrics}


def cmd_autorank(args, usage_error: type[Exception]) -> int:
    from .autorank import autorank
    from .meta import MetaInputError

    if (args.scores is None) == (args.mtme is None):
        raise usage_error("autorank: give SCORES.json (python -m scoring score --json output) or --mtme ROOT, "
                          "not both")
    if args.scores is not None and (args.lp or args.include_human):
        raise usage_error("autorank: --lp and --include-human need --mtme ROOT")
    metrics = _metric_list(args.metrics, usage_error)
    where = args.scores if args.scores is not None else f"{args.mtme} ({args.lp})"
    try:
        if args.scores is not None:
            scores, directions = _from_scores_json(args.scores, metrics, usage_error)
        else:
            scores, directions = _from_mtme(args.mtme, args.lp, metrics, args.include_human, usage_error)
        result = autorank(scores, directions)
    except MetaInputError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_INVALID
    except ValueError as exc:   # what AutoRank cannot rank: a missing score, a metric without spread
        print(f"{PROG}: error: {where}: {exc}", file=sys.stderr)
        return EXIT_INVALID
    rows = [{"rank": i, "system": s, "autorank": result.autorank[s],
             "scaled": {m: result.scaled[m][s] for m in result.metrics},
             "scores": {m: scores[m][s] for m in result.metrics}}
            for i, s in enumerate(result.systems, 1)]
    if args.json:
        print(json.dumps({"metrics": result.metrics,
                          "higher_is_better": {m: directions[m] for m in result.metrics},
                          "systems": rows}, ensure_ascii=False, indent=2))
    else:
        print(format_text(rows, result.metrics))
    return EXIT_OK


def format_text(rows: list[dict], metrics: list[str]) -> str:
    name_w = max(len("System"), *(len(r["system"]) for r in rows))
    cols = [max(len(m), 6) for m in metrics]
    header = f"{'Rank':>4}  {'System':<{name_w}}  {'AutoRank':>8}" + "".join(
        f"  {m:>{w}}" for m, w in zip(metrics, cols))
    lines = [header, "-" * len(header)]
    for r in rows:
        lines.append(f"{r['rank']:>4}  {r['system']:<{name_w}}  {r['autorank']:>8.3f}" + "".join(
            f"  {r['scaled'][m]:>{w}.3f}" for m, w in zip(metrics, cols)))
    lines += ["", "AutoRank (WMT24): each metric scaled so that its best system is 1 and its worst N; "
                  "the mean over metrics, lower is better. Metric columns: the scaled values."]
    return "\n".join(lines)
