"""The leaderboard pages and their CSV/JSON downloads; the data comes from services.leaderboard."""

from flask import Blueprint

bp = Blueprint("leaderboard", __name__)

from . import views  # noqa: E402,F401
