"""Test sets for participants, the submission form, my submissions, the submission page."""

from flask import Blueprint

bp = Blueprint("submissions", __name__)

from . import views  # noqa: E402,F401
