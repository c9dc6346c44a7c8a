"""``enface serve``, ``enface worker`` and ``enface sweep``: the web server, Celery workers and the sweeper."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import click

from ._common import fail, load_app


class Services:
    """gunicorn and a Celery worker as child processes, plus the sweeper in a thread; stopped together."""

    def __init__(self, host: str, port: int, workers: int, jobs: int, log_dir: Path | None = None):
        """With ``log_dir``, the children write to ``web.log`` and ``worker.log`` there instead of the terminal."""
        self.host, self.port, self.workers, self.jobs, self.log_dir = host, port, workers, jobs, log_dir
        self.procs: dict[str, subprocess.Popen] = {}
        self.stopping = threading.Event()

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"http://{host}:{self.port}"

    def log(self, name: str) -> Path | None:
        return self.log_dir / f"{name}.log" if self.log_dir else None

    def _output(self, name: str):
        if self.log_dir is None:
            return None
        self.log_dir.mkdir(parents=True, exist_ok=True)
        return open(self.log(name), "ab")   # noqa: SIM115  (the child holds it; our copy closes below)

    def start(self) -> None:
        gunicorn = gunicorn_cmd(f"{self.host}:{self.port}", self.workers,
                                "-" if self.log_dir is None else "/dev/null")
        # LLM judge runs wait on remote endpoints for minutes: a worker of their own (``llm`` queue), so
        # that they never hold the processes that validate and score submissions.
        commands = {"web": gunicorn, "worker": worker_cmd("cpu,gpu", self.jobs, "INFO"),
                    "llm-worker": worker_cmd("llm", 2, "INFO")}
        for name, command in commands.items():
            out = self._output(name)
            try:
                self.procs[name] = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT if out else None)
            finally:
                if out is not None:
                    out.close()
        threading.Thread(target=self._sweeper, name="sweeper", daemon=True).start()

    def _sweeper(self) -> None:
        from ..judges.running import sweep_stalled as sweep_judges
        from ..services.pipeline import sweep as run_sweep

        app = load_app()
        every = app.config["SWEEP_EVERY_SECONDS"]
        while not self.stopping.wait(every):
            try:
                with app.app_context():
                    for sid, what in run_sweep():
                        click.echo(f"sweeper: submission {sid}: {what}", err=True)
                    for jid in sweep_judges():
                        click.echo(f"sweeper: LLM judge {jid}: its run had stopped; queued again", err=True)
            except Exception as exc:   # keep sweeping; say why it failed
                click.echo(f"sweeper: {type(exc).__name__}: {exc}", err=True)

    def wait_ready(self, timeout: float = 60) -> None:
        import urllib.request

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.check_alive("while starting")
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=2) as resp:
                    if resp.status == 200:
                        return
            except OSError:
                time.sleep(0.3)
        raise RuntimeError(f"the server did not answer on {self.url} within {timeout:.0f} s")

    def check_alive(self, when: str) -> None:
        """Raise RuntimeError, naming the log to read, if the web server or the worker has exited."""
        for name, proc in self.procs.items():
            if proc.poll() is not None:
                where = f"; its output is in {self.log(name)}" if self.log_dir else ""
                raise RuntimeError(f"the {name} process exited with status {proc.returncode} {when}{where}")

    def stop(self) -> None:
        self.stopping.set()
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.terminate()   # gunicorn and celery both shut down gracefully on SIGTERM
        deadline = time.monotonic() + 30
        for proc in self.procs.values():
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def wait_forever(self) -> int:
        """Block until SIGTERM/SIGINT or until a child dies; then stop both. Returns the exit status."""
        stop = threading.Event()

        def handler(_signum, _frame):
            stop.set()

        old = {s: signal.signal(s, handler) for s in (signal.SIGTERM, signal.SIGINT)}
        status = 0
        try:
            while not stop.wait(0.5):
                dead = [(n, p.returncode) for n, p in self.procs.items() if p.poll() is not None]
                if dead:
                    click.echo(f"enface: {dead[0][0]} exited with status {dead[0][1]}; stopping", err=True)
                    status = 1
                    break
        finally:
            click.echo("enface: stopping the web server and the worker…", err=True)
            self.stop()
            for s, h in old.items():
                signal.signal(s, h)
        return status


def prepare(upgrade_db: bool = True):
    """Create the data directory, secret key and broker queues once, before child processes race for them; migrate."""
    from ..config import Config
    from ..job_queue import declare_queues
    from ..migrate import upgrade

    cfg = Config.from_env()
    os.environ["ENFACE_DATA_DIR"] = str(cfg.DATA_DIR)   # children resolve the same folder
    cfg.finalize()
    if upgrade_db:
        upgrade(cfg.SQLALCHEMY_DATABASE_URI)
    declare_queues(cfg.CELERY_BROKER_URL)
    return cfg


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=int)
@click.option("--workers", default=2, show_default=True, type=int, help="gunicorn worker processes")
@click.option("--jobs", default=1, show_default=True, type=int, help="Celery worker processes")
@click.option("--no-upgrade", is_flag=True, help="do not migrate the database first")
def serve(host, port, workers, jobs, no_upgrade):
    """Run gunicorn and a Celery worker in the foreground (stops both on SIGTERM or Ctrl-C)."""
    cfg = prepare(not no_upgrade)
    svc = Services(host, port, workers, jobs)
    svc.start()
    try:
        svc.wait_ready()
    except RuntimeError as exc:
        svc.stop()
        fail(str(exc))
    click.echo(f"Enface is running on {svc.url} (data in {cfg.DATA_DIR}); Ctrl-C stops it.")
    raise SystemExit(svc.wait_forever())


@click.command()
@click.option("-Q", "--queues", default="cpu,gpu", show_default=True, help="cpu: validation and sacrebleu "
              "metrics; gpu: COMET (needs ENFACE_COMET_MODEL); llm: LLM judge runs")
@click.option("-c", "--concurrency", type=int, default=None, help="worker processes [default: one per core]")
@click.option("--loglevel", default="INFO", show_default=True)
def worker(queues, concurrency, loglevel):
    """Run a Celery worker (for more workers on more machines)."""
    cmd = worker_cmd(queues, concurrency, loglevel)
    os.execv(cmd[0], cmd)


def gunicorn_cmd(bind: str, workers: int, access_log: str = "-") -> list[str]:
    """The web server `enface serve` runs (the fault and load harnesses run the same)."""
    return [sys.executable, "-m", "gunicorn", "--bind", bind, "--workers", str(workers), "--worker-class", "gthread",
            "--threads", "4", "--timeout", "120", "--graceful-timeout", "20", "--access-logfile", access_log,
            # No keep-alive: under load gthread closes a kept-alive connection whose timer ran out while a
            # request on it waited to be read, and the client gets "connection reset" (bench/load.py saw
            # 2-7 resets a minute at 200 users). A reverse proxy in front keeps its own connections alive.
            "--keep-alive", "0",
            # gunicorn's control socket defaults to ~/.gunicorn/gunicorn.ctl, one path for every server
            # the user runs (two `enface serve` would take it from each other); enface does not use it.
            "--no-control-socket", "enface:create_app()"]


def worker_cmd(queues: str, concurrency: int | None, loglevel: str = "INFO") -> list[str]:
    cmd = [sys.executable, "-m", "celery", "-A", "enface.worker", "worker", "-Q", queues, "--loglevel", loglevel,
           "-n", f"enface-{queues.replace(',', '-')}-{os.getpid()}@{socket.gethostname()}", "--without-gossip", "--without-mingle"]
    if concurrency:
        cmd += ["-c", str(concurrency)]
    return cmd


@click.command()
@click.option("--stuck-after", type=int, default=None, help="seconds without a heartbeat (default ENFACE_STUCK_AFTER)")
def sweep(stuck_after):
    """Requeue submissions whose worker died (`enface serve` does this every minute; run it from cron otherwise)."""
    from ..services.pipeline import sweep as run_sweep

    app = load_app()
    with app.app_context():
        done = run_sweep(stuck_after)
    for sid, what in done:
        click.echo(f"submission {sid}: {what}")
    click.echo(f"{len(done)} submission(s) requeued or given up")
