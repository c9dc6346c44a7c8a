"""Benchmark and exhaustive check: the compiled TER port against sacrebleu's lib_ter, on real outputs.

    .venv/bin/python bench/ter.py [--data ../shared/data] [--max-pairs N]

Every system of the WMT23 zh-en general-MT MQM file and of the WMT21 TED en-de
MQM file is scored against two other systems as references, pair by pair,
tokenised as sacrebleu's TER does. Both sides run in this process on the same
pairs; the script prints their times, the ratio, and the number of pairs whose
(num_edits, ref_length) differ, which must be 0 (exit status 1 otherwise, and also when
no pair was compared: both files absent).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:   # the scoring package, and tests.support
    sys.path.insert(0, str(ROOT))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--max-pairs", type=int, default=0, help="stop each file after N pairs (0: all)")
    args = parser.parse_args()

    from sacrebleu.metrics.lib_ter import translation_edit_rate as sacrebleu_ter

    from scoring.metrics import fast_ter
    from tests.support.realdata import ter_pairs
    if fast_ter._ter is None:
        print("the compiled TER extension is not built; run `pip install -e .` with a C compiler")
        return 2

    files = {"wmt23 zh-en": args.data / "google-mqm" / "sxs_mqm_generalMT2023_zhen.3ratingsPerSegment.tsv.tar.gz",
             "wmt21 ted en-de": args.data / "google-mqm" / "mqm_ted_ende.tsv.gz"}
    mismatches = compared = 0
    for label, tsv in files.items():
        if not tsv.exists():
            print(f"{label}: {tsv} is absent, skipped")
            continue
        pairs = list(ter_pairs(tsv))
        if args.max_pairs:
            pairs = pairs[:args.max_pairs]
        t0 = time.perf_counter()
        expected = [sacrebleu_ter(h, r) for h, r in pairs]
        t1 = time.perf_counter()
        got = [fast_ter._ter.translation_edit_rate(h, r) for h, r in pairs]
        t2 = time.perf_counter()
        bad = sum(a != b for a, b in zip(expected, got))
        mismatches += bad
        compared += len(pairs)
        words = sum(len(h) for h, _ in pairs) / max(1, len(pairs))
        print(f"{label}: {len(pairs)} pairs (hypotheses of {words:.1f} words on average); "
              f"sacrebleu {t1 - t0:.2f} s, compiled {t2 - t1:.3f} s, ratio {(t2 - t1) / (t1 - t0):.4f}x "
              f"({(t1 - t0) / (t2 - t1):.0f} times faster); pairs that differ: {bad}")
    if not compared:
        print(f"ter: nothing compared (no real data under {args.data}): FAILED", file=sys.stderr)
        return 1
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
