"""The example deployment files in deploy/ (docs/operations/deploy.md): systemd units, nginx, environment.

The units are checked by ``systemd-analyze verify`` where it is installed (with the venv path pointed at
this interpreter's), and always parsed: every command they run is a real ``enface`` command, and the web
unit's gunicorn flags are those ``enface serve`` uses. nginx's snippet is parsed (``nginx -t`` needs
certificates): TLS, the upload limit above Enface's own, the proxy headers ProxyFix reads.
"""

from __future__ import annotations

import configparser
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
UNITS = sorted((DEPLOY / "systemd").glob("*.*"))
VENV_BIN = "/opt/enface/venv/bin"


def unit(path: Path) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str
    parser.read_string(path.read_text())
    return parser


def test_the_units_are_the_expected_set():
    assert {p.name for p in UNITS} == {"enface-web.service", "enface-worker@.service", "enface-sweep.service",
                                       "enface-sweep.timer"}


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_systemd_analyze_verifies_the_units(tmp_path):
    here = str(Path(sys.executable).parent)
    assert (Path(here) / "enface").exists() or (Path(here) / "python").exists()
    for path in UNITS:
        (tmp_path / path.name).write_text(path.read_text().replace(VENV_BIN, here))
    names = ["enface-web.service", "enface-worker@cpu.service", "enface-worker@gpu.service",
             "enface-worker@llm.service", "enface-sweep.service", "enface-sweep.timer"]
    if not (Path(here) / "enface").exists():
        pytest.skip(f"no enface script beside {sys.executable}")
    done = subprocess.run(["systemd-analyze", "verify", "--man=no", *names], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    problems = [line for line in done.stderr.splitlines() if "enface" in line]
    assert done.returncode == 0 and not problems, done.stderr


def test_the_units_run_real_enface_commands():
    from enface.commands import main

    for path in UNITS:
        if path.suffix != ".service":
            continue
        service = unit(path)["Service"]
        assert service["EnvironmentFile"] == "/etc/enface/enface.env"
        assert service["User"] == "enface" and service["NoNewPrivileges"] == "yes"
        for key in ("ExecStartPre", "ExecStart"):
            if key not in service:
                continue
            argv = shlex.split(service[key])
            assert argv[0].startswith(VENV_BIN + "/"), argv
            if argv[0].endswith("/enface"):
                command = main.commands[argv[1]]   # KeyError: not an enface command
                ctx = command.make_context(argv[1], [a.replace("%i", "cpu") for a in argv[2:]])
                assert ctx is not None


def test_the_web_unit_runs_gunicorn_as_enface_serve_does():
    from enface.commands.serve import gunicorn_cmd

    argv = shlex.split(unit(DEPLOY / "systemd" / "enface-web.service")["Service"]["ExecStart"])
    assert argv[1:3] == ["-m", "gunicorn"]
    served = gunicorn_cmd("127.0.0.1:8000", 4, "-")
    flags = lambda cmd: {a: cmd[i + 1] if i + 1 < len(cmd) and not cmd[i + 1].startswith("-") else None  # noqa: E731
                         for i, a in enumerate(cmd) if a.startswith("--")}
    assert flags(argv[3:]) == flags(served[3:])
    assert argv[-1] == served[-1] == "enface:create_app()"


def test_the_worker_template_serves_every_queue():
    from enface.job_queue import QUEUES, WORKER_QUEUES

    assert set(WORKER_QUEUES) == {queue for _task, queue in QUEUES.values()}
    text = (DEPLOY / "systemd" / "enface-worker@.service").read_text()
    for queue in WORKER_QUEUES:
        assert f"enface-worker@{queue}" in text
    timer = unit(DEPLOY / "systemd" / "enface-sweep.timer")["Timer"]
    assert timer["OnUnitActiveSec"] == "1min"


def test_the_environment_file_names_only_real_settings():
    from enface.config import Config

    source = (ROOT / "platform" / "enface" / "config.py").read_text()
    names = re.findall(r"^(?:#)?(ENFACE_[A-Z_]+)=", (DEPLOY / "enface.env").read_text(), re.M)
    assert "ENFACE_SECRET_KEY" in names and "ENFACE_PROXY_FIX" in names
    for name in names:
        assert f'"{name}"' in source or f"{name}" in source.split('"""')[1], f"{name} is not read by enface.config"
    assert Config.MAX_UPLOAD_BYTES == 50 * 2**20


def test_nginx_terminates_tls_and_allows_enface_s_upload_limit():
    from enface.config import Config

    text = (DEPLOY / "nginx" / "enface.conf").read_text()
    body = re.sub(r"#.*", "", text)
    assert body.count("{") == body.count("}")
    assert re.search(r"listen 443 ssl;", body) and "ssl_certificate " in body and "return 301 https://" in body
    size = re.search(r"client_max_body_size (\d+)m;", body)
    assert size and int(size.group(1)) * 2**20 >= Config.MAX_UPLOAD_BYTES + 64 * 1024
    for header in ("X-Forwarded-For", "X-Forwarded-Proto", "X-Forwarded-Host", "X-Request-ID"):
        assert f"proxy_set_header {header} " in body
    assert "proxy_pass http://enface;" in body and "server 127.0.0.1:8000;" in body


def test_proxy_fix_follows_the_environment(monkeypatch):
    from enface.config import Config

    assert Config.from_env().PROXY_FIX is False
    monkeypatch.setenv("ENFACE_PROXY_FIX", "1")
    assert Config.from_env().PROXY_FIX is True
