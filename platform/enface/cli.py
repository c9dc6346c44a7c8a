"""The ``enface`` command.

    enface db upgrade
    enface create-user --role participant|annotator|organizer|admin EMAIL [--team NAME] [--password PW] [--token]
    enface testset import DIR --task NAME
    enface serve [--host 127.0.0.1] [--port 8000] [--workers N] [--jobs N] [--no-upgrade]
    enface submit --url URL --token TOKEN --testset ID --label primary [--unconstrained] --system-name NAME FILES...
    enface demo [--port 8000] [--once] [--data DEMO_TASK_DIR]
    enface rescore (--testset ID | --submission ID)
    enface sweep
    enface reset-password EMAIL
    enface worker [-Q cpu,gpu] [-c N] [--loglevel INFO]

Every command reads the same ENFACE_* variables as the server (see enface/config.py).
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import click

ROOT = Path(__file__).resolve().parents[2]


def _app():
    from . import create_app

    return create_app()


def _fail(message: str, code: int = 1):
    click.echo(f"enface: {message}", err=True)
    raise SystemExit(code)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def main():
    """Enface: run a WMT-style literary translation shared task."""


# --------------------------------------------------------------------------- database


@main.group()
def db():
    """Database schema (Alembic migrations)."""


@db.command("upgrade")
@click.option("--revision", default="head", show_default=True)
def db_upgrade(revision: str):
    """Create or migrate the database (and create the SQLite broker's queues)."""
    from .config import Config
    from .jobs import declare_queues
    from .migrate import current_revision, upgrade

    cfg = Config.from_env()
    url = cfg.SQLALCHEMY_DATABASE_URI
    upgrade(url, revision)
    declare_queues(cfg.CELERY_BROKER_URL)
    click.echo(f"database at revision {current_revision(url)} ({_redact(url)})")


@db.command("current")
def db_current():
    """Print the database's migration revision."""
    from .config import Config
    from .migrate import current_revision, head_revision

    url = Config.from_env().SQLALCHEMY_DATABASE_URI
    click.echo(f"{current_revision(url)} (head: {head_revision()})")


def _redact(url: str) -> str:
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:   # not a URL we can parse: print nothing secret
        return "(database)"


# --------------------------------------------------------------------------- users and test sets


@main.command("create-user")
@click.option("--role", type=click.Choice(["participant", "annotator", "organizer", "admin"]), default="participant",
              show_default=True)
@click.option("--team", "team_name", help="team to join (created if it does not exist; its first member is captain)")
@click.option("--password", help="default: a random password, printed")
@click.option("--name", default="", help="display name")
@click.option("--token", "with_token", is_flag=True, help="also create an API token, printed as the last line")
@click.argument("email")
def create_user(role, team_name, password, name, with_token, email):
    """Create a user (and the team)."""
    from .services import ServiceError, accounts

    app = _app()
    with app.app_context():
        generated = password is None
        password = password or secrets.token_urlsafe(12)
        try:
            user = accounts.create_user(email, password, role=role, name=name, check_strength=not generated)
            if team_name:
                team, created = accounts.get_or_create_team(team_name)
                accounts.add_to_team(user, team, "captain" if created else "member")
        except ServiceError as exc:
            _fail(exc.message)
        click.echo(f"created {role} {user.email}" + (f" in team {user.team.name}" if user.team else ""))
        if generated:
            click.echo(f"password: {password}")
        if with_token:
            _token, secret = accounts.issue_token(user, "created by enface create-user")
            click.echo(secret)


@main.command("reset-password")
@click.argument("email")
@click.option("--base-url", default="http://127.0.0.1:8000", show_default=True)
def reset_password(email, base_url):
    """Print a one-time password reset link for a user."""
    from .services import accounts

    app = _app()
    with app.app_context():
        user = accounts.get_user_by_email(email)
        if user is None:
            _fail(f"no user {email}")
        click.echo(f"{base_url.rstrip('/')}/auth/reset/{accounts.make_reset_token(user)}")


@main.group()
def testset():
    """Test sets."""


@testset.command("import")
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--task", "task_name", required=True, help="task name (created if it does not exist)")
@click.option("--name", default=None, help="test set name (default: from testset.json)")
def testset_import(directory, task_name, name):
    """Import a test set in the scoring library's on-disk format."""
    from .services import ServiceError
    from .services.testsets import import_testset

    app = _app()
    with app.app_context():
        try:
            ts = import_testset(directory, task_name, name=name)
        except ServiceError as exc:
            _fail(exc.message)
        click.echo(f"imported test set {ts.id}: {ts.name} ({ts.src_lang}-{ts.tgt_lang}, {ts.num_documents} "
                   f"documents, {ts.num_segments} segments, {ts.num_refs} references) into task {task_name!r}")


# --------------------------------------------------------------------------- jobs


@main.command()
@click.option("--testset", "testset_id", type=int, help="re-score every scored or failed submission of a test set")
@click.option("--submission", "submission_id", type=int, help="re-score one submission")
def rescore(testset_id, submission_id):
    """Queue submissions for re-scoring (a worker does the work)."""
    from .extensions import db as database
    from .models import Submission
    from .services import ServiceError
    from .services import submissions as subs
    from .services.testsets import get_testset

    if (testset_id is None) == (submission_id is None):
        _fail("give --testset ID or --submission ID", 2)
    app = _app()
    with app.app_context():
        try:
            if submission_id is not None:
                sub = database.session.get(Submission, submission_id)
                if sub is None:
                    _fail(f"no submission {submission_id}")
                subs.rescore(None, sub, who="enface rescore")
                click.echo(f"submission {submission_id} queued for re-scoring")
            else:
                n = subs.rescore_testset(None, get_testset(testset_id), who="enface rescore")
                click.echo(f"{n} submission(s) of test set {testset_id} queued for re-scoring")
        except ServiceError as exc:
            _fail(exc.message)


@main.command()
@click.option("--stuck-after", type=int, default=None, help="seconds without a heartbeat (default ENFACE_STUCK_AFTER)")
def sweep(stuck_after):
    """Requeue submissions whose worker died (`enface serve` does this every minute; run it from cron otherwise)."""
    from .services.pipeline import sweep as run_sweep

    app = _app()
    with app.app_context():
        done = run_sweep(stuck_after)
    for sid, what in done:
        click.echo(f"submission {sid}: {what}")
    click.echo(f"{len(done)} submission(s) requeued or given up")


@main.command()
@click.option("-Q", "--queues", default="cpu,gpu", show_default=True, help="cpu: validation and sacrebleu "
              "metrics; gpu: COMET (needs ENFACE_COMET_MODEL)")
@click.option("-c", "--concurrency", type=int, default=None, help="worker processes [default: one per core]")
@click.option("--loglevel", default="INFO", show_default=True)
def worker(queues, concurrency, loglevel):
    """Run a Celery worker (for more workers on more machines)."""
    cmd = _worker_cmd(queues, concurrency, loglevel)
    os.execv(cmd[0], cmd)


def _worker_cmd(queues: str, concurrency: int | None, loglevel: str = "INFO") -> list[str]:
    cmd = [sys.executable, "-m", "celery", "-A", "enface.worker", "worker", "-Q", queues, "--loglevel", loglevel,
           "-n", f"enface-{os.getpid()}@{socket.gethostname()}", "--without-gossip", "--without-mingle"]
    if concurrency:
        cmd += ["-c", str(concurrency)]
    return cmd


# --------------------------------------------------------------------------- serve


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
        gunicorn = [sys.executable, "-m", "gunicorn", "--bind", f"{self.host}:{self.port}", "--workers",
                    str(self.workers), "--worker-class", "gthread", "--threads", "4", "--timeout", "120",
                    "--graceful-timeout", "20", "--access-logfile", "-" if self.log_dir is None else "/dev/null",
                    # gunicorn's control socket defaults to ~/.gunicorn/gunicorn.ctl, one path for every server
                    # the user runs (two `enface serve` would take it from each other); enface does not use it.
                    "--no-control-socket", "enface:create_app()"]
        commands = {"web": gunicorn, "worker": _worker_cmd("cpu,gpu", self.jobs, "INFO")}
        for name, command in commands.items():
            out = self._output(name)
            try:
                self.procs[name] = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT if out else None)
            finally:
                if out is not None:
                    out.close()
        threading.Thread(target=self._sweeper, name="sweeper", daemon=True).start()

    def _sweeper(self) -> None:
        from .services.pipeline import sweep as run_sweep

        app = _app()
        every = app.config["SWEEP_EVERY_SECONDS"]
        while not self.stopping.wait(every):
            try:
                with app.app_context():
                    for sid, what in run_sweep():
                        click.echo(f"sweeper: submission {sid}: {what}", err=True)
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


