"""Benchmark: the meta-evaluation's bootstrap intervals, one scipy call per resample against all resamples at once.

    .venv/bin/python bench/meta_bootstrap.py [--systems 15] [--metrics 5] [--boot 1000] [--seed 12345]

The slow side is what a researcher's script (and this project before) runs: for each of
``--boot`` resamples of the systems, scipy's pearsonr, spearmanr and kendalltau and a
pairwise-accuracy loop. The fast side is :func:`scoring.meta.system_level` as it runs now
(the same resamples, every statistic on every resample at once with numpy). Both sides
compute every metric's system-level block; the script checks that every value and every
interval bound agrees to 1e-12 and exits 1 when one does not.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from scoring.meta import stats, system_level  # noqa: E402

KEYS = ("pearson", "spearman", "kendall", "pairwise_accuracy", "pairwise_accuracy_untied")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--systems", type=int, default=15)
    ap.add_argument("--metrics", type=int, default=5)
    ap.add_argument("--boot", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=12345)
    args = ap.parse_args()
    rng = np.random.default_rng(1)
    names = [f"sys{i}" for i in range(args.systems)]
    human = dict(zip(names, rng.normal(size=args.systems), strict=True))
    metrics = [{s: human[s] + rng.normal(scale=0.5 + k / 2) for s in names} for k in range(args.metrics)]

    def run() -> tuple[float, list[dict]]:
        start = time.perf_counter()
        out = [system_level(human, m, n_boot=args.boot, seed=args.seed) for m in metrics]
        return time.perf_counter() - start, out

    run()                                   # imports (scipy) and caches warm, on neither side's clock
    saved = stats.ROWS_MAX
    stats.ROWS_MAX = 0
    slow_s, slow = run()
    stats.ROWS_MAX = saved
    fast_s, fast = run()
    differ = 0
    for a, b in zip(slow, fast, strict=True):
        for key in KEYS:
            x = [a[key]["value"], *a[key]["ci"], a[key]["n_valid"]]
            y = [b[key]["value"], *b[key]["ci"], b[key]["n_valid"]]
            differ += any(abs(p - q) > 1e-12 for p, q in zip(x, y, strict=True))
    print(f"{args.metrics} metrics x {args.systems} systems, {args.boot} resamples, {len(KEYS)} statistics each")
    print(f"one scipy call per resample: {slow_s:.3f} s")
    print(f"all resamples at once:       {fast_s:.3f} s")
    print(f"ratio: {slow_s / fast_s:.1f}x faster; statistics that differ: {differ}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
