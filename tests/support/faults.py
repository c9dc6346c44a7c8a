"""Fault injection on real processes (issue 11): Celery workers SIGKILLed mid-scoring, gunicorn
restarted mid-annotation, the database refusing connections for a few seconds.

Used by the CI-sized tests (tests/platform/jobs/test_faults.py) and by the full command
(``make faults``: ``python bench/faults.py``). Every scenario returns a dict of figures and the
list of problems it saw; the targets are: no submission lost or stuck, no duplicated score,
no acknowledged mark lost.

The processes are the ones ``enface serve`` runs (tests/support/processes.py): ``celery -A
enface.worker worker`` (prefork, one child) on the embedded SQLite broker, and gunicorn with gthread
workers. The sweeper that ``enface serve`` runs in a thread is run here by the harness
(:func:`enface.services.pipeline.sweep`), with a short ``stuck_after``. The outages are in
tests/support/outages.py.
"""

from __future__ import annotations

import re
import signal
import threading
import time
import uuid as uuidlib
from pathlib import Path

from .processes import Platform, free_port, kill_group, stop_gracefully

TERMINAL = ("scored", "invalid", "failed", "withdrawn")


# --------------------------------------------------------------------------- 1. workers killed mid-scoring


def synthetic_testset(folder: Path, segments: int = 1500) -> Path:
    """A test set big enough that scoring takes a while (a worker can be caught in the act)."""
    import json
    import random

    rng = random.Random(5)
    words = [f"w{i}" for i in range(400)]
    docs = {f"doc{d}": [" ".join(rng.choices(words, k=rng.randint(8, 30))) for _ in range(segments // 3)]
            for d in range(3)}
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "testset.json").write_text(json.dumps({"name": f"Faults {folder.name}", "src_lang": "en",
                                                     "tgt_lang": "de", "documents": list(docs)}))
    for sub in ("source", "ref1"):
        (folder / sub).mkdir(exist_ok=True)
    for doc, lines in docs.items():
        (folder / "source" / f"{doc}.txt").write_text("\n".join(lines) + "\n")
        (folder / "ref1" / f"{doc}.txt").write_text("\n".join(" ".join(reversed(x.split())) for x in lines) + "\n")
    return folder


def _outputs(testset: Path, variant: int) -> list[tuple[str, bytes]]:
    out = []
    for path in sorted((testset / "ref1").glob("*.txt")):
        lines = path.read_text().splitlines()
        out.append((path.name, ("\n".join(line if (i + variant) % 3 else line[::-1] for i, line in enumerate(lines))
                                + "\n").encode()))
    return out


def _state(app, sid: int) -> tuple[str, float]:
    from enface.extensions import db
    from enface.models import Submission

    with app.app_context():
        sub = db.session.get(Submission, sid)
        db.session.refresh(sub)
        return sub.state, sub.progress


def _sweep(app, stuck_after: int) -> list:
    from enface.services.pipeline import sweep

    with app.app_context():
        return sweep(stuck_after=stuck_after)


def kill_workers_mid_scoring(platform: Platform, kills: int, *, stuck_after: int = 8, log=print) -> dict:
    """``kills`` rounds: upload, wait until the worker is scoring it, SIGKILL the worker's process group,
    start a new worker. Then let the sweeper and a worker finish everything, and count."""
    import io

    from .testkit import World

    world = World(platform.app)
    testset_dir = synthetic_testset(platform.folder / "ts")
    ts = world.testset(testset_dir, "Faults", quota_per_day=None, quota_total=None)
    client = platform.app.test_client()
    subs, killed_at, missed, late = [], [], 0, 0
    worker = platform.start_worker()
    started = time.monotonic()
    i = 0
    while len(killed_at) < kills and i < 3 * kills:      # until ``kills`` workers died while scoring
        _uid, token = world.team_with_token(f"cap{i}@faults.test", f"Faults team {i}")
        resp = client.post(f"/api/v1/testsets/{ts}/submissions", content_type="multipart/form-data",
                           headers={"Authorization": f"Bearer {token}"},
                           data={"label": "primary", "constrained": "true", "system_name": f"sys-{i}",
                                 "files": [(io.BytesIO(b), n) for n, b in _outputs(testset_dir, i)]})
        assert resp.status_code == 202, resp.get_data(as_text=True)
        sid = resp.get_json()["id"]
        subs.append(sid)
        deadline = time.monotonic() + 120
        while True:
            state, progress = _state(platform.app, sid)
            if state == "scoring":
                break
            if state in TERMINAL or time.monotonic() > deadline:
                missed += 1            # finished (or stuck) before we could kill it: counted, not hidden
                break
            if worker.poll() is not None:
                worker = platform.start_worker()
            _sweep(platform.app, stuck_after)
            time.sleep(0.05)
        if state == "scoring":
            time.sleep((len(killed_at) % 4) * 0.15)     # at different points of the scoring
            state_now, progress = _state(platform.app, sid)
            kill_group(worker)
            if state_now == "scoring":
                killed_at.append((sid, round(progress, 3)))
                log(f"kill {len(killed_at)}/{kills}: submission {sid} scoring, progress {progress:.2f}")
            else:
                late += 1
                log(f"(submission {sid} was {state_now} before the kill: not counted)")
            worker = platform.start_worker()
        i += 1
    # Recovery: a worker runs, the sweeper requeues what the dead ones held.
    deadline = time.monotonic() + 120 + 15 * kills
    while time.monotonic() < deadline:
        states = [_state(platform.app, sid)[0] for sid in subs]
        if all(s in TERMINAL for s in states):
            break
        if worker.poll() is not None:
            worker = platform.start_worker()
        _sweep(platform.app, stuck_after)
        time.sleep(0.5)
    recovery = time.monotonic() - started
    stop_gracefully(worker)
    return {**_audit_submissions(platform.app, subs), "kills_mid_scoring": len(killed_at),
            "kills_after_scoring_ended": late, "rounds_scored_before_a_kill": missed,
            "killed_at_progress": [p for _sid, p in killed_at], "seconds": round(recovery, 1)}


def _audit_submissions(app, subs: list[int]) -> dict:
    from enface.extensions import db
    from enface.models import ScoreRow, Submission, SubmissionEvent
    from sqlalchemy import func, select

    problems = []
    with app.app_context():
        states = dict(db.session.execute(select(Submission.id, Submission.state).where(Submission.id.in_(subs))).all())
        dupes = db.session.execute(select(ScoreRow.submission_id, ScoreRow.metric, ScoreRow.scope, func.count())
                                   .where(ScoreRow.submission_id.in_(subs))
                                   .group_by(ScoreRow.submission_id, ScoreRow.metric, ScoreRow.scope)
                                   .having(func.count() > 1)).all()
        no_scores = [sid for sid in subs if states.get(sid) == "scored" and not db.session.scalar(
            select(func.count()).select_from(ScoreRow).where(ScoreRow.submission_id == sid))]
        requeues = db.session.scalar(select(func.count()).select_from(SubmissionEvent).where(
            SubmissionEvent.submission_id.in_(subs), SubmissionEvent.message.like("requeued%")))
    lost = [sid for sid in subs if sid not in states]
    stuck = [sid for sid, s in states.items() if s not in TERMINAL]
    failed = [sid for sid, s in states.items() if s != "scored"]
    if lost:
        problems.append(f"lost submissions: {lost}")
    if stuck:
        problems.append(f"stuck submissions: {[(s, states[s]) for s in stuck]}")
    if failed:
        problems.append(f"not scored: {[(s, states[s]) for s in failed]}")
    if dupes:
        problems.append(f"duplicated scores: {dupes}")
    if no_scores:
        problems.append(f"scored without scores: {no_scores}")
    return {"submissions": len(subs), "scored": sum(s == "scored" for s in states.values()), "lost": len(lost),
            "stuck": len(stuck), "duplicated_scores": len(dupes), "requeued_by_sweeper": requeues,
            "problems": problems}


# --------------------------------------------------------------------------- 2. and 3. marks under faults


class Annotator:
    """An annotator's browser, as autosave.js behaves: each mark is PUT until the server says 200."""

    def __init__(self, base: str, email: str, password: str, public_id: str):
        import requests

        self.base, self.public_id = base, public_id
        self.session = requests.Session()
        self.acked: list[str] = []
        self.errors: dict[str, int] = {}
        self.retries = 0
        page = self._retrying("GET", "/auth/login").text
        token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page).group(1)
        resp = self._retrying("POST", "/auth/login", data={"email": email, "password": password, "csrf_token": token},
                              allow_redirects=False)
        assert resp.status_code == 302, resp.status_code
        item = self._retrying("GET", f"/annotate/item/{public_id}").text
        self.csrf = re.search(r'name="csrf-token" content="([^"]+)"', item).group(1)

    def _retrying(self, method: str, path: str, timeout: float = 90, **kwargs):
        import requests

        deadline = time.monotonic() + timeout
        while True:
            try:
                resp = self.session.request(method, self.base + path, timeout=15, **kwargs)
                if resp.status_code < 500:
                    return resp
                self.errors[str(resp.status_code)] = self.errors.get(str(resp.status_code), 0) + 1
            except requests.RequestException as exc:
                name = type(exc).__name__
                self.errors[name] = self.errors.get(name, 0) + 1
            if time.monotonic() > deadline:
                raise RuntimeError(f"{method} {path}: no answer for {timeout:.0f} s ({self.errors})")
            self.retries += 1
            time.sleep(0.2)

    def mark(self, seg: int = 0) -> None:
        uid = str(uuidlib.uuid4())
        body = {"rev": 1, "side": "target", "seg": seg, "start": 0, "end": 3, "category": "Accuracy",
                "subcategory": "Mistranslation", "severity": "Minor", "note": f"n{len(self.acked)}"}
        resp = self._retrying("PUT", f"/annotate/api/items/{self.public_id}/marks/{uid}", json=body,
                              headers={"X-CSRFToken": self.csrf})
        if resp.status_code != 200:
            raise RuntimeError(f"mark refused: {resp.status_code} {resp.text[:300]}")
        self.acked.append(uid)


