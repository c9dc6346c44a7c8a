"""Request ids on every request, and JSON-lines logs when ``ENFACE_LOG_FORMAT=json``.

* Every response carries ``X-Request-ID``: the one the reverse proxy sent (letters, digits, ``.-_``,
  at most 64), else a new random one. Every log record made while the request runs has it as
  ``request_id`` (a :class:`logging.Filter` on the handler), so one request's lines can be found.
* ``ENFACE_LOG_FORMAT=json``: the root logger writes one JSON object per line to stderr (time, level,
  logger, message, request_id, exception) and the app logs one ``enface.access`` line per request
  (method, route, status, duration). The route is the URL rule (``/auth/reset/<token>``), never the
  path itself: paths may hold capability tokens. Query strings and bodies are never logged.
"""

from __future__ import annotations

import contextvars
import json
import logging
import re
import sys
import time
import uuid
from datetime import datetime, timezone

FORMATS = ("text", "json")
HEADER = "X-Request-ID"
_VALID_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
_request_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("enface_request_id", default=None)
_HANDLER_MARK = "_enface_json_handler"


def current_request_id() -> str | None:
    return _request_id.get()


class RequestIdFilter(logging.Filter):
    """Adds ``record.request_id`` (None outside a request)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = _request_id.get()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per record; ``extra={"fields": {...}}`` adds fields (the access line's)."""

    def format(self, record: logging.LogRecord) -> str:
        out = {"time": datetime.fromtimestamp(record.created, timezone.utc).isoformat(timespec="milliseconds"),
               "level": record.levelname, "logger": record.name, "message": record.getMessage(),
               "request_id": getattr(record, "request_id", None) or _request_id.get()}
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            out.update(fields)
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False, default=str)


def configure_json_logging(level: int = logging.INFO, stream=None) -> logging.Handler:
    """The root logger's JSON handler on ``stream`` (stderr), installed once per process."""
    root = logging.getLogger()
    for handler in root.handlers:
        if getattr(handler, _HANDLER_MARK, False):
            return handler
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(RequestIdFilter())
    setattr(handler, _HANDLER_MARK, True)
    for other in list(root.handlers):   # one format per process: the JSON lines replace the text handler
        root.removeHandler(other)
    root.addHandler(handler)
    root.setLevel(min(root.level or level, level))
    return handler


def init_app(app) -> None:
    """Request ids for every request; with LOG_FORMAT json, the JSON handler and the access lines."""
    from flask import g, request

    json_logs = app.config.get("LOG_FORMAT") == "json"
    if json_logs:
        configure_json_logging()
    access = logging.getLogger("enface.access")

    def _start_request():
        sent = request.headers.get(HEADER, "")
        g.request_id = sent if _VALID_ID.fullmatch(sent) else uuid.uuid4().hex
        g.request_started = time.perf_counter()
        g.request_id_token = _request_id.set(g.request_id)

    # first of the app's before_request functions: a request the rate limiter refuses has an id too
    app.before_request_funcs.setdefault(None, []).insert(0, _start_request)

    @app.after_request
    def _finish_request(response):
        request_id = g.get("request_id")
        if request_id:
            response.headers[HEADER] = request_id
        if json_logs and request_id:
            rule = request.url_rule.rule if request.url_rule is not None else request.path[:200]
            access.info("%s %s %s", request.method, rule, response.status_code, extra={"fields": {
                "method": request.method, "route": rule, "endpoint": request.endpoint, "status": response.status_code,
                "duration_ms": round((time.perf_counter() - g.get("request_started", time.perf_counter())) * 1000,
                                     1)}})
        return response

    @app.teardown_request
    def _forget_request(_exc=None):
        token = g.pop("request_id_token", None)
        if token is not None:
            _request_id.reset(token)
