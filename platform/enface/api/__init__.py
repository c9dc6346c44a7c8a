"""The JSON API (``/api/v1``): bearer tokens, JSON everywhere, errors as ``{"error": {code, message, details}}``."""

from flask import Blueprint

bp = Blueprint("api", __name__)

from . import views  # noqa: E402,F401
