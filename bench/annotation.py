"""Annotation-save latency with concurrent annotators against a running Enface server.

Sets up a throw-away data folder (SQLite, migrated by Alembic), imports the demo test set
(data/demo, zh->en) with its four demo systems, creates an MQM campaign with N annotators
(20 by default) and starts it. Then it starts the real server, gunicorn on 127.0.0.1 with
the production app factory and settings (CSRF on), and lets every annotator work at
once, the way MQM's page (protocols/mqm/static/mqm.js) does: open an item page (CSRF token), then save marks (PUT
with a fresh UUID), edit some (a newer revision), delete some, and report the reading
cursor and times (POST progress). Every request is timed on the client; the run is
bounded (N x --saves requests) and the server is stopped at the end.

Sessions are minted in-process (a test client logging each annotator in) because the
server's login rate limit would, rightly, refuse 20 logins a minute from one address;
the cookies are then used against the server, signed with the same secret.

With ``--page esa`` the same annotators also work on an ESA^AI campaign of the same test set
(bench/annotation_esa.py: the ESA document page's saves, one answer record per segment with
pre-filled suggestions kept, edited or deleted), run in the same server right after the MQM
page in each phase, and the bench prints the ratio of ESA's save p99 to MQM's (the document
page users run today); it exits 1 when either side measured nothing.

Usage: python bench/annotation.py [--annotators 20] [--saves 60] [--workers 2] [--threads 8]
                                  [--page mqm|esa] [--server gunicorn|werkzeug]
                                  [--json bench/out/annotation.json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "platform"), str(ROOT), str(ROOT / "bench")]

from _common import free_port  # noqa: E402

DEMO = ROOT / "data" / "demo"
PASSWORD = "bench password 123"


def setup(data_dir: Path, n_annotators: int, seed: int, esa: bool = False) -> tuple[dict, list[dict]]:
    """Database, test set, systems, campaign, annotators; returns (env, [{email, items}])."""
    from enface import create_app
    from enface.campaigns import services as svc
    from enface.config import Config
    from enface.extensions import db
    from enface.migrate import upgrade
    from enface.models import Document, OutputSegment, Submission, User
    from enface.protocols.mqm import services as mqm_svc
    from enface.services import accounts
    from enface.services.testsets import import_testset
    from werkzeug.security import generate_password_hash

    from scoring.testset import read_segments

    url = f"sqlite:///{data_dir / 'enface.sqlite'}"
    env = {"ENFACE_DATA_DIR": str(data_dir), "ENFACE_DATABASE_URL": url,
           "ENFACE_SECRET_KEY": "bench-" + uuid.uuid4().hex, "ENFACE_JOBS": "eager"}
    os.environ.update(env)
    upgrade(url)
    app = create_app(Config.from_env(RATELIMIT_ENABLED=False, WTF_CSRF_ENABLED=False))   # (only mints sessions)
    users = []
    with app.app_context():
        ts = import_testset(DEMO / "testset", "Bench")
        docs = {d.name: d.id for d in db.session.query(Document).filter_by(testset_id=ts.id)}
        subs = []
        sources = {doc: len(read_segments(DEMO / "testset" / "source" / f"{doc}.txt")) for doc in docs}
        for k, sysdir in enumerate(sorted((DEMO / "systems").iterdir())):
            if any(len(read_segments(sysdir / f"{doc}.txt")) != n for doc, n in sources.items()):
                continue   # (broken-mt is the demo's invalid submission)
            team, _ = accounts.get_or_create_team(f"team-{k}")
            with db.write():
                sub = Submission(testset_id=ts.id, team_id=team.id, label="primary", slot=1, constrained=True,
                                 system_name=sysdir.name, state="scored")
                db.session.add(sub)
                db.session.flush()
                for doc, doc_id in docs.items():
                    for i, line in enumerate(read_segments(sysdir / f"{doc}.txt")):
                        db.session.add(OutputSegment(submission_id=sub.id, document_id=doc_id, position=i, text=line))
            subs.append(sub.id)
        cheap = generate_password_hash(PASSWORD, method="pbkdf2:sha256:1000")
        with db.write():
            org = User(email="org@bench.example", role="organizer", password_hash=cheap)
            db.session.add(org)
            anns = [User(email=f"ann{i:02d}@bench.example", role="annotator", password_hash=cheap)
                    for i in range(n_annotators)]
            db.session.add_all(anns)
        ranges = "\n".join(f"{doc}:1-{n // 2}\n{doc}:{n // 2 + 1}-{n}" for doc, n in sources.items())
        camp = svc.create_campaign(org, ts, svc.CampaignInput(
            name="Bench MQM", submission_ids=subs, redundancy=2, settings={"attention_share": 0.1},
            ranges=ranges, seed=seed))
        for user in anns:
            svc.add_annotator(camp, user)
        svc.start_campaign(svc.get_campaign(camp.id))
        esa_items = {}
        if esa:
            from annotation_esa import setup_esa

            esa_items = setup_esa(org, ts, subs, anns, ranges, seed)
        for user in anns:
            items = [{"id": a.public_id, "segments": a.item.num_segments,
                      "targets": [s["target"] for s in mqm_svc.segment_texts(a)]}
                     for a in svc.annotator_assignments(user) if a.item.campaign_id == camp.id]
            users.append({"email": user.email, "items": items, "esa_items": esa_items.get(user.email, [])})
    # session cookies, minted by logging in through a test client of the same app (same secret)
    for u in users:
        client = app.test_client()
        r = client.post("/auth/login", data={"email": u["email"], "password": PASSWORD})
        if r.status_code not in (302, 303):
            raise SystemExit(f"bench: could not log {u['email']} in ({r.status_code})")
        u["cookies"] = {c.key: c.value for c in client._cookies.values()}
    app.extensions["enface_db"][0].dispose()
    return env, users


def start_server(kind: str, env: dict, port: int, workers: int, threads: int, log: Path) -> subprocess.Popen:
    full = {**os.environ, **env, "PYTHONPATH": f"{ROOT / 'platform'}{os.pathsep}{ROOT}"}
    if kind == "gunicorn":
        cmd = [sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}", "--workers", str(workers),
               "--threads", str(threads), "--worker-class", "gthread", "--keep-alive", "30", "--log-level", "warning",
               "enface:create_app()"]
    else:
        cmd = [sys.executable, "-c", "from werkzeug.serving import run_simple; from enface import create_app; "
               f"run_simple('127.0.0.1', {port}, create_app(), threaded=True)"]
    proc = subprocess.Popen(cmd, env=full, cwd=ROOT, stdout=log.open("w"), stderr=subprocess.STDOUT,
                            start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"bench: the server exited; see {log}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc
        except OSError:
            time.sleep(0.2)
    stop(proc)
    raise SystemExit("bench: the server did not start within 60 s")


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def open_item(base: str, user: dict, items: list[dict], barrier: threading.Barrier, errors: list):
    """A session with the annotator's cookies on the first of ``items``' page: (session, headers, item), or None
    (the error noted and the barrier broken, so that nobody waits for this annotator)."""
    import re

    import requests
    from requests.adapters import HTTPAdapter
    from urllib3.util.retry import Retry

    s = requests.Session()
    # A connection the server closed while idle is retried once, as browsers (and MQM's page) do:
    # every save is idempotent (a UUID and a revision), so a repeated request changes nothing.
    s.mount("http://", HTTPAdapter(max_retries=Retry(total=1, connect=1, read=0, status=0, allowed_methods=None)))
    for k, v in user["cookies"].items():
        s.cookies.set(k, v, domain="127.0.0.1")
    if not items:
        errors.append(f"{user['email']}: no item")
        barrier.abort()
        return None
    item = items[0]
    page = s.get(f"{base}/annotate/item/{item['id']}", timeout=30)
    token = re.search(r'<meta name="csrf-token" content="([^"]+)"', page.text)
    if page.status_code != 200 or not token:
        errors.append(f"{user['email']}: item page {page.status_code}")
        barrier.abort()
        return None
    return s, {"X-CSRFToken": token.group(1), "Accept": "application/json"}, item


def timed(s, method: str, url: str, body: dict, headers: dict, what: str, errors: list) -> float:
    """One request's milliseconds, as the client waited for it (anything but a 200 is noted in ``errors``)."""
    import requests

    t0 = time.perf_counter()
    try:
        r = s.request(method, url, json=body, headers=headers, timeout=60)
        status = r.status_code
    except requests.RequestException as exc:
        r, status = None, f"{type(exc).__name__}"
    ms = (time.perf_counter() - t0) * 1000
    if status != 200:
        errors.append(f"{what}: {status} {r.text[:120] if r is not None else ''}".rstrip())
    return ms


