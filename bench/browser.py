"""Throughput and latency of the output browser's pages under 50 concurrent clients, against a real
gunicorn, as a ratio to a static file (``static/style.css``) served by the same server in the same run.

Sets up a throw-away data folder (SQLite, migrated by Alembic) holding the demo task as ``make demo``
leaves it: the demo test set, its three demo systems scored with the scoring library, and the finished,
released MQM campaign of data/demo/mqm/annotations.tsv (tests/support/demo.py builds it). Then gunicorn
serves the production app factory and every URL is fetched by N client threads with keep-alive
connections, one URL at a time, after a warm-up: requests per second, p50 and p99 latency (client side).

Every response must be 200 and every body of one URL identical (anonymous pages are deterministic):
otherwise the run exits 1. The goal (issue 10): each page at least 0.5x the static file's requests per
second and p99 under 100 ms. The pages are measured in rounds (static file first in each round) and
each page's ratio is taken against the static file of its own round; the median round is shown.

Usage: python bench/browser.py [--clients 50] [--requests 20] [--workers 2] [--threads 8] [--json FILE]
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import json
import os
import statistics
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "platform"), str(ROOT), str(ROOT / "bench")]

from _common import free_port  # noqa: E402
from annotation import start_server, stop  # noqa: E402  (the same gunicorn as the annotation bench)


def setup(data_dir: Path) -> tuple[dict, list[tuple[str, str]]]:
    """The demo in a fresh database; returns (server environment, [(label, path)] to fetch)."""
    from enface import create_app
    from enface.config import Config
    from enface.migrate import upgrade

    from tests.support.demo import build_demo

    url = f"sqlite:///{data_dir / 'enface.sqlite'}"
    env = {"ENFACE_DATA_DIR": str(data_dir), "ENFACE_DATABASE_URL": url,
           "ENFACE_SECRET_KEY": "bench-" + uuid.uuid4().hex, "ENFACE_JOBS": "eager"}
    os.environ.update(env)
    upgrade(url)
    app = create_app(Config.from_env())
    demo = build_demo(app)
    app.extensions["enface_db"][0].dispose()
    ts, s = demo.testset_id, demo.subs
    pages = [("static file (style.css)", "/static/style.css"),
             ("leaderboard", f"/leaderboard/{ts}"),
             ("browser: document en face", f"/browse/{ts}/doc/jade-lantern.1?sys={s['lantern-nmt']}"
                                           f"&sys={s['inkstone-llm']}"),
             ("browser: diff", f"/browse/{ts}/diff?doc=jade-lantern.1&a={s['lantern-nmt']}&b={s['inkstone-llm']}"),
             ("browser: MQM spans, filtered", f"/browse/{ts}/spans?system={s['inkstone-llm']}&severity=Major"),
             ("browser: scores by document", f"/browse/{ts}/system/{s['lantern-nmt']}?metric=bleu")]
    return env, pages


def client(port: int, path: str, n: int, barrier: threading.Barrier, times: list, bodies: set, errors: list):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    barrier.wait()
    for _ in range(n):
        t0 = time.perf_counter()
        try:
            conn.request("GET", path)
            resp = conn.getresponse()
            body = resp.read()
        except (OSError, http.client.HTTPException) as exc:
            errors.append(f"{path}: {exc!r}")
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            continue
        times.append(time.perf_counter() - t0)
        if resp.status != 200:
            errors.append(f"{path}: HTTP {resp.status}")
        bodies.add(hashlib.sha256(body).hexdigest())
    conn.close()


def measure(port: int, path: str, clients: int, requests: int) -> dict:
    times: list[float] = []
    bodies: set[str] = set()
    errors: list[str] = []
    barrier = threading.Barrier(clients + 1)
    threads = [threading.Thread(target=client, args=(port, path, requests, barrier, times, bodies, errors))
               for _ in range(clients)]
    for t in threads:
        t.start()
    barrier.wait()
    t0 = time.perf_counter()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    ms = sorted(x * 1000 for x in times)
    return {"requests": len(times), "rps": len(times) / wall if wall else 0.0,
            "p50_ms": statistics.median(ms) if ms else None,
            "p99_ms": ms[min(len(ms) - 1, int(round(0.99 * (len(ms) - 1))))] if ms else None,
            "distinct_bodies": len(bodies), "errors": errors[:5], "n_errors": len(errors)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--requests", type=int, default=20, help="requests per client and page")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=3,
                    help="rounds over all pages; each page's figures are the median round (the machine is shared)")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="enface-bench-browser-") as tmp:
        data = Path(tmp)
        t0 = time.perf_counter()
        env, pages = setup(data)
        setup_s = time.perf_counter() - t0
        port = free_port()
        proc = start_server("gunicorn", env, port, args.workers, args.threads, data / "server.log")
        try:
            for _label, path in pages:        # warm-up: every worker's caches filled
                measure(port, path, min(args.clients, 2 * args.workers * args.threads), 2)
            rounds = [{label: measure(port, path, args.clients, args.requests) for label, path in pages}
                      for _ in range(args.rounds)]
            results = {}
            for label, path in pages:
                runs = [r[label] for r in rounds]
                for r, run in zip(rounds, runs):
                    run["ratio_to_static"] = run["rps"] / r[pages[0][0]]["rps"]
                mid = sorted(runs, key=lambda x: x["ratio_to_static"])[len(runs) // 2]
                results[label] = {"path": path, **mid, "n_errors": sum(x["n_errors"] for x in runs),
                                  "distinct_bodies": max(x["distinct_bodies"] for x in runs),
                                  "p99_ms": statistics.median(x["p99_ms"] for x in runs),
                                  "p50_ms": statistics.median(x["p50_ms"] for x in runs),
                                  "ratios": [round(x["ratio_to_static"], 3) for x in runs]}
        finally:
            stop(proc)
    failed = False
    print(f"gunicorn {args.workers} workers x {args.threads} threads; {args.clients} clients x {args.requests} "
          f"requests per page and round, {args.rounds} rounds (median round shown); setup {setup_s:.1f} s; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"{'page':34} {'req/s':>8} {'ratio':>7} {'p50 ms':>8} {'p99 ms':>8}  goal (>=0.5x, p99<100 ms)")
    for label, r in results.items():
        ok = r["ratio_to_static"] >= 0.5 and r["p99_ms"] < 100
        print(f"{label:34} {r['rps']:8.1f} {r['ratio_to_static']:6.2f}x {r['p50_ms']:8.1f} {r['p99_ms']:8.1f}  "
              f"{'met' if ok else 'NOT met'}")
        if r["n_errors"] or r["distinct_bodies"] != 1:
            failed = True
            print(f"  !! {r['n_errors']} errors {r['errors']}, {r['distinct_bodies']} distinct bodies")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"clients": args.clients, "requests": args.requests,
                                         "workers": args.workers, "threads": args.threads,
                                         "results": results}, indent=1))
    if failed:
        print("bench: some responses failed or differed between requests")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
