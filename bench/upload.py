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
import collections
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "platform"), str(ROOT)]   # the scoring package before bench/scoring.py

from _common import CLI_METRICS, cli_numbers, free_port, identical  # noqa: E402
from enface.commands.submit import FINAL_STATES, ApiClient  # noqa: E402

#: what Celery logs once the worker consumes its queues (the name is enface serve's, see enface.commands.serve.worker_cmd)
WORKER_READY = re.compile(r"\benface-\d+@\S+ ready\.")


def _bench_scoring():
    """bench/scoring.py, whose module name would clash with the scoring package."""
    spec = importlib.util.spec_from_file_location("bench_scoring", ROOT / "bench" / "scoring.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(cmd: list[str], env: dict, **kw) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=ROOT, **kw)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}")
    return proc


class ServeOutput(threading.Thread):
    """Reads the output of ``enface serve`` and its children to the end (so that the pipe never fills),
    noting when the web server and the worker are ready."""

    def __init__(self, stream):
        super().__init__(name="enface-serve-output", daemon=True)
        self.stream = stream
        self.web_ready = threading.Event()      # "Enface is running on": it printed that after /healthz answered
        self.worker_ready = threading.Event()   # Celery's "<worker> ready.": the worker consumes its queues
        self.tail: collections.deque[str] = collections.deque(maxlen=30)

    def run(self) -> None:
        for line in self.stream:
            self.tail.append(line)
            if line.startswith("Enface is running on"):
                self.web_ready.set()
            elif WORKER_READY.search(line):
                self.worker_ready.set()

    def wait_ready(self, server: subprocess.Popen, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not (self.web_ready.is_set() and self.worker_ready.is_set()):
            if server.poll() is not None or time.monotonic() > deadline:
                what = "exited" if server.poll() is not None else f"was not ready within {timeout:.0f} s"
                raise SystemExit(f"enface serve {what}; its last output:\n" + "".join(self.tail))
            self.worker_ready.wait(0.1)


def upload_and_wait(client: ApiClient, server: subprocess.Popen, testset: int, folder: Path, name: str,
                    label: str) -> tuple[float, dict]:
    """Seconds from the upload to the first poll that sees the submission scored, and the submission."""
    files = sorted(folder.glob("*.txt"))
    t0 = time.perf_counter()
    created = client.submit(testset, files, label=label, system_name=name, constrained="true")
    while True:
        sub = client.submission(created["id"])
        if sub["state"] in FINAL_STATES:
            elapsed = time.perf_counter() - t0
            break
        if server.poll() is not None:
            raise SystemExit(f"{name}: enface serve exited while the submission was {sub['state']}")
        time.sleep(0.1)   # enface.commands.submit.wait_for polls once a second: too coarse to time this
    if sub["state"] != "scored":
        raise SystemExit(f"{name}: {sub['state']}: {sub['timeline'][-1]['message']}")
    return elapsed, sub


def main() -> int:
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
    enface = [py, "-m", "enface.commands"]
    run([*enface, "db", "upgrade"], env)
    testset = int(run([*enface, "testset", "import", str(ts_dir), "--task", "Bench"], env).stdout.strip())
    run([*enface, "testset", "set", str(testset), "--opens", "now"], env)   # an import starts closed
    token = run([*enface, "create-user", "bench@example.org", "--team", "Bench", "--token"],
                env).stdout.strip().splitlines()[-1]
    print(f"test set: {args.segments} segments, 12 documents, 2 references; {os.cpu_count()} cores")

    cli = [py, "-m", "sacrebleu", str(args.out / "ref1.flat.txt"), str(args.out / "ref2.flat.txt"),
           "-m", "bleu", "chrf", "ter", "-w", "16", "-b", "-i"]
    t0 = time.perf_counter()
    cli_a = cli_numbers(run(cli + [str(args.out / "sysA.flat.txt")], env).stdout)
    cli_time_a = time.perf_counter() - t0
    t0 = time.perf_counter()
    cli_b = cli_numbers(run(cli + [str(args.out / "sysB.flat.txt")], env).stdout)
    cli_time_b = time.perf_counter() - t0

    port = args.port or free_port()
    # Unbuffered, so that "Enface is running on" arrives when it is printed, not at exit.
    server = subprocess.Popen([*enface, "serve", "--port", str(port), "--workers", "2", "--jobs", str(args.jobs),
                               "--no-upgrade"], env={**env, "PYTHONUNBUFFERED": "1"}, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, encoding="utf-8", errors="replace")
    output = ServeOutput(server.stdout)
    output.start()
    try:
        output.wait_ready(server, timeout=120)
        client = ApiClient(f"http://127.0.0.1:{port}", token)
        first, sub_a = upload_and_wait(client, server, testset, args.out / "sysA", "sysA", "primary")
        second, sub_b = upload_and_wait(client, server, testset, args.out / "sysB", "sysB", "contrastive")
    finally:
        server.terminate()
        server.wait(60)

    same_a = identical({m: sub_a["scores"][m]["score"] for m in CLI_METRICS}, cli_a)
    same_b = identical({m: sub_b["scores"][m]["score"] for m in CLI_METRICS}, cli_b)
    stages = {e["state"]: e["at"] for e in sub_a["timeline"]}
    print(f"sacrebleu CLI (BLEU chrF TER):            sysA {cli_time_a:6.1f} s   sysB {cli_time_b:6.1f} s")
    print(f"enface upload→scored (+ validation, d-BLEU): sysA {first:6.1f} s   sysB {second:6.1f} s")
    print(f"ratio (enface / sacrebleu CLI):             first {first / cli_time_a:5.2f}x   "
          f"second {second / cli_time_b:5.2f}x")
    print(f"identical BLEU/chrF/TER to the CLI:         sysA {same_a}   sysB {same_b}")
    print("timeline of sysA: " + json.dumps(stages))
    if not (same_a and same_b):
        print("bench: the platform's scores differ from the sacrebleu CLI's", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