def annotator(base: str, user: dict, saves: int, seed: int, barrier: threading.Barrier, out: list, errors: list,
              think: float = 0.0):
    """One annotator at work: page, then ``saves`` save requests (marks, edits, deletes, progress),
    with a random pause of mean ``think`` seconds before each (0: as fast as the server answers)."""
    rng = random.Random(seed)
    opened = open_item(base, user, user["items"], barrier, errors)
    if opened is None:
        return
    s, headers, item = opened
    api = f"{base}/annotate/api/items/{item['id']}"
    live: list[tuple[str, int, dict]] = []
    times: dict[str, int] = {}
    try:
        barrier.wait(timeout=60)
    except threading.BrokenBarrierError:
        return
    for n in range(saves):
        if think:
            time.sleep(rng.expovariate(1 / think))
        roll = rng.random()
        seg = rng.randrange(item["segments"])
        if n % 6 == 5:
            times[str(seg)] = times.get(str(seg), 0) + rng.randint(2000, 30000)
            kind, method, url = "progress", "POST", f"{api}/progress"
            body = {"cursor": seg, "furthest": item["segments"] - 1, "times": times}
        elif live and roll < 0.15:
            uid, rev, body = live.pop(rng.randrange(len(live)))
            kind, method, url, body = "delete", "DELETE", f"{api}/marks/{uid}", {"rev": rev + 1}
        elif live and roll < 0.35:
            i = rng.randrange(len(live))
            uid, rev, body = live[i]
            body = {**body, "rev": rev + 1, "severity": rng.choice(["Minor", "Major", "Critical"])}
            live[i] = (uid, rev + 1, body)
            kind, method, url = "edit", "PUT", f"{api}/marks/{uid}"
        else:
            text = item["targets"][seg] or " "
            length = len(text)
            start = rng.randrange(max(1, length - 1))
            end = min(length, start + rng.randint(1, 12))
            uid = str(uuid.uuid4())
            body = {"rev": 1, "seg": seg, "side": "target", "start": start, "end": max(end, start + 1),
                    "category": "Accuracy", "subcategory": "Mistranslation", "severity": "Minor", "note": ""}
            live.append((uid, 1, body))
            kind, method, url = "mark", "PUT", f"{api}/marks/{uid}"
        out.append((kind, timed(s, method, url, body, headers, f"{user['email']} {kind}", errors), n))


