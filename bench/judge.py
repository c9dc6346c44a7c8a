"""LLM-judge throughput against the scripted endpoint: 8 items in flight vs 1 (the sequential loop).

What people run today is a script that calls the API item by item; ``python -m
humaneval judge --concurrency 1`` is that loop. This benchmark starts the
scripted OpenAI-compatible endpoint (``python -m humaneval.judge.scripted``) as
its own process, with a fixed think time per answer (``--latency``) and every
N-th request answered 429 with a Retry-After (``--every``), then scores the
same debate items twice in one run: 1 in flight, then 8 in flight. It prints
items per minute for both, their ratio, and the share of calls retried.

Each item's debaters answer item-specific scores, so a mix-up between items
shows; the two runs must give identical scores or the benchmark exits 1.

Usage: python bench/judge.py [--items 40] [--latency 0.15] [--every 12] [--concurrency 8] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from humaneval.judge import ChatClient, EndpointConfig, Judge, judge_items, load_prompts  # noqa: E402
from humaneval.rubric import load_rubric  # noqa: E402

KEY = "bench-key"
DIMENSIONS = ("idiom", "ambiguity", "terminology", "tense", "zero_pronoun", "cultural_safety")


def bench_items(n: int) -> list[dict]:
    return [{"id": f"b{i}", "dimension": DIMENSIONS[i % 6], "source": f"第{i}句 BENCH-{i}:",
             "translation": f"Sentence {i}.", "requirement": "the phenomenon"} for i in range(n)]


def bench_script(n: int, latency: float, every: int, retry_after: float) -> dict:
    rules = []
    for i in range(n):
        sp = 1 + i % 2
        answer = {"sp": sp, "g_1": (i // 2) % 3 if sp else 0, "g_2": i % 3, "thoughts": f"item {i}"}
        marker = [f"BENCH-{i}:"]
        rules += [{"prefix": "You are Debater", "match": marker, "replies": [{"json": answer}]},
                  {"prefix": "You are the judge", "match": marker,
                   "replies": [{"json": {"judge": "yes", "judge_reasons": "agree", **answer}}]}]
    return {"api_key": KEY, "latency": latency, "rules": rules,
            "inject": {"every": every, "status": 429, "retry_after": retry_after}}


def run(base_url: str, items: list[dict], dimensions: dict, concurrency: int) -> tuple[float, list]:
    client = ChatClient(EndpointConfig(base_url=base_url, model="scripted", api_key=KEY, backoff_base=0.1))
    judge = Judge(client, load_prompts(), mode="debate")
    started = time.perf_counter()
    results = judge_items(judge, items, dimensions, concurrency=concurrency)
    return time.perf_counter() - started, results


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--items", type=int, default=40)
    ap.add_argument("--latency", type=float, default=0.15, help="seconds per answer (default 0.15)")
    ap.add_argument("--every", type=int, default=12, help="every N-th request gets a 429 (default 12)")
    ap.add_argument("--retry-after", type=float, default=0.2, help="the 429's Retry-After in seconds")
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args()

    dimensions = {d["key"]: d for d in load_rubric("diting").to_dict()["dimensions"]}
    items = bench_items(args.items)
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "script.json"
        script.write_text(json.dumps(bench_script(args.items, args.latency, args.every, args.retry_after)))
        server = subprocess.Popen([sys.executable, "-m", "humaneval.judge.scripted", "--port", "0",
                                   "--script", str(script)], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                                  env={**os.environ, "PYTHONPATH": str(ROOT)})
        try:
            base_url = server.stdout.readline().split()[-1]
            seq_s, seq = run(base_url, items, dimensions, 1)
            par_s, par = run(base_url, items, dimensions, args.concurrency)
        finally:
            server.terminate()
            server.wait(10)

    def figures(seconds: float, results: list) -> dict:
        calls = [c for r in results for c in r.calls]
        return {"seconds": round(seconds, 3), "items_per_minute": round(len(results) / seconds * 60, 1),
                "calls": len(calls), "retried_calls": sum(c.retried for c in calls),
                "retried_share": round(sum(c.retried for c in calls) / len(calls), 4),
                "failed_items": sum(not r.ok for r in results)}

    out = {"items": args.items, "latency_s": args.latency, "every_nth_request_429": args.every,
           "sequential_1_in_flight": figures(seq_s, seq),
           f"concurrent_{args.concurrency}_in_flight": figures(par_s, par)}
    out["speedup"] = round(seq_s / par_s, 2)
    same = [r.scores() for r in seq] == [r.scores() for r in par] and all(r.ok for r in seq + par)
    out["identical_scores"] = same
    print(json.dumps(out, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")
    if not same:
        print("bench/judge.py: the two runs' scores differ (or items failed)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
