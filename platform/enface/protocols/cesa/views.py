"""cESA's blueprint: its static files and templates (its answers go through the core's autosave)."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("cesa", __name__, url_prefix="/protocols/cesa", static_folder="static", template_folder="templates")
