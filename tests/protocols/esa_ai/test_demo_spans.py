"""The demo's scripted answers to the error-span prompt: each one is an answer the suggester accepts,
about its own translation, and the scripted endpoint serves it for that translation's prompt."""

from __future__ import annotations

import json

from humaneval.esa.demo_script import span_rules
from humaneval.esa.llm import SpanItem, SpanSuggester, load_span_prompts, parse_span_answer
from humaneval.judge import ChatClient, EndpointConfig
from humaneval.judge.scripted import ScriptedServer

TEXTS = ["The lantern keeper walked home in the rain.", "He smiled.", "He smiled. Then he slept.",
         "Ein Satz ohne Fehler, vielleicht.", "Nobody came to buy a lantern that night."]


def test_every_rule_is_an_answer_the_suggester_accepts():
    rules = span_rules(TEXTS + ["", "  "])
    assert len(rules) == len(TEXTS)
    assert [len(r["match"][0]) for r in rules] == sorted((len(t) for t in TEXTS), reverse=True)
    many = span_rules([f"Segment number {n} of the demo, with some words in it." for n in range(40)] + TEXTS)
    flawless = 0
    for rule in many:
        text = rule["match"][0]
        answer = parse_span_answer(json.dumps(rule["replies"][0]["json"]), text)
        flawless += not answer.spans
        assert answer.score is not None and 0 <= answer.score <= 100
        assert (answer.score >= 92) == (not answer.spans)     # flawless ones score high, the budget filter's case
    assert 0 < flawless < len(many)


def test_the_scripted_endpoint_answers_each_translation_with_its_own_rule():
    with ScriptedServer({"rules": span_rules(TEXTS, latency=0)}) as server:
        suggester = SpanSuggester(ChatClient(EndpointConfig(server.base_url, "m", "")), load_span_prompts(),
                                  "English", "English")
        for text in TEXTS:
            result = suggester.suggest(SpanItem("d:1", "s", "source", text))
            assert result.ok, result.error
            assert all(s.missing or text[s.start:s.end + 1].strip() for s in result.spans)