def _prepare(upgrade_db: bool = True):
    """Create the data directory, secret key and broker queues once, before child processes race for them; migrate."""
    from .config import Config
    from .jobs import declare_queues
    from .migrate import upgrade

    cfg = Config.from_env()
    os.environ["ENFACE_DATA_DIR"] = str(cfg.DATA_DIR)   # children resolve the same folder
    cfg.finalize()
    if upgrade_db:
        upgrade(cfg.SQLALCHEMY_DATABASE_URI)
    declare_queues(cfg.CELERY_BROKER_URL)
    return cfg


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=int)
@click.option("--workers", default=2, show_default=True, type=int, help="gunicorn worker processes")
@click.option("--jobs", default=1, show_default=True, type=int, help="Celery worker processes")
@click.option("--no-upgrade", is_flag=True, help="do not migrate the database first")
def serve(host, port, workers, jobs, no_upgrade):
    """Run gunicorn and a Celery worker in the foreground (stops both on SIGTERM or Ctrl-C)."""
    cfg = _prepare(not no_upgrade)
    svc = Services(host, port, workers, jobs)
    svc.start()
    try:
        svc.wait_ready()
    except RuntimeError as exc:
        svc.stop()
        _fail(str(exc))
    click.echo(f"Enface is running on {svc.url} (data in {cfg.DATA_DIR}); Ctrl-C stops it.")
    raise SystemExit(svc.wait_forever())


