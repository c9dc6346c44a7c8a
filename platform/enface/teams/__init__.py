"""Teams: a captain creates one, members join with its invite code."""

from flask import Blueprint

bp = Blueprint("teams", __name__)

from . import views  # noqa: E402,F401
