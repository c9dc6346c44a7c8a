"""Lenient parsing of model answers, the prompt templates, the items file and the rate limiter."""

from __future__ import annotations

import pytest

from humaneval.errors import HumanEvalInputError
from humaneval.judge import (
    MalformedAnswer,
    PromptError,
    RateLimiter,
    load_prompts,
    parse_scores,
    parse_verdict,
)
from humaneval.judge.items import read_items


@pytest.mark.parametrize("text", [
    '{"sp": 2, "g_1": 1, "g_2": 2, "thoughts": "t"}',
    '```json\n{"sp": 2, "g_1": 1, "g_2": 2, "thoughts": "t"}\n```',
    'Sure. Here it is:\n```\n{"sp": "2", "g_1": "1", "g_2": 2.0, "thoughts": "t",}\n```\nThanks.',
    'My scores: {"sp": 2, "g_1": 1, "g_2": 2, "thoughts": "a {brace} in \\"quotes\\""} as asked.',
    '<think>{"sp": 0} hmm, maybe more</think>\n{"sp": 2, "g_1": 1, "g_2": 2, "thoughts": "t"}',
    '{"note": 1}\n{"sp": 2, "g_1": 1, "g_2": 2}',
])
def test_scores_parse_as_models_write_them(text):
    out = parse_scores(text)
    assert (out["sp"], out["g_1"], out["g_2"]) == (2, 1, 2)
    assert all(type(out[k]) is int for k in ("sp", "g_1", "g_2"))


@pytest.mark.parametrize("text, problem", [
    ("", "empty"), (None, "empty"), ("two, one, two", "no JSON object"), ("[2, 1, 2]", "no JSON object"),
    ('{"sp": 2, "g_1": 1}', '"g_2" is missing'), ('{"sp": 3, "g_1": 1, "g_2": 1}', '"sp" must be 0, 1 or 2'),
    ('{"sp": 1.5, "g_1": 1, "g_2": 1}', "must be 0, 1 or 2"), ('{"sp": true, "g_1": 1, "g_2": 1}', "not true"),
    ('{"sp": "high", "g_1": 1, "g_2": 1}', '"high"'), ('{"sp": 0, "g_1": 1, "g_2": 0}', "must be 0 too"),
    ('{"sp": 2, "g_1": 1, "g_2": 2', "no JSON object"),
])
def test_unusable_answers_say_why(text, problem):
    with pytest.raises(MalformedAnswer, match=problem.replace("(", r"\(")):
        parse_scores(text)


def test_verdicts():
    v = parse_verdict('```json\n{"judge": "Yes", "judge_reasons": "same", "sp": "1", "g_1": 1, "g_2": 0}\n```')
    assert v == {"judge": "yes", "judge_reasons": "same", "sp": 1, "g_1": 1, "g_2": 0}
    assert parse_verdict('{"judge": false, "sp": 2, "g_1": 2, "g_2": 2}')["judge"] == "no"
    with pytest.raises(MalformedAnswer, match='"judge" must be "yes" or "no"'):
        parse_verdict('{"judge": "maybe", "sp": 1, "g_1": 1, "g_2": 1}')
    with pytest.raises(MalformedAnswer, match="missing"):
        parse_verdict('{"judge": "yes"}')


def test_organizer_prompts_replace_defaults_file_by_file(tmp_path):
    (tmp_path / "single.txt").write_text("Score $source -> $translation on $dimension_name.\n$rubric", "utf-8")
    prompts = load_prompts(tmp_path)
    assert prompts.render("single", source="S", translation="T", dimension_name="D", rubric="R",
                          dimension_description="", requirement="", context="", reference="", examples="",
                          source_language="", target_language="") == "Score S -> T on D.\nR"
    assert "You are Debater" not in prompts.templates["single"].template
    assert prompts.templates["debater"].template == load_prompts().templates["debater"].template


@pytest.mark.parametrize("text, problem", [
    ("Score $sauce", r"unknown placeholder\(s\) \$sauce"),
    ("Costs 5$ each", "a '\\$' that is not a placeholder"),
])
def test_bad_templates_name_the_file(tmp_path, text, problem):
    (tmp_path / "judge.txt").write_text(text, "utf-8")
    with pytest.raises(PromptError, match=problem) as info:
        load_prompts(tmp_path)
    assert "judge.txt" in str(info.value)
    with pytest.raises(PromptError, match="not a folder"):
        load_prompts(tmp_path / "missing")


GOOD = '{"id": "1", "dimension": "idiom", "source": "s", "translation": "t", "requirement": "r"}'


