"""Leaderboard and output-browser throughput: 50 concurrent clients against a real gunicorn, as a ratio
to a static file.

Sets up the demo (``enface demo --once`` in a fresh data folder: the demo systems
submitted, scored and released, the finished MQM campaign imported and released),
computes the test set's automatic clusters, then starts gunicorn exactly as
``enface serve`` does (``enface.commands.serve.gunicorn_cmd``: 2 gthread workers,
4 threads) and drives every target of :data:`TARGETS` (the leaderboard and the
output browser's pages) with 50 clients (2 processes x 25 threads), in rounds so
that all targets see the same machine:

    python bench/leaderboard.py [--seconds 10] [--clients 50] [--compare-with /work/main]

Prints requests/s, the ratio to the static file and p50/p99 latency per target.
``--compare-with DIR`` serves the same data with another checkout's code (what users
run today) on a second port and measures its leaderboard in the same rounds. Every
response must be 200 and contain its target's marker, else the script exits 1.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing as mp
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import free_port  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "platform"), str(ROOT)]   # ahead of bench/, whose scoring.py is not the library
from enface.commands.serve import gunicorn_cmd  # noqa: E402  (the options `enface serve` runs gunicorn with)

#: (name, path, a string every response must contain); {ts} is the demo test set's id, {lantern-nmt} and
#: {inkstone-llm} are the submission ids of those demo systems. One line per page.
TARGETS = [
    ("static style.css", "/static/style.css", "table.leaderboard"),
    ("leaderboard", "/leaderboard/{ts}", 'id="auto-clusters"'),
    ("head-to-head (BLEU)", "/leaderboard/{ts}/head-to-head?metric=bleu", 'id="head-to-head"'),
    ("browser: document en face", "/browse/{ts}/doc/jade-lantern.1?sys={lantern-nmt}&sys={inkstone-llm}",
     'id="choose-systems"'),
    ("browser: diff", "/browse/{ts}/diff?doc=jade-lantern.1&a={lantern-nmt}&b={inkstone-llm}", 'id="diff-form"'),
    ("browser: MQM spans, filtered", "/browse/{ts}/spans?system={inkstone-llm}&severity=Major", 'id="spans"'),
    ("browser: scores by document", "/browse/{ts}/system/{lantern-nmt}?metric=bleu", 'id="doc-scores"'),
]


def _env(data: Path, code: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENFACE_")}
    env.update(ENFACE_DATA_DIR=str(data), PYTHONPATH=f"{code / 'platform'}{os.pathsep}{code}", PYTHONUNBUFFERED="1")
    return env


def setup_demo(data: Path) -> dict[str, int]:
    """The demo in ``data``; once its clusters are computed, returns what :data:`TARGETS` fills in: the
    test set's id (``ts``) and the submission id of every demo system, by system name."""
    env = _env(data, ROOT)
    proc = subprocess.run([sys.executable, "-m", "enface.commands", "demo", "--once", "--port", str(free_port())],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        raise SystemExit(f"enface demo failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    ts = int(re.search(r"/leaderboard/(\d+)", proc.stdout).group(1))
    code = ("import json\nfrom sqlalchemy import select\nfrom enface import create_app\n"
            "from enface.extensions import db\nfrom enface.models import Submission\n"
            "from enface.services import auto_ranking\n"
            f"app = create_app()\nwith app.app_context():\n    print(auto_ranking.run({ts}))\n"
            f"    print(json.dumps(dict(db.session.execute(select(Submission.system_name, Submission.id)"
            f".where(Submission.testset_id == {ts})).all())))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600)
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or len(lines) < 2 or lines[-2] not in ("stored", "current"):
        raise SystemExit(f"computing the clusters failed:\n{done.stdout}\n{done.stderr}")
    return {"ts": ts, **json.loads(lines[-1])}


def start_gunicorn(data: Path, code: Path, port: int) -> subprocess.Popen:
    """gunicorn with ``enface serve``'s options (2 gthread workers, 4 threads each), no access log."""
    server = subprocess.Popen(gunicorn_cmd(f"127.0.0.1:{port}", 2, access_log="/dev/null"), cwd=code,
                              env=_env(data, code), stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/healthz")
            if conn.getresponse().status == 200:
                return server
        except OSError:
            time.sleep(0.2)
    server.kill()
    raise SystemExit(f"gunicorn ({code}) did not start")


def _client(port: int, path: str, marker: bytes, stop_at: float, out: list, bad: list) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    while time.monotonic() < stop_at:
        t0 = time.perf_counter()
        try:
            conn.request("GET", path)
            resp = conn.getresponse()
            body = resp.read()
        except (OSError, http.client.HTTPException) as exc:
            bad.append(f"{path}: {type(exc).__name__}: {exc}")
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            continue
        out.append(time.perf_counter() - t0)
        if resp.status != 200 or marker not in body:
            bad.append(f"{path}: HTTP {resp.status}, marker {'present' if marker in body else 'missing'}")
    conn.close()


def _load_process(port: int, path: str, marker: bytes, threads: int, start_at: float, seconds: float, queue) -> None:
    times: list[float] = []
    bad: list[str] = []
    while time.monotonic() < start_at:
        time.sleep(0.005)
    workers = [threading.Thread(target=_client, args=(port, path, marker, start_at + seconds, times, bad))
               for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    queue.put((times, bad[:5], len(bad)))


def drive(port: int, path: str, marker: str, clients: int, seconds: float, processes: int = 2) -> dict:
    """``clients`` concurrent keep-alive clients for ``seconds``: requests/s and latencies."""
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    start_at = time.monotonic() + 0.5
    per = [clients // processes + (i < clients % processes) for i in range(processes)]
    procs = [ctx.Process(target=_load_process, args=(port, path, marker.encode(), n, start_at, seconds, queue))
             for n in per]
    for p in procs:
        p.start()
    times, bad, n_bad = [], [], 0
    for _ in procs:
        t, b, nb = queue.get()
        times += t
        bad += b
        n_bad += nb
    for p in procs:
        p.join()
    times.sort()
    return {"n": len(times), "rps": len(times) / seconds, "bad": bad, "n_bad": n_bad,
            "p50": statistics.median(times) * 1000 if times else float("nan"),
            "p99": times[min(len(times) - 1, int(len(times) * 0.99))] * 1000 if times else float("nan")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds per target (split over the rounds)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds over all targets")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--data", type=Path, help="reuse a data folder set up by an earlier run")
    parser.add_argument("--compare-with", type=Path, help="another checkout (e.g. /work/main): its leaderboard too")
    args = parser.parse_args()

    tmp = None
    if args.data and (args.data / "bench-ids.json").is_file():
        data = args.data
        ids = json.loads((args.data / "bench-ids.json").read_text())
    else:
        data = args.data or Path(tmp := tempfile.mkdtemp(prefix="enface-bench-lb-"))
        t0 = time.perf_counter()
        ids = setup_demo(data)
        (data / "bench-ids.json").write_text(json.dumps(ids))
        print(f"demo set up in {time.perf_counter() - t0:.0f} s (data in {data})")
    ts = ids["ts"]
    servers, ports = [], {"this": free_port()}
    try:
        servers.append(start_gunicorn(data, ROOT, ports["this"]))
        targets = [(name, ports["this"], path.format_map(ids), marker) for name, path, marker in TARGETS]
        if args.compare_with:
            ports["today"] = free_port()
            servers.append(start_gunicorn(data, args.compare_with.resolve(), ports["today"]))
            targets.append((f"leaderboard, {args.compare_with}", ports["today"], f"/leaderboard/{ts}",
                            'id="leaderboard"'))
        for _name, port, path, marker in targets:   # warm up: caches built, templates compiled, in every worker
            drive(port, path, marker, clients=4, seconds=1.0, processes=1)
        results: dict[str, list[dict]] = {name: [] for name, *_ in targets}
        for _round in range(args.rounds):
            for name, port, path, marker in targets:
                results[name].append(drive(port, path, marker, args.clients, args.seconds / args.rounds))
    finally:
        for s in servers:
            s.terminate()
        for s in servers:
            s.wait(30)
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)

    print(f"{args.clients} concurrent clients, {args.seconds:g} s per target in {args.rounds} rounds, "
          f"gunicorn 2 gthread workers x 4 threads, {os.cpu_count()} cores")
    static_rps = sum(r["rps"] for r in results[TARGETS[0][0]]) / args.rounds
    failed = False
    print(f"{'target':<44} {'req/s':>8} {'x static':>9} {'p50 ms':>8} {'p99 ms':>8}")
    for name, runs in results.items():
        rps = sum(r["rps"] for r in runs) / len(runs)
        p50 = max(r["p50"] for r in runs)
        p99 = max(r["p99"] for r in runs)
        print(f"{name:<44} {rps:8.1f} {rps / static_rps:9.2f} {p50:8.1f} {p99:8.1f}")
        n_bad = sum(r["n_bad"] for r in runs)
        if n_bad:
            failed = True
            print(f"  {n_bad} bad responses, e.g. {[b for r in runs for b in r['bad']][:3]}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
