"""An LLM suggester against the scripted endpoint: every path of a run (success, malformed answers,
rate limits, timeouts, retries exhausted, a partial run resumed), settings checked, the key kept out."""

from __future__ import annotations

import functools

import pytest
from suggest_support import ORCHARD, add_llm, answer, campaign, rows, rule, run

from humaneval.judge.scripted import ScriptedServer

KEY = "sk-esa-ai-3c5e7a9b-never-shown"


@pytest.fixture(autouse=True)
def quick_retries(monkeypatch):
    """The client's retries with millisecond backoff (the paths are the same, the test is fast)."""
    from enface.protocols.esa.suggestions import running

    from humaneval.judge import EndpointConfig

    monkeypatch.setattr(running, "EndpointConfig", functools.partial(EndpointConfig, backoff_base=0.01,
                                                                     backoff_max=0.05, max_retries=2))


def test_success_stores_spans_score_and_transcript(world):
    script = {"api_key": KEY, "rules": [
        rule("Obstgarten", answer({"text": "Obstgarten", "severity": "minor"}, {"missing": True, "severity": "major"},
                                  score=55)),
        rule("Herbst", answer(score=97)),
        rule("Bäume", {"content": "```json\n{\"errors\": [{\"text\": \"erinnerten\", \"severity\": \"Critical\"}],"
                                  " \"score\": \"40\",}\n```"})]}
    cid = campaign(world)
    with ScriptedServer(script) as server:
        sid = add_llm(world, cid, server.base_url, api_key=KEY, concurrency=2)
        summary = run(world, sid)
        sent = server.requests
    assert summary["state"] == "done" and summary["suggested"] == 3 and summary["failed"] == 0, summary
    got = rows(world, sid)
    first = got[("orchard", 1)]
    start = ORCHARD[0].index("Obstgarten")
    assert first.state == "ok" and first.score == 55
    assert first.spans == [{"start": start, "end": start + len("Obstgarten") - 1, "severity": "minor"},
                           {"missing": True, "severity": "major"}]
    assert got[("orchard", 2)].spans == [] and got[("orchard", 2)].score == 97
    third = got[("orchard", 3)]
    assert third.spans[0]["severity"] == "major" and third.score == 40   # fences, "Critical", a string score
    assert first.transcript["item"] == "orchard:1" and first.transcript["system"] == "zephyr-mt"
    assert first.transcript["calls"][0]["messages"][0]["content"].startswith("You are an experienced English-to-German")
    assert first.calls == 1 and first.prompt_tokens > 0
    assert len(sent) == 3 and all(r["auth_ok"] and r["model"] == "m" for r in sent)
    assert KEY not in str(first.transcript)


def test_malformed_once_is_corrected_and_twice_fails_with_the_raw_answer(world):
    script = {"rules": [
        rule("Obstgarten", {"content": "It has one minor error."}, answer({"text": "Obstgarten", "severity": "minor"})),
        rule("Herbst", {"content": "no json at all"}, {"content": "{\"errors\": \"none\"}"}),
        rule("Bäume", answer({"text": "not in the translation", "severity": "minor"}),
             answer({"text": "Bäume", "severity": "major"}))]}
    cid = campaign(world)
    with ScriptedServer(script) as server:
        sid = add_llm(world, cid, server.base_url)
        summary = run(world, sid)
    got = rows(world, sid)
    assert got[("orchard", 1)].state == "ok" and got[("orchard", 1)].calls == 2
    corrective = got[("orchard", 1)].transcript["calls"][1]
    assert corrective["correction"] is True and "could not be used" in corrective["messages"][-1]["content"]
    failed = got[("orchard", 2)]
    assert failed.state == "failed" and "malformed answer after a corrective retry" in failed.error
    assert '"errors" must be a list' in failed.error and failed.transcript["raw"] == "{\"errors\": \"none\"}"
    assert got[("orchard", 3)].state == "ok"              # a quote not in the translation was sent back once
    assert summary["state"] == "done" and summary["failed"] == 1
    assert "1 of 3 segment(s) got no suggestion" in summary["message"]


def test_rate_limits_and_timeouts_are_retried_and_counted(world):
    script = {"rules": [
        rule("Obstgarten", {"status": 429, "retry_after": 0.01}, {"status": 429, "retry_after": 0.01}, answer(score=90)),
        rule("Herbst", {"delay": 1.5, **answer(score=10)}, answer(score=91)),
        rule("Bäume", answer(score=92))]}
    cid = campaign(world)
    with ScriptedServer(script) as server:
        sid = add_llm(world, cid, server.base_url, timeout=1)
        summary = run(world, sid)
    got = rows(world, sid)
    assert summary["suggested"] == 3, summary
    assert got[("orchard", 1)].retried_calls == 1 and got[("orchard", 1)].score == 90
    assert got[("orchard", 2)].retried_calls == 1 and got[("orchard", 2)].score == 91   # the slow answer timed out


