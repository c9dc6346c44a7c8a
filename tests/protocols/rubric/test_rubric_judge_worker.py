"""A judge run on a real Celery worker (the ``llm`` queue) killed with SIGKILL mid-run: the sweeper
queues it again, a new worker finishes it, and nothing stored before the kill is judged twice."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

from rubric_helpers import build_rubric_world, new_rubric
from sqlalchemy import func, select

from humaneval.judge.demo_script import demo_script
from humaneval.judge.scripted import ScriptedServer
from tests.support.testkit import TestConfigEnv


def _worker(app):
    return subprocess.Popen([sys.executable, "-m", "celery", "-A", "enface.worker", "worker", "-P", "solo", "-Q",
                             "llm", "--loglevel", "WARNING", "--without-gossip", "--without-mingle",
                             "--without-heartbeat"], env=TestConfigEnv(app),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def _ok(app, jid) -> set[int]:
    from enface.extensions import db
    from enface.judges.models import JudgeItem

    with app.app_context():
        return {f"{i}:{k}" for i, k in db.session.execute(select(JudgeItem.item_id, JudgeItem.key).where(
            JudgeItem.judge_id == jid, JudgeItem.state == "ok")).all()}


def test_sigkilled_worker_loses_only_items_in_flight(make_app):
    from enface.campaigns import services as svc
    from enface.campaigns.models import Assignment, Response
    from enface.extensions import db
    from enface.judges.models import Judge
    from enface.judges.running import queue_run, sweep_stalled, tasks_of
    from enface.judges.setup import JudgeInput, add_judge

    app = make_app(JOBS="celery")
    world = build_rubric_world(app, annotators=1)
    cid = new_rubric(world, annotators=("ann1@example.org",), redundancy=1)
    with app.app_context():
        tasks = tasks_of(svc.get_campaign(cid))
        items = [t.item for _i, t in tasks]
    script = demo_script(items, latency=0.15)
    with ScriptedServer(script) as endpoint:
        with app.app_context():
            judge = add_judge(svc.get_campaign(cid), JudgeInput(base_url=endpoint.base_url, model="m",
                                                                mode="single", concurrency=2))
            jid = judge.id
            queue_run(judge)   # to the broker: nothing runs until a worker takes it
        worker = _worker(app)
        try:
            deadline = time.monotonic() + 120
            while len(_ok(app, jid)) < 4:
                assert worker.poll() is None, worker.stdout.read().decode()
                assert time.monotonic() < deadline, "the worker judged nothing"
                time.sleep(0.1)
            os.kill(worker.pid, signal.SIGKILL)
            worker.wait(10)
        finally:
            if worker.poll() is None:
                worker.kill()
        before = _ok(app, jid)
        assert 4 <= len(before) < len(tasks)
        with app.app_context():
            assert db.session.get(Judge, jid).state == "running"
        app.config["JUDGE_STALE_SECONDS"] = 0
        with app.app_context():
            assert sweep_stalled() == [jid]   # the dead run is found and queued again
        worker = _worker(app)
        try:
            deadline = time.monotonic() + 180
            while True:
                with app.app_context():
                    state = db.session.get(Judge, jid).state
                if state == "done":
                    break
                assert worker.poll() is None, worker.stdout.read().decode()
                assert time.monotonic() < deadline, f"not finished: {state}"
                time.sleep(0.2)
        finally:
            worker.terminate()
            try:
                worker.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                worker.kill()
        asked = [re.sub(r"\s+", " ", r["messages"][0]["content"]) for r in endpoint.requests]
    assert len(_ok(app, jid)) == len(tasks)

    def asked_for(task_item) -> int:
        return sum(1 for a in asked if f"Translation (English): {task_item['translation']}" in a
                   and f"segment: {task_item['requirement']}" in a)

    by_key = {f"{item.id}:{t.key}": t.item for item, t in tasks}
    signature = [(t["translation"], t["requirement"]) for t in by_key.values()]
    unique = {k: t for k, t in by_key.items() if signature.count((t["translation"], t["requirement"])) == 1}
    assert len(set(unique) & before) >= 3 and len(unique) > len(by_key) // 2
    assert all(asked_for(t) == 1 for k, t in unique.items() if k in before)   # stored before: never again
    assert sum(asked_for(t) > 1 for t in unique.values()) <= 2   # at most the two items in flight at the kill
    with app.app_context():
        judge = db.session.get(Judge, jid)
        n = db.session.scalar(select(func.count(Response.id)).join(Assignment).where(
            Assignment.annotator_id == judge.annotator_id))
        assert n == len(tasks)   # one response per phenomenon, none twice