@pytest.mark.parametrize("lines, line, problem", [
    ([GOOD, "{not json"], 2, "not valid JSON"),
    ([GOOD, "", '["a"]'], 3, "expected a JSON object"),
    (['{"id": "1", "dimension": "idiom", "source": "s", "translation": "t"}'], 1, "missing field.*requirement"),
    ([GOOD.replace("idiom", "pun")], 1, '"dimension" must be one of idiom, ambiguity'),
    ([GOOD.replace('"r"}', '"r", "extra": 1}')], 1, "unknown field.*extra"),
    ([GOOD, GOOD], 2, "duplicate id '1' \\(first on line 1\\)"),
    ([GOOD.replace('"t"', '""')], 1, '"translation" is empty'),
    ([GOOD.replace('"r"}', '"r", "reference": 5}')], 1, '"reference" must be a string'),
    ([GOOD.replace('"1"', "true")], 1, '"id" must be'),
])
def test_items_errors_name_the_line(tmp_path, lines, line, problem):
    path = tmp_path / "items.jsonl"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    with pytest.raises(HumanEvalInputError, match=problem) as info:
        read_items(str(path))
    assert info.value.line == line and str(info.value).startswith(f"{path}:{line}:")


def test_items_accept_optional_fields_and_integer_ids(tmp_path):
    path = tmp_path / "items.jsonl"
    path.write_text('\ufeff' + GOOD.replace('"1"', "7").replace('"r"}', '"r", "context": "c", "reference": null}'),
                    "utf-8")
    assert read_items(str(path)) == [{"id": "7", "dimension": "idiom", "source": "s", "translation": "t",
                                      "requirement": "r", "context": "c"}]
    (tmp_path / "empty.jsonl").write_text("\n\n", "utf-8")
    with pytest.raises(HumanEvalInputError, match="no items"):
        read_items(str(tmp_path / "empty.jsonl"))


def test_rate_limiter_spaces_starts_evenly():
    now, slept = [100.0], []
    limiter = RateLimiter(120, clock=lambda: now[0], sleep=slept.append)
    for _ in range(3):
        limiter.wait()
    assert slept == [0.5, 1.0]   # 120 a minute: starts at 0, 0.5, 1.0 s
    RateLimiter(None, clock=lambda: 0, sleep=slept.append).wait()
    assert slept == [0.5, 1.0]


def test_scored_examples_from_the_prompts_folder_reach_their_dimension_only(tmp_path):
    from humaneval.judge import ChatClient, EndpointConfig, Judge
    from humaneval.judge.scripted import ScriptedServer
    from humaneval.rubric import load_rubric

    (tmp_path / "examples.jsonl").write_text(
        '{"dimension": "idiom", "source": "心细如发", "translation": "as fine as a hair", "sp": 0, "g_1": 0, '
        '"g_2": 0, "comment": "GOLD-IDIOM literal"}\n', "utf-8")
    prompts = load_prompts(tmp_path)
    dims = {d["key"]: d for d in load_rubric("diting").to_dict()["dimensions"]}
    answer = {"prefix": "", "replies": [{"json": {"sp": 1, "g_1": 1, "g_2": 1}}]}
    with ScriptedServer({"rules": [answer]}) as srv:
        judge = Judge(ChatClient(EndpointConfig(base_url=srv.base_url, model="m", api_key="k")), prompts,
                      mode="single")
        for dim in ("idiom", "tense"):
            judge.score({"id": dim, "dimension": dim, "source": "s", "translation": "t", "requirement": "r"},
                        dims[dim])
        sent = [r["messages"][0]["content"] for r in srv.requests]
    assert "GOLD-IDIOM literal" in sent[0] and "## Scored examples" in sent[0]
    assert "GOLD-IDIOM" not in sent[1] and "## Scored examples" not in sent[1]


@pytest.mark.parametrize("line, problem", [
    ('{"dimension": "idiom", "source": "s", "translation": "t", "sp": 3, "g_1": 0, "g_2": 0}', '"sp" must be'),
    ('{"dimension": "puns", "source": "s", "translation": "t", "sp": 1, "g_1": 0, "g_2": 0}', '"dimension"'),
    ('{"source": "s"}', "missing field"), ("[1]", "expected a JSON object"), ("{", "not valid JSON"),
])
def test_bad_examples_name_the_line(tmp_path, line, problem):
    (tmp_path / "examples.jsonl").write_text("\n" + line + "\n", "utf-8")
    with pytest.raises(PromptError, match=problem) as info:
        load_prompts(tmp_path)
    assert "examples.jsonl:2:" in str(info.value)


def test_retry_after_forms():
    from datetime import datetime, timedelta, timezone
    from email.utils import format_datetime

    from humaneval.judge.client import _retry_after

    assert _retry_after({"retry-after-ms": "250"}) == 0.25
    assert _retry_after({"retry-after": "3"}) == 3.0
    assert _retry_after({"retry-after": "-4"}) == 0.0
    later = format_datetime(datetime.now(timezone.utc) + timedelta(seconds=30), usegmt=True)
    assert 25 < _retry_after({"retry-after": later}) <= 30
    assert _retry_after({"retry-after": "soon"}) is None
    assert _retry_after({}) is None and _retry_after(None) is None
