"""Settings, read from ``ENFACE_*`` environment variables with safe embedded defaults.

Nothing here runs at import time: :meth:`Config.from_env` reads the
environment when an app (or a worker, or the CLI) is created.

=========================  ===============================================================
variable                   default
=========================  ===============================================================
ENFACE_DATA_DIR            ``./instance``: database, broker, uploads, secret key, logs of ``enface demo``
ENFACE_DATABASE_URL        ``sqlite:///<data_dir>/enface.sqlite``
ENFACE_BROKER_URL          ``sqla+sqlite:///<data_dir>/broker.sqlite``
ENFACE_RESULT_BACKEND      ``db+sqlite:///<data_dir>/results.sqlite``
ENFACE_SECRET_KEY          generated once into ``<data_dir>/secret_key``
ENFACE_COMET_MODEL         unset: COMET shows n/a with the reason
ENFACE_MAX_UPLOAD_BYTES    50 MiB per upload (request body)
ENFACE_MAX_UNZIPPED_BYTES  200 MiB uncompressed per zip
ENFACE_STUCK_AFTER         600 seconds without a heartbeat before the sweeper requeues a job
ENFACE_JUDGE_STALE_AFTER   30 seconds without an LLM judge run's heartbeat before it counts as dead
ENFACE_RATELIMIT_STORAGE   ``memory://`` (``redis://...`` when several web processes must share it)
ENFACE_JOBS                ``celery`` (``eager`` runs jobs in the request: tests only)
ENFACE_BROKER_KEY_PREFIX   unset: with a Redis broker, a prefix for every key (one Redis, several deployments)
ENFACE_SCORING_WORKERS     0: BLEU/chrF/TER statistics on all cores
ENFACE_SECURE_COOKIES      unset: ``1`` marks session cookies Secure (serve behind HTTPS)
ENFACE_TER                 unset: read by the scoring library; ``sacrebleu`` runs sacrebleu's TER, not the port
=========================  ===============================================================
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

MiB = 1024 * 1024


def _int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise SystemExit(f"{name}={raw!r}: expected an integer") from None


def embedded_urls(data_dir: Path) -> tuple[str, str, str]:
    """The embedded defaults: SQLite database, SQLite broker and SQLite result backend under ``data_dir``."""
    return (f"sqlite:///{data_dir / 'enface.sqlite'}", f"sqla+sqlite:///{data_dir / 'broker.sqlite'}",
            f"db+sqlite:///{data_dir / 'results.sqlite'}")


def load_or_create_secret(data_dir: Path) -> str:
    """The secret key stored in ``<data_dir>/secret_key``, created (0600) on first use.

    Creation is race-free between processes (several gunicorn workers start at
    once): the file is created with O_EXCL and a loser reads the winner's key.
    """
    path = data_dir / "secret_key"
    try:
        key = path.read_text().strip()
        if key:
            return key
    except FileNotFoundError:
        pass
    data_dir.mkdir(parents=True, exist_ok=True)
    key = secrets.token_hex(32)
    tmp = data_dir / f".secret_key.{os.getpid()}.{secrets.token_hex(4)}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(key + "\n")
    try:
        os.link(tmp, path)   # atomic; fails if another process won
    except FileExistsError:
        key = path.read_text().strip()
    finally:
        tmp.unlink(missing_ok=True)
    return key


class Config:
    """The embedded defaults; :meth:`from_env` overlays the environment."""

    TESTING = False
    DATA_DIR: Path = Path("instance")
    SQLALCHEMY_DATABASE_URI = ""
    SQLALCHEMY_ECHO = False
    CELERY_BROKER_URL = ""
    CELERY_RESULT_BACKEND = ""
    BROKER_KEY_PREFIX = ""             # Redis brokers: prefix of every key (several deployments, one Redis)
    JOBS = "celery"                    # "celery" or "eager" (tests)
    SECRET_KEY = ""
    COMET_MODEL: str | None = None
    COMET_BATCH_SIZE = 16
    MAX_UPLOAD_BYTES = 50 * MiB
    MAX_UNZIPPED_BYTES = 200 * MiB
    MAX_UPLOAD_FILES = 500
    MAX_ZIP_RATIO = 200                # uncompressed/compressed above this (for members over 1 MiB): a bomb
    STUCK_AFTER_SECONDS = 600
    JUDGE_STALE_SECONDS = 30           # an LLM judge run beats every 5 s (enface.judges.running)
    MAX_JOB_ATTEMPTS = 3
    SWEEP_EVERY_SECONDS = 60
    SCORING_WORKERS = 0                # processes for BLEU/chrF/TER; 0 = all cores
    DEFAULT_QUOTA_PER_DAY = 5
    DEFAULT_QUOTA_TOTAL = 20
    WTF_CSRF_ENABLED = True
    WTF_CSRF_TIME_LIMIT = None         # tokens live as long as the session
    RATELIMIT_ENABLED = True
    RATELIMIT_STORAGE_URI = "memory://"
    RATELIMIT_HEADERS_ENABLED = True
    LOGIN_RATE_LIMIT = "10 per minute;50 per hour"
    REGISTER_RATE_LIMIT = "5 per minute;30 per hour"
    SESSION_COOKIE_HTTPONLY = True
    SESSION_COOKIE_SAMESITE = "Lax"
    SESSION_COOKIE_SECURE = False
    REMEMBER_COOKIE_HTTPONLY = True
    LEADERBOARD_CACHE = True
    PASSWORD_HASH_METHOD = "scrypt"

    @classmethod
    def from_env(cls, **overrides) -> Config:
        cfg = cls()
        env = os.environ
        data_dir = Path(overrides.pop("DATA_DIR", None) or env.get("ENFACE_DATA_DIR") or cls.DATA_DIR)
        cfg.DATA_DIR = data_dir.expanduser().resolve()
        database, broker, results = embedded_urls(cfg.DATA_DIR)
        cfg.SQLALCHEMY_DATABASE_URI = env.get("ENFACE_DATABASE_URL") or database
        cfg.CELERY_BROKER_URL = env.get("ENFACE_BROKER_URL") or broker
        cfg.CELERY_RESULT_BACKEND = env.get("ENFACE_RESULT_BACKEND") or results
        cfg.BROKER_KEY_PREFIX = env.get("ENFACE_BROKER_KEY_PREFIX", "")
        cfg.SECRET_KEY = env.get("ENFACE_SECRET_KEY", "")
        cfg.COMET_MODEL = env.get("ENFACE_COMET_MODEL") or None
        cfg.MAX_UPLOAD_BYTES = _int("ENFACE_MAX_UPLOAD_BYTES", cls.MAX_UPLOAD_BYTES)
        cfg.MAX_UNZIPPED_BYTES = _int("ENFACE_MAX_UNZIPPED_BYTES", cls.MAX_UNZIPPED_BYTES)
        cfg.STUCK_AFTER_SECONDS = _int("ENFACE_STUCK_AFTER", cls.STUCK_AFTER_SECONDS)
        cfg.JUDGE_STALE_SECONDS = _int("ENFACE_JUDGE_STALE_AFTER", cls.JUDGE_STALE_SECONDS)
        cfg.SCORING_WORKERS = _int("ENFACE_SCORING_WORKERS", cls.SCORING_WORKERS)
        cfg.RATELIMIT_STORAGE_URI = env.get("ENFACE_RATELIMIT_STORAGE") or cls.RATELIMIT_STORAGE_URI
        cfg.JOBS = env.get("ENFACE_JOBS") or cls.JOBS
        cfg.SESSION_COOKIE_SECURE = env.get("ENFACE_SECURE_COOKIES", "") == "1"
        for key, value in overrides.items():
            setattr(cfg, key, value)
        return cfg

    def finalize(self) -> dict:
        """The settings as a dict for ``app.config``, with derived values filled in."""
        self.DATA_DIR = Path(self.DATA_DIR)
        if not self.SECRET_KEY:
            self.SECRET_KEY = load_or_create_secret(self.DATA_DIR)
        out = {k: getattr(self, k) for k in dir(self) if k.isupper()}
        # The request cap: the files plus room for the form fields.
        out["MAX_CONTENT_LENGTH"] = self.MAX_UPLOAD_BYTES + 64 * 1024
        out["MAX_FORM_PARTS"] = self.MAX_UPLOAD_FILES + 50
        out["REMEMBER_COOKIE_SECURE"] = self.SESSION_COOKIE_SECURE
        return out


class TestConfig(Config):
    """For tests: everything under one temporary folder, jobs run eagerly, CSRF and rate limits off."""

    __test__ = False

    TESTING = True
    JOBS = "eager"
    WTF_CSRF_ENABLED = False
    RATELIMIT_ENABLED = False
    SCORING_WORKERS = 1
    STUCK_AFTER_SECONDS = 600
    PASSWORD_HASH_METHOD = "pbkdf2:sha256:1000"   # fast for tests; never in production

    @classmethod
    def for_dir(cls, data_dir: Path, database_url: str | None = None, **overrides) -> TestConfig:
        cfg = cls()
        cfg.DATA_DIR = Path(data_dir)
        database, cfg.CELERY_BROKER_URL, cfg.CELERY_RESULT_BACKEND = embedded_urls(cfg.DATA_DIR)
        cfg.SQLALCHEMY_DATABASE_URI = database_url or database
        cfg.SECRET_KEY = "test-secret-key"
        for key, value in overrides.items():
            setattr(cfg, key, value)
        return cfg
