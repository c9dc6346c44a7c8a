"""The platform's processes for the fault and load harnesses: a data folder with a migrated database,
and the worker and web server ``enface serve`` runs (same commands), each in its own process group."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import ROOT


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Platform:
    """A data folder, a migrated database and the environment of the child processes."""

    folder: Path
    database_url: str
    app: object = None
    env: dict = field(default_factory=dict)
    procs: list = field(default_factory=list)

    @classmethod
    def create(cls, folder: Path, database_url: str | None = None) -> Platform:
        from enface import create_app
        from enface.config import TestConfig
        from enface.migrate import upgrade

        data = folder / "data"
        data.mkdir(parents=True, exist_ok=True)
        url = database_url or f"sqlite:///{data / 'enface.sqlite'}"
        upgrade(url)
        app = create_app(TestConfig.for_dir(data, url, JOBS="celery", STUCK_AFTER_SECONDS=8))
        from .testkit import TestConfigEnv

        env = TestConfigEnv(app)
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "platform"), str(ROOT), env.get("PYTHONPATH", "")])
        env["ENFACE_RATELIMIT_STORAGE"] = "memory://"
        from enface.job_queue import declare_queues

        declare_queues(app.config["CELERY_BROKER_URL"])
        return cls(folder=folder, database_url=url, app=app, env=env)

    def log(self, name: str):
        return open(self.folder / f"{name}.log", "ab")   # noqa: SIM115  (the child holds it)

    def start_worker(self) -> subprocess.Popen:
        """The worker `enface serve` starts (prefork, one child), in its own process group."""
        from enface.commands.serve import worker_cmd

        with self.log("worker") as out:
            proc = subprocess.Popen(worker_cmd("cpu,gpu", 1, "WARNING"), env=self.env, stdout=out,
                                    stderr=subprocess.STDOUT, start_new_session=True, cwd=ROOT)
        self.procs.append(proc)
        return proc

    def start_web(self, port: int, workers: int = 2) -> subprocess.Popen:
        from enface.commands.serve import gunicorn_cmd

        cmd = gunicorn_cmd(f"127.0.0.1:{port}", workers, "/dev/null")
        with self.log("web") as out:
            proc = subprocess.Popen(cmd, env=self.env, stdout=out, stderr=subprocess.STDOUT,
                                    start_new_session=True, cwd=ROOT)
        self.procs.append(proc)
        wait_http(f"http://127.0.0.1:{port}/healthz", proc)
        return proc

    def stop_all(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()          # the main process, as `enface serve` and systemd stop them
        for proc in self.procs:
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                pass
            kill_group(proc)              # what is left of the group (a pool child the main one lost)
        self.procs.clear()
        self.app.extensions["enface_db"][0].dispose()


def kill_group(proc: subprocess.Popen, sig=signal.SIGKILL) -> None:
    try:
        os.killpg(proc.pid, sig)
    except ProcessLookupError:
        pass
    proc.wait(30)


def stop_gracefully(proc: subprocess.Popen, timeout: float = 30) -> None:
    """SIGTERM to the main process only, as `enface serve` and systemd stop a worker: a SIGTERM to the whole
    group also hits the pool child in the middle of a task, and the main process can then wait on it for
    longer than any timeout. What is still running after ``timeout`` is killed."""
    proc.terminate()
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        pass
    kill_group(proc)


def wait_http(url: str, proc, timeout: float = 60) -> None:
    import requests

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if requests.get(url, timeout=2).status_code == 200:
                return
        except requests.RequestException:
            pass
        if proc.poll() is not None:
            raise RuntimeError(f"{url}: the server exited ({proc.returncode})")
        time.sleep(0.2)
    raise RuntimeError(f"{url} did not answer within {timeout:.0f} s")


def scratch(prefix: str) -> Path:
    return Path(tempfile.mkdtemp(prefix=prefix))