# --------------------------------------------------------------------------- submit (the client)


def _collect_files(paths: tuple[str, ...]) -> list[Path]:
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            files += sorted(f for f in p.iterdir() if f.is_file() and not f.name.startswith("."))
        else:
            files.append(p)
    return files


class ApiClient:
    def __init__(self, url: str, token: str):
        import requests

        self.base = url.rstrip("/")
        self.http = requests.Session()
        self.http.headers["Authorization"] = f"Bearer {token}"
        self.http.headers["User-Agent"] = "enface-submit"

    def _check(self, resp):
        try:
            body = resp.json()
        except ValueError:
            body = None
        if resp.status_code >= 400:
            err = (body or {}).get("error", {}) if isinstance(body, dict) else {}
            message = err.get("message") or resp.text[:300]
            raise click.ClickException(f"{resp.status_code} {err.get('code', '')}: {message}".replace(" :", ":"))
        return body

    def submit(self, testset_id: int, files: list[Path], **fields) -> dict:
        handles = [(f.name, open(f, "rb")) for f in files]
        try:
            resp = self.http.post(f"{self.base}/api/v1/testsets/{testset_id}/submissions",
                                  data={k: v for k, v in fields.items() if v is not None},
                                  files=[("files", (name, fh, "application/octet-stream")) for name, fh in handles],
                                  timeout=600)
        finally:
            for _n, fh in handles:
                fh.close()
        return self._check(resp)

    def submission(self, submission_id: int) -> dict:
        return self._check(self.http.get(f"{self.base}/api/v1/submissions/{submission_id}", timeout=60))


FINAL_STATES = ("scored", "invalid", "failed")


def wait_for(client: ApiClient, submission_id: int, timeout: float, show: bool = True,
             check: Callable[[], None] | None = None) -> dict:
    """Poll a submission until it is scored, invalid or failed, showing its progress.

    ``check`` is called on every poll; it raises to stop waiting (e.g. when the worker has died).
    """
    tty = sys.stderr.isatty()
    seen_events = 0
    deadline = time.monotonic() + timeout
    bar = None
    while True:
        if check is not None:
            check()
        sub = client.submission(submission_id)
        if show:
            for event in sub["timeline"][seen_events:]:
                if bar is not None:
                    bar.clear()
                click.echo(f"  {event['at'][11:19]} {event['state']:<10} {event['message']}", err=True)
            seen_events = len(sub["timeline"])
            if tty and sub["state"] == "scoring":
                if bar is None:
                    from tqdm import tqdm

                    bar = tqdm(total=100, desc="  scoring", unit="%", leave=False, file=sys.stderr)
                bar.update(int(sub["progress"] * 100) - bar.n)
        if sub["state"] in FINAL_STATES:
            if bar is not None:
                bar.close()
            return sub
        if time.monotonic() > deadline:
            raise click.ClickException(f"submission {submission_id} is still {sub['state']} after {timeout:.0f} s; "
                                       f"see {sub['page']}")
        time.sleep(1.0)


