"""Settings, read from ``ENFACE_*`` environment variables with safe embedded defaults.

Nothing here runs at import time: :meth:`Config.from_env` reads the
environment when an app (or a worker, or the CLI) is created.

====================================  ===============================================================
variable                              default
====================================  ===============================================================
ENFACE_DATA_DIR                       ``./instance``: database, broker, uploads, secret key, logs of ``enface demo``
ENFACE_DATABASE_URL                   ``sqlite:///<data_dir>/enface.sqlite``
ENFACE_BROKER_URL                     ``sqla+sqlite:///<data_dir>/broker.sqlite``
ENFACE_RESULT_BACKEND                 ``db+sqlite:///<data_dir>/results.sqlite``
ENFACE_SECRET_KEY                     generated once into ``<data_dir>/secret_key``
ENFACE_COMET_MODEL                    unset: COMET shows n/a with the reason
ENFACE_MAX_UPLOAD_BYTES               50 MiB per upload (request body)
ENFACE_MAX_UNZIPPED_BYTES             200 MiB uncompressed per zip
ENFACE_STUCK_AFTER                    600 seconds without a heartbeat before the sweeper requeues a job
ENFACE_JUDGE_STALE_AFTER              30 seconds without an LLM judge run's heartbeat before it counts as dead
ENFACE_RATELIMIT_STORAGE              ``sqlite:///<data_dir>/ratelimit.sqlite``: shared by the web processes of one host
                                      (``redis://...`` when several hosts must share it; ``memory://``: one process only)
ENFACE_LOGIN_RATE_LIMIT               ``10 per minute;50 per hour``: failed logins per account and address (and per known browser)
ENFACE_LOGIN_ACCOUNT_RATE_LIMIT       ``100 per hour``: failed logins per account, from new browsers
ENFACE_LOGIN_ADDRESS_RATE_LIMIT       ``100 per minute;1000 per hour``: failed logins per address, from new browsers
ENFACE_CROWD_LINK_RATE_LIMIT          ``30 per minute;300 per hour``: visits of account-free annotator links per address
ENFACE_CROWD_PASSPHRASE_RATE_LIMIT    ``5 per minute;30 per hour``: passphrases tried per link and address
ENFACE_JOBS                           ``celery`` (``eager`` runs jobs in the request: tests only)
ENFACE_BROKER_KEY_PREFIX              unset: with a Redis broker, a prefix for every key (one Redis, several deployments)
ENFACE_SCORING_WORKERS                0: BLEU/chrF/TER statistics on all cores
ENFACE_SECURE_COOKIES                 unset: ``1`` marks session cookies Secure (serve behind HTTPS)
ENFACE_REMEMBER_DAYS                  14: lifetime of the "remember me" cookie and of a login session cookie's signature
ENFACE_HSTS_SECONDS                   0 (off): > 0 sends ``Strict-Transport-Security: max-age=<n>`` (only behind HTTPS)
ENFACE_MAX_LINE_BYTES                 1 MiB: the longest line (segment) an uploaded file may hold
ENFACE_PROXY_FIX                      unset: ``1`` trusts one reverse proxy's X-Forwarded-For/-Proto/-Host (deploy/nginx)
ENFACE_LOG_FORMAT                     ``text``: ``json`` writes JSON lines (with request ids) and one access line per request
ENFACE_TER                            unset: read by the scoring library; ``sacrebleu`` runs sacrebleu's TER, not the port
ENFACE_JUDGE_KEY_ENVS                 unset (none): the worker's environment variables an LLM judge may name as its API key,
                                      comma-separated (``OPENAI_API_KEY,DEEPSEEK_API_KEY``); never an ``ENFACE_*`` name
ENFACE_JUDGE_PROMPTS_ROOT             ``<data_dir>/judge-prompts``: the folder a judge's prompt templates folder must lie in
====================================  ===============================================================
"""

from __future__ import annotations

import os
import re
import secrets
from datetime import timedelta
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


