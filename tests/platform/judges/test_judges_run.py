"""Judges on a campaign: settings checked, runs stored as a rater's responses, resumable, never twice."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from sqlalchemy import func, select

from humaneval.judge.scripted import ScriptedServer
from tests.support import ROOT
from tests.support.judge_protocol import judged_campaign

KEY = "sk-live-7Hq2ZxW9-never-show-me"


def agreeing(delay: float = 0.0, api_key: str | None = KEY) -> dict:
    answer = {"json": {"sp": 2, "g_1": 1, "g_2": 2, "thoughts": "fine"}}
    verdict = {"json": {"judge": "yes", "judge_reasons": "agree", "sp": 2, "g_1": 1, "g_2": 2}}
    if delay:
        answer, verdict = {**answer, "delay": delay}, {**verdict, "delay": delay}
    script = {"rules": [{"prefix": "You are Debater", "replies": [answer]},
                        {"prefix": "You are the judge", "replies": [verdict]},
                        {"prefix": "You are a professional", "replies": [answer]}]}
    if api_key:
        script["api_key"] = api_key
    return script


def add(world, cid, **fields):
    from enface.campaigns import services as svc
    from enface.judges.setup import JudgeInput, add_judge

    with world.ctx():
        return add_judge(svc.get_campaign(cid), JudgeInput(**fields)).id


def run(world, judge_id):
    from enface.judges.running import run_judge

    with world.ctx():
        return run_judge(judge_id)


def test_settings_are_checked_field_by_field(world, tmp_path):
    from enface.services import ServiceError

    cid = judged_campaign(world)
    ok = {"base_url": "http://127.0.0.1:9/v1", "model": "m"}
    bad_prompts = tmp_path / "prompts"
    bad_prompts.mkdir()
    (bad_prompts / "judge.txt").write_text("$nonsense", "utf-8")
    cases = [({"base_url": "ftp://x"}, "base_url"), ({"model": " "}, "model"), ({"mode": "trio"}, "mode"),
             ({"api_key_env": "A", "api_key": "k"}, "api_key"), ({"api_key_env": "1-BAD"}, "api_key_env"),
             ({"concurrency": "0"}, "concurrency"), ({"max_rounds": "99"}, "max rounds"),
             ({"temperature": "hot"}, "temperature"), ({"prompts_dir": str(bad_prompts)}, "prompts_dir"),
             ({"requests_per_minute": "-1"}, "requests per minute")]
    for change, field in cases:
        with pytest.raises(ServiceError) as info:
            add(world, cid, **{**ok, **change})
        assert info.value.details.get("field") == field, (change, info.value.message)


def test_protocols_without_the_hook_take_no_judges(world):
    from enface.services import ServiceError

    from tests.support.campaigns import new_campaign

    cid = new_campaign(world)   # MQM
    with pytest.raises(ServiceError, match="take no LLM judges"):
        add(world, cid, base_url="http://127.0.0.1:9/v1", model="m")


def test_a_run_stores_a_raters_responses_and_never_judges_twice(world):
    from enface.campaigns.models import Assignment, CampaignAnnotator, Response
    from enface.extensions import db
    from enface.judges.models import Judge, JudgeItem
    from enface.judges.reports import progress
    from enface.models import User

    cid = judged_campaign(world)
    with ScriptedServer(agreeing()) as server:
        jid = add(world, cid, base_url=server.base_url, model="m", api_key=KEY, concurrency=3,
                  price_prompt_per_1k=1.0, price_completion_per_1k=2.0)
        out = run(world, jid)
        first = len(server.requests)
        again = run(world, jid)
        assert len(server.requests) == first   # nothing judged twice
    with world.ctx():
        judge = db.session.get(Judge, jid)
        items = db.session.scalar(select(func.count()).select_from(Assignment).where(
            Assignment.campaign_id == cid, Assignment.annotator_id != judge.annotator_id).group_by(
            Assignment.campaign_id))
        n_items = len(judge.campaign.items)
        assert out["scored"] == n_items and out["state"] == "done" and again["scored"] == 0
        assert first == 3 * n_items   # debate: two debaters and the judge, one round each
        rows = db.session.scalars(select(JudgeItem).where(JudgeItem.judge_id == jid)).all()
        assert len(rows) == n_items and all(r.state == "ok" and r.rounds == 1 and r.consensus for r in rows)
        assert all(r.scores == {"sp": 2, "g_1": 1, "g_2": 2} and r.calls == 3 and r.cost > 0 for r in rows)
        assert rows[0].transcript["calls"][0]["messages"][0]["content"].startswith("You are Debater A")
        responses = db.session.scalars(select(Response).join(Assignment).where(
            Assignment.annotator_id == judge.annotator_id)).all()
        assert len(responses) == n_items and all(r.kind == "score" for r in responses)
        assert all(r.data == {"sp": 2, "g_1": 1, "g_2": 2, "refusal": None, "comment": "agree"} for r in responses)
        asgs = db.session.scalars(select(Assignment).where(Assignment.annotator_id == judge.annotator_id)).all()
        assert all(a.state == "finished" for a in asgs) and sorted(a.number for a in asgs) == list(range(1, n_items + 1))
        ann = db.session.get(CampaignAnnotator, judge.annotator_id)
        user = db.session.get(User, judge.user_id)
        assert ann.campaign_id == cid and not user.active and not user.check_password("")
        p = progress(judge)
        assert (p["done"], p["total"], p["failed"], p["percent"]) == (n_items, n_items, 0, 100)
        assert p["calls"] == 3 * n_items and p["prompt_tokens"] > 0
        assert items is not None   # the humans' assignments are untouched


def test_failures_are_recorded_then_retried_on_the_next_run(world):
    from enface.extensions import db
    from enface.judges.models import JudgeItem

    cid = judged_campaign(world)
    broken = {"rules": [{"prefix": "", "replies": [{"content": "no json"}]}]}
    with ScriptedServer(broken) as server:
        jid = add(world, cid, base_url=server.base_url, model="m", mode="single")
        out = run(world, jid)
    with world.ctx():
        rows = db.session.scalars(select(JudgeItem).where(JudgeItem.judge_id == jid)).all()
        assert out["failed"] == len(rows) > 0 and "could not be scored" in out["message"]
        assert all(r.state == "failed" and r.transcript["raw"] == "no json" and "malformed" in r.error for r in rows)
    with ScriptedServer(agreeing(api_key=None)) as server:
        from enface.judges.models import Judge

        with world.ctx(), db.write():
            db.session.get(Judge, jid).base_url = server.base_url
        out = run(world, jid)
    assert out["scored"] == len(rows) and out["failed"] == 0


def test_a_missing_key_variable_fails_the_run_with_a_message(world, monkeypatch):
    from enface.extensions import db
    from enface.judges.models import Judge

    monkeypatch.delenv("JUDGE_TEST_KEY", raising=False)
    world.app.config["JUDGE_KEY_ENVS"] = ("JUDGE_TEST_KEY",)     # the operator's allow-list
    cid = judged_campaign(world)
    jid = add(world, cid, base_url="http://127.0.0.1:9/v1", model="m", api_key_env="JUDGE_TEST_KEY")
    out = run(world, jid)
    assert out["state"] == "failed" and "JUDGE_TEST_KEY is not set" in out["message"]
    with ScriptedServer(agreeing()) as server:
        monkeypatch.setenv("JUDGE_TEST_KEY", KEY)
        with world.ctx(), db.write():
            db.session.get(Judge, jid).base_url = server.base_url
        out = run(world, jid)
        assert out["state"] == "done" and all(r["auth_ok"] for r in server.requests)


def test_the_run_goes_to_the_llm_queue(world):
    from enface.job_queue import QUEUES
    from enface.judges.models import Judge
    from enface.judges.running import queue_run

    assert QUEUES["judge"] == ("enface.run_judge", "llm")
    cid = judged_campaign(world)
    with ScriptedServer(agreeing()) as server:
        jid = add(world, cid, base_url=server.base_url, model="m", api_key=KEY, mode="single")
        with world.ctx():
            from enface.extensions import db

            queue_run(db.session.get(Judge, jid))   # eager in tests: runs now, through the Celery task
            assert db.session.get(Judge, jid).state == "done"
            assert len(server.requests) == len(db.session.get(Judge, jid).campaign.items)


def test_killed_run_resumes_losing_only_items_in_flight(world, tmp_path):
    """Really kill -9 the process running a judge mid-run, then run again: nothing judged twice
    except the items in flight at the kill, and one response per item."""
    from enface.campaigns.models import Assignment, Response
    from enface.extensions import db
    from enface.judges.models import Judge, JudgeItem

    cid = judged_campaign(world)
    with ScriptedServer(agreeing(delay=0.25)) as server:
        jid = add(world, cid, base_url=server.base_url, model="m", api_key=KEY, mode="single", concurrency=2)
        cfg = world.app.config
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "platform"), str(ROOT)])}
        proc = subprocess.Popen([sys.executable, "-m", "tests.support.judge_protocol", str(cfg["DATA_DIR"]),
                                 cfg["SQLALCHEMY_DATABASE_URI"], str(jid)], cwd=ROOT, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                with world.ctx():
                    done = db.session.scalar(select(func.count()).select_from(JudgeItem).where(
                        JudgeItem.judge_id == jid, JudgeItem.state == "ok"))
                if done >= 3:
                    break
                assert proc.poll() is None, proc.stderr.read().decode()
                time.sleep(0.05)
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(10)
        finally:
            if proc.poll() is None:
                proc.kill()
        with world.ctx():
            judge = db.session.get(Judge, jid)
            total = len(judge.campaign.items)
            states = dict(db.session.execute(select(JudgeItem.state, func.count()).where(
                JudgeItem.judge_id == jid).group_by(JudgeItem.state)).all())
        assert 3 <= states.get("ok", 0) < total, states
        assert judge.state == "running"   # the dead run still "holds" it ...
        with world.ctx():   # what the dead run had stored: never to be asked again
            stored_before = {str(i) for i in db.session.scalars(select(JudgeItem.item_id).where(
                JudgeItem.judge_id == jid, JudgeItem.state == "ok"))}
        from enface.judges.running import run_judge

        with world.ctx():
            assert run_judge(jid)["skipped"]   # ... and while its heartbeat is fresh, nobody takes over
        world.app.config["JUDGE_STALE_SECONDS"] = 0
        from enface.judges.running import sweep_stalled

        with world.ctx():   # the sweeper finds the dead run and queues the judge again (eager here)
            assert sweep_stalled() == [jid]
            assert db.session.get(Judge, jid).state == "done"
            ok = db.session.scalar(select(func.count()).select_from(JudgeItem).where(
                JudgeItem.judge_id == jid, JudgeItem.state == "ok"))
            assert ok == total and sweep_stalled() == []
        requested = _markers(server)
    twice = [m for m in set(requested) if requested.count(m) > 1]
    assert not set(twice) & stored_before and len(twice) <= 2   # at most the two items in flight
    assert all(requested.count(m) == 1 for m in stored_before)
    assert len(set(requested)) == total
    with world.ctx():
        judge = db.session.get(Judge, jid)
        per_item = db.session.execute(select(Assignment.item_id, func.count(Response.id)).join(Response).where(
            Assignment.annotator_id == judge.annotator_id).group_by(Assignment.item_id)).all()
        assert len(per_item) == total and all(n == 1 for _i, n in per_item)


def _markers(server) -> list[str]:
    import re

    return [re.search(r"\[ITEM-(\d+)\]", r["messages"][0]["content"]).group(1) for r in server.requests]


def test_rebalance_never_gives_human_work_to_a_judge(world):
    from enface.campaigns import services as svc
    from enface.campaigns.models import Assignment
    from enface.extensions import db
    from enface.judges.models import Judge

    cid = judged_campaign(world, annotators=("ann1@example.org",), redundancy=1)
    broken = {"rules": [{"prefix": "", "replies": [{"content": "no json"}]}]}
    with ScriptedServer(broken) as server:   # the judge joins, but scores nothing: it holds no item
        jid = add(world, cid, base_url=server.base_url, model="m", mode="single", concurrency=4)
        run(world, jid)
    with world.ctx():
        judge = db.session.get(Judge, jid)
        assert judge.annotator_id is not None
        moved = svc.rebalance(svc.get_campaign(cid))["moved"]
        held = db.session.scalar(select(func.count()).select_from(Assignment).where(
            Assignment.annotator_id == judge.annotator_id))
        assert (moved, held) == (0, 0)


def test_a_live_run_beats_and_a_second_run_is_refused(world, monkeypatch):
    import threading

    from enface.extensions import db
    from enface.judges import running
    from enface.judges.models import Judge

    monkeypatch.setattr(running, "HEARTBEAT_EVERY", 0.05)
    cid = judged_campaign(world)
    with ScriptedServer(agreeing(delay=0.2)) as server:
        jid = add(world, cid, base_url=server.base_url, model="m", api_key=KEY, mode="single", concurrency=1)
        worker = threading.Thread(target=run, args=(world, jid))
        worker.start()
        time.sleep(0.5)
        with world.ctx():
            judge = db.session.get(Judge, jid)
            assert judge.state == "running" and running.is_alive(judge)
            first_beat = judge.heartbeat_at
            assert running.run_judge(jid)["skipped"]
            from enface.services import ServiceError

            with pytest.raises(ServiceError, match="running already"):
                running.queue_run(judge)
        time.sleep(0.3)
        with world.ctx():
            assert db.session.get(Judge, jid).heartbeat_at > first_beat
        worker.join(60)
    with world.ctx():
        assert db.session.get(Judge, jid).state == "done"