def print_result(sub: dict) -> int:
    from .models import METRICS

    if sub["state"] == "scored":
        click.echo(f"submission {sub['id']} scored ({sub['page']}):")
        for key in METRICS:
            s = sub["scores"].get(key)
            if s is None:
                continue
            if s["score"] is None:
                click.echo(f"  {s['name']:<7} n/a  ({s['reason']})")
            else:
                click.echo(f"  {s['name']:<7} {s['score']:7.2f}  {s['signature']}")
        return 0
    report = sub.get("report") or {}
    click.echo(f"submission {sub['id']} is {sub['state']} ({sub['page']})", err=True)
    for f in (report.get("errors") or []) + (report.get("warnings") or []):
        loc = f.get("file") or "(submission)"
        if f.get("line") is not None:
            loc += f":{f['line']}"
        click.echo(f"  {f['severity'].upper()} {loc}: {f['message']} [{f['code']}]", err=True)
    if not report and sub["timeline"]:
        click.echo(f"  {sub['timeline'][-1]['message']}", err=True)
    return 1


@main.command()
@click.option("--url", required=True, envvar="ENFACE_URL", help="the platform, e.g. http://127.0.0.1:8000 (or $ENFACE_URL)")
@click.option("--token", required=True, envvar="ENFACE_TOKEN", help="an API token (or $ENFACE_TOKEN)")
@click.option("--testset", "testset_id", required=True, type=int)
@click.option("--label", type=click.Choice(["primary", "contrastive", "baseline"]), default="primary",
              show_default=True)
@click.option("--unconstrained", is_flag=True, help="the system used data or models beyond the constrained track")
@click.option("--system-name", required=True)
@click.option("--description", default="")
@click.option("--no-wait", is_flag=True, help="return once the upload is accepted")
@click.option("--timeout", default=3600, show_default=True, type=float, help="seconds to wait for the result")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True))
def submit(url, token, testset_id, label, unconstrained, system_name, description, no_wait, timeout, files):
    """Upload a system output and wait for its validation and scores.

    FILES: <document>.txt files, a directory of them, a zip, or one file with every segment.
    Exit status: 0 scored (or accepted, with --no-wait), 1 invalid or failed or refused.
    """
    paths = _collect_files(files)
    if not paths:
        _fail("no files to upload", 2)
    client = ApiClient(url, token)
    created = client.submit(testset_id, paths, label=label, constrained="false" if unconstrained else "true",
                            system_name=system_name, description=description)
    click.echo(f"submission {created['id']} received: {created['page']}")
    if no_wait:
        return
    raise SystemExit(print_result(wait_for(client, created["id"], timeout)))


# --------------------------------------------------------------------------- demo

DEMO_USERS = [
    # email, role, team, display name
    ("organizer@demo.enface.org", "organizer", None, "Olga Organizer"),
    ("captain@lantern-lab.example", "participant", "Lantern Lab", "Lin Captain"),
    ("captain@inkstone.example", "participant", "Inkstone MT", "Ines Captain"),
    ("annotator@demo.enface.org", "annotator", None, "Ana Annotator"),
]
DEMO_SUBMISSIONS = [
    # submitter, system dir, label, constrained, system name, description
    ("organizer@demo.enface.org", "literal-mt", "baseline", True, "literal-baseline",
     "Word-for-word baseline: idioms translated literally, names inconsistent."),
    ("captain@lantern-lab.example", "strong-mt", "primary", True, "lantern-nmt",
     "Document-level NMT fine-tuned on web novels, with a glossary of character names."),
    ("captain@inkstone.example", "weak-mt", "primary", False, "inkstone-llm",
     "A prompted LLM, no fine-tuning (unconstrained)."),
    ("captain@inkstone.example", "broken-mt", "contrastive", True, "inkstone-draft",
     "An early draft with a missing line: shows the validation report."),
]