SAVE_KINDS = ("mark", "edit", "delete", "segment")   # MQM's marks; ESA's answer record of a segment


def summarize(results: list, errors: list, wall: float, warmup: int) -> dict | None:
    measured = [(k, ms) for k, ms, n in results if n >= warmup]
    saves = [ms for k, ms in measured if k in SAVE_KINDS]
    if not saves:
        return None
    by_kind: dict[str, list[float]] = {}
    for kind, ms in measured:
        by_kind.setdefault(kind, []).append(ms)
    every = [ms for _k, ms in measured]
    return {
        "requests": len(results), "measured": len(measured), "errors": len(errors), "wall_s": round(wall, 2),
        "throughput_rps": round(len(results) / wall, 1),
        "save_p50_ms": round(percentile(saves, 50), 1), "save_p90_ms": round(percentile(saves, 90), 1),
        "save_p99_ms": round(percentile(saves, 99), 1), "save_max_ms": round(max(saves), 1),
        "all_p50_ms": round(percentile(every, 50), 1), "all_p99_ms": round(percentile(every, 99), 1),
        "by_kind": {k: {"n": len(v), "p50_ms": round(percentile(v, 50), 1), "p99_ms": round(percentile(v, 99), 1)}
                    for k, v in sorted(by_kind.items())},
    }


