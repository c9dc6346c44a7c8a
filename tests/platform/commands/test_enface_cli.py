"""The ``enface`` command line, as the contract in the spec calls it."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from enface import create_app
from enface.commands import main

from tests.support.testkit import DEMO, TestConfigEnv, wait_http

ENFACE = [sys.executable, "-m", "enface.commands"]


@pytest.fixture
def cli_env(app, monkeypatch):
    """The CLI reads the same ENFACE_* variables as the app under test."""
    env = TestConfigEnv(app)
    for key, value in env.items():
        if key.startswith("ENFACE_"):
            monkeypatch.setenv(key, value)
    monkeypatch.setenv("ENFACE_JOBS", "eager")
    return env


def run(*args, ok=True):
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    if ok:
        assert result.exit_code == 0, result.output
    return result


def test_db_upgrade_on_a_fresh_data_dir(tmp_path, monkeypatch):
    monkeypatch.delenv("ENFACE_DATABASE_URL", raising=False)
    monkeypatch.setenv("ENFACE_DATA_DIR", str(tmp_path / "fresh"))
    monkeypatch.delenv("ENFACE_BROKER_URL", raising=False)
    out = run("db", "upgrade").output
    assert (tmp_path / "fresh" / "enface.sqlite").is_file()
    import sqlite3

    broker = sqlite3.connect(tmp_path / "fresh" / "broker.sqlite")
    assert sorted(n for (n,) in broker.execute("SELECT name FROM kombu_queue")) == ["cpu", "gpu", "llm"]
    from enface.migrate import head_revision

    head = head_revision()
    assert f"revision {head}" in out
    run("db", "upgrade")   # idempotent
    assert f"{head} (head: {head})" in run("db", "current").output


def test_create_user_with_token(cli_env, client):
    result = run("create-user", "--role", "organizer", "org@x.org", "--token")
    lines = result.output.strip().splitlines()
    assert "created organizer org@x.org" in lines[0] and lines[1].startswith("password: ")
    token = lines[-1]
    me = client.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"}).get_json()
    assert me["role"] == "organizer"
    # With --team: the first member creates the team and captains it, the next one joins.
    run("create-user", "cap@a.org", "--team", "Team A", "--password", "a long password")
    out = run("create-user", "mate@a.org", "--team", "Team A", "--password", "a long password", "--token").output
    token = out.strip().splitlines()[-1]
    assert client.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"}).get_json()["team"]["name"] == "Team A"
    from tests.support.testkit import login

    assert login(client, "cap@a.org", "a long password").status_code == 302
    assert "captain" in client.get("/team/").get_data(as_text=True)
    result = run("create-user", "cap@a.org", ok=False)
    assert result.exit_code == 1 and "exists" in result.output


def test_testset_import(cli_env, client):
    out = run("testset", "import", str(DEMO / "testset"), "--task", "Literary 2026").output
    assert "imported test set 1" in out and "3 documents, 67 segments, 2 references" in out
    body = client.get("/api/v1/testsets/1").get_json()
    assert body["task"] == "Literary 2026"
    assert [d["name"] for d in body["documents"]] == ["jade-lantern.1", "jade-lantern.2", "mountain-inn"]
    again = run("testset", "import", str(DEMO / "testset"), "--task", "Literary 2026", ok=False)
    assert again.exit_code == 1 and "already has" in again.output
    bad = run("testset", "import", str(DEMO / "systems"), "--task", "X", ok=False)
    assert bad.exit_code == 1 and "testset.json" in bad.output


def test_submit_waits_for_the_result(cli_env, app, live_server_factory):
    from tests.support.testkit import World

    world = World(app)
    ts = world.testset()
    _uid, token = world.team_with_token("cap@a.org", "Team A")
    server = live_server_factory(app)
    result = run("submit", "--url", server.url, "--token", token, "--testset", str(ts), "--label", "primary",
                 "--system-name", "strong", str(DEMO / "systems" / "strong-mt"))
    assert "submission 1 received" in result.output and "scored" in result.output
    assert "BLEU      45.04  nrefs:2|case:mixed" in result.output
    # Files one by one, unconstrained, contrastive: the rejection is printed with file and line, exit 1.
    files = sorted(str(p) for p in (DEMO / "systems" / "broken-mt").iterdir())
    result = run("submit", "--url", server.url, "--token", token, "--testset", str(ts), "--label", "contrastive",
                 "--unconstrained", "--system-name", "broken", *files, ok=False)
    assert result.exit_code == 1
    assert "invalid" in result.output and "jade-lantern.2.txt" in result.output and "line-count" in result.output
    # A refusal by the rules: the API's message, exit 1.
    result = run("submit", "--url", server.url, "--token", token, "--testset", str(ts), "--system-name", "again",
                 str(DEMO / "systems" / "weak-mt"), ok=False)
    assert result.exit_code == 1 and "primary_exists" in result.output
    # --no-wait returns at once.
    result = run("submit", "--url", server.url, "--token", token, "--testset", str(ts), "--label", "contrastive",
                 "--system-name", "weak", "--no-wait", str(DEMO / "systems" / "weak-mt"))
    # (PostgreSQL spends a sequence number on the refused insert above: do not assume the id)
    assert re.fullmatch(r"submission \d+ received: http://\S+/submissions/\d+", result.output.strip())
    bad_token = run("submit", "--url", server.url, "--token", "enf_nope", "--testset", str(ts), "--system-name", "x",
                    str(DEMO / "systems" / "weak-mt"), ok=False)
    assert bad_token.exit_code == 1 and "401" in bad_token.output


def test_sweep_and_rescore_commands(cli_env, app, client):
    from tests.support.testkit import World, upload

    world = World(app)
    ts = world.testset()
    _uid, token = world.team_with_token("cap@a.org", "Team A")
    sid = upload(client, ts, token).get_json()["id"]
    assert "0 submission(s) requeued" in run("sweep").output
    assert f"submission {sid} queued for re-scoring" in run("rescore", "--submission", str(sid)).output
    assert "1 submission(s) of test set" in run("rescore", "--testset", str(ts)).output
    assert run("rescore", ok=False).exit_code == 2
    sub = client.get(f"/api/v1/submissions/{sid}", headers={"Authorization": f"Bearer {token}"}).get_json()
    assert sub["state"] == "scored"
    assert sum("re-score requested by enface rescore" in e["message"] for e in sub["timeline"]) == 2


def test_reset_password_command(cli_env, client):
    run("create-user", "cap@a.org", "--password", "a long password")
    link = run("reset-password", "cap@a.org").output.strip()
    assert link.startswith("http://127.0.0.1:8000/auth/reset/")
    assert client.get(link.replace("http://127.0.0.1:8000", "")).status_code == 200


# --------------------------------------------------------------------------- serve and demo (real processes)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    out, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.add(child)
            todo.append(child)
    return out


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"


def test_serve_runs_gunicorn_and_a_worker_and_stops_cleanly(app, tmp_path):
    from tests.support.testkit import World

    world = World(app)
    ts = world.testset()
    _uid, token = world.team_with_token("cap@a.org", "Team A")
    env = TestConfigEnv(app) | {"HOME": str(tmp_path / "home")}
    port = _free_port()
    proc = subprocess.Popen([*ENFACE, "serve", "--port", str(port), "--workers", "1"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_http(url + "/healthz", proc)
        kids = _descendants(proc.pid)
        assert len(kids) >= 2   # gunicorn (master and worker) and celery
        # Nothing outside the data folder: no gunicorn control socket in ~/.gunicorn shared by every server.
        assert not (tmp_path / "home" / ".gunicorn").exists()
        result = subprocess.run([*ENFACE, "submit", "--url", url, "--token", token, "--testset", str(ts),
                                 "--label", "primary", "--system-name", "served", str(DEMO / "systems" / "strong-mt")],
                                env=env, capture_output=True, text=True, timeout=180)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "scored" in result.stdout and "45.04" in result.stdout
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            out, _ = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    assert proc.returncode == 0, out.decode(errors="replace")[-3000:]
    time.sleep(0.5)
    assert [k for k in kids if _alive(k)] == []   # gunicorn and the worker stopped with it


def _tails(folder: Path) -> str:
    return "".join(f"\n--- {p.name}\n{p.read_text(errors='replace')[-3000:]}" for p in sorted(folder.glob("*.log")))


def test_services_name_the_child_that_died_and_its_log(tmp_path):
    from enface.commands.serve import Services

    svc = Services("127.0.0.1", _free_port(), workers=1, jobs=1, log_dir=tmp_path / "logs")
    out = svc._output("worker")
    svc.procs["worker"] = subprocess.Popen([sys.executable, "-c", "print('boom'); raise SystemExit(3)"], stdout=out,
                                           stderr=subprocess.STDOUT)
    out.close()
    svc.procs["worker"].wait(timeout=30)
    with pytest.raises(RuntimeError, match=r"the worker process exited with status 3 while testing; its output is "
                                           r"in .*logs/worker\.log"):
        svc.check_alive("while testing")
    assert (tmp_path / "logs" / "worker.log").read_text() == "boom\n"


def test_demo_once(tmp_path, monkeypatch):
    env = dict(os.environ)
    env.update({"ENFACE_DATA_DIR": str(tmp_path / "demo"), "ENFACE_SCORING_WORKERS": "1"})
    for key in ("ENFACE_DATABASE_URL", "ENFACE_BROKER_URL", "ENFACE_RESULT_BACKEND", "ENFACE_COMET_MODEL",
                "ENFACE_JOBS"):
        env.pop(key, None)
    port = _free_port()
    logs = tmp_path / "demo" / "logs"
    try:
        result = subprocess.run([*ENFACE, "demo", "--once", "--port", str(port)], env=env, capture_output=True,
                                text=True, timeout=240)
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(f"{exc}\n{exc.stdout}\n{_tails(logs)}") from None
    assert result.returncode == 0, result.stdout + result.stderr + _tails(logs)
    assert "ready." in (logs / "worker.log").read_text()   # the children's output is kept, not thrown away
    out = result.stdout
    assert f"http://127.0.0.1:{port}/leaderboard/1" in out
    for email in ("organizer@demo.enface.org", "captain@lantern-lab.example", "captain@inkstone.example",
                  "annotator@demo.enface.org", "reader1@demo.enface.org", "reader2@demo.enface.org"):
        assert email in out
    # 3 of the 4 demo systems, and the 3 systems of the phenomena set
    assert "broken-mt" in out and ": invalid" in out and out.count(": scored") == 6
    assert "MQM campaign 1 started" in out and "reader study 2 started" in out
    # (the campaigns' ids follow the order the demo makes them in; each line names its own)
    assert re.search(r"rubric campaign \d+ started for annotator@demo\.enface\.org \(45 items", out), out
    assert re.search(r"BWS campaign \d+ started for annotator@demo\.enface\.org \(40 tuples of 4 of 5 versions", out), out
    assert re.search(r"finished BWS campaign \d+ released: 80 judgments", out), out
    assert "split-half reliability 0.954 over 100 random splits" in out
    assert "finished MQM campaign 3 released" in out and "/browse/1" in out
    assert re.search(r"contrastive ESA campaign \d+ started for annotator@demo\.enface\.org \(\d translations side", out), out
    esa_ai = re.search(r"ESA\^AI campaign (\d+) started for annotator@demo\.enface\.org", out)
    assert esa_ai, out
    assert f"ESA^AI suggester on campaign {esa_ai.group(1)}, against the demo's scripted endpoint" in out
    esa_link = re.search(r"ESA campaign (\d+) through its account-free link \(kept in .*demo-links\.json\): "
                         rf"http://127\.0\.0\.1:{port}(/crowd/l/lnk_[A-Za-z0-9_-]+)$", out, re.M)
    assert esa_link, out
    assert f"ESA campaign {esa_link.group(1)} started for one account-free link" in out
    logins = json.loads((tmp_path / "demo" / "demo-logins.json").read_text())
    assert len(logins) == 8 and all(len(p) >= 10 for p in logins.values())
    # Run again: nothing is duplicated, the same logins are printed.
    again = subprocess.run([*ENFACE, "demo", "--once", "--port", str(port)], env=env, capture_output=True,
                           text=True, timeout=240)
    assert again.returncode == 0, again.stderr
    assert logins["organizer@demo.enface.org"] in again.stdout and "submitted" not in again.stdout
    assert "started" not in again.stdout   # the campaigns are not made twice
    assert f"ESA campaign {esa_link.group(1)} through its account-free link" in again.stdout
    assert esa_link.group(2) in again.stdout   # the same link, printed again
    # The printed link opens the campaign's landing page without a login.
    for key in ("ENFACE_DATABASE_URL", "ENFACE_BROKER_URL", "ENFACE_RESULT_BACKEND"):
        monkeypatch.delenv(key, raising=False)
    landing = create_app({"DATA_DIR": str(tmp_path / "demo")}).test_client().get(esa_link.group(2))
    assert landing.status_code == 200 and "Start" in landing.get_data(as_text=True)
