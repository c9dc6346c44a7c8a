"""Enface's web platform: a Flask app factory, one blueprint per feature.

``create_app(config)`` has no side effects until called; ``wsgi.py`` and
``enface serve`` call it (gunicorn: ``gunicorn "enface:create_app()"``).
"""

from __future__ import annotations

from pathlib import Path

from flask import Flask, jsonify, render_template, request
from werkzeug.exceptions import HTTPException
from werkzeug.routing import IntegerConverter

from .config import Config
from .safejson import SafeJSONProvider

__all__ = ["create_app", "Config"]


def create_app(config: Config | dict | None = None) -> Flask:
    """Build the app. ``config``: a :class:`Config` (e.g. ``TestConfig.for_dir(...)``), a dict of overrides
    on top of the environment, or None for the environment alone."""
    if isinstance(config, Config):
        cfg = config
    elif isinstance(config, type) and issubclass(config, Config):
        cfg = config.from_env()
    else:
        cfg = Config.from_env(**(config or {}))
    from .resources import templates_dir

    app = Flask(__name__, template_folder=str(templates_dir()), static_folder="static")
    app.json = SafeJSONProvider(app)   # request.get_json(): a 400, never a 500, for too deep or unencodable JSON
    app.url_map.converters["int"] = DatabaseId   # /submissions/99999999999999999999 is a 404, not a 500
    app.config.from_mapping(cfg.finalize())
    data_dir = Path(app.config["DATA_DIR"])
    (data_dir / "uploads" / "tmp").mkdir(parents=True, exist_ok=True)

    if app.config.get("PROXY_FIX"):
        from werkzeug.middleware.proxy_fix import ProxyFix

        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=1, x_proto=1, x_host=1)

    from .extensions import csrf, db, limiter, login_manager
    from .jobs import celery_init_app

    db.init_app(app)
    login_manager.init_app(app)
    login_manager.login_view = "auth.login"
    login_manager.login_message = "Log in to see this page."
    login_manager.login_message_category = "info"
    csrf.init_app(app)
    limiter.init_app(app)
    celery_init_app(app)

    @login_manager.user_loader
    def _load_user(user_id: str):
        from .services.accounts import load_user_from_session

        return load_user_from_session(user_id)

    from .admin import bp as admin_bp
    from .api import bp as api_bp
    from .auth import bp as auth_bp
    from .leaderboard import bp as leaderboard_bp
    from .submissions import bp as submissions_bp
    from .teams import bp as teams_bp

    app.register_blueprint(submissions_bp)
    app.register_blueprint(auth_bp, url_prefix="/auth")
    app.register_blueprint(teams_bp, url_prefix="/team")
    app.register_blueprint(leaderboard_bp, url_prefix="/leaderboard")
    from .metaeval import bp as metaeval_bp

    app.register_blueprint(metaeval_bp, url_prefix="/leaderboard")   # /leaderboard/<id>/meta
    app.register_blueprint(admin_bp, url_prefix="/admin")
    app.register_blueprint(api_bp, url_prefix="/api/v1")
    csrf.exempt(api_bp)   # the API authenticates with bearer tokens, never with the session cookie
    from .annotate import bp as annotate_bp
    from .campaigns import bp as campaigns_bp

    app.register_blueprint(campaigns_bp, url_prefix="/campaigns")
    from .judges.views import bp as judges_bp

    app.register_blueprint(judges_bp, url_prefix="/campaigns")
    app.register_blueprint(annotate_bp, url_prefix="/annotate")   # session + CSRF header, like the forms
    from .crowd import bp as crowd_bp

    app.register_blueprint(crowd_bp)   # account-free links, welcome forms, tutorials, completion codes
    from .browse import bp as browse_bp

    app.register_blueprint(browse_bp, url_prefix="/browse")   # the output browser and the data release
    from .shortcuts import bp as shortcuts_bp

    app.register_blueprint(shortcuts_bp)   # /login, /leaderboards, ...: redirects to the pages they mean
    from . import protocols
    from .campaigns.services import attach_to_leaderboard
    from .services import leaderboard

    protocols.init_app(app)      # MQM, the reader study, ...: each registers with the core
    leaderboard.add_board_hook(attach_to_leaderboard)   # released human evaluations add their columns
    from .campaigns.protocol import PROTOCOLS
    from .metaeval.service import add_metric_provider

    for protocol in PROTOCOLS.values():   # e.g. the rubric's LLM judges, evaluated against the humans like metrics
        for provider in protocol.metric_providers():
            add_metric_provider(provider)

    _register_errors(app)
    _register_template_helpers(app)
    from .ops import logs

    logs.init_app(app)   # X-Request-ID on every response; JSON lines with ENFACE_LOG_FORMAT=json

    @app.after_request
    def _security_headers(response):
        response.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        if app.config.get("HSTS_SECONDS"):
            response.headers.setdefault("Strict-Transport-Security",
                                        f"max-age={int(app.config['HSTS_SECONDS'])}; includeSubDomains")
        if _signed_in() and not (request.endpoint or "").endswith("static"):
            # a page for one account: no shared cache or back-button copy keeps it after the logout
            response.headers.setdefault("Cache-Control", "no-store")
        return response

    @app.get("/healthz")
    def healthz():
        """For a load balancer: one ``SELECT 1`` (no session, no user, no other query); 503 when it fails."""
        from sqlalchemy import text

        db.session.execute(text("SELECT 1"))
        return {"ok": True}

    return app


