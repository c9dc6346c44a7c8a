"""Load test (issue 11): ``make load`` or ``python bench/load.py [--users 200] [--seconds 60]``.

Seeds a platform (a released test set with four systems, an MQM campaign with eight annotators),
starts gunicorn as ``enface serve`` does (2 workers x 4 threads, gthread), and runs locust headless
(bench/locustfile.py): the public on the leaderboard, participants on submission pages, annotators
saving marks. Prints requests, errors, p50 and p99 per kind and in all; exits 1 on any error or when
a mark the server acknowledged is not in the database, and when nothing was compared (no request
made, or no mark saved).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "platform"), str(ROOT)]

from tests.support.processes import Platform, free_port, kill_group  # noqa: E402

ANNOTATORS = 8


def seed(platform: Platform) -> dict:
    """The world, and for each annotator with an item: a logged-in session cookie and its CSRF token
    (logged in through the app in process: the login rate limit would refuse 200 logins from one address)."""
    from enface.extensions import db
    from enface.models import TestSet
    from enface.services.testsets import update_settings

    from tests.support.campaigns import assignments_of, build_world, new_campaign

    world = build_world(platform.app, platform.folder, annotators=ANNOTATORS)
    emails = [f"ann{n}@example.org" for n in range(1, ANNOTATORS + 1)]
    camp = new_campaign(world, annotators=emails, redundancy=2,
                        systems=["zephyr-mt", "quokka-nmt", "quokka-nmt-c", "walrus-baseline"])
    with platform.app.app_context():
        ts = db.session.get(TestSet, world.testset_id)
        update_settings(ts, deadline=ts.deadline, quota_per_day=None, quota_total=None, document_level_allowed=False,
                        released=True, references_public=False)
    cookie_name = platform.app.config.get("SESSION_COOKIE_NAME", "session")
    annotators = []
    for email in emails:
        items = assignments_of(world, camp, email)
        if not items:
            continue
        client = world.client(email)
        page = client.get(f"/annotate/item/{items[0]['public_id']}").get_data(as_text=True)
        csrf = re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)
        cookie = client.get_cookie(cookie_name).value
        annotators.append({"email": email, "cookie_name": cookie_name, "cookie": cookie, "csrf": csrf,
                           "public_id": items[0]["public_id"], "segments": items[0]["segments"]})
    return {"testset": world.testset_id, "submissions": list(world.subs.values()), "annotators": annotators}


def marks_in_db(platform: Platform) -> tuple[int, int]:
    """(rows, distinct UUIDs) of the marks table: equal unless a save was stored twice."""
    from enface.extensions import db
    from enface.protocols.mqm.models import Mark
    from sqlalchemy import distinct, func, select

    with platform.app.app_context():
        return (db.session.scalar(select(func.count()).select_from(Mark)),
                db.session.scalar(select(func.count(distinct(Mark.uuid)))))


def verdict(total: dict, acked: int, stored: int, distinct_marks: int, locust_status: int) -> bool:
    """Whether the run passed: requests were made and none failed, marks were saved and every
    acknowledged one is stored once, and locust ran (exit 1 is its status when a request failed)."""
    compared = int(total["Request Count"]) > 0 and acked > 0
    return (compared and int(total["Failure Count"]) == 0 and stored >= acked and stored == distinct_marks
            and locust_status in (0, 1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--spawn-rate", type=float, default=50)
    parser.add_argument("--web-workers", type=int, default=2)
    parser.add_argument("--keep-logs", type=Path, help="copy gunicorn's log and locust's CSV files here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="enface-load-") as tmp:
        folder = Path(tmp)
        platform = Platform.create(folder / "platform")
        seed_file = folder / "seed.json"
        seed_file.write_text(json.dumps(seed(platform)))
        port = free_port()
        web = platform.start_web(port, workers=args.web_workers)
        env = dict(os.environ, ENFACE_LOAD_SEED=str(seed_file))
        try:
            done = subprocess.run([sys.executable, "-m", "locust", "-f", str(ROOT / "bench" / "locustfile.py"),
                                   "--headless", "-u", str(args.users), "-r", str(args.spawn_rate),
                                   "-t", f"{args.seconds}s", "--host", f"http://127.0.0.1:{port}",
                                   "--csv", str(folder / "stats"), "--only-summary", "--stop-timeout", "10"],
                                  env=env, capture_output=True, text=True, cwd=ROOT)
        finally:
            kill_group(web, 15)
        rows = list(csv.DictReader(open(folder / "stats_stats.csv")))   # noqa: SIM115
        failures_file = folder / "stats_failures.csv"
        failures = list(csv.DictReader(open(failures_file))) if failures_file.exists() else []  # noqa: SIM115
        acked = sum(int(r["Request Count"]) - int(r["Failure Count"]) for r in rows
                    if r["Name"].startswith("/annotate/") and r["Type"] == "PUT")
        stored, distinct_marks = marks_in_db(platform)
        platform.stop_all()
        if args.keep_logs:
            args.keep_logs.mkdir(parents=True, exist_ok=True)
            for path in [platform.folder / "web.log", *folder.glob("stats_*.csv")]:
                shutil.copy(path, args.keep_logs / path.name)
    print(f"load: {args.users} users for {args.seconds} s against gunicorn "
          f"({args.web_workers} workers x 4 threads), {os.cpu_count()} CPU cores")
    print(f"{'request':44s} {'count':>7s} {'errors':>7s} {'p50 ms':>7s} {'p99 ms':>7s} {'req/s':>7s}")
    for r in rows:
        print(f"{(r['Type'] + ' ' + r['Name'])[:44]:44s} {r['Request Count']:>7s} {r['Failure Count']:>7s} "
              f"{r['50%']:>7s} {r['99%']:>7s} {float(r['Requests/s']):7.1f}")
    for f in failures:
        print("FAILURE", f)
    total = next(r for r in rows if r["Name"] == "Aggregated")
    # Saves still in flight when locust stopped are stored but not counted by locust: stored >= acked.
    print(f"marks acknowledged {acked}, marks in the database {stored} ({distinct_marks} distinct)")
    errors = int(total["Failure Count"])
    ok = verdict(total, acked, stored, distinct_marks, done.returncode)
    if done.returncode not in (0, 1):
        print(done.stdout[-3000:], done.stderr[-3000:])
    if not acked:
        print("load: nothing compared: no mark was saved (no annotator item seeded, or every save failed)")
    print("load: " + ("OK" if ok else "FAILED") + f": {total['Request Count']} requests, {errors} errors, "
          f"p50 {total['50%']} ms, p99 {total['99%']} ms")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
