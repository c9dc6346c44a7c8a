"""The judge library against the scripted endpoint: every debate path, retries, parsing, tokens, cost."""

from __future__ import annotations

import time

import pytest

from humaneval.judge import ChatClient, EndpointConfig, Judge, judge_items, load_prompts
from humaneval.judge.scripted import ScriptedServer
from humaneval.rubric import load_rubric
from tests.support.judge_scripts import KEY, item, script

DIMENSIONS = {d["key"]: d for d in load_rubric("diting").to_dict()["dimensions"]}


@pytest.fixture
def server():
    with ScriptedServer(script()) as srv:
        yield srv


def make_judge(server, mode="debate", sleeps=None, **config):
    config = {"timeout": 0.5, "max_retries": 3, "backoff_base": 0.01, **config}
    sleep = (lambda s: (sleeps.append(s), time.sleep(s))) if sleeps is not None else time.sleep
    client = ChatClient(EndpointConfig(base_url=server.base_url, model="scripted-model", api_key=KEY, **config),
                        sleep=sleep)
    return Judge(client, load_prompts(), mode=mode, max_rounds=config.pop("max_rounds", 4))


def run(judge, marker, **extra):
    return judge.score(item(marker, marker, **extra), DIMENSIONS["idiom"])


def requests_for(server, marker):
    return [r for r in server.requests if any(marker in m["content"] for m in r["messages"])]


def test_agreeing_debaters_end_in_round_one(server):
    result = run(make_judge(server), "AGREE")
    assert result.ok and (result.sp, result.g_1, result.g_2) == (2, 2, 1)
    assert result.rounds == 1 and result.consensus is True
    assert [c.role for c in result.calls] == ["debater_a", "debater_b", "judge"]
    sent = requests_for(server, "AGREE")
    assert all(r["auth_ok"] and r["model"] == "scripted-model" and r["temperature"] == 0 for r in sent)
    # the judge saw both debaters' arguments of this round
    assert "idiom rendered well" in sent[2]["messages"][0]["content"]
    assert "same view" in sent[2]["messages"][0]["content"]


def test_disagreeing_debaters_converge_in_round_three_with_memory(server):
    result = run(make_judge(server), "CONVERGE")
    assert result.ok and result.rounds == 3 and result.consensus is True
    assert (result.sp, result.g_1, result.g_2) == (1, 1, 1)
    assert len(result.calls) == 9 and [c.round for c in result.calls] == [1, 1, 1, 2, 2, 2, 3, 3, 3]
    round2_a = result.calls[3].messages[0]["content"]
    # round 2's debaters see round 1's arguments (both sides) and the judge's verdict: the debate memory
    assert "A-round1: perfect" in round2_a and "B-round1: literal" in round2_a and "consensus no" in round2_a
    assert "A-round2" not in round2_a
    # round 3's judge sees all rounds
    judge3 = result.calls[8].messages[0]["content"]
    assert all(f"{s}-round{n}" in judge3 for s in "AB" for n in (1, 2, 3))
    assert [e["judge"]["judge"] for e in result.debate] == ["no", "no", "yes"]


def test_never_converging_debate_ends_with_the_judge_deciding_in_the_last_round(server):
    result = run(make_judge(server), "NEVER")
    assert result.ok and result.rounds == 4 and result.consensus is False
    # the final scores are the judge's, not either debater's
    assert (result.sp, result.g_1, result.g_2) == (1, 2, 1)
    judges = [c.messages[0]["content"] for c in result.calls if c.role == "judge"]
    assert len(judges) == 4
    assert ["LAST round" in j for j in judges] == [False, False, False, True]
    assert result.judge_reasons == "A's case is stronger on fluency"


def test_max_rounds_is_honoured(server):
    judge = make_judge(server)
    judge.max_rounds = 2
    result = run(judge, "NEVER")
    assert result.rounds == 2 and result.consensus is False and (result.sp, result.g_1, result.g_2) == (1, 1, 1)
    assert "LAST round" in result.calls[-1].messages[0]["content"]


def test_malformed_answer_gets_one_corrective_retry(server):
    result = run(make_judge(server, mode="single"), "MALFORMED-ONCE")
    assert result.ok and (result.sp, result.g_1, result.g_2) == (2, 1, 1) and result.rounds == 1
    assert [c.correction for c in result.calls] == [False, True]
    retry = result.calls[1].messages
    assert [m["role"] for m in retry] == ["user", "assistant", "user"]
    assert retry[1]["content"] == "I would give it a two, overall."
    assert "no JSON object" in retry[2]["content"]


def test_malformed_twice_is_a_recorded_failure_with_the_raw_text(server):
    result = run(make_judge(server, mode="single"), "MALFORMED-TWICE")
    assert not result.ok and result.sp is None
    assert result.raw == '{"sp": "excellent"}'
    assert "malformed answer after a corrective retry" in result.error and '"sp"' in result.error
    assert len(result.calls) == 2 and result.transcript()["raw"] == '{"sp": "excellent"}'
    assert result.summary() == {"id": "MALFORMED-TWICE", "sp": None, "g_1": None, "g_2": None, "rounds": 1,
                                "consensus": False, "error": result.error}


def test_answers_as_real_models_format_them(server):
    result = run(make_judge(server, mode="single"), "FENCED")
    assert result.ok and (result.sp, result.g_1, result.g_2) == (2, 1, 2)
    assert len(result.calls) == 1


def test_rubric_rule_breach_is_sent_back(server):
    result = run(make_judge(server, mode="single"), "RULE")
    assert result.ok and (result.sp, result.g_1, result.g_2) == (0, 0, 0)
    assert "must be 0 too" in result.calls[1].messages[2]["content"]


