"""``enface doctor``: one line per check, exit status 1 when one fails, and never a secret in the output."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from tests.support.processes import Platform

STRONG = "d0c70r-a-random-enough-secret-key-for-the-tests-0123456789"


def doctor(env: dict, *args: str):
    from enface.commands import main

    return CliRunner().invoke(main, ["doctor", *args], env=env)


def lines(output: str) -> dict[str, str]:
    """check name -> status"""
    out = {}
    for line in output.splitlines():
        status, _, rest = line.partition("  ")
        if status.strip() in ("ok", "FAIL", "skip") and ":" in rest:
            out[rest.split(":")[0].strip()] = status.strip()
    return out


@pytest.fixture
def env(database_url, tmp_path):
    return {"ENFACE_DATABASE_URL": database_url, "ENFACE_DATA_DIR": str(tmp_path / "data"),
            "ENFACE_SECRET_KEY": STRONG, "ENFACE_JOBS": "eager", "ENFACE_COMET_MODEL": ""}


def test_a_healthy_deployment_passes_every_check(env):
    result = doctor(env)
    assert result.exit_code == 0, result.output
    found = lines(result.output)
    assert found["secret key"] == found["database"] == found["broker"] == "ok", result.output
    assert found["rate-limit store"] == found["disk space"] == "ok"
    assert found["workers (cpu)"] == "skip" and found["COMET"] == "skip"   # eager jobs; no COMET configured
    assert result.output.strip().endswith("all checks passed")
    assert STRONG not in result.output


@pytest.mark.parametrize("key", ["test-secret-key", "short-but-not-known", ""])
def test_a_weak_or_missing_secret_key_fails(env, key):
    result = doctor({**env, "ENFACE_SECRET_KEY": key})
    assert result.exit_code == 1
    assert lines(result.output)["secret key"] == "FAIL"
    assert "1 check failed" in result.output


def test_a_generated_secret_key_file_must_be_private(env, tmp_path):
    data = tmp_path / "data"
    data.mkdir(parents=True, exist_ok=True)
    (data / "secret_key").write_text("f" * 64 + "\n")
    (data / "secret_key").chmod(0o644)
    env = {k: v for k, v in env.items() if k != "ENFACE_SECRET_KEY"}
    result = doctor(env)
    assert result.exit_code == 1 and "chmod 600" in result.output
    (data / "secret_key").chmod(0o600)
    assert lines(doctor(env).output)["secret key"] == "ok"


@pytest.mark.sqlite_only   # points doctor at an empty SQLite file on purpose (the PostgreSQL pass's guard forbids it)
def test_an_unmigrated_database_and_a_dead_broker_fail_without_showing_passwords(env, tmp_path):
    result = doctor({**env, "ENFACE_DATABASE_URL": f"sqlite:///{tmp_path / 'empty.sqlite'}",
                     "ENFACE_BROKER_URL": "redis://:hunter2-broker@127.0.0.1:1/0"})
    assert result.exit_code == 1
    found = lines(result.output)
    assert found["database"] == "FAIL" and "run enface db upgrade" in result.output
    assert found["broker"] == "FAIL" and "hunter2" not in result.output
    result = doctor({**env, "ENFACE_DATABASE_URL": "postgresql+psycopg://enface:hunter2-db@127.0.0.1:1/x"})
    assert lines(result.output)["database"] == "FAIL" and "hunter2" not in result.output


def test_the_disk_space_floor(env):
    result = doctor(env, "--min-free-gb", "1000000")
    assert result.exit_code == 1 and lines(result.output)["disk space"] == "FAIL"


def test_judges_endpoints_with_network(env, make_app, tmp_path):
    """--network asks each judge's endpoint; one on a closed port fails with its URL (never its key)."""
    from enface.extensions import db
    from enface.judges.crypto import encrypt
    from enface.judges.models import Judge

    from tests.support.campaigns import build_world, new_campaign

    app = make_app(SECRET_KEY=STRONG)
    world = build_world(app, tmp_path)
    campaign = new_campaign(world)
    with app.app_context(), db.write():
        db.session.add(Judge(campaign_id=campaign, user_id=world.users["org@example.org"], name="closed",
                             base_url="http://127.0.0.1:1/v1", model="m",
                             api_key_encrypted=encrypt("sk-hunter2", STRONG)))
    assert "judge" not in " ".join(lines(doctor(env).output))   # only with --network
    result = doctor({**env, "ENFACE_SECRET_KEY": STRONG}, "--network", "--timeout", "3")
    assert result.exit_code == 1
    assert lines(result.output)["judge 1 (closed)"] == "FAIL" and "http://127.0.0.1:1/v1" in result.output
    assert "hunter2" not in result.output


def test_workers_answer_on_their_queues(database_url, tmp_path):
    """A real worker on cpu,gpu answers its ping tasks; nobody serves llm, which fails."""
    platform = Platform.create(tmp_path / "doctor", database_url)
    try:
        platform.start_worker()
        env = {**{k: v for k, v in platform.env.items() if k.startswith("ENFACE_")}, "ENFACE_SECRET_KEY": STRONG}
        # first until the cpu,gpu worker has started (the check returns as soon as it answers) ...
        started = doctor(env, "--queues", "cpu,gpu", "--timeout", "45")
        # ... then every queue: the llm check fails only when its timeout runs out, so a short one
        result = doctor(env, "--timeout", "3")
    finally:
        platform.stop_all()
    assert lines(started.output)["workers (cpu)"] == "ok", started.output
    found = lines(result.output)
    assert found["workers (cpu)"] == found["workers (gpu)"] == "ok", result.output
    assert found["workers (llm)"] == "FAIL" and "enface worker -Q llm" in result.output
    assert result.exit_code == 1
