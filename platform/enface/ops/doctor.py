"""``enface doctor``: is this deployment healthy? One :class:`Check` per concern, each independent.

Every check reads the same ``ENFACE_*`` settings as the server (a :class:`~enface.config.Config`);
none of them prints a secret: URLs are shown without their passwords, keys never.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

#: secret keys that are known, so not secret: examples from docs and tests
WEAK_SECRETS = frozenset({"", "test-secret-key", "cli-test", "change-me", "changeme", "secret", "dev", "development",
                          "enface", "please-change-me"})
MIN_SECRET_CHARS = 32


@dataclass(frozen=True)
class Check:
    name: str
    status: str            # "ok", "FAIL" or "skip"
    detail: str

    @property
    def failed(self) -> bool:
        return self.status == "FAIL"

    def line(self) -> str:
        return f"{self.status:<4}  {self.name}: {self.detail}"


def _ok(name, detail) -> Check:
    return Check(name, "ok", detail)


def _fail(name, detail) -> Check:
    return Check(name, "FAIL", detail)


def _skip(name, detail) -> Check:
    return Check(name, "skip", detail)


def redact(url: str) -> str:
    """A URL without its password (kombu's and SQLAlchemy's both parse user:password@host)."""
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:   # not an SQLAlchemy URL (redis://...): drop everything between :// and @
        scheme, sep, rest = url.partition("://")
        return scheme + sep + (rest.split("@", 1)[1] if "@" in rest else rest) if sep else "(url)"


def check_secret_key(cfg) -> Check:
    name = "secret key"
    import os

    from_env = os.environ.get("ENFACE_SECRET_KEY")
    if from_env is not None:
        if from_env.strip() in WEAK_SECRETS:
            return _fail(name, "ENFACE_SECRET_KEY is empty or a well-known example value; set a random one "
                               "(python -c 'import secrets; print(secrets.token_hex(32))')")
        if len(from_env) < MIN_SECRET_CHARS:
            return _fail(name, f"ENFACE_SECRET_KEY has {len(from_env)} characters; use at least {MIN_SECRET_CHARS}")
        return _ok(name, f"ENFACE_SECRET_KEY is set ({len(from_env)} characters)")
    path = Path(cfg.DATA_DIR) / "secret_key"
    if not path.is_file():
        return _fail(name, f"ENFACE_SECRET_KEY is not set and {path} does not exist (the first start creates it; "
                           "several hosts must share one ENFACE_SECRET_KEY)")
    key = path.read_text().strip()
    if key in WEAK_SECRETS or len(key) < MIN_SECRET_CHARS:
        return _fail(name, f"{path} holds a short or well-known key; delete it to make a new one")
    if path.stat().st_mode & 0o077:
        return _fail(name, f"{path} is readable by other users (chmod 600 it)")
    return _ok(name, f"generated into {path} (mode 0600)")


def check_database(cfg) -> Check:
    from ..migrate import current_revision, head_revision

    name = "database"
    url = cfg.SQLALCHEMY_DATABASE_URI
    try:
        current = current_revision(url)
    except Exception as exc:   # whatever the driver raises: unreachable, refused, bad URL
        return _fail(name, f"{redact(url)} is unreachable: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}")
    head = head_revision()
    if current != head:
        return _fail(name, f"{redact(url)} is at migration {current or '(none)'}, the code at {head}: "
                           "run enface db upgrade")
    return _ok(name, f"{redact(url)} at the head migration {head}")


def check_broker(cfg) -> Check:
    from kombu import Connection

    name = "broker"
    url = cfg.CELERY_BROKER_URL
    try:
        with Connection(url, connect_timeout=5) as conn:
            conn.ensure_connection(max_retries=1, timeout=5)
    except Exception as exc:
        return _fail(name, f"{redact(url)} is unreachable: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}")
    return _ok(name, f"{redact(url)} answers")


def check_workers(app, queues: tuple[str, ...], timeout: float) -> list[Check]:
    """One ping task per queue: a worker that consumes the queue answers with its host name."""
    from ..job_queue import PING_TASK

    celery = app.extensions["celery"]
    if celery.conf.task_always_eager:
        return [_skip(f"workers ({q})", "ENFACE_JOBS=eager: jobs run in the web process") for q in queues]
    sent = {}
    for queue in queues:
        try:
            sent[queue] = (time.monotonic(), celery.send_task(PING_TASK, queue=queue, expires=timeout,
                                                              ignore_result=False))
        except Exception as exc:
            sent[queue] = (time.monotonic(), exc)
    out = []
    for queue, (started, result) in sent.items():
        name = f"workers ({queue})"
        if isinstance(result, Exception):
            out.append(_fail(name, f"cannot queue a ping: {type(result).__name__}: {result}"))
            continue
        try:
            host = result.get(timeout=max(0.1, timeout - (time.monotonic() - started)), disable_sync_subtasks=False)
        except Exception as exc:
            why = "no worker answered" if type(exc).__name__ == "TimeoutError" else f"{type(exc).__name__}: {exc}"
            out.append(_fail(name, f"{why} within {timeout:.0f} s: start one (enface worker -Q {queue})"))
            continue
        out.append(_ok(name, f"a worker on {host} answered in {time.monotonic() - started:.1f} s"))
    return out


def check_comet(cfg) -> Check:
    name = "COMET"
    if not cfg.COMET_MODEL:
        return _skip(name, "ENFACE_COMET_MODEL is not set: COMET shows n/a")
    from scoring.metrics.comet import CometScorer, CometUnavailable

    try:
        scorer = CometScorer(cfg.COMET_MODEL)
    except CometUnavailable as exc:
        return _fail(name, str(exc))
    return _ok(name, f"{cfg.COMET_MODEL} loads ({scorer.signature})")


def check_rate_limit_store(app) -> Check:
    from limits.storage import storage_from_string

    from .. import ratelimit_storage  # noqa: F401  (registers sqlite://)

    name = "rate-limit store"
    uri = app.config["RATELIMIT_STORAGE_URI"]
    try:
        healthy = storage_from_string(uri).check()
    except Exception as exc:
        return _fail(name, f"{redact(uri)}: {type(exc).__name__}: {exc}")
    if not healthy:
        return _fail(name, f"{redact(uri)} does not answer")
    note = " (one process only: use sqlite:// or redis:// with several)" if uri.startswith("memory") else ""
    return _ok(name, f"{redact(uri)} answers{note}")


def check_disk(cfg, min_free_bytes: int) -> Check:
    name = "disk space"
    folder = Path(cfg.DATA_DIR)
    probe = folder if folder.exists() else next((p for p in folder.parents if p.exists()), Path("/"))
    usage = shutil.disk_usage(probe)
    gib = usage.free / 2**30
    detail = f"{gib:.1f} GiB free of {usage.total / 2**30:.1f} GiB under {folder}"
    if usage.free < min_free_bytes:
        return _fail(name, f"{detail}; below the {min_free_bytes / 2**30:.1f} GiB asked for (--min-free-gb)")
    return _ok(name, detail)


def check_judges(app) -> list[Check]:
    """Each configured LLM judge's endpoint answers one small call with its model and key (the same test
    call as the judges' page, :func:`enface.judges.manage.test_endpoint`: the operator chose the endpoint)."""
    from sqlalchemy import select

    from ..extensions import db
    from ..judges.manage import test_endpoint
    from ..judges.models import Judge

    out = []
    with app.app_context():
        judges = db.session.scalars(select(Judge).order_by(Judge.id)).all()
        if not judges:
            return [_skip("judges' endpoints", "no LLM judge is configured")]
        for judge in judges:
            found = test_endpoint(judge)
            name = f"judge {judge.id} ({judge.name})"
            out.append(_ok(name, f"{found.message} in {found.seconds:.1f} s") if found.ok
                       else _fail(name, f"{judge.base_url}: {found.message}"))
    return out


def run_checks(app, cfg, *, queues: tuple[str, ...], worker_timeout: float, min_free_bytes: int,
               network: bool) -> Iterator[Check]:
    """The checks in order; each is yielded as soon as it is done (a slow one shows where it waits)."""
    steps: list[Callable[[], Check | list[Check]]] = [
        lambda: check_secret_key(cfg), lambda: check_database(cfg), lambda: check_broker(cfg),
        lambda: check_workers(app, queues, worker_timeout), lambda: check_comet(cfg),
        lambda: check_rate_limit_store(app), lambda: check_disk(cfg, min_free_bytes)]
    if network:
        steps.append(lambda: check_judges(app))
    for step in steps:
        result = step()
        yield from (result if isinstance(result, list) else [result])
