"""``enface testset rename|delete`` (issue 15): a test set renamed within its task, and deleted only before
anything is submitted to it; each refusal says why and exits 1."""

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


def run(*args, code=0, stdin=None):
    result = CliRunner().invoke(main, [str(a) for a in args], input=stdin, catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result


def imported(name=None) -> int:
    extra = ["--name", name] if name else []
    return int(run("testset", "import", DEMO / "testset", "--task", "Literary 2026", *extra).stdout.strip())


def names() -> dict[int, str]:
    return {r["id"]: r["name"] for r in json.loads(run("testset", "list", "--json").stdout)}


def test_rename_within_the_task(cli_env):
    first, second = imported(), imported("second")
    out = run("testset", "rename", first, "Literary test 2026").stdout
    assert f"test set {first} renamed:" in out and names()[first] == "Literary test 2026"
    taken = run("testset", "rename", second, "Literary test 2026", code=1)
    assert "already has a test set called 'Literary test 2026'" in taken.stderr
    assert "is not a test set id" in run("testset", "rename", "²", "x", code=1).stderr
    assert "there is no test set 999" in run("testset", "rename", 999, "x", code=1).stderr
    assert "name" in run("testset", "rename", second, "   ", code=1).stderr


def test_delete_before_any_submission_only(cli_env, app, world, client):
    empty, used = imported(), imported("used")
    run("testset", "set", used, "--opens", "now")
    _uid, token = world.team_with_token("cap@a.org", "Team A")
    assert upload(client, used, token).status_code == 202
    refused = run("testset", "delete", used, "--yes", code=1)
    assert f"test set {used} cannot be deleted: 1 submission was made" in refused.stderr
    assert used in names()
    aborted = run("testset", "delete", empty, stdin="n\n", code=1)     # asked first; "n" keeps it
    assert "Delete test set" in aborted.output and empty in names()
    out = run("testset", "delete", empty, "--yes").stdout
    assert f"test set {empty} deleted" in out and empty not in names()
    assert client.get(f"/api/v1/testsets/{empty}").status_code == 404
    assert "there is no test set" in run("testset", "delete", empty, "--yes", code=1).stderr
