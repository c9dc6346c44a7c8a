"""Benchmark: sacrebleu's chrF paired bootstrap against scoring.significance, time and peak memory.

    .venv/bin/python bench/significance.py [--segments 17000] [--samples 1000] [--test bs|ar]

Two systems, chrF (k = 18 statistics per segment). The per-segment statistics are
generated (realistic magnitudes: 60-260 character n-grams per segment and order,
most of them matched), not extracted from text: the benchmark is about the
significance step, and extracting chrF for 17k x 2 segments costs a minute on
its own. Each side runs in its own subprocess, which reports its wall time,
its peak RSS (``ru_maxrss``) and its RSS before the test started; the parent
checks that both sides produced the same p-value and prints the ratios.

sacrebleu's side is its ``_paired_bs_test`` (or ``_paired_ar_test``) for one
system against the baseline, exactly what ``sacrebleu --paired-bs`` runs per
system, given the same statistics.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

CHAR_ORDER = 6


def generate(n: int, seed: int = 1) -> dict[str, np.ndarray]:
    """chrF statistics (hyp, ref, match) x 6 orders for a baseline and a slightly better system."""
    rng = np.random.default_rng(seed)
    length = rng.integers(60, 260, size=n)                          # characters per segment
    out = {}
    for name, quality in (("baseline", 0.70), ("system", 0.701)):
        cols = []
        for order in range(CHAR_ORDER):
            ref = np.maximum(length - order, 1) + rng.integers(0, 6, size=n)
            hyp = np.maximum(ref + rng.integers(-15, 16, size=n), 1)
            rate = np.clip(rng.normal(quality - 0.06 * order, 0.12, size=n), 0, 1)
            match = np.minimum(np.rint(rate * np.minimum(hyp, ref)).astype(np.int64), np.minimum(hyp, ref))
            cols += [hyp, ref, match]
        out[name] = np.stack(cols, axis=1).astype(np.int64)
    return out


def _rss_kb() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)


def child(side: str, path: str, test: str, n_samples: int) -> None:
    data = np.load(path)
    stats = {name: data[name].tolist() for name in data.files}
    if side == "sacrebleu":
        from sacrebleu.metrics import CHRF
        from sacrebleu.significance import Result, _paired_ar_test, _paired_bs_test
        metric = CHRF()
        metric._extract_corpus_statistics = lambda hyps, refs: stats["system"]
        bl_score = metric._aggregate_and_compute(stats["baseline"])
        info = {"chrF2": (stats["baseline"], Result(bl_score.score))}
        hyps = [""] * len(stats["system"])
        fn = _paired_bs_test if test == "bs" else _paired_ar_test
        before = _rss_kb()
        t0 = time.perf_counter()
        _, res = fn(info, "system", hyps, None, {"chrF2": metric}, n_samples=n_samples, seed=12345)
        elapsed = time.perf_counter() - t0
        p = res["chrF2"].p_value
    else:
        from scoring.significance import paired_test, sacrebleu_stats
        if side == "ours":
            stats = {"baseline": stats["baseline"], "system": stats["system"]}
        ms = sacrebleu_stats("chrf", "", stats)
        before = _rss_kb()
        t0 = time.perf_counter()
        res = paired_test(ms, test=test, n_samples=n_samples, seed=12345, pairs="baseline" if side == "ours" else "all")
        elapsed = time.perf_counter() - t0
        p = res.p_value("baseline", "system")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"side": side, "seconds": elapsed, "peak_rss_kb": peak, "rss_before_kb": before,
                      "p_value": p}))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--segments", type=int, default=17000)
    ap.add_argument("--samples", type=int, default=None, help="default: 1000 (bs) / 10000 (ar)")
    ap.add_argument("--test", choices=["bs", "ar"], default="bs")
    ap.add_argument("--only", choices=["sacrebleu", "ours"], default=None)
    ap.add_argument("--systems", type=int, default=0,
                    help="also time ours on all pairs of this many systems (sacrebleu cannot do all pairs)")
    ap.add_argument("--child", nargs=2, metavar=("SIDE", "PATH"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    n_samples = args.samples or {"bs": 1000, "ar": 10000}[args.test]
    if args.child:
        child(args.child[0], args.child[1], args.test, n_samples)
        return 0

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "stats.npz")
        arrays = generate(args.segments)
        for i in range(2, args.systems):
            arrays[f"extra{i}"] = generate(args.segments, seed=100 + i)["system"]
        np.savez(path, **arrays)
        print(f"chrF paired {'bootstrap' if args.test == 'bs' else 'approximate randomisation'}: "
              f"{args.segments} segments x 18 statistics, 2 systems, {n_samples} samples, seed 12345")
        results = {}
        failed = False
        sides = ("sacrebleu", "ours") + (("ours-all",) if args.systems > 2 else ())
        for side in sides:
            if args.only and side != args.only:
                continue
            proc = subprocess.run([sys.executable, __file__, "--test", args.test, "--samples", str(n_samples),
                                   "--child", side, path], capture_output=True, text=True, cwd=ROOT)
            if proc.returncode:
                print(f"{side}: failed ({proc.returncode})\n{proc.stderr[-2000:]}")
                failed = True
                continue
            r = json.loads(proc.stdout.strip().splitlines()[-1])
            results[side] = r
            if side == "ours-all":
                n_sys = max(args.systems, 2)
                print(f"  ours, all {n_sys * (n_sys - 1) // 2} pairs of {n_sys} systems: {r['seconds']:.2f} s, "
                      f"peak RSS {r['peak_rss_kb'] / 1024:.1f} MB")
                continue
            print(f"  {side:<9} {r['seconds']:7.2f} s   peak RSS {r['peak_rss_kb'] / 1024:8.1f} MB "
                  f"(+{(r['peak_rss_kb'] - r['rss_before_kb']) / 1024:7.1f} MB over the process before the test)"
                  f"   p = {r['p_value']}")
        if "sacrebleu" in results and "ours" in results:
            s, o = results["sacrebleu"], results["ours"]
            extra_s = s["peak_rss_kb"] - s["rss_before_kb"]
            extra_o = max(1, o["peak_rss_kb"] - o["rss_before_kb"])
            print(f"  ratio     time {s['seconds'] / o['seconds']:.1f}x faster, "
                  f"peak RSS {s['peak_rss_kb'] / o['peak_rss_kb']:.1f}x smaller, "
                  f"test's own memory {extra_s / extra_o:.1f}x smaller")
            print(f"  p-values equal: {s['p_value'] == o['p_value']}")
            if s["p_value"] != o["p_value"]:
                print("bench: the p-values differ", file=sys.stderr)
                failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
