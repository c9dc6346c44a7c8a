"""Faults on real processes, full size (issue 11): ``make faults`` or ``python bench/faults.py``.

1. ``--kills`` times (20): a submission is uploaded, the Celery worker (the prefork worker
   ``enface serve`` starts, on the embedded SQLite broker) is SIGKILLed with its children while it
   scores it, a new worker starts; the sweeper requeues what the dead worker held.
2. ``--restarts`` times (6): gunicorn is stopped (SIGTERM and SIGKILL in turn) and started again
   while an annotator saves MQM marks without pause, retrying like autosave.js.
3. ``--outages`` times (3): the database refuses connections for ``--outage-seconds`` (5) while
   marks are saved and a submission is scored: a private PostgreSQL cluster stopped and started
   (pg_ctl) when its binaries are installed; otherwise SQLite held by an exclusive lock, which
   delays writers instead of refusing them (said in the output).

Prints the figures; exits 1 when a submission is lost, stuck or not scored, a score duplicated
or an acknowledged mark lost.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "platform"), str(ROOT)]

from tests.support.faults import database_outage, kill_workers_mid_scoring, restart_web_mid_annotation  # noqa: E402
from tests.support.outages import PrivateCluster, postgres_down, sqlite_locked  # noqa: E402
from tests.support.processes import Platform  # noqa: E402


@contextmanager
def running(platform: Platform):
    """The platform, its processes stopped afterwards whatever happens."""
    try:
        yield platform
    finally:
        platform.stop_all()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--restarts", type=int, default=6)
    parser.add_argument("--outages", type=int, default=3)
    parser.add_argument("--outage-seconds", type=float, default=5)
    parser.add_argument("--only", choices=["kills", "restarts", "outages"], action="append")
    args = parser.parse_args()
    only = set(args.only or ["kills", "restarts", "outages"])
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="enface-faults-") as tmp:
        folder = Path(tmp)
        if "kills" in only:
            with running(Platform.create(folder / "kills")) as platform:
                results["worker SIGKILL mid-scoring"] = kill_workers_mid_scoring(platform, args.kills)
        if "restarts" in only:
            with running(Platform.create(folder / "restarts")) as platform:
                results["gunicorn restart mid-annotation"] = restart_web_mid_annotation(platform, args.restarts)
        if "outages" in only and PrivateCluster.available():
            cluster = PrivateCluster()
            try:
                with running(Platform.create(folder / "outages", cluster.init())) as platform:
                    results["PostgreSQL stopped (connections refused)"] = database_outage(
                        platform, postgres_down(cluster), seconds=args.outage_seconds, rounds=args.outages)
            finally:
                cluster.destroy()
        elif "outages" in only:
            with running(Platform.create(folder / "outages")) as platform:
                locked = sqlite_locked(Path(platform.database_url.removeprefix("sqlite:///")))
                results["SQLite exclusively locked (no PostgreSQL here: writers wait, nothing is refused)"] = (
                    database_outage(platform, locked, seconds=args.outage_seconds, rounds=args.outages))
    print(json.dumps(results, indent=1))
    problems = [f"{name}: {p}" for name, r in results.items() for p in r["problems"]]
    for p in problems:
        print("PROBLEM", p)
    print("faults: " + ("FAILED" if problems else "no submission lost or stuck, no duplicated score, no lost mark"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