def _check_limit_setting(name: str, value: str) -> None:
    """A bad rate-limit setting stops the start with a sentence (not a 500 at the first login)."""
    from limits import parse_many
    from limits.storage import storage_from_string

    from . import ratelimit_storage  # noqa: F401  (registers the sqlite:// scheme)

    try:
        if name == "RATELIMIT_STORAGE_URI":
            if not value.startswith(("sqlite:", "memory:")):
                return   # redis://, memcached://: their client connects at the first request
            storage_from_string(value)
        else:
            parse_many(value)
    except Exception as exc:   # whatever the parser or the storage raises
        env_name = {"RATELIMIT_STORAGE_URI": "ENFACE_RATELIMIT_STORAGE"}.get(name, f"ENFACE_{name}")
        raise SystemExit(f"{env_name}={value!r}: {exc}") from None


ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,99}$")


def check_judge_key_envs(names) -> tuple[str, ...]:
    """The allow-list of a judge's key variables, checked at start: names only, never one of Enface's own
    (``ENFACE_SECRET_KEY`` would let whoever runs a judge forge sessions and decrypt every stored key)."""
    names = tuple(names)
    for name in names:
        if not ENV_NAME.match(name):
            raise SystemExit(f"ENFACE_JUDGE_KEY_ENVS: {name!r} is not an environment variable name")
        if name.upper().startswith("ENFACE_"):
            raise SystemExit(f"ENFACE_JUDGE_KEY_ENVS: {name} is one of Enface's own settings; a judge may not send "
                             "it to an endpoint")
    return names


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
    RATELIMIT_STORAGE_URI = ""         # "": sqlite:///<data_dir>/ratelimit.sqlite (every process of this host)
    RATELIMIT_HEADERS_ENABLED = True
    LOGIN_RATE_LIMIT = "10 per minute;50 per hour"           # failed logins per account and address
    LOGIN_ACCOUNT_RATE_LIMIT = "100 per hour"                 # failed logins per account (new browsers)
    LOGIN_ADDRESS_RATE_LIMIT = "100 per minute;1000 per hour"  # failed logins per address (new browsers)
    DEVICE_COOKIE_DAYS = 180           # a browser that logged in is known this long (the login throttle)
    REGISTER_RATE_LIMIT = "5 per minute;30 per hour"
    CROWD_LINK_RATE_LIMIT = "30 per minute;300 per hour"      # account-free link visits per address
    CROWD_PASSPHRASE_RATE_LIMIT = "5 per minute;30 per hour"  # passphrases tried per link and address
    SESSION_COOKIE_HTTPONLY = True
    SESSION_COOKIE_SAMESITE = "Lax"
    SESSION_COOKIE_SECURE = False
    REMEMBER_COOKIE_HTTPONLY = True
    REMEMBER_COOKIE_SAMESITE = "Lax"
    REMEMBER_DAYS = 14                 # the remember cookie and the session cookie's signature expire after this
    HSTS_SECONDS = 0                   # > 0: Strict-Transport-Security max-age (serve behind HTTPS only)
    MAX_LINE_BYTES = MiB               # an uploaded file's longest line; past it the file is refused unread
    LEADERBOARD_CACHE = True
    META_BOOTSTRAP_SAMPLES = 1000      # the meta-evaluation page's bootstrap resamples (intervals)
    META_BOOTSTRAP_SEED = 12345
    META_CLUSTER_PERMUTATIONS = 1000   # the page's permutation draws per metric pair for the clusters (0: none)
    PASSWORD_HASH_METHOD = "scrypt"
    PROXY_FIX = False                  # behind one reverse proxy: trust its X-Forwarded-* (werkzeug ProxyFix)
    JUDGE_KEY_ENVS: tuple[str, ...] = ()   # environment variables a judge may read its key from (the allow-list)
    JUDGE_PROMPTS_ROOT: Path | None = None  # None: <DATA_DIR>/judge-prompts
    LOG_FORMAT = "text"                # "json": JSON lines with request ids (enface.ops.logs)

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
        cfg.META_BOOTSTRAP_SAMPLES = max(1, _int("ENFACE_META_BOOTSTRAP_SAMPLES", cls.META_BOOTSTRAP_SAMPLES))
        cfg.META_BOOTSTRAP_SEED = _int("ENFACE_META_BOOTSTRAP_SEED", cls.META_BOOTSTRAP_SEED)
        cfg.META_CLUSTER_PERMUTATIONS = max(0, _int("ENFACE_META_CLUSTER_PERMUTATIONS", cls.META_CLUSTER_PERMUTATIONS))
        cfg.RATELIMIT_STORAGE_URI = env.get("ENFACE_RATELIMIT_STORAGE") or cls.RATELIMIT_STORAGE_URI
        for name in ("LOGIN_RATE_LIMIT", "LOGIN_ACCOUNT_RATE_LIMIT", "LOGIN_ADDRESS_RATE_LIMIT",
                     "CROWD_LINK_RATE_LIMIT", "CROWD_PASSPHRASE_RATE_LIMIT"):
            setattr(cfg, name, env.get(f"ENFACE_{name}") or getattr(cls, name))
        cfg.JOBS = env.get("ENFACE_JOBS") or cls.JOBS
        cfg.SESSION_COOKIE_SECURE = env.get("ENFACE_SECURE_COOKIES", "") == "1"
        cfg.REMEMBER_DAYS = _int("ENFACE_REMEMBER_DAYS", cls.REMEMBER_DAYS)
        cfg.HSTS_SECONDS = _int("ENFACE_HSTS_SECONDS", cls.HSTS_SECONDS)
        cfg.MAX_LINE_BYTES = _int("ENFACE_MAX_LINE_BYTES", cls.MAX_LINE_BYTES)
        cfg.PROXY_FIX = env.get("ENFACE_PROXY_FIX", "") == "1"
        cfg.JUDGE_KEY_ENVS = tuple(n for n in re.split(r"[\s,]+", env.get("ENFACE_JUDGE_KEY_ENVS", "")) if n)
        root = env.get("ENFACE_JUDGE_PROMPTS_ROOT", "").strip()
        cfg.JUDGE_PROMPTS_ROOT = Path(root) if root else None
        cfg.LOG_FORMAT = (env.get("ENFACE_LOG_FORMAT") or cls.LOG_FORMAT).strip().lower()
        if cfg.LOG_FORMAT not in ("text", "json"):
            raise SystemExit(f"ENFACE_LOG_FORMAT={cfg.LOG_FORMAT!r}: expected text or json")
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
        if not self.RATELIMIT_STORAGE_URI:
            out["RATELIMIT_STORAGE_URI"] = f"sqlite://{self.DATA_DIR.resolve() / 'ratelimit.sqlite'}"
        for name in ("RATELIMIT_STORAGE_URI", "LOGIN_RATE_LIMIT", "LOGIN_ACCOUNT_RATE_LIMIT", "LOGIN_ADDRESS_RATE_LIMIT",
                     "CROWD_LINK_RATE_LIMIT", "CROWD_PASSPHRASE_RATE_LIMIT"):
            _check_limit_setting(name, out[name])
        if not 1 <= int(self.REMEMBER_DAYS) <= 365:
            raise SystemExit(f"ENFACE_REMEMBER_DAYS={self.REMEMBER_DAYS}: expected 1 to 365 days")
        out["REMEMBER_COOKIE_DURATION"] = timedelta(days=int(self.REMEMBER_DAYS))
        out["PERMANENT_SESSION_LIFETIME"] = timedelta(days=int(self.REMEMBER_DAYS))   # the session cookie's max age
        out["JUDGE_KEY_ENVS"] = check_judge_key_envs(self.JUDGE_KEY_ENVS)
        out["JUDGE_PROMPTS_ROOT"] = Path(self.JUDGE_PROMPTS_ROOT or self.DATA_DIR / "judge-prompts").expanduser().resolve()
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