class KeepMarking:
    """A thread in which ``annotator`` saves marks without pause until :meth:`stop`."""

    def __init__(self, annotator: Annotator):
        self.annotator = annotator
        self.failure: BaseException | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                self.annotator.mark(seg=len(self.annotator.acked) % 3)
        except BaseException as exc:   # noqa: BLE001  (reported by the harness: "the annotator gave up")
            self.failure = exc

    def wait_for(self, marks: int) -> None:
        """Until ``marks`` more marks are acknowledged (or the annotator gave up)."""
        target = len(self.annotator.acked) + marks
        while len(self.annotator.acked) < target and self.failure is None:
            time.sleep(0.02)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(120)


def _marks_in_db(app, uuids: list[str]) -> dict[str, int]:
    from enface.extensions import db
    from enface.protocols.mqm.models import Mark
    from sqlalchemy import func, select

    with app.app_context():
        return dict(db.session.execute(select(Mark.uuid, func.count()).where(Mark.uuid.in_(uuids), ~Mark.deleted)
                                       .group_by(Mark.uuid)).all())


def _annotation_world(platform: Platform):
    from .campaigns import PASSWORD, assignments_of, build_world, new_campaign

    world = build_world(platform.app, platform.folder)
    camp = new_campaign(world)
    public_id = assignments_of(world, camp, "ann1@example.org")[0]["public_id"]
    return PASSWORD, public_id


