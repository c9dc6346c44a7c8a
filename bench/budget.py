"""Benchmark: budget-aware item selection on real MQM data, uniform sampling against subset2evaluate.

    .venv/bin/python bench/budget.py [--data PATH] [--draws 100] [--fractions 0.1,0.25,0.5] [--seed 12345]

The data: Google's WMT23 zh-en side-by-side MQM file (10 systems, 377 segments, 3 ratings per
segment; ``../shared/data/google-mqm/`` or ``$ENFACE_SHARED_DATA/google-mqm/``), read with the ``mqm`` library (Google's MQM weights).
The **full ranking** orders the systems by their mean MQM penalty over all segments (lower is
better), every segment's penalty averaged over its three raters; its **top cluster** comes from
``scoring.human_ranking.rank_systems`` (paired Wilcoxon on segments, alpha 0.05, WMT clusters).

A **simulated campaign** annotates a share of the segments once: the segments are chosen
uniformly at random or by subset2evaluate (``humaneval.selection``), and each chosen segment
gets the rating of one of its raters drawn at random (a campaign on a budget pays for one
rating, not three; the draw is what varies between subset2evaluate's draws, whose segments are
fixed). Each draw's ranking is compared with the full one: **pairwise accuracy** (the share of
the 45 system pairs in the full order; mt-metrics-eval's definition,
``scoring.meta.toolkit.pairwise_accuracy``), how often **every** pair is right, and how often
the draw's top cluster is **exactly** the full data's top cluster.

The automatic signal subset2evaluate selects from: the file has no reference translation, so
each system's segment is scored by sentence-level chrF (sacrebleu) against the other nine
systems' translations of that segment as references (a consensus, "pseudo-reference" score:
a translation close to the others is likely adequate). It uses no human rating.

Exit status 1 when nothing was compared (no segment rated by the same raters for all systems).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SHARED_DATA = Path(os.environ.get("ENFACE_SHARED_DATA") or ROOT.parent / "shared" / "data")
DEFAULT_DATA = SHARED_DATA / "google-mqm" / "sxs_mqm_generalMT2023_zhen.3ratingsPerSegment.tsv.tar.gz"
METHODS = ("uniform", "metric_var", "metric_cons")


def load(path: Path):
    """Per segment: the systems' targets and per (system, rater) penalty; only segments every system has,
    rated by the same raters for all."""
    import mqm

    scheme = mqm.load_scheme("google-mqm")
    data = mqm.load(path, scheme=scheme)
    prepared = mqm.prepare(data, scheme)
    systems = data.systems
    targets: dict[tuple, dict[str, str]] = defaultdict(dict)
    raters: dict[tuple, dict[str, set[str]]] = defaultdict(dict)
    for (system, doc, doc_seg, seg), who in prepared.rated.items():
        raters[(doc, doc_seg, seg)][system] = who
    for key, segment in data.segments.items():
        targets[key[1:]][key[0]] = segment.target
    penalty: dict[tuple, dict[str, dict[str, float]]] = {}
    for seg, by_system in raters.items():
        if set(by_system) != set(systems) or len({frozenset(r) for r in by_system.values()}) != 1:
            continue
        who = sorted(next(iter(by_system.values())))
        penalty[seg] = {s: {r: prepared.penalty.get(((s, *seg), r), 0.0) for r in who} for s in systems}
    return systems, {seg: targets[seg] for seg in penalty}, penalty


def consensus_chrf(systems, targets) -> dict[tuple, dict[str, float]]:
    """Sentence chrF of each system's translation against the other systems' translations of the segment."""
    from sacrebleu.metrics import CHRF

    chrf = CHRF()
    return {seg: {s: chrf.sentence_score(texts[s], [texts[o] for o in systems if o != s]).score
                  for s in systems}
            for seg, texts in targets.items()}


def ranking(systems, penalty, segments, rater_of=None):
    """System means (lower is better) and the top cluster, on the given segments, with one rater's
    penalty per segment (``rater_of``) or the mean of all raters."""
    from scoring.human_ranking import rank_systems

    units = {s: {} for s in systems}
    for seg in segments:
        for s in systems:
            by_rater = penalty[seg][s]
            units[s][seg] = by_rater[rater_of[seg]] if rater_of else statistics.fmean(by_rater.values())
    means = {s: statistics.fmean(units[s].values()) for s in systems}
    result = rank_systems(units, scores=means, higher_is_better=False, test="wilcoxon")
    top = frozenset(r["system"] for r in result["rows"] if r["cluster"] == 1)
    return means, top


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the WMT23 zh-en side-by-side MQM file")
    ap.add_argument("--draws", type=int, default=100, help="simulated campaigns per method and budget")
    ap.add_argument("--fractions", default="0.1,0.25,0.5", help="shares of the segments annotated")
    ap.add_argument("--seed", type=int, default=12345)
    args = ap.parse_args(argv)
    if args.draws < 1:
        ap.error("--draws must be at least 1")
    try:
        fractions = [float(f) for f in args.fractions.split(",")]
    except ValueError:
        ap.error(f"--fractions: not numbers: {args.fractions!r}")
    if any(not 0 < f <= 1 for f in fractions):
        ap.error("--fractions must be between 0 and 1")
    if not args.data.exists():
        print(f"bench/budget.py: no data at {args.data}", file=sys.stderr)
        return 1

    from humaneval.selection import select_items
    from scoring.meta.toolkit import pairwise_accuracy

    t0 = time.perf_counter()
    systems, targets, penalty = load(args.data)
    if len(systems) < 2 or not penalty:
        print("bench/budget.py: nothing to compare (no segment rated by the same raters for every system)",
              file=sys.stderr)
        return 1
    metric = consensus_chrf(systems, targets)
    t_load = time.perf_counter() - t0
    segments = sorted(penalty)
    full_means, full_top = ranking(systems, penalty, segments)
    gold = np.array([-full_means[s] for s in systems])   # higher is better for the toolkit
    print(f"{args.data.name}: {len(systems)} systems, {len(segments)} segments with the same raters for all "
          f"({len({r for seg in penalty.values() for r in next(iter(seg.values()))})} raters); loaded and chrF-scored "
          f"in {t_load:.1f} s")
    print("full MQM ranking (mean penalty, lower is better): "
          + ", ".join(f"{s} {full_means[s]:.2f}" for s in sorted(systems, key=full_means.get)))
    print(f"full top cluster: {', '.join(sorted(full_top))}")

    rng = random.Random(args.seed)
    rows, compared = [], 0
    t1 = time.perf_counter()
    for fraction in fractions:
        budget = max(2, round(fraction * len(segments)))
        chosen = {m: select_items(metric, budget, m) for m in METHODS if m != "uniform"}
        for method in METHODS:
            accuracies, exact, top_hits = [], 0, 0
            for _ in range(args.draws):
                subset = rng.sample(segments, budget) if method == "uniform" else chosen[method]
                rater_of = {seg: rng.choice(sorted(next(iter(penalty[seg].values())))) for seg in subset}
                means, top = ranking(systems, penalty, subset, rater_of)
                acc = pairwise_accuracy(gold, np.array([-means[s] for s in systems]))
                accuracies.append(acc)
                exact += acc == 1.0
                top_hits += top == full_top
                compared += 1
            rows.append((f"{fraction:.0%}", budget, method, statistics.fmean(accuracies),
                         statistics.pstdev(accuracies), exact / args.draws, top_hits / args.draws))
    t_sim = time.perf_counter() - t1
    if not compared:
        print("bench/budget.py: nothing was compared", file=sys.stderr)
        return 1
    print(f"\n{args.draws} draws per row, one rating per chosen segment; {t_sim:.1f} s")
    print(f"{'budget':>6}  {'segments':>8}  {'selection':<12}  {'pairwise acc':>12}  {'sd':>5}  "
          f"{'all pairs':>9}  {'top cluster':>11}")
    for share, budget, method, acc, sd, exact, top in rows:
        print(f"{share:>6}  {budget:>8}  {method:<12}  {acc:>12.3f}  {sd:>5.3f}  {exact:>9.0%}  {top:>11.0%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
