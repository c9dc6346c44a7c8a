"""Scripts for the scripted endpoint, shared by the judge tests (not a test module)."""

from __future__ import annotations

import json

KEY = "sk-test-9f8e7d6c5b4a-DO-NOT-LEAK"
DEBATER_A, DEBATER_B, JUDGE, SINGLE = "You are Debater A", "You are Debater B", "You are the judge", "You are a professional"


def scores(sp, g_1, g_2, thoughts="reasons", **extra):
    return {"json": {"sp": sp, "g_1": g_1, "g_2": g_2, "thoughts": thoughts, **extra}}


def verdict(judge, sp, g_1, g_2, reasons="because"):
    return {"json": {"judge": judge, "judge_reasons": reasons, "sp": sp, "g_1": g_1, "g_2": g_2}}


def rule(prefix, marker, *replies, cycle=False):
    return {"prefix": prefix, "match": [marker], "replies": list(replies), "cycle": cycle}


def item(item_id, marker, dimension="idiom", **extra):
    """An item whose source carries ``marker``, so that the script's rules find its requests."""
    return {"id": item_id, "dimension": dimension, "source": f"此人心细如发 {marker}",
            "translation": "This person is as meticulous as a hair.", "requirement": "心细如发 is an idiom",
            **extra}


def scenario_rules():
    """One marker per scenario; each scenario's item id equals its marker."""
    return [
        # agreeing debaters: both 2/2/1 at once, the judge says yes
        rule(DEBATER_A, "AGREE", scores(2, 2, 1, "idiom rendered well")),
        rule(DEBATER_B, "AGREE", scores(2, 2, 1, "same view")),
        rule(JUDGE, "AGREE", verdict("yes", 2, 2, 1, "they agree")),
        # disagreeing debaters converging in round 3
        rule(DEBATER_A, "CONVERGE", scores(2, 2, 2, "A-round1: perfect"), scores(1, 1, 2, "A-round2: stiff"),
             scores(1, 1, 1, "A-round3: agreed")),
        rule(DEBATER_B, "CONVERGE", scores(0, 0, 0, "B-round1: literal"), scores(1, 0, 1, "B-round2: partly"),
             scores(1, 1, 1, "B-round3: agreed")),
        rule(JUDGE, "CONVERGE", verdict("no", 1, 1, 2), verdict("no", 1, 1, 1), verdict("yes", 1, 1, 1, "agreed")),
        # never converging: the judge decides in the last round
        rule(DEBATER_A, "NEVER", scores(2, 2, 2, "A insists")),
        rule(DEBATER_B, "NEVER", scores(0, 0, 0, "B insists")),
        rule(JUDGE, "NEVER", verdict("no", 1, 1, 1), verdict("no", 1, 1, 1), verdict("no", 1, 1, 1),
             verdict("no", 1, 2, 1, "A's case is stronger on fluency")),
        # malformed once (prose, no JSON), then answers
        rule(SINGLE, "MALFORMED-ONCE", {"content": "I would give it a two, overall."}, scores(2, 1, 1)),
        # malformed twice: a recorded failure with the raw text
        rule(SINGLE, "MALFORMED-TWICE", {"content": "no json here"}, {"content": "{\"sp\": \"excellent\"}"}),
        # real-model formatting: fences, prose, trailing comma, string numbers
        rule(SINGLE, "FENCED", {"content": "Here is my assessment.\n```json\n{\"sp\": \"2\", \"g_1\": \"1\","
                                           " \"g_2\": 2, \"thoughts\": \"ok\",}\n```\nHope this helps!"}),
        # rate limited twice (Retry-After 0.05 s), then answers
        rule(SINGLE, "RATE-LIMITED", {"status": 429, "retry_after": 0.05}, {"status": 429, "retry_after": 0.05},
             scores(1, 1, 1)),
        # slow first answer (the client times out), then a fast one
        rule(SINGLE, "SLOW", {"delay": 1.5, **scores(0, 0, 0)}, scores(1, 1, 0)),
        # 5xx for ever: retries run out
        rule(SINGLE, "DOWN", {"status": 503}),
        # the sp=0 rule broken, then followed
        rule(SINGLE, "RULE", scores(0, 2, 1), scores(0, 0, 0)),
        # a server that echoes the key in its error message
        rule(SINGLE, "ECHO", {"status": 400, "message": f"bad request for key {KEY}"}),
    ]


def script(**extra):
    return {"api_key": KEY, "rules": scenario_rules(), **extra}


def write_items(path, items):
    path.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items), encoding="utf-8")
    return path