def _demo_accounts(app, data_dir: Path) -> dict[str, dict]:
    """Create the demo users once; their passwords are kept in <data_dir>/demo-logins.json."""
    from .services import accounts

    store = data_dir / "demo-logins.json"
    saved = json.loads(store.read_text()) if store.is_file() else {}
    out = {}
    with app.app_context():
        for email, role, team_name, name in DEMO_USERS:
            user = accounts.get_user_by_email(email)
            if user is None:
                password = secrets.token_urlsafe(9)
                user = accounts.create_user(email, password, role=role, name=name, check_strength=False)
                if team_name:
                    team, created = accounts.get_or_create_team(team_name)
                    accounts.add_to_team(user, team, "captain" if created else "member")
                saved[email] = password
            for old in user.tokens:   # one demo token per user: the previous run's stop working
                if old.name == "enface demo" and old.revoked_at is None:
                    accounts.revoke_token(user, old.id)
            _token, secret = accounts.issue_token(user, "enface demo")
            out[email] = {"role": role, "team": team_name, "password": saved.get(email, "(set earlier)"),
                          "token": secret}
    store.write_text(json.dumps(saved, indent=2))
    store.chmod(0o600)
    return out


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=int)
@click.option("--data", "demo_dir", type=click.Path(exists=True, file_okay=False, path_type=Path),
              default=str(ROOT / "data" / "demo"), show_default=True,
              help="the demo task (test set and systems); the platform's data goes to ENFACE_DATA_DIR")
@click.option("--once", is_flag=True, help="stop once the demo systems are scored, instead of serving")
def demo(host, port, demo_dir, once):
    """Set up the demo task, submit the demo systems through the API, and serve it.

    The web server's and the worker's output go to <ENFACE_DATA_DIR>/logs/web.log and worker.log.
    """
    from sqlalchemy import select

    from .extensions import db as database
    from .models import Submission, Task, TestSet
    from .services.testsets import import_testset, update_settings

    cfg = _prepare(True)
    app = _app()
    with app.app_context():
        ts = database.session.scalar(select(TestSet).join(Task).where(Task.name == "Demo"))
        if ts is None:
            ts = import_testset(demo_dir / "testset", "Demo")
            click.echo(f"imported the demo test set: {ts.num_documents} documents, {ts.num_segments} segments")
        ts_id = ts.id
        already = database.session.scalar(select(Submission.id).where(Submission.testset_id == ts_id).limit(1))
    logins = _demo_accounts(app, cfg.DATA_DIR)

    svc = Services(host, port, workers=2, jobs=1, log_dir=cfg.DATA_DIR / "logs")
    svc.start()
    try:
        svc.wait_ready()
        if already is None:
            ids = []
            for email, system, label, constrained, name, description in DEMO_SUBMISSIONS:
                client = ApiClient(svc.url, logins[email]["token"])
                created = client.submit(ts_id, _collect_files((str(demo_dir / "systems" / system),)), label=label,
                                        constrained="true" if constrained else "false", system_name=name,
                                        description=description)
                click.echo(f"submitted {system} as {label} {name!r}: submission {created['id']}")
                ids.append((client, created["id"]))
            for client, sid in ids:
                sub = wait_for(client, sid, timeout=300, show=False,
                               check=lambda: svc.check_alive("before the demo systems were scored"))
                click.echo(f"  submission {sid} ({sub['system_name']}): {sub['state']}")
        with app.app_context():
            ts = database.session.get(TestSet, ts_id)
            if not ts.released:
                update_settings(ts, deadline=ts.deadline, opens_at=ts.opens_at, quota_per_day=ts.quota_per_day,
                                quota_total=ts.quota_total, document_level_allowed=ts.document_level_allowed,
                                released=True, references_public=ts.references_public)
    except BaseException as exc:
        svc.stop()
        if isinstance(exc, (RuntimeError, click.ClickException)):
            _fail(str(exc))
        raise
    click.echo("")
    click.echo(f"Enface demo: {svc.url}/leaderboard/{ts_id}  (data in {cfg.DATA_DIR})")
    click.echo("Logins (passwords are kept in demo-logins.json in the data folder):")
    for email, info in logins.items():
        what = info["role"] + (f", captain of {info['team']}" if info["team"] else "")
        click.echo(f"  {email:<32} {info['password']:<14} {what}")
    if once:
        svc.stop()
        return
    click.echo("Ctrl-C stops the server.")
    raise SystemExit(svc.wait_forever())


from .campaigns.cli import campaign as _campaign_commands  # noqa: E402  (enface campaign ...)

main.add_command(_campaign_commands)

if __name__ == "__main__":   # pragma: no cover
    main()
