"""Throttling password guesses without letting anyone lock a user out.

Only *failed* logins count, in counters every web process shares (the rate-limit storage:
``<data_dir>/ratelimit.sqlite`` by default, Redis when configured). Before a password is
checked, the attempt's buckets must have room; a failure then counts in each of them:

* **account and address** (``LOGIN_RATE_LIMIT``, 10 a minute, 50 an hour): guessing one account
  from one place;
* **account** (``LOGIN_ACCOUNT_RATE_LIMIT``, 100 an hour): one account guessed from many addresses,
  the slow-down of a distributed attack;
* **address** (``LOGIN_ADDRESS_RATE_LIMIT``, 100 a minute, 1000 an hour): one address trying many
  accounts (credential stuffing).

**Known browsers are exempt.** A successful login leaves a signed *device cookie* (the account and
a random id; OWASP's "device cookies"). An attempt that brings a valid one for the account it
names is counted in a bucket of its own (``LOGIN_RATE_LIMIT`` per device) and never refused
because of the three buckets above. So whoever shares an address with a user (a campus NAT, a
conference Wi-Fi), or guesses that user's password from anywhere, cannot lock them out of a
browser they have logged in from before; a browser new to the account can be held back while an
attack on it lasts, for at most the window of the exhausted limit.
"""

from __future__ import annotations

import hashlib
import math
import secrets
import time
from dataclasses import dataclass

from flask import current_app, request
from itsdangerous import BadSignature, URLSafeTimedSerializer
from limits import RateLimitItem, parse_many
from limits.storage import storage_from_string
from limits.strategies import FixedWindowRateLimiter

from ..models import User
from .accounts import get_user_by_email, normalize_email

DEVICE_COOKIE = "enface_device"


@dataclass
class Refusal:
    message: str
    retry_after: int   # seconds


def enabled() -> bool:
    return bool(current_app.config.get("RATELIMIT_ENABLED", True))


def _limiter() -> FixedWindowRateLimiter:
    ext = current_app.extensions
    if "enface_login_limiter" not in ext:
        ext["enface_login_limiter"] = FixedWindowRateLimiter(storage_from_string(
            current_app.config["RATELIMIT_STORAGE_URI"]))
    return ext["enface_login_limiter"]


def _limits(name: str) -> list[RateLimitItem]:
    return list(parse_many(current_app.config[name]))


def _hashed(text: str) -> str:
    # the storage holds no e-mail address in clear
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _address() -> str:
    return request.remote_addr or "unknown"


def _serializer() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(current_app.config["SECRET_KEY"], salt="enface-device")


def _device_of(user: User | None) -> str | None:
    """The id of the request's device cookie when it was issued to ``user`` (None: no valid one)."""
    raw = request.cookies.get(DEVICE_COOKIE)
    if user is None or not raw:
        return None
    try:
        data = _serializer().loads(raw, max_age=current_app.config["DEVICE_COOKIE_DAYS"] * 86400)
    except BadSignature:
        return None
    if not isinstance(data, dict) or data.get("u") != user.id or not isinstance(data.get("d"), str):
        return None
    return data["d"]


def _buckets(email: str) -> list[tuple[str, list[RateLimitItem], tuple[str, ...]]]:
    """(name, limits, identifiers) of the attempt's buckets (see the module's docstring)."""
    account = _hashed(normalize_email(email or ""))
    device = _device_of(get_user_by_email(email or ""))
    if device is not None:
        return [("device", _limits("LOGIN_RATE_LIMIT"), ("login-device", account, device))]
    return [("account and address", _limits("LOGIN_RATE_LIMIT"), ("login-account-address", account, _address())),
            ("account", _limits("LOGIN_ACCOUNT_RATE_LIMIT"), ("login-account", account)),
            ("address", _limits("LOGIN_ADDRESS_RATE_LIMIT"), ("login-address", _address()))]


def check(email: str) -> Refusal | None:
    """Whether a login attempt for ``email`` may check its password now (None) or must wait."""
    if not enabled():
        return None
    try:
        limiter = _limiter()
        for name, items, ids in _buckets(email):
            for item in items:
                if not limiter.test(item, *ids):
                    reset = limiter.get_window_stats(item, *ids).reset_time
                    wait = max(1, math.ceil(reset - time.time()))
                    return Refusal(_sentence(name, wait), wait)
    except Exception:   # the counters' store is down (Redis, a full disk): logins go on, and it is logged
        current_app.logger.exception("login throttle: the rate-limit storage failed; the attempt is not limited")
    return None


def failed(email: str) -> None:
    """Counts a failed attempt in each of its buckets."""
    if not enabled():
        return
    try:
        limiter = _limiter()
        for _name, items, ids in _buckets(email):
            for item in items:
                limiter.hit(item, *ids)
    except Exception:   # as in check(): never a 500 because the counters cannot be written
        current_app.logger.exception("login throttle: the rate-limit storage failed; the failure was not counted")


def _sentence(bucket: str, wait: int) -> str:
    when = f"{wait} seconds" if wait < 120 else f"{math.ceil(wait / 60)} minutes"
    why = {"device": "from this browser",
           "account and address": "for this account from your network",
           "account": "for this account",
           "address": "from your network"}[bucket]
    hint = "" if bucket == "device" else " A browser you have logged in from before is not held back."
    return f"Too many failed logins {why}: try again in {when}.{hint}"


def set_device_cookie(response, user: User) -> None:
    """Marks the browser as known to ``user`` (after a successful login)."""
    days = current_app.config["DEVICE_COOKIE_DAYS"]
    value = _serializer().dumps({"u": user.id, "d": secrets.token_urlsafe(12)})
    response.set_cookie(DEVICE_COOKIE, value, max_age=days * 86400, path="/auth/", httponly=True,
                        samesite="Lax", secure=bool(current_app.config.get("SESSION_COOKIE_SECURE")))
