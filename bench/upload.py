"""Upload → scored through the running platform, against the sacrebleu command line on the same files.

Generates a WMT23-literary-size test set (12 documents, ~16.7k segments, two
references) and two systems with bench/scoring.py's ``generate``, imports the
test set into a fresh data folder, starts the platform the way ``enface serve``
does (gunicorn + a Celery worker on the embedded SQLite broker), and times:

1. ``sacrebleu ref1 ref2 -i sysA -m bleu chrf ter`` (the tool people use today);
2. ``enface submit`` of sysA: upload, validation, BLEU/chrF/TER/d-BLEU, scored (the
   wall time a participant waits, measured from the POST to the first poll that sees ``scored``);
3. the same for sysB, the second submission to the test set (the worker keeps the
   reference side cached).

The platform does more than the CLI: it validates every line, stores the
output segments and the scores, and computes d-BLEU too. COMET is n/a here
(no model), as on a machine without one.

Usage: python bench/upload.py [--segments 16700] [--out bench/out/upload] [--port 8765]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _bench_scoring():
    """bench/scoring.py, whose module name would clash with the scoring package."""
    spec = importlib.util.spec_from_file_location("bench_scoring", ROOT / "bench" / "scoring.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(cmd: list[str], env: dict, **kw) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=ROOT, **kw)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}")
    return proc


def upload_and_wait(url: str, token: str, testset: int, folder: Path, name: str, label: str) -> tuple[float, dict]:
    import requests

    files = sorted(folder.glob("*.txt"))
    headers = {"Authorization": f"Bearer {token}"}
    handles = [open(f, "rb") for f in files]
    t0 = time.perf_counter()
    try:
        resp = requests.post(f"{url}/api/v1/testsets/{testset}/submissions", headers=headers, timeout=600,
                             data={"label": label, "system_name": name, "constrained": "true"},
                             files=[("files", (f.name, h)) for f, h in zip(files, handles)])
    finally:
        for h in handles:
            h.close()
    if resp.status_code != 202:
        raise SystemExit(f"upload refused: {resp.status_code} {resp.text[:500]}")
    sub_url = resp.json()["url"]
    while True:
        sub = requests.get(sub_url, headers=headers, timeout=60).json()
        if sub["state"] in ("scored", "invalid", "failed"):
            elapsed = time.perf_counter() - t0
            break
        time.sleep(0.1)
    if sub["state"] != "scored":
        raise SystemExit(f"{name}: {sub['state']}: {sub['timeline'][-1]['message']}")
    return elapsed, sub


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--segments", type=int, default=16700)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "upload")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1, help="Celery worker processes (enface serve --jobs)")
    args = parser.parse_args()
    if args.out.exists():
        shutil.rmtree(args.out)
    args.out.mkdir(parents=True)
    ts_dir = _bench_scoring().generate(args.out, args.segments)
    py = sys.executable
    data = args.out / "data"
    env = dict(os.environ)
    for key in [k for k in env if k.startswith("ENFACE_")]:
        env.pop(key)
    env["ENFACE_DATA_DIR"] = str(data)
    enface = [py, "-m", "enface.cli"]
    run([*enface, "db", "upgrade"], env)
    out = run([*enface, "testset", "import", str(ts_dir), "--task", "Bench"], env).stdout
    testset = int(out.split("imported test set ")[1].split(":")[0])
    token = run([*enface, "create-user", "bench@example.org", "--team", "Bench", "--token"],
                env).stdout.strip().splitlines()[-1]
    print(f"test set: {args.segments} segments, 12 documents, 2 references; {os.cpu_count()} cores")

    cli = [py, "-m", "sacrebleu", str(args.out / "ref1.flat.txt"), str(args.out / "ref2.flat.txt"),
           "-m", "bleu", "chrf", "ter", "-w", "16", "-b", "-i"]
    t0 = time.perf_counter()
    cli_a = [float(x.strip().strip(",")) for x in
             run(cli + [str(args.out / "sysA.flat.txt")], env).stdout.strip().strip("[]").split()]
    cli_time_a = time.perf_counter() - t0
    t0 = time.perf_counter()
    run(cli + [str(args.out / "sysB.flat.txt")], env)
    cli_time_b = time.perf_counter() - t0

    port = args.port or _free_port()
    url = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([*enface, "serve", "--port", str(port), "--workers", "2", "--jobs", str(args.jobs),
                               "--no-upgrade"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        import requests

        deadline = time.monotonic() + 120
        while True:
            try:
                if requests.get(f"{url}/healthz", timeout=2).status_code == 200:
                    break
            except requests.RequestException:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("enface serve did not start")
            time.sleep(0.3)
        time.sleep(3)   # let the Celery worker come up too (it polls the SQLite broker)
        first, sub_a = upload_and_wait(url, token, testset, args.out / "sysA", "sysA", "primary")
        second, _sub_b = upload_and_wait(url, token, testset, args.out / "sysB", "sysB", "contrastive")
    finally:
        server.terminate()
        server.wait(60)

    same = all(f"{sub_a['scores'][m]['score']:.16f}" == f"{c:.16f}" for m, c in zip(("bleu", "chrf", "ter"), cli_a))
    stages = {e["state"]: e["at"] for e in sub_a["timeline"]}
    print(f"sacrebleu CLI (BLEU chrF TER):            sysA {cli_time_a:6.1f} s   sysB {cli_time_b:6.1f} s")
    print(f"enface upload→scored (+ validation, d-BLEU): sysA {first:6.1f} s   sysB {second:6.1f} s")
    print(f"ratio (enface / sacrebleu CLI):             first {first / cli_time_a:5.2f}x   "
          f"second {second / cli_time_b:5.2f}x   identical BLEU/chrF/TER: {same}")
    print("timeline of sysA: " + json.dumps(stages))


if __name__ == "__main__":
    main()