def percentile(values: list[float], p: float) -> float:
    """Linear interpolation between the closest ranks (numpy's default)."""
    import numpy

    return float(numpy.percentile(values, p))


def statements_per_request(user: dict) -> dict[str, int]:
    """SQL statements one save of each kind runs, counted in-process (an app on the bench's database).

    Counted on the engine, BEGIN included: what a request costs the database, whatever the server.
    """
    from enface import create_app
    from enface.config import Config
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    app = create_app(Config.from_env(RATELIMIT_ENABLED=False, WTF_CSRF_ENABLED=False))
    client = app.test_client()
    client.post("/auth/login", data={"email": user["email"], "password": PASSWORD})
    item = user["items"][0]
    api = f"/annotate/api/items/{item['id']}"
    client.get(f"/annotate/item/{item['id']}")   # (warms the per-process caches, as a real page view does)
    text = item["targets"][0]
    mark = {"rev": 1, "seg": 0, "side": "target", "start": 0, "end": min(3, len(text)), "category": "Style",
            "subcategory": "Awkwardness", "severity": "Minor"}
    uid = str(uuid.uuid4())
    count = [0]

    def counter(*_args):
        count[0] += 1

    requests = [("mark", lambda: client.put(f"{api}/marks/{uid}", json=mark)),
                ("edit", lambda: client.put(f"{api}/marks/{uid}", json={**mark, "rev": 2, "severity": "Major"})),
                ("delete", lambda: client.delete(f"{api}/marks/{uid}", json={"rev": 3})),
                ("progress", lambda: client.post(f"{api}/progress", json={"cursor": 0, "furthest": 0,
                                                                          "times": {"0": 1000}}))]
    client.put(f"{api}/marks/{uuid.uuid4()}", json=mark)   # (the first save of a process loads its scheme)
    out = {}
    event.listen(Engine, "before_cursor_execute", counter)
    try:
        for kind, send in requests:
            count[0] = 0
            r = send()
            if r.status_code != 200:
                raise SystemExit(f"bench: {kind} answered {r.status_code}: {r.get_data(as_text=True)[:200]}")
            out[kind] = count[0]
    finally:
        event.remove(Engine, "before_cursor_execute", counter)
        app.extensions["enface_db"][0].dispose()
    return out