def test_retries_exhausted_fail_the_segment_and_a_rerun_asks_only_what_failed(world):
    script = {"rules": [rule("Obstgarten", {"status": 503}), rule("Herbst", answer(score=90)),
                        rule("Bäume", answer(score=80))]}
    cid = campaign(world)
    with ScriptedServer(script) as server:
        sid = add_llm(world, cid, server.base_url)
        first = run(world, sid)
        asked = len(server.requests)
    assert first["suggested"] == 2 and first["failed"] == 1
    failed = rows(world, sid)[("orchard", 1)]
    assert failed.state == "failed" and "503" in failed.error and failed.calls == 1
    assert failed.transcript["calls"][0]["attempts"] == 3                      # the first try and two retries
    # the endpoint recovers: a second run asks for the failed segment only (a partial run resumed)
    script["rules"][0] = rule("Obstgarten", answer({"text": "Krieg", "severity": "major"}, score=30))
    with ScriptedServer(script) as server:
        from enface.extensions import db
        from enface.protocols.esa.suggestions.models import Suggester

        with world.ctx(), db.write():
            db.session.get(Suggester, sid).base_url = server.base_url
        second = run(world, sid)
        assert len(server.requests) == 1
    assert asked >= 5 and second["suggested"] == 1 and second["failed"] == 0
    assert rows(world, sid)[("orchard", 1)].spans[0]["severity"] == "major"


def test_a_dead_endpoint_fails_every_segment_with_a_reason(world):
    cid = campaign(world)
    sid = add_llm(world, cid, "http://127.0.0.1:9/v1", timeout=1)
    summary = run(world, sid)
    assert summary["failed"] == 3 and summary["suggested"] == 0
    assert all(r.state == "failed" and r.error for r in rows(world, sid).values())


def test_settings_are_checked_and_the_key_is_never_shown(world):
    from enface.extensions import db
    from enface.protocols.esa.suggestions.models import Suggester
    from enface.services import ServiceError

    cid = campaign(world)
    for change, field in (({"base_url": "ftp://x"}, "base_url"), ({"concurrency": "0"}, "concurrency"),
                          ({"api_key_env": "ENFACE_SECRET_KEY"}, "api_key_env"),
                          ({"skip_threshold": "120"}, "skip threshold"), ({"temperature": "hot"}, "temperature")):
        with pytest.raises(ServiceError) as info:
            add_llm(world, cid, change.pop("base_url", "http://127.0.0.1:9/v1"), **change)
        assert info.value.details.get("field") == field, (change, info.value.message)
    sid = add_llm(world, cid, "http://127.0.0.1:9/v1", api_key=KEY, skip_threshold="95")
    with world.ctx():
        s = db.session.get(Suggester, sid)
        assert s.api_key_encrypted and KEY.encode() not in s.api_key_encrypted
        assert s.key_source == "stored secret (encrypted)" and s.skip_threshold == 95


def test_a_file_source_has_nothing_to_run_and_a_released_campaign_is_fixed(world):
    from enface.campaigns import services as svc
    from enface.protocols.esa.suggestions.running import queue_run
    from enface.protocols.esa.suggestions.source import upload_file
    from enface.services import ServiceError

    cid = campaign(world)
    line = '{"item": "orchard:1", "system": "zephyr-mt", "spans": []}\n'
    with world.ctx():
        suggester, n = upload_file(svc.get_campaign(cid), "s.jsonl", line.encode())
        assert n == 1
        with pytest.raises(ServiceError) as info:
            queue_run(suggester)
        assert info.value.code == "not_llm"


def test_a_live_run_beats_and_a_second_run_is_refused(world, monkeypatch):
    import threading
    import time

    from enface.extensions import db
    from enface.judges import running as judge_running
    from enface.protocols.esa.suggestions import running
    from enface.protocols.esa.suggestions.models import Suggester
    from enface.services import ServiceError

    monkeypatch.setattr(judge_running, "HEARTBEAT_EVERY", 0.05)
    cid = campaign(world)
    slow = {"rules": [rule(marker, {"delay": 0.3, **answer(score=90)}) for marker in ("Obstgarten", "Herbst", "Bäume")]}
    with ScriptedServer(slow) as server:
        sid = add_llm(world, cid, server.base_url, concurrency=1)
        worker = threading.Thread(target=run, args=(world, sid))
        worker.start()
        time.sleep(0.4)
        with world.ctx():
            s = db.session.get(Suggester, sid)
            assert s.state == "running" and judge_running.is_alive(s)
            first_beat = s.heartbeat_at
            assert running.run_suggester(sid)["skipped"]
            with pytest.raises(ServiceError, match="running already"):
                running.queue_run(s)
        time.sleep(0.3)
        with world.ctx():
            assert db.session.get(Suggester, sid).heartbeat_at > first_beat
        worker.join(60)
    with world.ctx():
        assert db.session.get(Suggester, sid).state == "done"
    assert all(r.state == "ok" for r in rows(world, sid).values())