def _signed_in() -> bool:
    """Whether the response is for a signed-in person, without a database query: after_request also runs
    on the 503 of a database outage, where loading the user would fail again and turn it into a 500."""
    from flask import current_app, g, session

    user = g.get("_login_user")
    if user is not None:   # (is_anonymous, not is_authenticated: that reads User.active, a query after a rollback)
        return not user.is_anonymous
    cookie = current_app.config.get("REMEMBER_COOKIE_NAME", "remember_token")
    return "_user_id" in session or cookie in request.cookies


class DatabaseId(IntegerConverter):
    """``<int:...>`` in every route: only values an integer primary key can hold (PostgreSQL int4)."""

    def __init__(self, url_map, fixed_digits=0, min=None, max=2**31 - 1, signed=False):   # noqa: A002
        super().__init__(url_map, fixed_digits=fixed_digits, min=min, max=max, signed=signed)
        if max is not None and not signed and not fixed_digits:
            # Out-of-range ids must not match at all: werkzeug checks a rule's methods before its
            # converters, so a too-large id on a path with a GET and a POST rule answered 405.
            self.regex = digits_at_most(max)


def digits_at_most(limit: int) -> str:
    """A regular expression of the decimal numbers from 0 to ``limit`` (leading zeros allowed)."""
    text = str(limit)
    n = len(text)
    alternatives = [rf"\d{{1,{n - 1}}}"] if n > 1 else []
    for i, ch in enumerate(text):
        if ch != "0":
            rest = n - i - 1
            lower = "0" if ch == "1" else f"[0-{int(ch) - 1}]"
            alternatives.append(text[:i] + lower + (rf"\d{{{rest}}}" if rest else ""))
    alternatives.append(text)
    return "(?:" + "|".join(alternatives) + ")"


def _wants_json() -> bool:
    # The team API and the annotation API speak JSON only, errors included.
    return (request.path.startswith(("/api/", "/annotate/api/"))
            or request.accept_mimetypes.best == "application/json")


def _register_errors(app: Flask) -> None:
    from flask_wtf.csrf import CSRFError
    from sqlalchemy.exc import InterfaceError, OperationalError

    from .services import ServiceError

    def api_error(code: str, message: str, status: int, details=None):
        return jsonify({"error": {"code": code, "message": message, "details": details or {}}}), status

    @app.errorhandler(ServiceError)
    def _service_error(exc: ServiceError):
        if _wants_json():
            return api_error(exc.code, exc.message, exc.status, exc.details)
        title = {404: "Not found", 410: "Gone"}.get(exc.status, "Refused")
        return render_template("error.html", status=exc.status, title=title, message=exc.message), exc.status

    @app.errorhandler(CSRFError)
    def _csrf_error(exc):
        message = ("the form expired or did not come from this site (no valid CSRF token); "
                   "reload the page and try again")
        if _wants_json():
            return api_error("csrf", message, 400)
        return render_template("error.html", status=400, title="Form rejected", message=message), 400

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException):
        status = exc.code or 500
        codes = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
                 405: "method_not_allowed", 413: "too_large", 415: "unsupported_media_type", 429: "rate_limited"}
        message = exc.description or exc.name
        code = codes.get(status, "http_error")
        if status == 413:
            size = request.content_length
            if size is not None and size <= app.config["MAX_CONTENT_LENGTH"]:
                # not the size: werkzeug's cap on the parts of a form (MAX_FORM_PARTS)
                status, code = 400, "too_many_files"
                message = (f"too many files in one upload: at most {app.config['MAX_UPLOAD_FILES']}; put them in "
                           "a zip")
            else:
                message = f"the upload is larger than the limit of {app.config['MAX_UPLOAD_BYTES'] // (1024 * 1024)} MiB"
        if _wants_json():
            return api_error(code, message, status)
        title = "Too many files" if code == "too_many_files" else exc.name
        return render_template("error.html", status=status, title=title, message=message), status

    @app.errorhandler(OperationalError)
    @app.errorhandler(InterfaceError)
    def _database_unavailable(exc: Exception):
        # The database refused or dropped the connection (a restart, a failover, SQLite locked past its
        # busy timeout): nothing was written, and the same request will work again in a moment.
        app.logger.exception("database unavailable on %s %s", request.method, request.path)
        message = "the database is unavailable for a moment; nothing was saved: try again in a few seconds"
        if _wants_json():
            resp, status = api_error("database_unavailable", message, 503)
        else:
            resp = app.make_response((render_template("error.html", status=503, title="Try again",
                                                      message=message), 503))
            status = 503
        resp.headers["Retry-After"] = "5"
        return resp, status

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception):
        app.logger.exception("unhandled error on %s %s", request.method, request.path)
        if _wants_json():
            return api_error("internal", "an internal error occurred; it has been logged", 500)
        return render_template("error.html", status=500, title="Internal error",
                               message="Something went wrong on our side; it has been logged."), 500


def _register_template_helpers(app: Flask) -> None:
    from datetime import datetime

    @app.template_filter("dt")
    def _dt(value: datetime | str | None) -> str:
        if isinstance(value, str):   # an ISO time kept in a cached board (JSON)
            value = datetime.fromisoformat(value)
        return value.strftime("%Y-%m-%d %H:%M UTC") if value else "—"

    @app.template_filter("score")
    def _score(value) -> str:
        return "n/a" if value is None else f"{value:.2f}"

    @app.template_filter("reason_for_viewer")
    def _reason_for_viewer(reason: str | None) -> str | None:
        from flask_login import current_user

        from .services.reasons import reason_for

        return reason_for(reason, current_user)

    @app.template_filter("filesize")
    def _filesize(n: int) -> str:
        for unit in ("bytes", "KiB", "MiB", "GiB"):
            if n < 1024 or unit == "GiB":
                return f"{n} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
            n /= 1024
        return str(n)

    @app.context_processor
    def _globals():
        from flask_login import current_user

        return {"current_user": current_user}