def run_phase(base: str, users: list[dict], work, saves: int, seed: int, think: float,
              warmup: int) -> tuple[dict | None, list[str]]:
    """Every annotator at once on one page (``work``: :func:`annotator` or the ESA page's); the figures."""
    results: list[tuple[str, float, int]] = []
    errors: list[str] = []
    barrier = threading.Barrier(len(users))
    threads = [threading.Thread(target=work, args=(base, u, saves, seed * 1000 + i, barrier, results, errors, think),
                                daemon=True) for i, u in enumerate(users)]
    wall = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    wall = time.perf_counter() - wall
    return summarize(results, errors, wall, warmup), errors


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--annotators", type=int, default=20)
    ap.add_argument("--saves", type=int, default=60, help="save requests per annotator")
    ap.add_argument("--warmup", type=int, default=3, help="first requests per annotator left out of the figures")
    ap.add_argument("--think", type=float, default=0.5,
                    help="mean pause (s) between an annotator's saves in the human-paced phase (a person takes "
                         "several seconds per mark: 0.5 s is a stress level); 0 runs the saturation phase only")
    ap.add_argument("--page", choices=["mqm", "esa"], default="mqm",
                    help="esa: also the ESA^AI document page, side by side with MQM's, and their p99 ratio")
    ap.add_argument("--server", choices=["gunicorn", "werkzeug"], default="gunicorn")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    ap.add_argument("--keep", action="store_true", help="keep the data folder")
    args = ap.parse_args()

    data_dir = Path(tempfile.mkdtemp(prefix="enface-bench-annotation-"))
    t0 = time.perf_counter()
    env, users = setup(data_dir, args.annotators, args.seed, esa=args.page == "esa")
    setup_s = time.perf_counter() - t0
    statements = statements_per_request(users[0])
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = start_server(args.server, env, port, args.workers, args.threads, data_dir / "server.log")
    phases = [("human-paced", args.think), ("saturation", 0.0)] if args.think else [("saturation", 0.0)]
    report: dict = {"annotators": len(users), "cpus": os.cpu_count(), "database": "SQLite (WAL)",
                    "server": f"gunicorn ({args.workers} workers x {args.threads} threads, gthread)"
                    if args.server == "gunicorn" else "werkzeug (threaded)", "setup_s": round(setup_s, 1),
                    "statements_per_request": statements, "phases": {}}
    print(f"Annotation saves: {len(users)} concurrent annotators against {report['server']} on 127.0.0.1, "
          f"{report['database']}, {report['cpus']} CPUs; {args.saves} save requests each, "
          f"first {args.warmup} left out")
    print("SQL statements per request (in-process, BEGIN included): "
          + ", ".join(f"{k} {n}" for k, n in statements.items()))
    failed = False
    pages = [("mqm", annotator)]
    if args.page == "esa":
        from annotation_esa import esa_annotator

        pages.append(("esa", esa_annotator))
    try:
        for name, think in phases:
            for page, work in pages:
                figures, errors = run_phase(base, users, work, args.saves, args.seed, think, args.warmup)
                if figures is None:
                    print(f"bench: no measurement of the {page} page in phase {name} (errors: "
                          + "; ".join(errors[:5]) + ")")
                    return 1
                key = name if page == "mqm" else f"{name} (esa)"
                report["phases"][key] = {"think_s": think, "page": page, **figures}
                failed = failed or bool(errors)
                label = f"think time {think:g} s (exponential)" if think else "no think time"
                what = "MQM page: mark, edit, delete" if page == "mqm" else "ESA document page: segment records"
                print(f"\n{name}, {what} ({label}): {figures['requests']} requests in {figures['wall_s']} s "
                      f"({figures['throughput_rps']} requests/s), {figures['errors']} errors")
                print(f"  save latency: p50 {figures['save_p50_ms']} ms   p90 {figures['save_p90_ms']} ms   "
                      f"p99 {figures['save_p99_ms']} ms   max {figures['save_max_ms']} ms")
                for kind, row in figures["by_kind"].items():
                    print(f"    {kind:9} n={row['n']:5}  p50 {row['p50_ms']:7.1f} ms  p99 {row['p99_ms']:7.1f} ms")
                if errors:
                    print("  errors: " + "; ".join(errors[:10]))
            if args.page == "esa":
                esa, mqm = report["phases"][f"{name} (esa)"], report["phases"][name]
                ratio = esa["save_p99_ms"] / mqm["save_p99_ms"] if mqm["save_p99_ms"] else float("inf")
                report["phases"][f"{name} (esa)"]["save_p99_ratio_to_mqm"] = round(ratio, 2)
                print(f"\n{name}: ESA document page save p99 {esa['save_p99_ms']} ms vs the MQM page's "
                      f"{mqm['save_p99_ms']} ms, side by side in this run: ratio {ratio:.2f}")
    finally:
        stop(proc)
    figures = report
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=1) + "\n")
    if args.keep:
        print(f"  data kept in {data_dir}")
    else:
        shutil.rmtree(data_dir, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