def _audit_marks(platform: Platform, annotator: Annotator) -> dict:
    found = _marks_in_db(platform.app, annotator.acked)
    lost = [u for u in annotator.acked if u not in found]
    doubled = [u for u, n in found.items() if n > 1]
    problems = ([f"lost marks: {len(lost)}"] if lost else []) + ([f"duplicated marks: {len(doubled)}"] if doubled else [])
    return {"marks_acknowledged": len(annotator.acked), "marks_in_db": len(found), "marks_lost": len(lost),
            "client_retries": annotator.retries, "client_errors_seen": dict(annotator.errors), "problems": problems}


def restart_web_mid_annotation(platform: Platform, restarts: int, *, marks_between: int = 10, log=print) -> dict:
    """An annotator saves marks without pause while gunicorn is stopped and started ``restarts`` times
    (odd rounds SIGTERM, a graceful restart; even rounds SIGKILL of the whole server, a crash)."""
    password, public_id = _annotation_world(platform)
    port = free_port()
    web = platform.start_web(port)
    annotator = Annotator(f"http://127.0.0.1:{port}", "ann1@example.org", password, public_id)
    writer = KeepMarking(annotator)
    for r in range(restarts):
        writer.wait_for(marks_between)
        kill_group(web, signal.SIGTERM if r % 2 == 0 else signal.SIGKILL)
        log(f"restart {r + 1}/{restarts} ({'SIGTERM' if r % 2 == 0 else 'SIGKILL'}) after "
            f"{len(annotator.acked)} marks")
        time.sleep(0.5)
        web = platform.start_web(port)
    writer.wait_for(marks_between)
    writer.stop()
    kill_group(web, signal.SIGTERM)
    out = {"restarts": restarts, **_audit_marks(platform, annotator)}
    if writer.failure:
        out["problems"].append(f"the annotator gave up: {writer.failure}")
    return out


