"""The BWS protocol's own routes: its static files and templates (the pages are the core's)."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("bws", __name__, url_prefix="/protocols/bws", static_folder="static", template_folder="templates")
