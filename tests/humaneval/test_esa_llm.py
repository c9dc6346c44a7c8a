"""ESA^AI suggestions from an LLM: the answer parser, and every path against the scripted endpoint."""

from __future__ import annotations

import pytest

from humaneval.esa import ErrorSpan
from humaneval.esa.llm import (
    SpanItem,
    SpanSuggester,
    load_span_prompts,
    parse_span_answer,
    suggest_items,
)
from humaneval.judge import ChatClient, EndpointConfig, MalformedAnswer, PromptError
from humaneval.judge.scripted import ScriptedServer

KEY = "sk-esa-test-0123456789"
PREFIX = "You are an experienced"
TRANSLATION = "Der Hund bellt laut und der Hund schläft."


def test_parse_a_model_answer():
    text = ('Here are the errors:\n```json\n{"errors": [{"text": "Hund", "severity": "Major"}, '
            '{"text": "Hund", "severity": "critical"}, {"text": "  laut", "severity": "minor"}, '
            '{"text": "[MISSING]", "severity": "minor"}, {"start": 0, "end": 3, "severity": "minor"},], '
            '"score": "55"}\n```\nHope this helps.')
    answer = parse_span_answer(text, TRANSLATION)
    assert answer.spans == (ErrorSpan(4, 7, "major"), ErrorSpan(28, 31, "major"), ErrorSpan(15, 18, "minor"),
                            ErrorSpan(None, None, "minor"), ErrorSpan(0, 2, "minor"))
    assert answer.score == 55.0
    assert parse_span_answer('{"spans": []}', TRANSLATION).spans == ()
    assert parse_span_answer('{"errors": []}', TRANSLATION).score is None


@pytest.mark.parametrize("text, problem", [
    ("no json here", "no JSON object"),
    ('{"score": 50}', '"errors" is missing'),
    ('{"errors": "none"}', "must be a list"),
    ('{"errors": [{"text": "Katze", "severity": "minor"}]}', "does not occur in the translation"),
    ('{"errors": [{"text": "Hund", "severity": "neutral"}]}', '"severity" must be'),
    ('{"errors": [{"start": 5, "end": 500, "severity": "minor"}]}', "0 <= start < end <= 41"),
    ('{"errors": [{"severity": "minor"}]}', 'needs "text"'),
    ('{"errors": [], "score": 130}', "from 0 to 100"),
])
def test_malformed_answers_say_what_is_wrong(text, problem):
    with pytest.raises(MalformedAnswer, match=problem):
        parse_span_answer(text, TRANSLATION)


def _rule(marker, *replies):
    return {"prefix": PREFIX, "match": [marker], "replies": list(replies)}


GOOD = {"json": {"errors": [{"text": "bellt", "severity": "minor"}], "score": 80}}
SCRIPT = {"api_key": KEY, "rules": [
    _rule("GOOD", GOOD),
    _rule("FIXED", {"json": {"errors": [{"text": "miaut", "severity": "major"}]}}, GOOD),
    _rule("BROKEN", {"content": "I cannot find errors."}, {"content": "Still no JSON, sorry."}),
    _rule("BUSY", {"status": 429, "retry_after": 0.05}, GOOD),
    _rule("DOWN", {"status": 503}),
    _rule("CLEAN", {"json": {"errors": [], "score": 98}}),
]}


@pytest.fixture
def server():
    with ScriptedServer(SCRIPT) as srv:
        yield srv


def suggester(server, **config):
    config = {"timeout": 2.0, "max_retries": 2, "backoff_base": 0.01, **config}
    client = ChatClient(EndpointConfig(base_url=server.base_url, model="scripted-model", api_key=KEY, **config))
    return SpanSuggester(client, load_span_prompts(), "English", "German")


def span_item(marker, translation=TRANSLATION):
    return SpanItem(item=marker, system="sysA", source=f"The dog barks loudly {marker}", translation=translation,
                    context="Earlier text.")


def test_a_good_answer(server):
    result = suggester(server).suggest(span_item("GOOD"))
    assert result.ok and result.spans == (ErrorSpan(9, 13, "minor"),) and result.score == 80.0
    assert len(result.calls) == 1 and result.calls[0].role == "suggester"
    prompt = server.requests[0]["messages"][0]["content"]
    assert prompt.startswith(PREFIX) and "English-to-German" in prompt and TRANSLATION in prompt
    assert "Earlier text." in prompt and "The dog barks loudly GOOD" in prompt
    assert server.requests[0]["auth_ok"]
    suggestion = result.suggestion()
    assert (suggestion.item, suggestion.spans, suggestion.score) == ("GOOD", result.spans, 80.0)
    transcript = result.transcript()
    assert transcript["ok"] and transcript["spans"] == [{"start_i": 9, "end_i": 13, "severity": "minor",
                                                         "error_type": None}]
    assert KEY not in repr(transcript)


def test_a_quote_not_in_the_translation_is_sent_back_once(server):
    result = suggester(server).suggest(span_item("FIXED"))
    assert result.ok and result.spans == (ErrorSpan(9, 13, "minor"),)
    assert [c.correction for c in result.calls] == [False, True]
    correction = result.calls[1].messages[-1]["content"]
    assert "'miaut' does not occur in the translation" in correction
    assert result.calls[1].messages[1]["role"] == "assistant"


def test_two_malformed_answers_fail_the_item_and_keep_the_raw_answer(server):
    result = suggester(server).suggest(span_item("BROKEN"))
    assert not result.ok and result.raw == "Still no JSON, sorry."
    assert "malformed answer after a corrective retry" in result.error
    with pytest.raises(ValueError, match="no suggestion"):
        result.suggestion()


def test_rate_limits_are_retried_and_outages_fail(server):
    busy = suggester(server).suggest(span_item("BUSY"))
    assert busy.ok and busy.calls[0].attempts == 2 and "HTTP 429" in busy.calls[0].errors[0]
    down = suggester(server).suggest(span_item("DOWN"))
    assert not down.ok and "gave up after 3 attempts" in down.error and down.raw is None


def test_many_items_keep_their_order(server):
    items = [span_item(m) for m in ("CLEAN", "GOOD", "DOWN", "CLEAN")]
    seen = []
    results = suggest_items(suggester(server), items, concurrency=3, on_result=lambda r: seen.append(r.item))
    assert [r.item for r in results] == ["CLEAN", "GOOD", "DOWN", "CLEAN"] and sorted(seen) == sorted(r.item for r in results)
    assert [r.ok for r in results] == [True, True, False, True]
    assert results[0].suggestion().found_no_error and results[0].score == 98.0
    with pytest.raises(ValueError, match="concurrency"):
        suggest_items(suggester(server), items, concurrency=0)


def test_prompts_can_be_replaced_and_are_checked(tmp_path):
    (tmp_path / "spans.txt").write_text("Mark errors in $translation ($target_language).", encoding="utf-8")
    prompts = load_span_prompts(tmp_path)
    assert prompts.render("spans", translation="X", target_language="German", source="", source_language="",
                          context="") == "Mark errors in X (German)."
    assert "could not be used" in prompts.render("correction", problem="p")      # the default kept
    (tmp_path / "spans.txt").write_text("Mark $errors", encoding="utf-8")
    with pytest.raises(PromptError, match="unknown placeholder"):
        load_span_prompts(tmp_path)
    with pytest.raises(PromptError, match="not a folder"):
        load_span_prompts(tmp_path / "absent")
