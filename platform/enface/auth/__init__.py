"""Registration, login, logout, password change and reset, API tokens."""

from flask import Blueprint

bp = Blueprint("auth", __name__)

from . import views  # noqa: E402,F401