def database_outage(platform: Platform, outage, *, seconds: float = 5, rounds: int = 1, log=print) -> dict:
    """Marks saved and a submission scored while ``outage()`` makes the database refuse (or hold)
    connections for ``seconds``, ``rounds`` times. ``outage`` is a context manager factory."""
    import io

    from .testkit import World

    password, public_id = _annotation_world(platform)
    world = World(platform.app)
    testset_dir = synthetic_testset(platform.folder / "ts-outage", segments=600)
    ts = world.testset(testset_dir, "Outage", quota_per_day=None, quota_total=None)
    _uid, token = world.team_with_token("cap@outage.test", "Outage team")
    port = free_port()
    web = platform.start_web(port)
    worker = platform.start_worker()
    annotator = Annotator(f"http://127.0.0.1:{port}", "ann1@example.org", password, public_id)
    import requests

    resp = requests.post(f"http://127.0.0.1:{port}/api/v1/testsets/{ts}/submissions",
                         headers={"Authorization": f"Bearer {token}"},
                         data={"label": "primary", "constrained": "true", "system_name": "outage"},
                         files=[("files", (n, io.BytesIO(b))) for n, b in _outputs(testset_dir, 1)], timeout=60)
    assert resp.status_code == 202, resp.text
    sid = resp.json()["id"]
    writer = KeepMarking(annotator)
    for r in range(rounds):
        time.sleep(1.5)
        with outage():
            log(f"outage {r + 1}/{rounds}: the database is unavailable for {seconds} s")
            time.sleep(seconds)
    time.sleep(2)
    writer.stop()
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            if _state(platform.app, sid)[0] in TERMINAL:
                break
            _sweep(platform.app, 8)
        except Exception:   # noqa: BLE001  (the harness's own connection may need a moment too)
            pass
        time.sleep(0.5)
    kill_group(web, signal.SIGTERM)
    stop_gracefully(worker)
    out = {"outages": rounds, "outage_seconds": seconds, **_audit_marks(platform, annotator)}
    sub = _audit_submissions(platform.app, [sid])
    out["submission_state"] = _state(platform.app, sid)[0]
    out["problems"] += sub["problems"]
    if writer.failure:
        out["problems"].append(f"the annotator gave up: {writer.failure}")
    return out
