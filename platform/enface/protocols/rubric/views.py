"""The rubric protocol's own routes: its static files and templates (the pages are the core's)."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("rubric", __name__, url_prefix="/protocols/rubric", static_folder="static",
               template_folder="templates")