def test_429_is_retried_honouring_retry_after(server):
    sleeps: list[float] = []
    result = run(make_judge(server, mode="single", sleeps=sleeps, backoff_base=5.0), "RATE-LIMITED")
    assert result.ok and result.calls[0].attempts == 3 and result.calls[0].retried
    assert sleeps == [0.05, 0.05]   # Retry-After, not the 5 s exponential backoff
    assert all("HTTP 429" in e for e in result.calls[0].errors)


def test_timeout_is_retried(server):
    result = run(make_judge(server, mode="single", timeout=0.4), "SLOW")
    assert result.ok and (result.sp, result.g_1, result.g_2) == (1, 1, 0)
    assert result.calls[0].attempts == 2 and "timed out" in result.calls[0].errors[0]


def test_5xx_retries_with_exponential_backoff_then_fail(server):
    sleeps: list[float] = []
    result = run(make_judge(server, mode="single", sleeps=sleeps, max_retries=3, backoff_base=0.02), "DOWN")
    assert not result.ok and "gave up after 4 attempts" in result.error and "HTTP 503" in result.error
    assert len(sleeps) == 3
    # each wait lies in [base * 2^(n-1) / 2, base * 2^(n-1)] (jitter)
    for n, s in enumerate(sleeps, 1):
        assert 0.01 * 2 ** (n - 1) <= s <= 0.02 * 2 ** (n - 1)


def test_wrong_bearer_token_is_refused_and_not_retried(server):
    client = ChatClient(EndpointConfig(base_url=server.base_url, model="m", api_key="sk-wrong", backoff_base=0.01))
    result = Judge(client, load_prompts(), mode="single").score(item("x", "AGREE"), DIMENSIONS["idiom"])
    assert not result.ok and "HTTP 401" in result.error and result.calls[0].attempts == 1
    assert server.requests[-1]["auth_ok"] is False


def test_tokens_and_cost_per_call(server):
    result = run(make_judge(server, price_prompt_per_1k=0.5, price_completion_per_1k=2.0), "AGREE")
    for call in result.calls:
        assert call.prompt_tokens > 100 and call.completion_tokens > 5
        assert call.cost == pytest.approx((call.prompt_tokens * 0.5 + call.completion_tokens * 2.0) / 1000)
    assert result.cost == pytest.approx(sum(c.cost for c in result.calls)) and result.cost > 0
    assert result.transcript()["prompt_tokens"] == sum(c.prompt_tokens for c in result.calls)


def test_many_items_in_order_with_bounded_concurrency():
    delay = {"prefix": "You are a professional", "replies": [{"delay": 0.3, "json": {"sp": 1, "g_1": 1, "g_2": 1}}]}
    with ScriptedServer({"rules": [delay]}) as srv:
        client = ChatClient(EndpointConfig(base_url=srv.base_url, model="m", api_key="k"))
        judge = Judge(client, load_prompts(), mode="single")
        items = [item(f"i{n}", f"M{n}") for n in range(8)]
        started = time.monotonic()
        results = judge_items(judge, items, DIMENSIONS, concurrency=4)
        elapsed = time.monotonic() - started
        times = sorted(r["at"] for r in srv.requests)
    assert [r.id for r in results] == [f"i{n}" for n in range(8)] and all(r.ok for r in results)
    assert 0.55 < elapsed < 1.5   # two waves of four, not eight in a row (2.4 s) nor all at once (0.3 s)
    assert times[4] - times[0] > 0.25   # the fifth request waited for a free slot


def test_rate_limit_spaces_requests():
    answer = {"prefix": "", "replies": [{"json": {"sp": 1, "g_1": 1, "g_2": 1}}]}
    with ScriptedServer({"rules": [answer]}) as srv:
        client = ChatClient(EndpointConfig(base_url=srv.base_url, model="m", api_key="k", requests_per_minute=600))
        judge = Judge(client, load_prompts(), mode="single")
        judge_items(judge, [item(f"i{n}", f"M{n}") for n in range(4)], DIMENSIONS, concurrency=4)
        times = sorted(r["at"] for r in srv.requests)
    assert times[-1] - times[0] >= 0.28   # 600 a minute: one every 0.1 s


def test_api_key_is_not_in_records_reprs_or_errors(server):
    judge = make_judge(server, mode="single")
    results = [run(judge, m) for m in ("ECHO", "AGREE", "DOWN")]
    assert "bad request for key ***" in results[0].error
    text = repr(judge.client) + repr(judge.client.config) + "".join(repr(r.transcript()) for r in results)
    assert KEY not in text


def test_demo_script_plays_every_debate_path():
    from humaneval.judge.demo_script import demo_script

    items = [item(f"d{n}", f"DEMO{n}", translation=f"Translation number {n}.") for n in range(30)]
    with ScriptedServer(demo_script(items, api_key=KEY, latency=0)) as srv:
        client = ChatClient(EndpointConfig(base_url=srv.base_url, model="m", api_key=KEY))
        results = judge_items(Judge(client, load_prompts()), items, DIMENSIONS, concurrency=1)
    assert all(r.ok for r in results) and all(r.consensus for r in results)
    assert {r.rounds for r in results} == {1, 2, 3}
    assert any(r.sp == 0 for r in results) and any(r.sp == 2 for r in results)
    assert not any(c.correction for r in results for c in r.calls)   # every scripted answer follows the rules
    assert all(len(r.calls) == 3 * r.rounds for r in results)
    again = []
    with ScriptedServer(demo_script(items, latency=0)) as srv:
        client = ChatClient(EndpointConfig(base_url=srv.base_url, model="m", api_key="x"))
        again = judge_items(Judge(client, load_prompts()), items, DIMENSIONS, concurrency=3)
    assert [r.scores() for r in again] == [r.scores() for r in results]   # repeatable
