"""``enface testset list|release|hide|set``: the organizer's test-set settings for scripts.

Contract: exit 0 on success, 1 with a sentence on a refused change; an import starts closed
and hidden and prints the new id alone on stdout.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from enface.commands import main

from tests.support.testkit import DEMO, TestConfigEnv, upload


@pytest.fixture
def cli_env(app, monkeypatch):
    for key, value in TestConfigEnv(app).items():
        if key.startswith("ENFACE_"):
            monkeypatch.setenv(key, value)
    monkeypatch.setenv("ENFACE_JOBS", "eager")


def run(*args, code=0):
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result


def listed(testset_id: int) -> dict:
    rows = json.loads(run("testset", "list", "--json").stdout)
    return next(r for r in rows if r["id"] == testset_id)


def imported() -> int:
    result = run("testset", "import", DEMO / "testset", "--task", "Literary 2026")
    return int(result.stdout.strip())


def test_import_prints_the_id_alone_and_starts_closed_and_hidden(cli_env, client):
    result = run("testset", "import", DEMO / "testset", "--task", "Literary 2026")
    assert result.stdout.strip().splitlines() == ["1"]
    assert "closed and hidden" in result.stderr and "enface testset set 1 --opens now" in result.stderr
    row = listed(1)
    assert row["open"] is False and row["opens_at"] is None and row["released"] is False
    assert client.get("/api/v1/testsets/1").get_json()["open"] is False
    assert client.get("/leaderboard/1").status_code == 404


def test_a_second_import_of_the_same_data_warns(cli_env):
    first = imported()
    again = run("testset", "import", DEMO / "testset", "--task", "Another task")
    assert int(again.stdout) == first + 1
    assert f"warning: test set {first} (Literary 2026: " in again.stderr and "same documents" in again.stderr
    # a different name in the same task: also warned about
    third = run("testset", "import", DEMO / "testset", "--task", "Literary 2026", "--name", "copy")
    assert third.stderr.count("warning: test set") == 2


def test_list_human_and_json(cli_env):
    assert "no test sets" in run("testset", "list").stdout
    ts = imported()
    text = run("testset", "list").stdout
    assert f"{ts}  Literary 2026:" in text and "closed, no opening set, no deadline" in text and "hidden" in text
    row = listed(ts)
    assert row["task"] == "Literary 2026" and row["documents"] == 3 and row["segments"] == 67
    assert row["daily_quota"] is not None and row["document_level"] is False


def test_set_opens_now_lets_teams_submit(cli_env, app, world, client):
    ts = imported()
    _uid, token = world.team_with_token("cap@a.org", "Team A")
    refused = upload(client, ts, token)
    assert refused.status_code == 403 and "not open yet" in refused.get_json()["error"]["message"]
    out = run("testset", "set", ts, "--opens", "now").stdout
    assert f"test set {ts} updated: open" in out
    assert listed(ts)["open"] is True
    assert upload(client, ts, token).status_code == 202


def test_set_every_option(cli_env):
    ts = imported()
    run("testset", "set", ts, "--opens", "2026-01-01T00:00", "--deadline", "2099-06-30T23:59+02:00",
        "--daily-quota", "3", "--total-quota", "20", "--document-level")
    row = listed(ts)
    assert row["opens_at"] == "2026-01-01T00:00:00+00:00"
    assert row["deadline"] == "2099-06-30T21:59:00+00:00"      # stored in UTC
    assert (row["daily_quota"], row["total_quota"], row["document_level"]) == (3, 20, True)
    assert row["open"] is True
    # options not given keep their values
    run("testset", "set", ts, "--no-document-level")
    row = listed(ts)
    assert row["document_level"] is False and row["daily_quota"] == 3 and row["deadline"].startswith("2099-06-30")
    run("testset", "set", ts, "--deadline", "none", "--daily-quota", "none")
    row = listed(ts)
    assert row["deadline"] is None and row["daily_quota"] is None and row["total_quota"] == 20


def test_release_and_hide(cli_env, client):
    ts = imported()
    run("testset", "set", ts, "--opens", "now")
    assert f"test set {ts} released" in run("testset", "release", ts).stdout
    assert listed(ts)["released"] is True and listed(ts)["released_at"]
    assert client.get(f"/leaderboard/{ts}").status_code == 200
    run("testset", "release", ts)                                    # again: still released, exit 0
    assert f"test set {ts} hidden" in run("testset", "hide", ts).stdout
    assert listed(ts)["released"] is False and listed(ts)["released_at"] is None
    assert client.get(f"/leaderboard/{ts}").status_code == 404


@pytest.mark.parametrize("args, sentence", [
    (["--opens", "2026-05-01T00:00", "--deadline", "2026-04-01T00:00"], "must come after the opening"),
    (["--opens", "2026-05-01T00:00", "--deadline", "2026-05-01T00:00"], "must come after the opening"),
    (["--daily-quota", "-1"], "between 0 and 100000"),
    (["--total-quota", "100001"], "between 0 and 100000"),
    (["--total-quota", "lots"], "is not a whole number"),
    (["--daily-quota", "²"], "is not a whole number"),
    (["--opens", "tomorrow"], "is not an ISO date-time"),
    (["--deadline", "now"], "is not an ISO date-time"),
    (["--opens", "0001-01-01T00:00"], "out of range"),
    (["--deadline", "9999-12-31T23:59"], "out of range"),
])
def test_refused_changes_exit_1_with_a_sentence_and_change_nothing(cli_env, args, sentence):
    ts = imported()
    run("testset", "set", ts, "--daily-quota", "5")
    before = listed(ts)
    result = run("testset", "set", ts, *args, code=1)
    assert sentence in result.stderr and result.stderr.startswith("enface: ")
    assert listed(ts) == before


def test_a_deadline_before_an_existing_opening_is_refused(cli_env):
    ts = imported()
    run("testset", "set", ts, "--opens", "2026-05-01T00:00")
    assert "must come after the opening" in run("testset", "set", ts, "--deadline", "2026-04-30T00:00", code=1).stderr


@pytest.mark.parametrize("command", [["release"], ["hide"], ["set", "--opens", "now"]])
@pytest.mark.parametrize("bad_id, sentence", [("999", "there is no test set 999"), ("abc", "is not a test set id"),
                                               ("3.5", "is not a test set id"), ("99999999999999", "is not a test set id")])
def test_unknown_or_malformed_ids_exit_1(cli_env, command, bad_id, sentence):
    imported()
    result = run("testset", command[0], bad_id, *command[1:], code=1)
    assert sentence in result.stderr


def test_set_without_options_is_a_usage_error(cli_env):
    ts = imported()
    assert "nothing to change" in run("testset", "set", ts, code=2).stderr
