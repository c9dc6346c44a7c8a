"""``python -m humaneval judge``: the JSON contract, exit codes, errors, and the key never printed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from humaneval.judge.scripted import ScriptedServer
from tests.support.judge_scripts import KEY, item, script, write_items

ROOT = Path(__file__).resolve().parents[2]


def cli(*args, env_key="OPENAI_API_KEY", key=KEY, timeout=60):
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "platform")])
    if key is not None:
        env[env_key] = key
    return subprocess.run([sys.executable, "-m", "humaneval", "judge", *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def server():
    with ScriptedServer(script()) as srv:
        yield srv


def test_debate_json_contract_in_input_order(server, tmp_path):
    items = write_items(tmp_path / "items.jsonl", [item("NEVER", "NEVER"), item("AGREE", "AGREE", dimension="tense"),
                                                   item("CONVERGE", "CONVERGE", context="前一句", reference="ref")])
    out = cli(items, "--base-url", server.base_url, "--model", "m", "--json", "--concurrency", "3")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == {"items": [
        {"id": "NEVER", "sp": 1, "g_1": 2, "g_2": 1, "rounds": 4, "consensus": False},
        {"id": "AGREE", "sp": 2, "g_1": 2, "g_2": 1, "rounds": 1, "consensus": True},
        {"id": "CONVERGE", "sp": 1, "g_1": 1, "g_2": 1, "rounds": 3, "consensus": True}]}
    assert all(r["auth_ok"] for r in server.requests)
    converge = [r for r in server.requests if "CONVERGE" in r["messages"][0]["content"]]
    assert "前一句" in converge[0]["messages"][0]["content"]   # the context reaches the prompt
    tense = [r for r in server.requests if "AGREE" in r["messages"][0]["content"]][0]["messages"][0]["content"]
    assert "Tense Consistency" in tense   # the item's dimension picks the matched rubric


def test_single_mode_max_rounds_custom_key_variable_and_prompts(server, tmp_path):
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    (prompts / "judge.txt").write_text("You are the judge. $source $memory $rubric\nCUSTOM-JUDGE-PROMPT $last_round", "utf-8")
    items = write_items(tmp_path / "items.jsonl", [item("NEVER", "NEVER")])
    out = cli(items, "--base-url", server.base_url, "--model", "m", "--json", "--max-rounds", "2",
              "--api-key-env", "MY_JUDGE_KEY", "--prompts", prompts, env_key="MY_JUDGE_KEY")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["items"] == [{"id": "NEVER", "sp": 1, "g_1": 1, "g_2": 1, "rounds": 2,
                                                "consensus": False}]
    assert sum("CUSTOM-JUDGE-PROMPT" in r["messages"][0]["content"] for r in server.requests) == 2
    items = write_items(tmp_path / "single.jsonl", [item("FENCED", "FENCED"), item("MALFORMED-ONCE", "MALFORMED-ONCE")])
    out = cli(items, "--base-url", server.base_url, "--model", "m", "--json", "--mode", "single",
              "--source-language", "Japanese")
    assert "professional Japanese-to-English literary translator" in server.requests[-1]["messages"][0]["content"]
    assert json.loads(out.stdout)["items"] == [
        {"id": "FENCED", "sp": 2, "g_1": 1, "g_2": 2, "rounds": 1, "consensus": False},
        {"id": "MALFORMED-ONCE", "sp": 2, "g_1": 1, "g_2": 1, "rounds": 1, "consensus": False}]


def test_failed_items_exit_3_with_errors_and_the_key_never_printed(server, tmp_path):
    items = write_items(tmp_path / "items.jsonl", [item("ECHO", "ECHO"), item("MALFORMED-TWICE", "MALFORMED-TWICE"),
                                                   item("FENCED", "FENCED")])
    transcripts = tmp_path / "transcripts.jsonl"
    out = cli(items, "--base-url", server.base_url, "--model", "m", "--json", "--mode", "single",
              "--max-retries", "1", "--transcripts", transcripts)
    assert out.returncode == 3
    got = json.loads(out.stdout)["items"]
    assert [g["id"] for g in got] == ["ECHO", "MALFORMED-TWICE", "FENCED"]
    assert got[0]["sp"] is None and "HTTP 400" in got[0]["error"] and "***" in got[0]["error"]
    assert got[2]["sp"] == 2
    assert "item MALFORMED-TWICE" in out.stderr
    lines = [json.loads(x) for x in transcripts.read_text("utf-8").splitlines()]
    assert lines[1]["raw"] == '{"sp": "excellent"}' and len(lines[1]["calls"]) == 2
    assert lines[2]["calls"][0]["messages"][0]["content"].startswith("You are a professional")
    for text in (out.stdout, out.stderr, transcripts.read_text("utf-8")):
        assert KEY not in text
    plain = cli(items, "--base-url", server.base_url, "--model", "m", "--mode", "single", "--max-retries", "0")
    assert plain.returncode == 3 and "2 of 3" not in plain.stdout and "1 of 3 items scored" in plain.stdout
    assert KEY not in plain.stdout + plain.stderr


def test_scripted_server_as_a_process_checks_the_bearer_token(tmp_path):
    script_file = tmp_path / "script.json"
    script_file.write_text(json.dumps(script()), "utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "humaneval.judge.scripted", "--port", "0", "--script",
                             script_file], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        base_url = proc.stdout.readline().split()[-1]
        items = write_items(tmp_path / "items.jsonl", [item("AGREE", "AGREE")])
        good = cli(items, "--base-url", base_url, "--model", "m", "--json")
        assert good.returncode == 0 and json.loads(good.stdout)["items"][0]["consensus"] is True
        bad = cli(items, "--base-url", base_url, "--model", "m", "--json", key="sk-not-the-key")
        assert bad.returncode == 3 and "HTTP 401" in json.loads(bad.stdout)["items"][0]["error"]
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.mark.parametrize("args, code, message", [
    (["--model", "m"], 2, "--base-url"),
    (["--base-url", "http://x/v1", "--model", "m", "--mode", "triple"], 2, "invalid choice: 'triple'"),
    (["--base-url", "http://x/v1", "--model", "m", "--concurrency", "0"], 2, "must be at least 1"),
    (["--base-url", "http://x/v1", "--model", "m", "--max-rounds", "two"], 2, "not a whole number"),
    (["--base-url", "http://x/v1", "--model", "m", "--api-key-env", "NOPE_UNSET"], 2,
     "NOPE_UNSET (named by --api-key-env) is not set"),
    (["--base-url", "http://x/v1", "--model", "m", "--rubric", "no-such-rubric"], 1, "no-such-rubric"),
    (["--base-url", "http://x/v1", "--model", "m", "--prompts", "/nonexistent"], 1, "not a folder"),
])
def test_usage_and_input_errors(tmp_path, args, code, message):
    items = write_items(tmp_path / "items.jsonl", [item("a", "AGREE")])
    out = cli(items, *args)
    assert out.returncode == code and message in out.stderr and out.stdout == ""


def test_bad_items_line_is_named(tmp_path):
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps(item("a", "A")) + "\n" + '{"id": "b", "dimension": "puns"}\n', "utf-8")
    out = cli(path, "--base-url", "http://127.0.0.1:9/v1", "--model", "m")
    assert out.returncode == 1 and f"{path}:2: missing field(s): source, translation, requirement" in out.stderr


def test_examples_option(server, tmp_path):
    examples = tmp_path / "examples.jsonl"
    examples.write_text('{"dimension": "idiom", "source": "x", "translation": "y", "sp": 2, "g_1": 2, "g_2": 2, '
                        '"comment": "CLI-GOLD"}\n', "utf-8")
    items = write_items(tmp_path / "items.jsonl", [item("FENCED", "FENCED")])
    out = cli(items, "--base-url", server.base_url, "--model", "m", "--json", "--mode", "single",
              "--examples", examples)
    assert out.returncode == 0, out.stderr
    assert "CLI-GOLD" in server.requests[-1]["messages"][0]["content"]
    examples.write_text('{"dimension": "idiom"}\n', "utf-8")
    bad = cli(items, "--base-url", server.base_url, "--model", "m", "--examples", examples)
    assert bad.returncode == 1 and f"{examples}:1: missing field(s)" in bad.stderr
